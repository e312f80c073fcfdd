/**
 * The `local-nvme` model cache in the worker pods: the node cache (a hostPath on the node's NVMe RAID0 array), the
 * two init containers that fill it once per node, the read-only mount the engine loads from, and the ConfigMap
 * carrying the prefetch script; and the prefetch DaemonSet, which reuses these containers with a small image. Pure.
 * Why init containers as well as the DaemonSet: the comment of `renderPrefetchDaemonSet` below.
 *
 * Permissions: kubelet creates the hostPath directory (`DirectoryOrCreate`) owned by root, mode 0755. The first
 * init container, `cache-owner`, is the only part that runs as root: with every capability dropped except CHOWN,
 * no privilege escalation and a read-only root file system, it hands that one directory (not recursively, not
 * its parent) to the workers' UID. The prefetch then runs as that non-root UID, writes only there, and the engine
 * mounts it read-only. Nothing is privileged. A hostPath volume needs a namespace whose Pod Security admission
 * level allows it (`privileged`; `baseline` forbids hostPath): the graph's namespace sets no PSA label.
 */
import { graphNames } from "../_shared/names";
import { ModelCacheMode } from "./model-load";
import { ResolvedInference, DEFAULT_MODEL_REVISION } from "./args";
import type { DgdInitContainer, EnvVar, K8sVolume, K8sVolumeMount } from "./dgd";
import { RUNTIME_DEFAULT } from "./pod-security";
import { Annotation } from "../_shared/annotations";
import { createHash } from "crypto";
import { packageFile } from "../_shared/package-file";
import * as fs from "fs";
import * as path from "path";

/** Volume names in the worker pod. */
export const NODE_CACHE_VOLUME = "model-cache-node";
export const PREFETCH_VOLUME = "model-prefetch";
/** Where the prefetch script's ConfigMap is mounted. */
export const PREFETCH_DIR = "/opt/dynamo-efa/prefetch";

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
  // Every init container under the runtime's default seccomp filter, as the main containers are: the worker pods set
  // none at pod level (the operator owns the pod spec), so each container states it (Pod Security "restricted").
  const locked = { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, seccompProfile: RUNTIME_DEFAULT };
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

/*
 * The per-node prefetch DaemonSet of the `local-nvme` model cache: on every node of the GPU pool, a pod of a small
 * image (`inference.prefetchImage`, ~50 MB) runs the same two init containers as the workers (`cache-owner`, then
 * `model-prefetch` under the node-level lock) and then idles. Pure.
 *
 * Why, besides the workers' own init containers: a worker pod pulls the serving image (tens of GB) before its first
 * container starts, so a download in its init container begins only after the pull. This pod's image is pulled in
 * seconds, so the download runs while the workers pull: the kubelet pulls the two pods' images at once (the EKS
 * AL2023 AMI's kubelet sets `serializeImagePulls: false`, tests/contracts/facts/eks-node-image-pull.json). The
 * workers keep their init containers: once the DaemonSet finished, theirs find the completion marker and return at
 * once; while it downloads, they wait on its lock; if it failed, a worker downloads itself, and a failure is on the
 * pod that cannot start, as before (the node cache's init containers, above).
 */

/** What the prefetch pod asks for: the download is one HTTP stream (network-bound); the pod holds it while it idles. */
export const PREFETCH_POD_RESOURCES = {
  requests: { cpu: "250m", memory: "256Mi" },
  limits: { memory: "1Gi" },
} as const;
/** The idle container after the download: nothing to do but keep the pod (and its node's slot) Running. */
const IDLE_RESOURCES = { requests: { cpu: "10m", memory: "16Mi" }, limits: { memory: "64Mi" } } as const;

/** Beyond the download budget: image pulls and scheduling of a rollout, seconds (the project's choice). */
const ROLLOUT_SLACK_SECONDS = 600;

/** Name of the DaemonSet (and its pods' `app.kubernetes.io/instance`). */
export function prefetchDaemonSetName(r: Pick<ResolvedInference, "graphName">): string {
  return `${r.graphName}-model-prefetch`;
}

