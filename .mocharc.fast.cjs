// `npm test` beside the type check (and `npm run test:fast` without it): every spec except the slow
// ones (.mocharc.slow.cjs), which `npm run test:slow` runs and `.ci/run` runs too. The spec lists live in these
// two files, not in .mocharc.json: mocha adds a config's `spec` to the files named on its command line, so
// `npx mocha tests/unit/x.spec.ts` runs that one file only because .mocharc.json names none.
const base = require("./.mocharc.json");
const slow = require("./.mocharc.slow.cjs");

module.exports = {
  ...base,
  spec: ["tests/**/*.spec.ts"],
  ignore: slow.spec,
  reporter: "./tests/helpers/totals-reporter.cjs",
};
