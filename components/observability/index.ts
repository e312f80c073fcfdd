/**
 * `dynamo-efa/components/observability`: the `DynamoObservability` component, its arguments and the
 * Prometheus mode. Its renderers, metric names and dashboard builder below the public list are marked internal.
 */
export { DYNAMO_OBSERVABILITY_TYPE, DynamoObservability } from "./observability";
export { PrometheusMode } from "./args";
export type { DynamoObservabilityArgs } from "./args";

/** @internal */
export * from "./args";
/** @internal */
export * from "./metrics";
/** @internal */
export * from "./dashboard";
/** @internal */
export * from "./validate";
/** @internal */
export * from "./render";
/** @internal */
export * from "./observability";
/** @internal */
export * from "./scheduling";
