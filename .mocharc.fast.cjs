// `npm test` beside the type check (and `npm run test:fast` without it): every spec except the slow
// ones (.mocharc.slow.cjs), which `npm run test:slow` runs and `.ci/run` runs too. The spec lists live in these
// two files, not in .mocharc.json: mocha adds a config's `spec` to the files named on its command line, so
// `npx mocha tests/unit/x.spec.ts` runs that one file only because .mocharc.json names none.
//
// One process below four cores: each of mocha's workers loads tsx, the Pulumi SDK and the components again
// (~15 CPU-s more), which a two-core machine whose other core runs the type check cannot give. From four cores on,
// a worker per core that the type check leaves.
const { availableParallelism } = require("os");
const base = require("./.mocharc.json");
const slow = require("./.mocharc.slow.cjs");

const cores = availableParallelism();

module.exports = {
  ...base,
  spec: ["tests/**/*.spec.ts"],
  ignore: slow.spec,
  parallel: cores >= 4,
  jobs: Math.max(2, cores - 2),
  reporter: "./tests/helpers/totals-reporter.cjs",
};
