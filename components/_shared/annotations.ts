/**
 * Every `dynamo-efa/*` annotation the components write, in one place, so writers (the inference
 * component) and readers (the offline plan, the policy pack, tests) can never disagree on a key. Pure.
 * Values are strings (Kubernetes annotations are). Labels and tags live with what they select.
 */

/** Keys of the annotations on the DynamoGraphDeployment (graph) and on its worker pods (pod). */
export const Annotation = {
  /** Graph: seconds a worker may take to load its model; probes must allow at least this (F2). */
  ModelLoadBudgetSeconds: "dynamo-efa/model-load-budget-seconds",
  /** Graph: canonical CUDA arch list of the image the graph runs, comma separated (e.g. `sm_90`) (F10). */
  ImageCudaArchs: "dynamo-efa/image-cuda-archs",
  /** Graph: CUDA toolkit the image's arch list was compiled with (e.g. `12.9`). */
  ImageCudaToolkit: "dynamo-efa/image-cuda-toolkit",
  /** Graph: 2 MiB hugepages the pool's nodes pre-allocate, when overridden from the catalog's value (F14). */
  Hugepages2MiPerNode: "dynamo-efa/hugepages-2mi-per-node",
  /** Graph: JSON of the stated `modelShape` (only when stated). */
  ModelShape: "dynamo-efa/model-shape",
  /** Graph: `fp8` when the KV cache is FP8 (absent = `auto`). */
  KvCacheDtype: "dynamo-efa/kv-cache-dtype",
  /** Graph: the model id (the engine's `--model` may be a path). */
  Model: "dynamo-efa/model",
  /** Pod: sha256 of the prefetch script (a changed script rolls the workers). */
  PrefetchSha256: "dynamo-efa/prefetch-sha256",
  /**
   * Pod (DRA workers): the GPUs the worker's ResourceClaim requests, and its EFA devices per GPU, as the claim
   * template says them; the policies and the plan read counts here because a DRA worker carries no
   * extended-resource count (components/inference/device-claims.ts).
   */
  ClaimGpus: "dynamo-efa/claim-gpus",
  ClaimEfaPerGpu: "dynamo-efa/claim-efa-per-gpu",
  /** Pod: sha256 of the TRT-LLM engine config file (a changed config rolls the workers). */
  EngineConfigSha256: "dynamo-efa/engine-config-sha256",
  /** Job and pod: sha256 of what the first-token check checks (the graph, the script, its budget): a change re-runs it. */
  FirstTokenChecksSha256: "dynamo-efa/first-token-checks-sha256",
} as const;
