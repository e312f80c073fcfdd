/**
 * Defers the two libraries `@pulumi/pulumi` loads at import for serializing functions into resources (closure
 * serialization: `@npmcli/arborist` for a closure's package paths, `typescript` to parse function text). The
 * render serializes no function, yet their load was ~0.6 of the ~1 CPU-second `@pulumi/pulumi` takes to import
 * (bench/render.ts). Each is put in `require.cache` as a stand-in that loads the real module on its first use, so
 * anything that does use one gets the real library, only later. Called once by the render's own process, before
 * the SDK loads; the tests' in-process renders load the SDK as it comes.
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
