/**
 * `dynamo-efa/components/inference`: the `DisaggInference` component, its arguments and closed choices,
 * and the pure functions the README shows for checking a deployment offline (`resolveArgs`, `validate`,
 * `renderInference`, `workerPlan`). The renderers' parts are imported from their modules, not exported here.
 *
 * The folder, one concept a file; a file imports only files above it (type-only imports aside):
 * - dgd.ts        the DynamoGraphDeployment CR as types (and its apiVersion, kind, resource names)
 * - model-load.ts how long the weights take to reach the GPUs per cache mode, and the budgets derived from it
 * - limits.ts     the numeric bounds of the settings (the validator and the key table read them)
 * - args.ts       the args, their key table (each value's kind), closed choices, defaults, `resolveArgs`
 * - workload.ts   the declared workload: its bounds, its validation, its annotation on the graph
 * - fit.ts        a worker and the model in it: fit, KV transfer, model-aware config errors, the worker's shape
 * - worker-speed.ts one worker's prefill and decode-step times: the H200 measurements, other GPUs scaled from datasheets
 * - layouts.ts    workers under load: each role's capacity, both layouts at a rate, goodput, the gain
 * - serving.ts    the serving estimate of a graph (plan.json `serving`): both layouts, the balanced split, ranges
 * - cache.ts      the `local-nvme` node cache: init containers, mounts, the prefetch DaemonSet (prefetch/prefetch.py)
 * - network.ts    the namespace's NetworkPolicies and the problems of their inputs
 * - validate.ts   every problem of a resolved spec at once, and the model-id rule the prefetch shares
 * - graph.ts      the DynamoGraphDeployment: the services, the engine section (vLLM vs TensorRT-LLM)
 * - plan.ts       the graph's plan, computed once: each role's workers in one shape, the facts plan.json and verify read
 * - render.ts     the whole deployment as plain data (namespace, secret, PVC, graph)
 * - inference.ts  the thin `DisaggInference` class
 * - index.ts      this public list
 */
export { DISAGG_INFERENCE_TYPE, DisaggInference } from "./inference";
export { Backend, FrontendServiceType, KvTransportChoice, Placement, resolveArgs, ServingRole } from "./args";
export type {
  DisaggInferenceArgs,
  FrontendArgs,
  InferenceSettings,
  ModelCacheArgs,
  ResolvedInference,
  ResolvedRole,
  RoleArgs,
} from "./args";
export { validate } from "./validate";
export { renderInference } from "./render";
export type { RenderedInference } from "./render";
export { workerPlan } from "./plan";
export type { WorkerPlanRow } from "./plan";
