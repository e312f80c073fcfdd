/**
 * `dynamo-efa/components/inference`: the `DisaggInference` component, its arguments and closed choices,
 * and the pure functions the README shows for checking a deployment offline (`resolveArgs`, `validate`,
 * `renderInference`, `workerPlan`). The renderers' parts are imported from their modules, not exported here.
 *
 * The folder's files, each with its header's first sentence: docs/ARCHITECTURE.md#files (generated).
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
