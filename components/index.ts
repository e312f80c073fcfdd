export * as catalog from "./catalog";
export * as versions from "./versions";
export * from "./_shared/names";
export * from "./_shared/problems";
export * as cluster from "./cluster";
export * as inference from "./inference";
export * as image from "./image";
export * as observability from "./observability";
