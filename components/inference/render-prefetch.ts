/**
 * The per-node prefetch DaemonSet of the `local-nvme` model cache: on every node of the GPU pool, a pod of a small
 * image (`inference.prefetchImage`, ~50 MB) runs the same two init containers as the workers (`cache-owner`, then
 * `model-prefetch` under the node-level lock) and then idles. Pure.
 *
 * Why, besides the workers' own init containers: a worker pod pulls the ~35 GB serving image before its first
 * container starts, so a download in its init container begins only after the pull. This pod's image is pulled in
 * seconds, so the download runs while the workers pull: the kubelet pulls the two pods' images at once (the EKS
 * AL2023 AMI's kubelet sets `serializeImagePulls: false`, tests/contracts/facts/eks-node-image-pull.json). The
 * workers keep their init containers: once the DaemonSet finished, theirs find the completion marker and return at
 * once; while it downloads, they wait on its lock; if it failed, a worker downloads itself, and a failure is on the
 * pod that cannot start, as before (`./prefetch.ts`).
 */
import type { ResolvedInference } from "./args";
import { nodeCacheAnnotations, nodeCacheInitContainers, nodeCacheVolumes, usesNodeCache } from "./render-cache";

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
