/**
 * The pack as CrossGuard runs it: Pulumi's own `run-policy-pack` runner loads `policy/index.ts`
 * (ts-node, type-checked) and serves the analyzer gRPC API; this test talks to that server the way
 * the engine does (GetAnalyzerInfo, Analyze, AnalyzeStack), with no Pulumi CLI.
 */
import { strict as assert } from "assert";
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { POLICY_NAMES } from "../../policy/policies";
import { happyGraph, loose } from "../helpers/policy-graph-fixtures";
import { happyStack, T } from "../helpers/policy-fixtures";
import { PlanResource, UNKNOWN_STRING } from "../helpers/policy-harness";

import * as grpc from "@grpc/grpc-js";
import { AnalyzerClient } from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import * as pb from "@pulumi/pulumi/proto/analyzer_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { JavaScriptValue, Struct } from "google-protobuf/google/protobuf/struct_pb";

const PACK = path.join(__dirname, "..", "..", "policy");
const LEVEL = ["advisory", "mandatory", "disabled", "remediate"];

interface Diagnostic {
  readonly policy: string;
  readonly level: string;
  readonly message: string;
  readonly urn: string;
}

/** A gRPC unary callback that settles a promise. */
const settle =
  <T>(resolve: (v: T) => void, reject: (e: Error) => void) =>
  (err: grpc.ServiceError | null, res: T) =>
    err ? reject(err) : resolve(res);

/** Plain JSON props as a protobuf Struct (the plan's props are JSON by construction). */
const struct = (props: object) => Struct.fromJavaScript(props as Record<string, JavaScriptValue>);

function options(r: PlanResource): pb.AnalyzerResourceOptions {
  const o = new pb.AnalyzerResourceOptions();
  o.setProtect(r.opts?.protect ?? false);
  o.setAdditionalsecretoutputsList([...(r.opts?.additionalSecretOutputs ?? [])]);
  return o;
}

function analyzerResource(r: PlanResource): pb.AnalyzerResource {
  const a = new pb.AnalyzerResource();
  a.setType(r.type);
  a.setName(r.name);
  a.setUrn(r.urn);
  a.setProperties(struct(r.props));
  a.setOptions(options(r));
  if (r.parent) a.setParent(r.parent);
  a.setDependenciesList([...(r.dependencies ?? [])]);
  for (const [k, urns] of Object.entries(r.propertyDependencies ?? {})) {
    const d = new pb.AnalyzerPropertyDependencies();
    d.setUrnsList([...urns]);
    a.getPropertydependenciesMap().set(k, d);
  }
  return a;
}

function diagnostics(res: pb.AnalyzeResponse): Diagnostic[] {
  return res.getDiagnosticsList().map((d) => ({
    policy: d.getPolicyname(),
    level: LEVEL[d.getEnforcementlevel()],
    message: d.getMessage(),
    urn: d.getUrn(),
  }));
}

