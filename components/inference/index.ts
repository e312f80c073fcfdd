/**
 * `dynamo-efa/components/inference`: the `DisaggInference` component, its arguments and closed choices,
 * and the pure functions the README shows for checking a deployment offline (`resolveArgs`, `validate`,
 * `renderInference`, `workerPlan`). The renderers' parts below the public list are marked internal.
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

/** @internal */
export * from "./args";
/** @internal */
export * from "./derive";
/** @internal */
export * from "./graph";
/** @internal */
export * from "./engine";
/** @internal */
export * from "./validate";
/** @internal */
export * from "./graph";
/** @internal */
export * from "./render";
/** @internal */
export * from "./render";
/** @internal */
export * from "./inference";
/** @internal */
export * from "./cache";
/** @internal */
export * from "./cache";
