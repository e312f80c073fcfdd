/**
 * The per-node model prefetch of the `local-nvme` model cache: the script every worker pod runs as its first
 * init container (`./prefetch/prefetch.py`, Python standard library only: the combined image has Python 3.12),
 * and the paths it shares with the workers. Pure apart from reading the script file once.
 *
 * Besides the workers, a DaemonSet of a small image runs the same script as soon as a node joins, so the download
 * overlaps the workers' pull of the serving image (`./render-prefetch.ts`); the workers keep theirs, for this reason.
 * Why an init container with a node-level lock, not a DaemonSet with a readiness gate alone: the workers must not
 * start before the weights are complete, and only their own pod's init containers can hold a container back
 * (a DaemonSet's readiness gates nothing in another pod, so each worker would need a waiting init container
 * anyway). In the worker pod, a failed download is on the pod that cannot start (`Init:Error`, with the model
 * named in its log) and keeps the graph from turning Ready; the lock is a kernel `flock`, released when its
 * holder dies, so a killed pod never wedges the node; and the prefetch runs exactly where and when a worker
 * needs the model, with the image, Secret and model of that worker, with no second workload to keep in step.
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { DEFAULT_MODEL_REVISION } from "./model-id";

/** The script's file name, and its text (shipped to the cluster in a ConfigMap). */
export const PREFETCH_FILE = "prefetch.py";

/**
 * Where the script lives: beside this file in the source tree; in the published package tsc emits only
 * JavaScript under `bin/`, so the script ships at its source path (package.json `files`) and is found there.
 */
function prefetchScriptPath(): string {
  const beside = path.join(__dirname, "prefetch", PREFETCH_FILE);
  if (fs.existsSync(beside)) return beside;
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const shipped = path.join(dir, "components", "inference", "prefetch", PREFETCH_FILE);
    if (fs.existsSync(shipped)) return shipped;
  }
  throw new Error(
    `cannot find components/inference/prefetch/${PREFETCH_FILE} above ${__dirname}: the package is incomplete; reinstall it`,
  );
}

export const PREFETCH_SCRIPT: string = fs.readFileSync(prefetchScriptPath(), "utf8");
/** sha256 of the script, put on the pod template so a changed script rolls the workers. */
export const PREFETCH_SHA256 = createHash("sha256").update(PREFETCH_SCRIPT).digest("hex");

/** The file the script writes last, inside the model directory, when every file is complete. */
export const COMPLETION_MARKER = ".dynamo-efa-complete";
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