describe("policy pack: CrossGuard entry point", function () {
  this.timeout(90_000);
  let child: ChildProcess | undefined;
  let client: AnalyzerClient | undefined;

  before(async () => {
    // What `pulumi preview --policy-pack policy` runs: `run-policy-pack <engine-address> <pack dir>`.
    const runner = require.resolve("@pulumi/pulumi/cmd/run-policy-pack");
    const proc = spawn(process.execPath, [runner, "127.0.0.1:0", "."], {
      cwd: PACK,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = proc;
    let stderr = "";
    proc.stderr!.on("data", (d) => (stderr += d));
    const port = await new Promise<string>((resolve, reject) => {
      proc.stdout!.once("data", (d) => resolve(String(d).trim()));
      proc.once("exit", (code) => reject(new Error(`pack exited with ${code} before printing a port:\n${stderr}`)));
    });
    assert.match(port, /^\d+$/);
    client = new AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });

  after(() => {
    client?.close();
    child?.kill();
  });

  it("PulumiPolicy.yaml and package.json describe a nodejs pack with a version", () => {
    assert.match(fs.readFileSync(path.join(PACK, "PulumiPolicy.yaml"), "utf8"), /^runtime: nodejs$/m);
    const pkg = JSON.parse(fs.readFileSync(path.join(PACK, "package.json"), "utf8"));
    // PolicyPack reads the version from <cwd>/package.json; the runner loads "." through `main`.
    assert.match(pkg.version, /^\d+\.\d+\.\d+$/);
    assert.equal(pkg.main, "index.ts");
  });

  it("the pack is part of the root package: no dependencies of its own, the runner resolves from the root install", () => {
    const pack = JSON.parse(fs.readFileSync(path.join(PACK, "package.json"), "utf8"));
    assert.deepEqual(
      [pack.dependencies, pack.devDependencies],
      [undefined, undefined],
      "policy/package.json declares no dependencies: `npm ci` at the root installs them",
    );
    const root = JSON.parse(fs.readFileSync(path.join(PACK, "..", "package.json"), "utf8"));
    assert.equal(root.dependencies["@pulumi/pulumi"], "3.248.0");
    assert.ok(root.dependencies["@pulumi/policy"]);
    // The CLI's nodejs host finds the runner with require.resolve from the pack directory (a
    // policy/node_modules would win and bring a second @pulumi/pulumi).
    const runner = require.resolve("@pulumi/pulumi/cmd/run-policy-pack", { paths: [PACK] });
    assert.equal(
      path.relative(path.join(PACK, ".."), runner).split(path.sep).slice(0, 3).join("/"),
      "node_modules/@pulumi/pulumi",
    );
  });

  it("GetAnalyzerInfo: pack dynamo-efa with every listed policy and its default level", async () => {
    const info = await new Promise<pb.AnalyzerInfo>((ok, fail) =>
      client!.getAnalyzerInfo(new Empty(), settle(ok, fail)),
    );
    assert.equal(info.getName(), "dynamo-efa");
    const policies = info.getPoliciesList().map((p) => [p.getName(), LEVEL[p.getEnforcementlevel()]]);
    assert.deepEqual(
      policies.map((p: string[]) => p[0]),
      [...POLICY_NAMES],
    );
    assert.deepEqual(
      policies.filter((p: string[]) => p[1] === "advisory").map((p: string[]) => p[0]),
      [
        "no-noop-nixl-env",
        "no-idle-gpu-nodes",
        "eks-endpoint-not-world-open",
        "trtllm-libfabric-caveat",
        "release-known-issues",
      ],
    );
  });

  it("Analyze: the happy graph gets no diagnostics; a hostNetwork worker gets the mandatory F6 violation", async () => {
    const g = happyStack().find((r) => r.type === T.Dgd)!;
    const analyzeAll = (props: object) => {
      const req = new pb.AnalyzeRequest();
      req.setType(g.type);
      req.setName(g.name);
      req.setUrn(g.urn);
      req.setProperties(struct(props));
      req.setOptions(options(g));
      return new Promise<pb.AnalyzeResponse>((ok, fail) => client!.analyze(req, settle(ok, fail))).then(diagnostics);
    };
    // A v1alpha1 graph is release seed's: its known issues (NIXL 0.10.1 on EFA, 2 of 16 EFA per worker) are
    // advisories by design; the rest of this test is about the other policies.
    const seedAdvisories = await analyzeAll(happyGraph());
    assert.deepEqual(
      seedAdvisories.map((d) => [d.policy, d.level]),
      [
        ["release-known-issues", "advisory"],
        ["release-known-issues", "advisory"],
      ],
    );
    const analyze = async (props: object) =>
      (await analyzeAll(props)).filter((d) => d.policy !== "release-known-issues");
    assert.deepEqual(await analyze(happyGraph()), []);
    // Preview: the image built in the same run has no ref yet; no policy fails or reports "can't run".
    const preview = happyGraph();
    for (const s of Object.values(preview.spec.services)) s.extraPodSpec.mainContainer.image = UNKNOWN_STRING;
    assert.deepEqual(await analyze(preview), []);
    const bad = happyGraph();
    loose(bad.spec.services.DecodeWorker.extraPodSpec).hostNetwork = true;
    assert.deepEqual(await analyze(bad), [
      {
        // The server prefixes the policy description; Analyze diagnostics leave the URN to the engine.
        policy: "no-host-network-workers",
        level: "mandatory",
        urn: "",
        message: `Worker pods do not use hostNetwork, so co-scheduled workers cannot clash on the system and NIXL side-channel ports.\nDynamoGraphDeployment "llama" service "DecodeWorker" sets extraPodSpec.hostNetwork: true; remove it (hostNetwork pods on one node clash on ports 9090 and 5600/5700: F6)`,
      },
    ]);
  });

  it("AnalyzeStack: the happy plan passes; without the egress rule the EFA group fails, judged through property dependencies", async () => {
    const analyzeStack = (plan: PlanResource[]) => {
      const req = new pb.AnalyzeStackRequest();
      req.setResourcesList(plan.map(analyzerResource));
      return new Promise<pb.AnalyzeResponse>((ok, fail) => client!.analyzeStack(req, settle(ok, fail))).then(
        diagnostics,
      );
    };
    // retainOnDelete is not part of the analyzer protocol: those resources come back not-applicable, not violating.
    assert.deepEqual(await analyzeStack(happyStack()), []);
    const d = await analyzeStack(happyStack().filter((r) => r.name !== "c-efa-egress"));
    assert.deepEqual(
      d.map((x) => [x.policy, x.level, x.urn]),
      [["efa-security-group-self-referencing", "mandatory", happyStack().find((r) => r.name === "c-gpu-lt")!.urn]],
    );
  });
});
