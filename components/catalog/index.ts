export * from "./instances";
export * from "./pool";
