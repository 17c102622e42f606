{{/* The name of every object of the release: the release name, at most 63 characters. */}}
{{- define "copyrator.fullname" -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{/* Labels selecting the release's pods. */}}
{{- define "copyrator.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "copyrator.labels" -}}
{{ include "copyrator.selectorLabels" . }}
app.kubernetes.io/component: operator
app.kubernetes.io/part-of: rxkube-examples
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end }}