/** The DaemonSet, in `local-nvme` mode on a pool with a local NVMe array; undefined otherwise. */
export function renderPrefetchDaemonSet(r: ResolvedInference) {
  if (!usesNodeCache(r) || !r.pool.localNvme) return undefined;
  const labels = {
    "app.kubernetes.io/name": "model-prefetch",
    "app.kubernetes.io/instance": prefetchDaemonSetName(r),
    "app.kubernetes.io/part-of": "dynamo-efa",
  };
  const image = r.prefetchImage;
  const init = nodeCacheInitContainers(r, image).map((c) =>
    c.name === "model-prefetch" ? { ...c, resources: PREFETCH_POD_RESOURCES } : c,
  );
  return {
    apiVersion: "apps/v1" as const,
    kind: "DaemonSet" as const,
    metadata: {
      name: prefetchDaemonSetName(r),
      namespace: r.namespace,
      labels,
      // `pulumi up` waits for an update's rollout: a node whose cache is empty (a replaced node) downloads first.
      annotations: { "pulumi.com/timeoutSeconds": String(r.modelDownloadBudgetSeconds + ROLLOUT_SLACK_SECONDS) },
    },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: nodeCacheAnnotations(r) },
        spec: {
          nodeSelector: { ...r.pool.nodeSelector },
          tolerations: r.pool.taints.map((t) => ({ key: t.key, operator: "Equal", value: t.value, effect: t.effect })),
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 5,
          securityContext: { seccompProfile: { type: "RuntimeDefault" } },
          initContainers: init,
          containers: [
            {
              name: "idle",
              image,
              command: ["sleep", "infinity"],
              resources: IDLE_RESOURCES,
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                runAsUser: r.runAsUser,
                runAsGroup: r.runAsUser,
                capabilities: { drop: ["ALL"] },
              },
            },
          ],
          volumes: nodeCacheVolumes(r),
        },
      },
    },
  };
}

/*
 * The per-node model prefetch of the `local-nvme` model cache: the script every worker pod runs as its first
 * init container (`./prefetch/prefetch.py`, Python standard library only: the combined image has Python 3.12),
 * and the paths it shares with the workers. Pure apart from reading the script file once.
 *
 * Besides the workers, a DaemonSet of a small image runs the same script as soon as a node joins, so the download
 * overlaps the workers' pull of the serving image (`renderPrefetchDaemonSet`, below); the workers keep theirs, for this reason.
 * Why an init container with a node-level lock, not a DaemonSet with a readiness gate alone: the workers must not
 * start before the weights are complete, and only their own pod's init containers can hold a container back
 * (a DaemonSet's readiness gates nothing in another pod, so each worker would need a waiting init container
 * anyway). In the worker pod, a failed download is on the pod that cannot start (`Init:Error`, with the model
 * named in its log) and keeps the graph from turning Ready; the lock is a kernel `flock`, released when its
 * holder dies, so a killed pod never wedges the node; and the prefetch runs exactly where and when a worker
 * needs the model, with the image, Secret and model of that worker, with no second workload to keep in step.
 */

/** The script's file name, and its text (shipped to the cluster in a ConfigMap). */
export const PREFETCH_FILE = "prefetch.py";

/** The script, read where it ships (components/_shared/package-file.ts). */
export const PREFETCH_SCRIPT: string = fs.readFileSync(
  packageFile(__dirname, path.join("prefetch", PREFETCH_FILE), `inference/prefetch/${PREFETCH_FILE}`),
  "utf8",
);
/** sha256 of the script, put on the pod template so a changed script rolls the workers. */
export const PREFETCH_SHA256 = createHash("sha256").update(PREFETCH_SCRIPT).digest("hex");

/**
 * The directory of the completion markers under the cache mount: the script writes a revision's marker last, after
 * its model directory is in place, as `.complete/<org>--<name>--<revision>` (outside the model directory, so no file
 * of the repository can stand in for it). Mirrors `MARKERS` and `cache_key` in the script.
 */
export const COMPLETION_MARKERS_DIR = ".complete";
/**
 * A model revision's completion marker under the cache mount; `metadataOnly` gives the marker of a METADATA_ONLY run
 * (the Frontend's card files), whose key is its own (`METADATA_KEY_SUFFIX` in the script) so a full run never takes
 * it for complete weights.
 */
export function completionMarker(
  mount: string,
  model: string,
  revision = DEFAULT_MODEL_REVISION,
  metadataOnly = false,
): string {
  return `${mount}/${COMPLETION_MARKERS_DIR}/${model.replace("/", "--")}--${revision}${metadataOnly ? "+metadata" : ""}`;
}
/** Subdirectory of the node's NVMe array that holds the cache (a hostPath). */
export const NODE_CACHE_SUBDIR = "dynamo-efa-model-cache";
/** Where the prefetch (read-write) and the workers (read-only) mount the node cache. */
export const NODE_CACHE_MOUNT = "/model-cache";
/** The node cache's host directory on an array mounted at `arrayMountPath`. */
export function nodeCacheHostPath(arrayMountPath: string): string {
  return `${arrayMountPath.replace(/\/+$/, "")}/${NODE_CACHE_SUBDIR}`;
}

/** The directory of a model revision under the cache mount: what the worker passes as `--model`. Mirrors `model_dir` in the script. */
export function modelCacheDir(mount: string, model: string, revision = DEFAULT_MODEL_REVISION): string {
  return `${mount}/models/${model.replace("/", "--")}/${revision}`;
}
