/**
 * The `local-nvme` model cache in the worker pods: the node cache (a hostPath on the node's NVMe RAID0 array), the
 * two init containers that fill it once per node, the read-only mount the engine loads from, and the ConfigMap
 * carrying the prefetch script. Pure. Why init containers as well as the prefetch DaemonSet (`./render-prefetch.ts`,
 * which reuses these containers with a small image): `./prefetch.ts`.
 *
 * Permissions: kubelet creates the hostPath directory (`DirectoryOrCreate`) owned by root, mode 0755. The first
 * init container, `cache-owner`, is the only part that runs as root: with every capability dropped except CHOWN,
 * no privilege escalation and a read-only root file system, it hands that one directory (not recursively, not
 * its parent) to the workers' UID. The prefetch then runs as that non-root UID, writes only there, and the engine
 * mounts it read-only. Nothing is privileged. A hostPath volume needs a namespace whose Pod Security admission
 * level allows it (`privileged`; `baseline` forbids hostPath): the graph's namespace sets no PSA label.
 */
import { graphNames } from "../_shared/names";
import { ModelCacheMode, ResolvedInference } from "./args";
import type { DgdInitContainer, EnvVar, K8sVolume, K8sVolumeMount } from "./dgd-types";
import {
  modelCacheDir,
  NODE_CACHE_MOUNT,
  nodeCacheHostPath,
  PREFETCH_FILE,
  PREFETCH_SCRIPT,
  PREFETCH_SHA256,
} from "./prefetch";
import { Annotation } from "../_shared/annotations";

/** Volume names in the worker pod. */
export const NODE_CACHE_VOLUME = "model-cache-node";
export const PREFETCH_VOLUME = "model-prefetch";
/** Where the prefetch script's ConfigMap is mounted. */
export const PREFETCH_DIR = "/opt/dynamo-efa/prefetch";

/** The graph's cache annotations. */
export function cacheGraphAnnotations(r: ResolvedInference): Record<string, string> {
  return {
    [Annotation.Model]: r.model,
    [Annotation.ModelCache]: r.modelCacheMode,
    [Annotation.ModelRevision]: r.modelRevision,
    ...(usesNodeCache(r) ? { [Annotation.ModelDownloadBudgetSeconds]: String(r.modelDownloadBudgetSeconds) } : {}),
  };
}

/** True in `local-nvme` mode. */
export function usesNodeCache(r: Pick<ResolvedInference, "modelCacheMode">): boolean {
  return r.modelCacheMode === ModelCacheMode.LocalNvme;
}

/** What the engine's `--model` names: the node cache's directory of the model in `local-nvme` mode, else the model id. */
export function engineModelArg(r: Pick<ResolvedInference, "modelCacheMode" | "model" | "modelRevision">): string {
  return usesNodeCache(r) ? modelCacheDir(NODE_CACHE_MOUNT, r.model, r.modelRevision) : r.model;
}

/** Name of the ConfigMap holding the prefetch script. */
export function prefetchConfigMapName(r: Pick<ResolvedInference, "graphName">): string {
  return `${r.graphName}-model-prefetch`;
}

/** The ConfigMap with the prefetch script, in `local-nvme` mode. */
export function renderPrefetchConfigMap(r: ResolvedInference) {
  if (!usesNodeCache(r)) return undefined;
  return {
    apiVersion: "v1" as const,
    kind: "ConfigMap" as const,
    metadata: { name: prefetchConfigMapName(r), namespace: r.namespace },
    data: { [PREFETCH_FILE]: PREFETCH_SCRIPT },
  };
}

/** The pod volumes of the node cache and the script. */
export function nodeCacheVolumes(r: ResolvedInference): K8sVolume[] {
  if (!usesNodeCache(r) || !r.pool.localNvme) return [];
  return [
    {
      name: NODE_CACHE_VOLUME,
      hostPath: { path: nodeCacheHostPath(r.pool.localNvme.mountPath), type: "DirectoryOrCreate" },
    },
    { name: PREFETCH_VOLUME, configMap: { name: prefetchConfigMapName(r), defaultMode: 0o444 } },
  ];
}

/** The engine container's read-only mount of the node cache. */
export function nodeCacheMainMounts(r: ResolvedInference): K8sVolumeMount[] {
  return usesNodeCache(r) ? [{ name: NODE_CACHE_VOLUME, mountPath: NODE_CACHE_MOUNT, readOnly: true }] : [];
}

/** The engine's env in `local-nvme` mode: never reach Hugging Face (the weights are local and complete). */
export function nodeCacheEnv(r: ResolvedInference): EnvVar[] {
  return usesNodeCache(r) ? [{ name: "HF_HUB_OFFLINE", value: "1" }] : [];
}

const token = (secret: string): EnvVar => ({
  name: "HF_TOKEN",
  valueFrom: { secretKeyRef: { name: secret, key: "HF_TOKEN" } },
});

/** The two init containers: `cache-owner` (root, CHOWN only) and `model-prefetch` (non-root). */
export function nodeCacheInitContainers(r: ResolvedInference, image: string): DgdInitContainer[] {
  if (!usesNodeCache(r)) return [];
  const uid = String(r.runAsUser);
  const locked = { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true };
  const small = { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "128Mi" } };
  return [
    {
      name: "cache-owner",
      image,
      command: ["chown", `${uid}:${uid}`, NODE_CACHE_MOUNT],
      securityContext: {
        ...locked,
        runAsUser: 0,
        runAsNonRoot: false,
        capabilities: { drop: ["ALL"], add: ["CHOWN"] },
      },
      resources: small,
      volumeMounts: [{ name: NODE_CACHE_VOLUME, mountPath: NODE_CACHE_MOUNT }],
    },
    {
      name: "model-prefetch",
      image,
      command: ["python3", `${PREFETCH_DIR}/${PREFETCH_FILE}`],
      env: [
        { name: "MODEL_ID", value: r.model },
        { name: "MODEL_REVISION", value: r.modelRevision },
        { name: "CACHE_ROOT", value: NODE_CACHE_MOUNT },
        { name: "DOWNLOAD_BUDGET_SECONDS", value: String(r.modelDownloadBudgetSeconds) },
        token(r.hfSecretName ?? graphNames(r.graphName, r.namespace).hfSecret),
      ],
      securityContext: {
        ...locked,
        runAsNonRoot: true,
        runAsUser: r.runAsUser,
        runAsGroup: r.runAsUser,
        capabilities: { drop: ["ALL"] },
      },
      resources: { requests: { cpu: "2", memory: "2Gi" }, limits: { memory: "8Gi" } },
      volumeMounts: [
        { name: NODE_CACHE_VOLUME, mountPath: NODE_CACHE_MOUNT },
        { name: PREFETCH_VOLUME, mountPath: PREFETCH_DIR, readOnly: true },
      ],
    },
  ];
}

/** Pod annotations in `local-nvme` mode. */
export function nodeCacheAnnotations(r: ResolvedInference): Record<string, string> {
  return usesNodeCache(r) ? { [Annotation.PrefetchSha256]: PREFETCH_SHA256 } : {};
}
