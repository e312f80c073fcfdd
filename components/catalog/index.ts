export * from "./instances";
export * from "./pool";
export * from "./cuda";
