/**
 * Protobuf ⇄ JSON the way kube-apiserver's Go types do it: a protobuf body becomes the JSON that
 * `json.Marshal` writes for the Go struct it decodes into, and a stored JSON object becomes the
 * message gogo-protobuf writes for the struct `json.Unmarshal` fills from it.
 *
 * Go's rules, which protobuf's own JSON mapping does not share:
 * - fields held by value are always in protobuf (gogo writes `""`, `0`, `false` and empty
 *   messages); pointers only when set;
 * - in JSON, `omitempty` drops zero scalars, empty slices and maps and nil pointers, but never a
 *   struct (`status: {}`); a nil slice, map or pointer without `omitempty` is `null`
 *   (`ClusterRole.rules`, `Deployment.spec.selector`);
 * - embedded structs are inline in JSON and a nested message in protobuf (`Probe`'s handler,
 *   `Volume`'s source);
 * - `metav1.Time` is `{seconds, nanos}` read back at whole seconds, `null` in JSON when zero;
 *   `MicroTime` keeps microseconds; `Quantity` is its string; `IntOrString` a number or a string;
 *   `FieldsV1` and `RawExtension` hold JSON bytes; `[]byte` is base64 in JSON; map keys are sorted.
 *
 * @module
 */
import type { FieldDecl, MessageDecl, ScalarType, SpecialType } from './declarations.js';
import { messages } from './messages.js';

type Plain = Record<string, unknown>;

const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

function declOf(name: string): MessageDecl {
  const m = messages().message(name);
  if (!m) throw new Error(`protobuf message ${name} is not declared`);
  return m.decl;
}

// ----------------------------------------------------------------------------------- times

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function formatTime(seconds: number, micros: number | undefined): string {
  const d = new Date(seconds * 1000);
  const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return micros === undefined ? `${base}Z` : `${base}.${pad(micros, 6)}Z`;
}

