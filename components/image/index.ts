/**
 * `dynamo-efa/components/image`: the `DynamoImage` component, its arguments, and `imagePlan` (the plain
 * build description the component builds from). The derivations are imported from their modules, not exported here.
 */
export { DYNAMO_IMAGE_TYPE, DynamoImage } from "./image";
export { SUPPORTED_PLATFORMS } from "./args";
export type { DynamoImageArgs, ImageDigests, ImageVersionOverrides } from "./args";
export { imagePlan } from "./plan";
export type { ImageBuildPlan, ImagePlan, ImagePrebuiltPlan } from "./plan";
