// Spec output plus one closing line every CI reader understands:
//   "N passed, N failed, N skipped, N not run"
// "not run" counts the tests a failed before-all / before-each hook kept from running (mocha reports
// only the hook's failure, so without this a dead suite reads as "0 skipped"). In parallel mode the
// main process never sees the test tree, so the files of failed hooks are listed with a dry run.
const { spawnSync } = require("child_process");
const path = require("path");
const Mocha = require("mocha");
const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;

const MOCHA_BIN = path.join(path.dirname(require.resolve("mocha/package.json")), "bin", "mocha.js");
const key = (file, title) => `${file}\u0000${title}`;

/** Full titles of every test in `file`, by a dry run of mocha (no hook or test body runs). */
function testsOf(file) {
  const p = spawnSync(
    process.execPath,
    ["--import", "tsx", MOCHA_BIN, "--no-config", "--dry-run", "--reporter", "json", file],
    { encoding: "utf8", maxBuffer: 64 << 20 },
  );
  try {
    return JSON.parse(p.stdout).tests.map((t) => t.fullTitle);
  } catch {
    return undefined; // the file cannot even be loaded: its tests are counted as unknown
  }
}

class TotalsReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const ran = new Set();
    const failedHooks = [];
    const note = (t) => ran.add(key(t.file, t.fullTitle()));
    runner.on(EVENT_TEST_PASS, note);
    runner.on(EVENT_TEST_PENDING, note);
    runner.on(EVENT_TEST_FAIL, (t) => {
      if (t.type !== "hook") return note(t);
      if (/^"before (all|each)" hook/.test(t.title))
        failedHooks.push({ file: t.file, suite: t.titlePath().slice(0, -1).join(" ") });
    });
    runner.once(EVENT_RUN_END, () => {
      const s = this.stats;
      let notRun = 0;
      let unknown = 0;
      const counted = new Set();
      for (const h of failedHooks) {
        const titles = h.file ? testsOf(h.file) : undefined;
        if (!titles) {
          unknown++;
          continue;
        }
        for (const t of titles) {
          const k = key(h.file, t);
          if ((h.suite === "" || t.startsWith(`${h.suite} `)) && !ran.has(k) && !counted.has(k)) {
            counted.add(k);
            notRun++;
          }
        }
      }
      if (failedHooks.length > 0) process.exitCode = process.exitCode || 1;
      const extra = unknown ? ` (+ the tests of ${unknown} file(s) that could not be listed)` : "";
      // Printed after Spec's own epilogue so it is the last line of the run.
      process.nextTick(() =>
        console.log(`${s.passes} passed, ${s.failures} failed, ${s.pending} skipped, ${notRun} not run${extra}`),
      );
    });
  }
}
module.exports = TotalsReporter;
