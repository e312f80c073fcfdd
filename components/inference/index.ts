export * from "./args";
export * from "./derive";
export * from "./engine";
export * from "./validate";
export * from "./render-graph";
export * from "./render-k8s";
export * from "./render";
export * from "./inference";
