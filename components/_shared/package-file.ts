/**
 * Where a non-TypeScript file the components ship (a script a pod runs) lives: beside the module in the source tree;
 * in the published package tsc emits only JavaScript under `bin/`, so the file ships at its source path
 * (package.json `files`) and is found by walking up from the compiled module.
 */
import * as fs from "fs";
import * as path from "path";

/**
 * The absolute path of a shipped file: `beside` (relative to `moduleDir`, the module's `__dirname`) in the source
 * tree, else `components/<fromComponents>` above `moduleDir`; throws naming the file when the package is incomplete.
 */
export function packageFile(moduleDir: string, beside: string, fromComponents: string): string {
  const local = path.join(moduleDir, beside);
  if (fs.existsSync(local)) return local;
  for (let dir = moduleDir; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const shipped = path.join(dir, "components", fromComponents);
    if (fs.existsSync(shipped)) return shipped;
  }
  throw new Error(
    `cannot find components/${fromComponents} above ${moduleDir}: the package is incomplete; reinstall it`,
  );
}
