/**
 * The CUDA part of the catalog: toolkits and their targets, arch tokens, arch lists and the per-build-system
 * derivations. Barrel only (docs/CONTRIBUTING.md rule 1); the code lives in the files re-exported here.
 */
export * from "./cuda-toolkits";
export * from "./arch-tokens";
export * from "./arch-lists";
export * from "./arch-syntax";
export * from "./arch-platform";
export * from "./torch-archs";
export * from "./arch-consumers";
