/**
 * `dynamo-efa/components/observability`: the `DynamoObservability` component, its arguments and the
 * Prometheus mode. Its renderers, metric names and dashboard builder are imported from their modules, not exported here.
 */
export { DYNAMO_OBSERVABILITY_TYPE, DynamoObservability } from "./observability";
export { PrometheusMode } from "./args";
export type { DynamoObservabilityArgs } from "./args";
