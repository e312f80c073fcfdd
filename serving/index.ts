/**
 * The serving estimate, a wing of its own beside the components (not shipped with the package): what a graph
 * delivers for a declared workload, from measured operator rates. Its one door: `servingInputOf` (a graph's plan on
 * its pool, as the estimate's input) and `servingEstimate`, with their types. docs/SERVING.md describes the model.
 *
 * The folder, one concept a file; a file imports only files above it (type-only imports aside):
 * - gpu-datasheet.ts  each GPU's datasheet rates, to scale the H200 measurements by
 * - engine-settings.ts each engine's scheduler settings and all-reduce latency (facts/engine-*.json, allreduce-h100.json)
 * - worker-speed.ts   one worker's prefill and decode-step times: the H200 measurements (facts/h200-serving-*.json)
 * - layouts.ts        workers under load: each role's capacity, both layouts at a rate, goodput, the gain
 * - split.ts          the prefill:decode split that balances the roles and deploys on the pool
 * - errors.ts         each number's range from the validation errors of its regime (bands.json), the verdict
 * - estimate.ts       the serving estimate of a graph (plan.json `serving`)
 * - input.ts          `servingInputOf`: a graph's plan as the estimate's input
 * - validation.ts     the estimate against published measurements (published/*.json): writes bands.json and
 *                     docs/SERVING.md's table (`npx tsx serving/validation.ts [--check]`)
 */
export { servingEstimate, REPORTED_BATCHES } from "./estimate";
export type { ServingEstimate, ServingInput, ServingLatency, ServingRoleInput } from "./estimate";
export { servingInputOf } from "./input";
export type { Range, Uncertainty, Verdict } from "./errors";
export { recommendedSplit } from "./split";
export type { RecommendedSplit } from "./split";
