/**
 * `dynamo-efa/components/image`: the `DynamoImage` component, its arguments, and `imagePlan` (the plain
 * build description the component builds from). The derivations below the public list are marked internal.
 */
export { DYNAMO_IMAGE_TYPE, DynamoImage } from "./image";
export { SUPPORTED_PLATFORMS } from "./args";
export type { DynamoImageArgs, ImageDigests, ImageVersionOverrides } from "./args";
export { imagePlan } from "./plan";
export type { ImageBuildPlan, ImagePlan, ImagePrebuiltPlan } from "./plan";

/** @internal */
export * from "./args";
/** @internal */
export * from "./build-args";
/** @internal */
export * from "./derive";
/** @internal */
export * from "./dockerfile";
/** @internal */
export * from "./image";
/** @internal */
export * from "./plan";
/** @internal */
export * from "./ref";
/** @internal */
export * from "./validate";
