/**
 * The first-token check's script (components/inference/first-token/check.py) run with python3, as the Job runs it,
 * against fake Frontends on loopback (tests/helpers/fake-frontend.ts): it passes against a good one, and against each
 * broken one it fails with its own exit code and a termination message that names the step and the likely cause.
 * Budgets are a few seconds here; the script's own deadlines end every run (mocha's timeout bounds it too).
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { FIRST_TOKEN_EXIT, FIRST_TOKEN_SCRIPT_PATH } from "../../components/inference/first-token";
import { fakeFrontend, FakeMode } from "../helpers/fake-frontend";
import { needPython } from "../helpers/prefetch-run";

const MODEL = "meta-llama/Llama-3.1-8B-Instruct";

interface Result {
  readonly code: number | null;
  readonly log: string;
  readonly stdout: string;
}

/** Runs the script against `url` with short budgets; the termination log is a temp file. */
function check(url: string, extra: Record<string, string> = {}): Promise<Result> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "first-token-"));
  const log = path.join(dir, "termination-log");
  const child = spawn("python3", [FIRST_TOKEN_SCRIPT_PATH], {
    env: {
      PATH: process.env.PATH ?? "",
      FRONTEND_URL: url,
      SERVED_MODEL: MODEL,
      MODELS_BUDGET_SECONDS: "2",
      ANSWER_BUDGET_SECONDS: "2",
      STALL_SECONDS: "1",
      POLL_SECONDS: "0.2",
      TERMINATION_LOG: log,
      ...extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout!.on("data", (d) => (stdout += String(d)));
  return new Promise((resolve) =>
    child.on("close", (code) => {
      const text = fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "";
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ code, log: text, stdout });
    }),
  );
}

/** [mode, exit code, step, what the message names] */
const BROKEN: [FakeMode, number, string, RegExp][] = [
  [FakeMode.EmptyModels, FIRST_TOKEN_EXIT.noModel, "step 1 (models)", /stayed empty.*model card.*9090/],
  [FakeMode.OtherModelListed, FIRST_TOKEN_EXIT.otherModel, "step 1 (models)", /listed: other\/model.*routing/],
  [
    FakeMode.OtherModelAnswers,
    FIRST_TOKEN_EXIT.otherModel,
    "step 2 (completion)",
    /answered by "other\/model".*routing/,
  ],
  [
    FakeMode.NoAnswer,
    FIRST_TOKEN_EXIT.noAnswer,
    "step 2 (completion)",
    /no completion within 2 s.*request plane.*KV path/,
  ],
  [
    FakeMode.StallAfterFirstToken,
    FIRST_TOKEN_EXIT.stalled,
    "step 3 (stream)",
    /first token after [\d.]+ s, then nothing for 1 s \(text so far: " Paris"\).*response stream/,
  ],
  [FakeMode.ModelsUnavailable, FIRST_TOKEN_EXIT.noModel, "step 1 (models)", /HTTP 503 .*model card/],
  [
    FakeMode.StreamOtherModel,
    FIRST_TOKEN_EXIT.otherModel,
    "step 3 (stream)",
    /a chunk answered by "other\/model".*routing/,
  ],
  [FakeMode.StreamNoToken, FIRST_TOKEN_EXIT.noAnswer, "step 3 (stream)", /no first token within 2 s.*request plane/],
  [
    FakeMode.StreamClosedEarly,
    FIRST_TOKEN_EXIT.stalled,
    "step 3 (stream)",
    /the stream closed without \[DONE\].*decode/,
  ],
  [FakeMode.StreamError, FIRST_TOKEN_EXIT.noAnswer, "step 3 (stream)", /an error mid-stream: .*decode worker lost/],
];

describe("the first-token check against fake Frontends (python3, loopback)", function () {
  this.timeout(30_000);
  before(function () {
    needPython(this, "the first-token check's script");
  });

  // Ledger row 1.4.0:max-tokens-0-now-rejected-with-http-400-on (#11394).
  it("passes against a good Frontend: models, a completion and a stream to [DONE], and says so", async () => {
    const fe = await fakeFrontend(MODEL, FakeMode.Good);
    try {
      const r = await check(fe.url);
      assert.equal(r.code, 0, r.log);
      assert.match(
        r.log,
        /^first token from meta-llama\/Llama-3\.1-8B-Instruct: completion "Paris\."; stream's first token after [\d.]+ s$/,
      );
      assert.match(r.stdout, /step 3 \(stream\): first token after [\d.]+ s, to \[DONE\]: "Paris\."/);
      assert.deepEqual(fe.seen, ["GET /v1/models", "POST /v1/completions", "POST /v1/completions"]);
    } finally {
      await fe.close();
    }
  });

  for (const [mode, code, step, names] of BROKEN)
    it(`fails against ${mode}: exit ${code}, the message names ${step} and the cause`, async () => {
      const fe = await fakeFrontend(MODEL, mode);
      try {
        const r = await check(fe.url);
        assert.equal(r.code, code, r.log);
        assert.ok(r.log.startsWith(`first-token check failed at ${step}: `), r.log);
        assert.match(r.log, names);
        assert.ok(Buffer.byteLength(r.log) <= 4096, "fits the termination message");
      } finally {
        await fe.close();
      }
    });

  it("fails when nothing listens: the Frontend's Service or the NetworkPolicy admitting the check", async () => {
    const fe = await fakeFrontend(MODEL, FakeMode.Good);
    const url = fe.url;
    await fe.close();
    const r = await check(url);
    assert.equal(r.code, FIRST_TOKEN_EXIT.unreachable, r.log);
    assert.match(
      r.log,
      /^first-token check failed at step 1 \(models\): GET \/v1\/models failed for 2 s: .*NetworkPolicy/,
    );
  });

  it("refuses a bad environment before asking anything (exit 2)", async () => {
    const r = await check("ftp://nowhere", {});
    assert.equal(r.code, 2);
  });
});
