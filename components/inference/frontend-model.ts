/**
 * What the Frontend needs to read the model card every worker publishes, per cache mode. Pure.
 *
 * Dynamo's contract (tests/contracts/facts/dynamo-model-card.json, read at the pinned runtime commit and at the
 * newest readable state): a worker publishes its model card with the file paths of the model it loaded, and
 * rewrites them to `hf://<id>/` URLs only when its `--model` is not a path on its own disk. The Frontend, for each
 * new worker set, uses the card's files where they exist on ITS disk, and otherwise downloads the config and
 * tokenizer files from the hub by the card's source path (with `HF_HUB_OFFLINE=1` it first looks in its hub cache,
 * `HF_HUB_CACHE` or `HF_HOME/hub`). `/health` answers 200 either way, so a Frontend that cannot load the card is
 * Ready and serves nothing: `verify` gate B is what catches it.
 *
 * Which of the two a release uses is its data (`release(r.release).runtime.modelCards`):
 * - `self-hosted` (dynamo-1.6): every worker serves its card's files on its system port and publishes
 *   `http://<worker>:9090/v1/metadata/...` URLs (DYN_SELF_HOST_METADATA=1, tests/contracts/facts/
 *   dynamo-runtime-settings.json); the Frontend fetches them from the workers (a flow of the release), so it needs no
 *   copy, no volume, no init container and no token, whatever the cache mode.
 * - `frontend-copy` (seed: its runtime predates self-hosting): workers publish their own paths, and the Frontend needs
 *   the same files, by where the workers' `--model` points:
 *
 * - `local-nvme`: a node-cache directory on the GPU node, which the Frontend (on a system node) does not have. An
 *   init container (`model-config`) runs the same prefetch script as the workers, for the same model and revision,
 *   with only the non-weight files, into an emptyDir mounted at the same path: the card's files then exist in the
 *   Frontend at exactly the paths the workers publish, and the Frontend never downloads. The token goes only to
 *   that init container, which exits before the Frontend starts.
 * - `efs`: the hub id; the workers download into the shared volume's hub cache (`HF_HOME`). The Frontend mounts
 *   that volume read-only with the same `HF_HOME` and `HF_HUB_OFFLINE=1`, so it reads the files the workers already
 *   downloaded (a worker registers only after loading the model). No token.
 * - `none`: the hub id, and nothing shared: the Frontend downloads the config and tokenizer files by id itself and
 *   keeps the token (a gated model needs it), as every worker does in this mode.
 */
import { graphNames } from "../_shared/names";
import { ResolvedInference } from "./args";
import {
  NODE_CACHE_MOUNT,
  NODE_CACHE_VOLUME,
  PREFETCH_VOLUME,
  nodeCacheInitContainers,
  nodeCacheVolumes,
} from "./cache";
import type { DgdInitContainer, EnvVar, K8sVolume, K8sVolumeMount } from "./dgd";
import { ModelCacheMode } from "./model-load";
import { RUNTIME_DEFAULT } from "./pod-security";
import { ModelCards, release } from "../releases";

/** Where the workers' hub cache volume is mounted (`HF_HOME` is `<mount>/hf`), in the workers and the Frontend. */
export const MODEL_CACHE_MOUNT = "/models";
/** `HF_HOME` on the shared model-cache volume. */
export const MODEL_CACHE_HF_HOME = `${MODEL_CACHE_MOUNT}/hf`;

/** The prefetch script's switch for the config and tokenizer files only (components/inference/prefetch/prefetch.py). */
export const METADATA_ONLY_ENV = "METADATA_ONLY";
/** The Frontend's init container that fetches the model's config and tokenizer files (`local-nvme`). */
export const FRONTEND_MODEL_CONFIG = "model-config";
/** The Frontend's emptyDir holding them, mounted where the workers mount the node cache. */
export const FRONTEND_MODEL_CONFIG_VOLUME = "model-config";
/** The Frontend's read-only volume of the shared model cache (`efs`). */
const FRONTEND_MODEL_CACHE_VOLUME = "model-cache";

