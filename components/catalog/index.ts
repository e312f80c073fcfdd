export * from "./instances";
export * from "./pool";
export * from "./cuda";
export * from "./models";
export * from "./model-math";
