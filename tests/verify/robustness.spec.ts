/**
 * `verify` never lies about why it stopped. Through the real CLI entry
 * (`main`, in-process) against the fakes on 127.0.0.1: kubeconfig problems have plain messages and
 * their own exit code, an unreachable Frontend still reports the gates that ran, time budgets and URLs
 * are bounded, hostile responses are capped and fail gate C/B, and the stack file is read with
 * render's loader and the program's schema.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { closedPort, ROOT, statuses, verifyFlags } from "./cli-harness";
import { FrontendMode, startFrontend } from "./fake-frontend";
import { kubeconfigText, startKube } from "./fake-kube";
import { projectWith, stackText } from "./stacks";

const STACK_TRACE = /\n\s+at .+(\(|:\d+:\d+)/;
type Io = { stdout: (s: string) => void; stderr: (s: string) => void; root: string; cwd?: string };
type Main = (argv: readonly string[], io?: Io) => Promise<number>;

interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  readonly json:
    { exitCode: number; unreachable?: string; gates: { id: string; status: string; evidence: string[] }[] } | undefined;
}

describe("verify robustness: plain messages, own exit codes, partial reports", function () {
  let main: Main;
  let tmp: string;
  before(async function () {
    this.timeout(0); // module loading: no bound is meaningful (see cli.spec.ts)
    main = (await import("../../tools/verify/cli")).main;
    await import("../../tools/verify/run");
  });
  beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), "verify-robust-"))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function verify(argv: string[], root = ROOT): Promise<Run> {
    let out = "";
    let err = "";
    const jsonFile = path.join(tmp, "report.json");
    const code = await main([...argv, "--json", jsonFile], {
      stdout: (s) => (out += s),
      stderr: (s) => (err += s),
      root,
      cwd: tmp,
    });
    const json = fs.existsSync(jsonFile) ? JSON.parse(fs.readFileSync(jsonFile, "utf8")) : undefined;
    assert.doesNotMatch(err, STACK_TRACE, "a stack trace was printed");
    assert.doesNotMatch(err, /unexpected error|Cannot read properties/);
    return { code, out, err, json };
  }

  // The per-request budget is the threshold: a loaded machine cannot turn a healthy stream's gate E into a FAIL.
  const flags = (kubeconfig: string, url: string): string[] =>
    verifyFlags({ stack: "s", kubeconfig, url, backend: "vllm", timeoutS: 10, ttftThresholdMs: 10000 });

  async function against(mode: FrontendMode, extra: string[] = []): Promise<Run> {
    const fe = await startFrontend(mode);
    const kube = await startKube("libfabric");
    try {
      return await verify([...flags(kube.kubeconfig, fe.url), ...extra]);
    } finally {
      await fe.close();
      await kube.close();
    }
  }

  describe("kubeconfig problems are plain messages with exit 2; a bug is exit 70, never 1", () => {
    const saved = {
      KUBECONFIG: process.env.KUBECONFIG,
      HOME: process.env.HOME,
      KUBERNETES_SERVICE_HOST: process.env.KUBERNETES_SERVICE_HOST,
    };
    afterEach(() => {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    });
    const noUrlFlags = ["s", "--model", "m", "--backend", "vllm", "--url", "http://127.0.0.1:1"];

    it("no kubeconfig anywhere", async () => {
      process.env.HOME = tmp;
      delete process.env.KUBECONFIG;
      delete process.env.KUBERNETES_SERVICE_HOST;
      const r = await verify(noUrlFlags);
      assert.equal(r.code, 2);
      assert.match(
        r.err,
        /^verify: no kubeconfig: pass --kubeconfig FILE, set KUBECONFIG, or create ~\/\.kube\/config/,
      );
    });
    it("KUBECONFIG naming no existing file", async () => {
      process.env.KUBECONFIG = path.join(tmp, "nope");
      const r = await verify(noUrlFlags);
      assert.equal(r.code, 2);
      assert.match(r.err, /KUBECONFIG=.*nope names no existing file/);
    });
    it("an empty, a malformed, a context-less and an unreadable (directory) kubeconfig", async () => {
      const cases: [string, string | undefined, RegExp][] = [
        ["empty", "", /kubeconfig .*empty is empty/],
        ["malformed", "clusters: [\n", /kubeconfig .*malformed is not a valid kubeconfig/],
        [
          "nocontext",
          "apiVersion: v1\nkind: Config\nclusters: []\n",
          /has no current cluster \(current-context: unset\)/,
        ],
        ["adir", undefined, /cannot read kubeconfig .*adir: it is a directory, not a file/],
      ];
      for (const [name, text, re] of cases) {
        const file = path.join(tmp, name);
        if (text === undefined) fs.mkdirSync(file);
        else fs.writeFileSync(file, text);
        const r = await verify([...noUrlFlags, "--kubeconfig", file]);
        assert.equal(r.code, 2, `${name}: ${r.err}`);
        assert.match(r.err, re);
      }
    });
    it("a plain-http server without insecure-skip-tls-verify says how to fix it", async () => {
      const file = path.join(tmp, "http-kubeconfig");
      fs.writeFileSync(file, kubeconfigText("http://127.0.0.1:1").replace("    insecure-skip-tls-verify: true\n", ""));
      const r = await verify([...noUrlFlags, "--kubeconfig", file]);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /is plain http:\/\/ without insecure-skip-tls-verify/);
    });
    it("an unexpected error is exit 70 with one line saying it is a bug", async () => {
      let err = "";
      const boom = () => {
        throw new TypeError("Cannot read properties of undefined (reading 'x')");
      };
      const code = await main(["--help"], { stdout: boom, stderr: (s: string) => (err += s), root: ROOT });
      assert.equal(code, 70);
      assert.match(
        err,
        /^verify: internal error \(a bug in dynamo-efa, please report it\): Cannot read properties of undefined \(reading 'x'\)\n$/,
      );
    });
  });

  it("when the Frontend becomes unreachable, exit 3 still prints the table and writes --json", async () => {
    const kube = await startKube("libfabric");
    const port = await closedPort();
    try {
      const r = await verify(flags(kube.kubeconfig, `http://127.0.0.1:${port}`));
      assert.equal(r.code, 3);
      assert.match(r.err, /^verify: frontend unreachable at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\n$/);
      assert.equal(statuses(r), "A:PASS B:NOT RUN C:NOT RUN D:PASS E:NOT RUN");
      assert.equal(r.json?.exitCode, 3);
      assert.match(r.json?.unreachable ?? "", /ECONNREFUSED/);
      assert.match(r.out, /^A {5}pods Ready/m);
      assert.match(r.out, /^B .* NOT RUN .*not run: frontend unreachable/m);
    } finally {
      await kube.close();
    }
  });

  describe("time and URL bounds", () => {
    for (const [flag, v] of [
      ["--timeout", "2147484"],
      ["--timeout", "1e-9"],
      ["--timeout", "Infinity"],
      ["--ttft-threshold-ms", "0.5"],
      ["--ttft-threshold-ms", "1e12"],
    ]) {
      it(`${flag} ${v} is a usage error`, async () => {
        const r = await verify(["s", "--model", "m", "--backend", "vllm", flag, v]);
        assert.equal(r.code, 2);
        assert.match(r.err, new RegExp(`${flag} must be a number from`));
      });
    }
    for (const url of ["http://127.0.0.1:99999", "ftp://x", "http://", "127.0.0.1:8000"]) {
      it(`--url ${url} is a usage error`, async () => {
        const r = await verify(["s", "--model", "m", "--backend", "vllm", "--url", url]);
        assert.equal(r.code, 2);
        assert.match(r.err, /--url must be http\(s\):\/\/host\[:port\] with a port 1\.\.65535/);
      });
    }
    it("requests never sent are 'not sent' / NOT RUN, never 'timed out after 0 ms'", async () => {
      const r = await against("hangStream", ["--timeout", "0.5"]);
      assert.equal(r.code, 1);
      const c = r.json!.gates.find((g) => g.id === "C")!;
      assert.equal(c.status, "FAIL");
      assert.ok(
        c.evidence.some((e) => /not sent: no time left in the --timeout budget/.test(e)),
        c.evidence.join("\n"),
      );
      assert.ok(!c.evidence.some((e) => /after 0 ms/.test(e)), c.evidence.join("\n"));
    });
  });

  describe("hostile responses are capped and judged", () => {
    it("a 64 MiB /v1/models body is cut at the cap and fails gate B", async () => {
      const before = process.memoryUsage().rss;
      const r = await against("hugeBody");
      assert.equal(statuses(r), "A:PASS B:FAIL C:SKIPPED D:PASS E:SKIPPED", r.out);
      assert.match(r.out, /response body larger than 4194304 bytes/);
      assert.ok(process.memoryUsage().rss - before < 48 * 1024 * 1024, "the body was not buffered");
    });
    it("a never-ending SSE stream is cut at the event cap and fails gate C", async () => {
      const r = await against("manyEvents");
      assert.equal(r.json!.gates.find((g) => g.id === "C")!.status, "FAIL", r.out);
      assert.match(r.out, /more than 10000 SSE events/);
    });
    it('an {"error": ...} event mid-stream fails gate C', async () => {
      const r = await against("errorMidStream");
      assert.equal(r.json!.gates.find((g) => g.id === "C")!.status, "FAIL", r.out);
      assert.match(r.out, /error event mid-stream: \{"message":"engine died","code":500\}/);
    });
    it("data after [DONE] fails gate C", async () => {
      const r = await against("dataAfterDone");
      assert.equal(r.json!.gates.find((g) => g.id === "C")!.status, "FAIL", r.out);
      assert.match(r.out, /1 event\(s\) after \[DONE\]/);
    });
    it("a model id given as a list does not pass gate B", async () => {
      const r = await against("modelIdList");
      assert.equal(r.json!.gates.find((g) => g.id === "B")!.status, "FAIL", r.out);
      assert.match(r.out, /not listed; listed: \? \(id \["meta-llama/);
    });
  });

  describe("one loader and one schema with render", () => {
    it("a stack file without the dynamo-efa: prefix (render accepts it) is read the same", async () => {
      const root = projectWith({ bare: stackText("    model: acme/served-by-bare\n    namespace: serving\n", "", "") });
      const cfg = path.join(tmp, "dead-kubeconfig");
      fs.writeFileSync(cfg, kubeconfigText("http://127.0.0.1:1"));
      try {
        const r = await verify(["bare", "--kubeconfig", cfg, "--url", "http://127.0.0.1:1"], root);
        assert.equal(r.code, 3, r.err);
        assert.match(
          r.out,
          /^verify llm in namespace serving \(vllm, model acme\/served-by-bare; from stacks\/Pulumi\.bare\.yaml\)/,
        );
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    });
    it("--backend sglang (the program cannot run it) is a usage error", async () => {
      const r = await verify(["s", "--model", "m", "--backend", "sglang"]);
      assert.equal(r.code, 2);
      assert.match(r.err, /- --backend: must be one of "vllm", "trtllm"; got "sglang"/);
    });
    it("a stack file the program rejects is rejected the same way (key typo, non-finite number)", async () => {
      const root = projectWith({
        typo: stackText("    model: m\n    maxModelLen: .inf\n", "  dynamo-efa:graphname: g\n"),
      });
      try {
        const r = await verify(["typo", "--url", "http://127.0.0.1:1"], root);
        assert.equal(r.code, 2);
        assert.match(r.err, /- inference\.maxModelLen: must be a finite number/);
        assert.match(r.err, /- dynamo-efa:graphname: unknown key; did you mean "graphName"\?/);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    });
  });
});
