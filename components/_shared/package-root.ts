/**
 * The package root: the nearest ancestor holding `dockerfiles/Dockerfile.dynamo-combined-efa` and a `package.json`.
 * Found by its files rather than by a module's depth, so it holds from source, from the compiled `bin/` and from a
 * bundle of the render (which `npm run render` runs: package.json). Pure apart from reading the file system.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/** File name of the package's combined Dockerfile, inside `dockerfiles/`. */
export const DOCKERFILE_NAME = "Dockerfile.dynamo-combined-efa";

/** The package root above `from`. */
export function packageRoot(from = __dirname): string {
  for (let dir = from; ; dir = resolve(dir, "..")) {
    if (existsSync(join(dir, "dockerfiles", DOCKERFILE_NAME)) && existsSync(join(dir, "package.json"))) return dir;
    if (resolve(dir, "..") === dir) throw new Error(`cannot find dockerfiles/${DOCKERFILE_NAME} above ${from}`);
  }
}
