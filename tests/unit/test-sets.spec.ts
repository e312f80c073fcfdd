/**
 * `npm test` runs the fast specs (.mocharc.fast.cjs) and `npm run test:slow` the ones that spawn real processes
 * (.mocharc.slow.cjs); `.ci/run` runs both. A spec file in neither set would never run, one in both would run twice:
 * each set is collected here the way mocha collects it (its own option loader and file collector), and together
 * they must be every spec file under tests/, each once.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

const ROOT = path.resolve(__dirname, "..", "..");

/** Mocha's parsed options; `_` holds the spec files and globs (its command line's and the config's `spec`). */
interface MochaOptions {
  _?: string[];
  ignore?: string[];
  extension?: string[];
  file?: string[];
  recursive?: boolean;
  sort?: boolean;
}

/* eslint-disable @typescript-eslint/no-require-imports -- mocha's own CLI helpers are CommonJS without types */
const { loadOptions } = require("mocha/lib/cli/options.cjs") as { loadOptions: (argv: string[]) => MochaOptions };
const collectFiles = require("mocha/lib/cli/collect-files.cjs") as (o: object) => {
  files: string[];
  unmatchedFiles: unknown[];
};
const configOf = (name: string) => require(path.join(ROOT, name)) as { spec: string[]; reporter?: string };
/* eslint-enable @typescript-eslint/no-require-imports -- end of the CommonJS loads */

/** The spec files mocha runs with `--config <config>`, relative to the repository root. */
function setOf(config: string): string[] {
  const here = process.cwd();
  process.chdir(ROOT);
  try {
    const o = loadOptions(["--config", config]);
    const { files } = collectFiles({
      allowEmpty: true,
      ignore: o.ignore ?? [],
      extension: o.extension ?? [],
      file: o.file ?? [],
      recursive: o.recursive ?? false,
      sort: o.sort ?? false,
      spec: o._ ?? [],
    });
    return files.map((f) => path.relative(ROOT, f)).sort();
  } finally {
    process.chdir(here);
  }
}

/** Every `*.spec.ts` under tests/. */
function allSpecs(dir = path.join(ROOT, "tests")): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? allSpecs(path.join(dir, e.name))
        : e.name.endsWith(".spec.ts")
          ? [path.relative(ROOT, path.join(dir, e.name))]
          : [],
    )
    .sort();
}

describe("test sets: every spec file runs in exactly one of `npm test` and `npm run test:slow`", () => {
  const fast = setOf(".mocharc.fast.cjs");
  const slow = setOf(".mocharc.slow.cjs");

  it("the slow set names only spec files that exist", () => {
    const missing = configOf(".mocharc.slow.cjs").spec.filter((f) => !fs.existsSync(path.join(ROOT, f)));
    assert.deepEqual(missing, []);
  });

  it("no spec file is in both sets", () => {
    assert.deepEqual(
      fast.filter((f) => slow.includes(f)),
      [],
    );
  });

  it("the two sets together are every spec file under tests/", () => {
    assert.deepEqual([...fast, ...slow].sort(), allSpecs());
  });

  it("both sets close with the totals reporter's line", () => {
    for (const config of [".mocharc.fast.cjs", ".mocharc.slow.cjs"])
      assert.equal(configOf(config).reporter, "./tests/helpers/totals-reporter.cjs", config);
  });
});
