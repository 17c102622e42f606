/**
 * Protobuf messages of core/v1 volume sources (pod volumes, persistent volume claims): JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** core/v1 volume sources (pod volumes, persistent volume claims). */
export const CORE_V1_VOLUME: MessageDeclarations = {
  'core.v1.AWSElasticBlockStoreVolumeSource': `
    volumeID 1 string
    fsType 2 string omitempty
    partition 3 int32 omitempty
    readOnly 4 bool omitempty`,
  'core.v1.AzureDiskVolumeSource': `
    diskName 1 string
    diskURI 2 string
    cachingMode 3 *string omitempty
    fsType 4 *string omitempty
    readOnly 5 *bool omitempty
    kind 6 *string omitempty`,
  'core.v1.AzureFileVolumeSource': `
    secretName 1 string
    shareName 2 string
    readOnly 3 bool omitempty`,
  'core.v1.CSIVolumeSource': `
    driver 1 string
    readOnly 2 *bool omitempty
    fsType 3 *string omitempty
    volumeAttributes 4 map[string]string omitempty
    nodePublishSecretRef 5 *core.v1.LocalObjectReference omitempty`,
  'core.v1.CephFSVolumeSource': `
    monitors 1 []string
    path 2 string omitempty
    user 3 string omitempty
    secretFile 4 string omitempty
    secretRef 5 *core.v1.LocalObjectReference omitempty
    readOnly 6 bool omitempty`,
  'core.v1.CinderVolumeSource': `
    volumeID 1 string
    fsType 2 string omitempty
    readOnly 3 bool omitempty
    secretRef 4 *core.v1.LocalObjectReference omitempty`,
  'core.v1.ConfigMapProjection': `
    ...localObjectReference 1 core.v1.LocalObjectReference
    items 2 []core.v1.KeyToPath omitempty
    optional 4 *bool omitempty`,
  'core.v1.ConfigMapVolumeSource': `
    ...localObjectReference 1 core.v1.LocalObjectReference
    items 2 []core.v1.KeyToPath omitempty
    defaultMode 3 *int32 omitempty
    optional 4 *bool omitempty`,
  'core.v1.DownwardAPIProjection': `
    items 1 []core.v1.DownwardAPIVolumeFile omitempty`,
  'core.v1.DownwardAPIVolumeFile': `
    path 1 string
    fieldRef 2 *core.v1.ObjectFieldSelector omitempty
    resourceFieldRef 3 *core.v1.ResourceFieldSelector omitempty
    mode 4 *int32 omitempty`,
  'core.v1.DownwardAPIVolumeSource': `
    items 1 []core.v1.DownwardAPIVolumeFile omitempty
    defaultMode 2 *int32 omitempty`,
  'core.v1.EmptyDirVolumeSource': `
    medium 1 string omitempty
    sizeLimit 2 *Quantity omitempty`,
  'core.v1.EphemeralVolumeSource': `
    volumeClaimTemplate 1 *core.v1.PersistentVolumeClaimTemplate omitempty`,
  'core.v1.FCVolumeSource': `
    targetWWNs 1 []string omitempty
    lun 2 *int32 omitempty
    fsType 3 string omitempty
    readOnly 4 bool omitempty
    wwids 5 []string omitempty`,
  'core.v1.FlexVolumeSource': `
    driver 1 string
    fsType 2 string omitempty
    secretRef 3 *core.v1.LocalObjectReference omitempty
    readOnly 4 bool omitempty
    options 5 map[string]string omitempty`,
  'core.v1.FlockerVolumeSource': `
    datasetName 1 string omitempty
    datasetUUID 2 string omitempty`,
  'core.v1.GCEPersistentDiskVolumeSource': `
    pdName 1 string
    fsType 2 string omitempty
    partition 3 int32 omitempty
    readOnly 4 bool omitempty`,
  'core.v1.GitRepoVolumeSource': `
    repository 1 string
    revision 2 string omitempty
    directory 3 string omitempty`,
  'core.v1.GlusterfsVolumeSource': `
    endpoints 1 string
    path 2 string
    readOnly 3 bool omitempty`,
  'core.v1.HostPathVolumeSource': `
    path 1 string
    type 2 *string omitempty`,
  'core.v1.ISCSIVolumeSource': `
    targetPortal 1 string
    iqn 2 string
    lun 3 int32
    iscsiInterface 4 string omitempty
    fsType 5 string omitempty
    readOnly 6 bool omitempty
    portals 7 []string omitempty
    chapAuthDiscovery 8 bool omitempty
    chapAuthSession 11 bool omitempty
    secretRef 10 *core.v1.LocalObjectReference omitempty
    initiatorName 12 *string omitempty`,
  'core.v1.NFSVolumeSource': `
    server 1 string
    path 2 string
    readOnly 3 bool omitempty`,
  'core.v1.PersistentVolumeClaimSpec': `
    accessModes 1 []string omitempty
    selector 4 *meta.v1.LabelSelector omitempty
    resources 2 core.v1.ResourceRequirements
    volumeName 3 string omitempty
    storageClassName 5 *string omitempty
    volumeMode 6 *string omitempty
    dataSource 7 *core.v1.TypedLocalObjectReference omitempty
    dataSourceRef 8 *core.v1.TypedLocalObjectReference omitempty`,
  'core.v1.PersistentVolumeClaimTemplate': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 core.v1.PersistentVolumeClaimSpec`,
  'core.v1.PersistentVolumeClaimVolumeSource': `
    claimName 1 string
    readOnly 2 bool omitempty`,
  'core.v1.PhotonPersistentDiskVolumeSource': `
    pdID 1 string
    fsType 2 string omitempty`,
  'core.v1.PortworxVolumeSource': `
    volumeID 1 string
    fsType 2 string omitempty
    readOnly 3 bool omitempty`,
  'core.v1.ProjectedVolumeSource': `
    sources 1 []core.v1.VolumeProjection
    defaultMode 2 *int32 omitempty`,
  'core.v1.QuobyteVolumeSource': `
    registry 1 string
    volume 2 string
    readOnly 3 bool omitempty
    user 4 string omitempty
    group 5 string omitempty
    tenant 6 string omitempty`,
  'core.v1.RBDVolumeSource': `
    monitors 1 []string
    image 2 string
    fsType 3 string omitempty
    pool 4 string omitempty
    user 5 string omitempty
    keyring 6 string omitempty
    secretRef 7 *core.v1.LocalObjectReference omitempty
    readOnly 8 bool omitempty`,
  'core.v1.ScaleIOVolumeSource': `
    gateway 1 string
    system 2 string
    secretRef 3 *core.v1.LocalObjectReference
    sslEnabled 4 bool omitempty
    protectionDomain 5 string omitempty
    storagePool 6 string omitempty
    storageMode 7 string omitempty
    volumeName 8 string omitempty
    fsType 9 string omitempty
    readOnly 10 bool omitempty`,
  'core.v1.SecretProjection': `
    ...localObjectReference 1 core.v1.LocalObjectReference
    items 2 []core.v1.KeyToPath omitempty
    optional 4 *bool omitempty`,
  'core.v1.SecretVolumeSource': `
    secretName 1 string omitempty
    items 2 []core.v1.KeyToPath omitempty
    defaultMode 3 *int32 omitempty
    optional 4 *bool omitempty`,
  'core.v1.ServiceAccountTokenProjection': `
    audience 1 string omitempty
    expirationSeconds 2 *int64 omitempty
    path 3 string`,
  'core.v1.StorageOSVolumeSource': `
    volumeName 1 string omitempty
    volumeNamespace 2 string omitempty
    fsType 3 string omitempty
    readOnly 4 bool omitempty
    secretRef 5 *core.v1.LocalObjectReference omitempty`,
  'core.v1.Volume': `
    name 1 string
    ...volumeSource 2 core.v1.VolumeSource`,
  'core.v1.VolumeProjection': `
    secret 1 *core.v1.SecretProjection omitempty
    downwardAPI 2 *core.v1.DownwardAPIProjection omitempty
    configMap 3 *core.v1.ConfigMapProjection omitempty
    serviceAccountToken 4 *core.v1.ServiceAccountTokenProjection omitempty`,
  'core.v1.VolumeSource': `
    hostPath 1 *core.v1.HostPathVolumeSource omitempty
    emptyDir 2 *core.v1.EmptyDirVolumeSource omitempty
    gcePersistentDisk 3 *core.v1.GCEPersistentDiskVolumeSource omitempty
    awsElasticBlockStore 4 *core.v1.AWSElasticBlockStoreVolumeSource omitempty
    gitRepo 5 *core.v1.GitRepoVolumeSource omitempty
    secret 6 *core.v1.SecretVolumeSource omitempty
    nfs 7 *core.v1.NFSVolumeSource omitempty
    iscsi 8 *core.v1.ISCSIVolumeSource omitempty
    glusterfs 9 *core.v1.GlusterfsVolumeSource omitempty
    persistentVolumeClaim 10 *core.v1.PersistentVolumeClaimVolumeSource omitempty
    rbd 11 *core.v1.RBDVolumeSource omitempty
    flexVolume 12 *core.v1.FlexVolumeSource omitempty
    cinder 13 *core.v1.CinderVolumeSource omitempty
    cephfs 14 *core.v1.CephFSVolumeSource omitempty
    flocker 15 *core.v1.FlockerVolumeSource omitempty
    downwardAPI 16 *core.v1.DownwardAPIVolumeSource omitempty
    fc 17 *core.v1.FCVolumeSource omitempty
    azureFile 18 *core.v1.AzureFileVolumeSource omitempty
    configMap 19 *core.v1.ConfigMapVolumeSource omitempty
    vsphereVolume 20 *core.v1.VsphereVirtualDiskVolumeSource omitempty
    quobyte 21 *core.v1.QuobyteVolumeSource omitempty
    azureDisk 22 *core.v1.AzureDiskVolumeSource omitempty
    photonPersistentDisk 23 *core.v1.PhotonPersistentDiskVolumeSource omitempty
    projected 26 *core.v1.ProjectedVolumeSource omitempty
    portworxVolume 24 *core.v1.PortworxVolumeSource omitempty
    scaleIO 25 *core.v1.ScaleIOVolumeSource omitempty
    storageos 27 *core.v1.StorageOSVolumeSource omitempty
    csi 28 *core.v1.CSIVolumeSource omitempty
    ephemeral 29 *core.v1.EphemeralVolumeSource omitempty`,
  'core.v1.VsphereVirtualDiskVolumeSource': `
    volumePath 1 string
    fsType 2 string omitempty
    storagePolicyName 3 string omitempty
    storagePolicyID 4 string omitempty`,
};