/** How the Frontend gets the model card's files: its pod parts and whether its main container needs the token. */
export interface FrontendModelFiles {
  /** Why, in one line (the plan and the docs show it). */
  readonly how: string;
  readonly initContainers: readonly DgdInitContainer[];
  readonly volumes: readonly K8sVolume[];
  readonly mounts: readonly K8sVolumeMount[];
  readonly env: readonly EnvVar[];
  /** True only where the Frontend itself downloads from the hub (`none`). */
  readonly tokenInMain: boolean;
}

const OFFLINE: EnvVar = { name: "HF_HUB_OFFLINE", value: "1" };

/** The `local-nvme` parts: the workers' own prefetch container, metadata only, into an emptyDir at the same path. */
function fromInitContainer(r: ResolvedInference, image: string): FrontendModelFiles {
  const prefetch = nodeCacheInitContainers(r, image).find((c) => c.name !== "cache-owner");
  if (!prefetch) throw new Error("local-nvme mode renders a prefetch init container");
  const init: DgdInitContainer = {
    ...prefetch,
    name: FRONTEND_MODEL_CONFIG,
    env: [...(prefetch.env ?? []), { name: METADATA_ONLY_ENV, value: "1" }],
    securityContext: { ...prefetch.securityContext, seccompProfile: RUNTIME_DEFAULT },
    resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "1Gi" } },
    volumeMounts: (prefetch.volumeMounts ?? []).map((m) =>
      m.name === NODE_CACHE_VOLUME ? { ...m, name: FRONTEND_MODEL_CONFIG_VOLUME } : m,
    ),
  };
  return {
    how: `an init container fetches the config and tokenizer files into ${NODE_CACHE_MOUNT}, where the workers' model card points`,
    initContainers: [init],
    volumes: [
      // Config, tokenizer and chat template files: megabytes; the limit only bounds a runaway listing.
      { name: FRONTEND_MODEL_CONFIG_VOLUME, emptyDir: { sizeLimit: "2Gi" } },
      ...nodeCacheVolumes(r).filter((v) => v.name === PREFETCH_VOLUME),
    ],
    mounts: [{ name: FRONTEND_MODEL_CONFIG_VOLUME, mountPath: NODE_CACHE_MOUNT, readOnly: true }],
    env: [OFFLINE],
    tokenInMain: false,
  };
}

/** Self-hosted cards: the Frontend fetches the files from the workers; nothing of the model is given to it. */
const FROM_WORKERS: FrontendModelFiles = {
  how: "fetches the card's files from each worker's system port (self-hosted model cards); no copy, no token",
  initContainers: [],
  volumes: [],
  mounts: [],
  env: [],
  tokenInMain: false,
};

/** The parts for the release's model-card decision and the graph's cache mode (see the module comment). */
export function frontendModelFiles(r: ResolvedInference, image: string): FrontendModelFiles {
  if (release(r.release).runtime.modelCards.mode === ModelCards.SelfHosted) return FROM_WORKERS;
  if (r.modelCacheMode === ModelCacheMode.LocalNvme) return fromInitContainer(r, image);
  if (r.modelCacheMode === ModelCacheMode.Efs && r.modelCache)
    return {
      how: `reads the workers' hub cache on the shared volume, read-only and offline (HF_HOME=${MODEL_CACHE_HF_HOME})`,
      initContainers: [],
      volumes: [
        {
          name: FRONTEND_MODEL_CACHE_VOLUME,
          persistentVolumeClaim: { claimName: graphNames(r.graphName, r.namespace).modelCachePvc, readOnly: true },
        },
      ],
      mounts: [{ name: FRONTEND_MODEL_CACHE_VOLUME, mountPath: MODEL_CACHE_MOUNT, readOnly: true }],
      env: [{ name: "HF_HOME", value: MODEL_CACHE_HF_HOME }, OFFLINE],
      tokenInMain: false,
    };
  return {
    how: "downloads the config and tokenizer files from the hub by model id (with the token)",
    initContainers: [],
    volumes: [],
    mounts: [],
    env: [],
    tokenInMain: true,
  };
}
