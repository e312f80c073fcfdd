/**
 * `verify`'s own failures through the real CLI entry: an unreachable cluster, Frontend or port-forward
 * and an API error status are exit 3 with one line; usage errors are exit 2 with the usage; and, as a
 * subprocess, the result becomes the process exit code without a stack trace.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { closedPort, flags, ROOT, scratch, useVerifyCli, verify } from "./cli-harness";
import { kubeconfigText, NAMESPACE, startKube } from "./fake-kube";

describe("verify CLI: unreachable targets and usage errors", function () {
  useVerifyCli();

  it("exits 3 with one line when the cluster is unreachable", async () => {
    const cfg = path.join(scratch(), "dead-kubeconfig");
    fs.writeFileSync(cfg, kubeconfigText(`http://127.0.0.1:${await closedPort()}`));
    const r = await verify([
      "s",
      "--kubeconfig",
      cfg,
      "--model",
      "m",
      "--backend",
      "vllm",
      "--url",
      "http://127.0.0.1:1",
    ]);
    assert.equal(r.code, 3);
    assert.match(r.err, /^verify: cluster unreachable at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\n$/);
  });

  it("exits 3 with one line when the Frontend is unreachable", async () => {
    const kube = await startKube("libfabric");
    try {
      const r = await verify(flags(kube, `http://127.0.0.1:${await closedPort()}`));
      assert.equal(r.code, 3);
      assert.match(r.err, /^verify: frontend unreachable at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\n$/);
    } finally {
      await kube.close();
    }
  });

  it("exits 3 with one line when the API refuses the port-forward to the Frontend pod", async () => {
    const kube = await startKube("libfabric"); // no forward target: the upgrade is refused
    try {
      const argv = flags(kube, "x").filter((a, i, all) => a !== "--url" && all[i - 1] !== "--url");
      const r = await verify(argv);
      assert.equal(r.code, 3, r.out + r.err);
      assert.match(
        r.err,
        /^verify: frontend unreachable at pod\/llama-frontend-0:8000 via port-forward: .*\(port-forward failed: .*\)\n$/,
      );
    } finally {
      await kube.close();
    }
  });

  it("exits 3 with one line when the cluster API answers an error status", async () => {
    const kube = await startKube("libfabric");
    try {
      const r = await verify(flags(kube, "http://127.0.0.1:1").map((a) => (a === NAMESPACE ? "broken" : a)));
      assert.equal(r.code, 3);
      assert.match(
        r.err,
        /^verify: cluster at http:\/\/127\.0\.0\.1:\d+ answered HTTP 500 to list pods: etcdserver: request timed out\n$/,
      );
    } finally {
      await kube.close();
    }
  });

  const usage: [string, string[], RegExp][] = [
    ["no stack", [], /expected exactly one <stack>; got none/],
    ["an unknown flag", ["s", "--nope"], /Unknown option '--nope'/],
    [
      "a bad timeout",
      ["s", "--model", "m", "--backend", "vllm", "--timeout", "0"],
      /--timeout must be a number from 0\.1 to 86400; got "0"/,
    ],
    [
      "a missing stack file and no flags",
      ["nostack"],
      /no stack file .*Pulumi\.nostack\.yaml; pass --model and --backend/,
    ],
    [
      "a missing kubeconfig file",
      ["s", "--model", "m", "--backend", "vllm", "--kubeconfig", "/nonexistent/kc"],
      /--kubeconfig \/nonexistent\/kc: no such file/,
    ],
  ];
  for (const [why, argv, re] of usage) {
    it(`exits 2 on ${why}`, async () => {
      const r = await verify(argv);
      assert.equal(r.code, 2);
      assert.match(r.err, re);
      assert.match(r.err, /usage: npm run verify -- <stack>/);
    });
  }

  it("as a subprocess, turns the result into the process exit code (2, no stack trace)", function () {
    // A child's start-up time says nothing about verify (node + tsx start-up, slower when mocha's
    // workers share the cores); the exit code and stderr are what is checked, so no time bound.
    this.timeout(0);
    const p = spawnSync(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "tools", "verify", "cli.ts"), "nostack"],
      { cwd: ROOT, encoding: "utf8" },
    );
    assert.equal(p.status, 2, p.stderr);
    assert.match(p.stderr, /^verify: no stack file /);
    assert.doesNotMatch(p.stderr, /\n\s+at /);
  });
});
