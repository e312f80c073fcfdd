export * from "./args";
export * from "./cluster";
export * from "./derive";
export * from "./render";
export * from "./validate";
