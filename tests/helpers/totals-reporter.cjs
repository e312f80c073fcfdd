// Spec output plus one closing line every CI reader understands: "N passed, N failed, N skipped".
const Mocha = require("mocha");
const { EVENT_RUN_END } = Mocha.Runner.constants;

class TotalsReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = this.stats;
      // Printed after Spec's own epilogue so it is the last line of the run.
      process.nextTick(() => console.log(`${s.passes} passed, ${s.failures} failed, ${s.pending} skipped`));
    });
  }
}
module.exports = TotalsReporter;
