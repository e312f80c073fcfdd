export * from "./args";
export * from "./metrics";
export * from "./dashboard";
export * from "./validate";
export * from "./render";
export * from "./observability";
export * from "./scheduling";
