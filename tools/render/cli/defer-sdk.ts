/**
 * Leaves Pulumi's closure serialization out of the render's own process. `@pulumi/pulumi` loads two libraries at
 * import for it (`@npmcli/arborist` for a closure's package paths, `typescript` to parse function text), and a
 * dynamic resource (ModelCommit, ImageDigest) serializes its provider's code through the V8 inspector: together
 * about a third of a render's CPU time (bench/render.ts), for text only `pulumi up` needs. So the render's process
 * puts stand-ins in `require.cache` before the SDK loads: each library loads the real one on its first use, and the
 * serializer answers every dynamic provider with `PROVIDER_NOT_SERIALIZED`, which resources.json shows. The tests'
 * in-process renders load the SDK as it comes and serialize for real, and tests/unit/*-serialized.spec.ts run each
 * serialized provider in a plain Node.js process, so a provider Pulumi cannot serialize still fails a test.
 */
import Module, { createRequire } from "node:module";

/** The libraries deferred, as `@pulumi/pulumi` requires them. */
export const DEFERRED = ["@npmcli/arborist", "typescript"] as const;

/** A module object for `file` whose exports are the result of `load`, called on first use. */
function deferred(file: string, load: () => object): Module {
  let real: object | undefined;
  const target = () => (real ??= load());
  const m = new Module(file);
  m.filename = file;
  m.loaded = true;
  // `__esModule` keeps TypeScript's `__importStar` from copying every key at import, which would load it at once.
  m.exports = new Proxy(
    {},
    {
      get: (_t, k) => (k === "__esModule" ? true : Reflect.get(target(), k)),
      has: (_t, k) => Reflect.has(target(), k),
      ownKeys: () => Reflect.ownKeys(target()),
      getOwnPropertyDescriptor: (_t, k) => {
        const d = Reflect.getOwnPropertyDescriptor(target(), k);
        return d && { ...d, configurable: true };
      },
    },
  );
  return m;
}

/** Installs the stand-ins; a library already loaded, or not installed, is left alone. Returns what was deferred. */
export function deferSdkClosureModules(): string[] {
  let sdk: NodeJS.Require;
  try {
    sdk = createRequire(require.resolve("@pulumi/pulumi/package.json"));
  } catch {
    return [];
  }
  return DEFERRED.flatMap((id) => {
    let file: string;
    try {
      file = sdk.resolve(id);
    } catch {
      return [];
    }
    if (require.cache[file]) return [];
    require.cache[file] = deferred(file, () => {
      delete require.cache[file];
      return sdk(id) as object;
    });
    return [id];
  });
}

/** What resources.json holds for a dynamic provider's code in the render's process. */
export const PROVIDER_NOT_SERIALIZED =
  "(the dynamic provider's code: Pulumi serializes it at `pulumi up`; the offline render does not)";

/**
 * Installs the stand-in serializer (`@pulumi/pulumi/runtime/closure/serializeClosure`): every function serializes to
 * `PROVIDER_NOT_SERIALIZED`, without secrets. Returns whether it was installed (false when the SDK already loaded it).
 */
export function skipProviderSerialization(): boolean {
  let file: string;
  try {
    file = createRequire(require.resolve("@pulumi/pulumi/package.json")).resolve("./runtime/closure/serializeClosure");
  } catch {
    return false;
  }
  if (require.cache[file]) return false;
  const m = new Module(file);
  m.filename = file;
  m.loaded = true;
  m.exports = {
    __esModule: true,
    serializeFunction: () =>
      Promise.resolve({ text: PROVIDER_NOT_SERIALIZED, exportName: "handler", containsSecrets: false }),
    serializeFunctionAsync: () => Promise.resolve(PROVIDER_NOT_SERIALIZED),
  };
  require.cache[file] = m;
  return true;
}