/** RFC 3339 text → seconds and nanoseconds; undefined when it is not a time. */
export function parseTime(text: string): { seconds: number; nanos: number } | undefined {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/i.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1] ?? ''}${m[3] ?? 'Z'}`);
  if (Number.isNaN(ms)) return undefined;
  return { seconds: Math.floor(ms / 1000), nanos: Number((m[2] ?? '').padEnd(9, '0')) };
}

// ---------------------------------------------------------------------- protobuf → Go JSON

function zeroScalar(t: ScalarType): unknown {
  if (t === 'string' || t === 'bytes') return '';
  if (t === 'bool') return false;
  return 0;
}

const isZero = (v: unknown): boolean => v === '' || v === 0 || v === false;

function specialToJson(name: SpecialType, v: Plain | undefined): unknown {
  switch (name) {
    case 'Time':
    case 'MicroTime': {
      // an empty message is the zero time (metav1.Time.Unmarshal), which JSON writes as null
      if (!v || Object.keys(v).length === 0) return null;
      const seconds = Number(v['seconds'] ?? 0);
      // Time drops the nanoseconds (time_proto.go); MicroTime keeps microseconds
      if (name === 'Time') return formatTime(seconds, undefined);
      return formatTime(seconds, Math.floor(Number(v['nanos'] ?? 0) / 1000));
    }
    case 'Quantity':
      return typeof v?.['string'] === 'string' && v['string'] !== '' ? v['string'] : '0';
    case 'IntOrString':
      if (Number(v?.['type'] ?? 0) !== 1) return Number(v?.['intVal'] ?? 0);
      return typeof v?.['strVal'] === 'string' ? v['strVal'] : '';
    case 'FieldsV1':
    case 'RawExtension': {
      const raw = typeof v?.['raw'] === 'string' ? Buffer.from(v['raw'], 'base64') : undefined;
      if (!raw || raw.length === 0) return null;
      try {
        return JSON.parse(raw.toString('utf8')) as unknown;
      } catch {
        return null;
      }
    }
  }
}

function valueToJson(f: FieldDecl, v: unknown): unknown {
  switch (f.type.kind) {
    case 'scalar':
      return v ?? zeroScalar(f.type.name);
    case 'special':
      return specialToJson(f.type.name, isPlain(v) ? v : undefined);
    case 'message':
      return messageToGoJson(f.type.name, isPlain(v) ? v : {});
  }
}

/**
 * A decoded message (protobufjs `toObject` with `longs: Number, bytes: String`, no defaults) → the
 * JSON Go writes for it.
 *
 * @param name the declared message name, e.g. `core.v1.ConfigMap`.
 */
export function messageToGoJson(name: string, plain: Plain): Plain {
  const out: Plain = {};
  for (const f of declOf(name).fields) {
    const v = plain[f.json];
    if (f.inline) {
      if (f.type.kind === 'message') Object.assign(out, messageToGoJson(f.type.name, isPlain(v) ? v : {}));
      continue;
    }
    switch (f.shape) {
      case 'value': {
        const json = valueToJson(f, v);
        if (f.type.kind === 'scalar' && f.omitempty && isZero(json)) continue;
        out[f.json] = json;
        break;
      }
      case 'pointer':
        if (v === undefined || v === null) {
          if (!f.omitempty) out[f.json] = null;
        } else out[f.json] = valueToJson(f, v);
        break;
      case 'repeated': {
        const items = Array.isArray(v) ? v : [];
        if (items.length === 0) {
          if (!f.omitempty) out[f.json] = null;
        } else out[f.json] = items.map((item) => valueToJson(f, item));
        break;
      }
      case 'map': {
        const entries = isPlain(v) ? Object.keys(v).sort() : [];
        if (entries.length === 0) {
          if (!f.omitempty) out[f.json] = null;
          break;
        }
        const m: Plain = {};
        for (const k of entries) m[k] = valueToJson(f, (v as Plain)[k]);
        out[f.json] = m;
        break;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------- Go JSON → protobuf

function scalarFromJson(t: ScalarType, v: unknown): unknown {
  switch (t) {
    case 'string':
      return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
    case 'bool':
      return v === true;
    case 'bytes':
      return typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.alloc(0);
    case 'int32':
    case 'int64':
    case 'double': {
      const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : 0;
      if (!Number.isFinite(n)) return 0;
      return t === 'double' ? n : Math.trunc(n);
    }
  }
}

function specialFromJson(name: SpecialType, v: unknown): Plain {
  switch (name) {
    case 'Time':
    case 'MicroTime': {
      // the zero time marshals to nothing (metav1.Time.Marshal)
      const t = typeof v === 'string' ? parseTime(v) : undefined;
      return t ? { seconds: t.seconds, nanos: name === 'Time' ? t.nanos : t.nanos - (t.nanos % 1000) } : {};
    }
    case 'Quantity':
      return { string: typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '0' };
    case 'IntOrString':
      return typeof v === 'string'
        ? { type: 1, intVal: 0, strVal: v }
        : { type: 0, intVal: typeof v === 'number' ? Math.trunc(v) : 0, strVal: '' };
    case 'FieldsV1':
    case 'RawExtension':
      return v === undefined || v === null ? {} : { raw: Buffer.from(JSON.stringify(v), 'utf8') };
  }
}

function valueFromJson(f: FieldDecl, v: unknown): unknown {
  switch (f.type.kind) {
    case 'scalar':
      return scalarFromJson(f.type.name, v);
    case 'special':
      return specialFromJson(f.type.name, v);
    case 'message':
      return messageFromGoJson(f.type.name, isPlain(v) ? v : {});
  }
}

/**
 * A JSON object (as stored) → the plain message protobufjs encodes as gogo-protobuf would: every
 * field held by value set (zero when absent), pointers only when not null, map keys sorted.
 *
 * @param name the declared message name, e.g. `core.v1.ConfigMap`.
 */
export function messageFromGoJson(name: string, json: Plain): Plain {
  const out: Plain = {};
  for (const f of declOf(name).fields) {
    if (f.inline) {
      if (f.type.kind === 'message') out[f.json] = messageFromGoJson(f.type.name, json);
      continue;
    }
    const v = json[f.json];
    switch (f.shape) {
      case 'value':
        out[f.json] = valueFromJson(f, v);
        break;
      case 'pointer':
        if (v !== undefined && v !== null) out[f.json] = valueFromJson(f, v);
        break;
      case 'repeated':
        if (Array.isArray(v) && v.length > 0) out[f.json] = v.map((item) => valueFromJson(f, item));
        break;
      case 'map':
        if (isPlain(v)) {
          const keys = Object.keys(v).sort();
          if (keys.length > 0) {
            const m: Plain = {};
            for (const k of keys) m[k] = valueFromJson(f, v[k]);
            out[f.json] = m;
          }
        }
        break;
    }
  }
  return out;
}
