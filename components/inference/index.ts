/**
 * `dynamo-efa/components/inference`: the `DisaggInference` component, its arguments and closed choices,
 * and the pure functions the README shows for checking a deployment offline (`resolveArgs`, `validate`,
 * `renderInference`, `workerPlan`). The renderers' parts are imported from their modules, not exported here.
 */
export { DISAGG_INFERENCE_TYPE, DisaggInference } from "./inference";
export { Backend, FrontendServiceType, KvTransportChoice, Placement, resolveArgs } from "./args";
export type {
  DisaggInferenceArgs,
  FrontendArgs,
  InferenceSettings,
  ModelCacheArgs,
  ResolvedInference,
  ResolvedRole,
  RoleArgs,
} from "./args";
export { ServingRole } from "./derive";
export { validate } from "./validate";
export { renderInference, workerPlan } from "./render";
export type { RenderedInference, WorkerPlanRow } from "./render";
