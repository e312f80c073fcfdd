export * from "./args";
export * from "./build-args";
export * from "./derive";
export * from "./dockerfile";
export * from "./image";
export * from "./plan";
export * from "./ref";
export * from "./validate";
