// Spec output plus one closing line every CI reader understands: "N passed, N failed, N skipped".
// A failed before-all / before-each hook keeps its suite's tests from running, and mocha reports only the
// hook's failure, so that line alone would read as if nothing was skipped: after a failed hook it names
// the suites whose tests did not run (it cannot count them: in parallel mode the main process never sees
// the test tree), and the run fails.
const path = require("path");
const Mocha = require("mocha");
const { EVENT_RUN_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

class TotalsReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const deadSuites = [];
    runner.on(EVENT_TEST_FAIL, (t) => {
      if (t.type === "hook" && /^"before (all|each)" hook/.test(t.title))
        deadSuites.push(
          `"${t.titlePath().slice(0, -1).join(" ") || "(root)"}"${t.file ? ` (${path.relative(process.cwd(), t.file)})` : ""}`,
        );
    });
    runner.once(EVENT_RUN_END, () => {
      const s = this.stats;
      if (deadSuites.length > 0) process.exitCode = process.exitCode || 1;
      const notRun =
        deadSuites.length > 0 ? `; a failed hook kept the tests of ${deadSuites.join(", ")} from running` : "";
      // Printed after Spec's own epilogue so it is the last line of the run.
      process.nextTick(() => console.log(`${s.passes} passed, ${s.failures} failed, ${s.pending} skipped${notRun}`));
    });
  }
}
module.exports = TotalsReporter;
