/**
 * `@kubernetes/client-node`, loaded as the ES module it is. Imported statically from this repository's TypeScript
 * (compiled to CommonJS), tsx rewrites each of the client's ~970 files to CommonJS on first load: 8.6 s on two
 * cores with tsx's cache cold, 2.5 s warm. Node's own `import()` loads it in 1.9 s, cold or warm. Everything that
 * talks to a cluster first loads a kubeconfig (`loadKubeConfig`, async), which loads the module; a `KubeConfig`
 * therefore never exists before the module, and the synchronous `kubeModule()` serves code that already holds one.
 * Types come from `import type`, which loads nothing.
 */
export type KubeModule = typeof import("@kubernetes/client-node");

let loaded: KubeModule | undefined;

/** Loads the client once. */
export async function loadKubeModule(): Promise<KubeModule> {
  loaded ??= await import("@kubernetes/client-node");
  return loaded;
}

/** The loaded client, for code that holds a KubeConfig (which only `loadKubeModule()`'s module can make). */
export function kubeModule(): KubeModule {
  if (!loaded) throw new Error("internal: @kubernetes/client-node used before loadKubeModule()");
  return loaded;
}
