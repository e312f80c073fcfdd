/**
 * The package root (`dynamo-efa`): one namespace per component folder, the same modules as the subpaths
 * `dynamo-efa/components/<folder>` (package.json `exports`). Each folder's `index.ts` lists its public
 * API explicitly and nothing else: the run-time values are the typed ones.
 */
export * as catalog from "./catalog";
export * as versions from "./versions";
export * as releases from "./releases";
export * as cluster from "./cluster";
export * as inference from "./inference";
export * as image from "./image";
export * as observability from "./observability";
export * as platform from "./platform";
/**
 * Thrown by the offline entry points (`image.imagePlan`, the catalog lookups) on invalid input; `problems` lists
 * each one with its argument path.
 */
export { ValidationError } from "./_shared/problems";
/**
 * Thrown by every component constructor on invalid arguments: a `pulumi.InputPropertiesError` (the engine prints
 * each problem at its property path) that also names the `component`.
 */
export { ComponentInputError, problemsOf } from "./_shared/pulumi-errors";
export type { Problem } from "./_shared/problems";
