/**
 * `measure` against AIPerf as read at the pinned commit (facts/aiperf.json) and against a real AIPerf export
 * (tests/fixtures/aiperf/, recorded from AIPerf's repository with provenance): every flag the Job passes exists,
 * the export file and each field measure reads carry the unit measure reads them in, AIPerf's own Kubernetes mode
 * is not there to use, and the image the Job runs is one the release ships with AIPerf on its PATH (nothing is built;
 * facts/dynamo-frontend-aiperf.json). Each check is shown to fail on a mutation.
 */
import { strict as assert } from "assert";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadFacts } from "./facts";
import { AIPERF, aiperfArgs, BenchSpec, EXPORT_UNITS, GOODPUT_TAG } from "../../tools/measure/aiperf";
import { JOB_SCRIPT, renderBenchJob, type BenchJob } from "../../tools/measure/job";
import { release } from "../../components/releases";
import { NIXL_SERIES } from "../../tools/measure/kv";

interface AiperfFacts {
  readonly version: string;
  readonly cliFlags: readonly string[];
  readonly exportFiles: { readonly summaryJson: string; readonly summaryCsv: string };
  readonly summaryFields: readonly string[];
  readonly statKeys: readonly string[];
  readonly metricUnits: Readonly<Record<string, string>>;
  readonly kubernetesServiceManagerImplemented: boolean;
}

const { provenance, facts } = loadFacts<AiperfFacts>("aiperf");

interface FrontendFacts {
  readonly image: string;
  readonly installsBenchmarksPackage: boolean;
  readonly aiperf: string;
  readonly aiperfOnPath: string;
  readonly entrypoint: string;
  readonly hasShell: boolean;
  readonly benchmarkJob: { readonly runAsUser: number };
  readonly later: readonly { readonly aiperf: string }[];
}

/** A Job as `benchJobFor` makes it for the default stack (the graph's defaults: user 1000). */
const JOB: BenchJob = {
  name: "g-measure-x-0",
  namespace: "dynamo",
  graph: "g",
  image: "",
  args: [],
  tokenizer: { model: "m", revision: "main" },
  runId: "x",
  deadlineSeconds: 1800,
  runAsUser: 1000,
};
const FIXTURES = join(__dirname, "..", "fixtures", "aiperf");
const REAL = "baseline-chat-bare.profile_export_aiperf.json";

const SPEC: BenchSpec = {
  url: "http://llm-frontend.dynamo.svc.cluster.local:8000",
  model: "m",
  tokenizer: "m",
  isl: 1024,
  osl: 256,
  load: { concurrency: 64 },
  requests: 512,
  warmupRequests: 64,
  ttftMs: 500,
  itlMs: 20,
  artifactDir: "/results",
};

/** The flags of an argument list that are not in AIPerf's CLI at the pinned commit. */
const unknownFlags = (args: readonly string[]) => args.filter((a) => a.startsWith("--") && !facts.cliFlags.includes(a));

describe("contract: AIPerf (facts/aiperf.json, the recorded real export)", () => {
  it("pins the commit and version the facts were read at", () => {
    assert.equal(provenance.commit, AIPERF.commit);
    assert.equal(facts.version, AIPERF.version);
  });

  it("every flag the Job passes exists in AIPerf's CLI, for a closed and an open loop", () => {
    assert.deepEqual(unknownFlags(aiperfArgs(SPEC)), []);
    assert.deepEqual(unknownFlags(aiperfArgs({ ...SPEC, load: { requestsPerSecond: 3 } })), []);
    assert.deepEqual(unknownFlags([...aiperfArgs(SPEC), "--input-tokens-mean"]), ["--input-tokens-mean"], "mutation");
  });

  it("goodput names metric tags AIPerf knows, in the display unit it documents (ms)", () => {
    for (const tag of Object.values(GOODPUT_TAG)) assert.equal(facts.metricUnits[tag], "ms", tag);
  });

  it("the export file the Job prints is the one AIPerf writes, and each field read has the unit measure reads", () => {
    assert.equal(facts.exportFiles.summaryJson, AIPERF.summaryFile);
    assert.ok(JOB_SCRIPT.includes(`/${AIPERF.summaryFile}'`));
    assert.deepEqual(EXPORT_UNITS, facts.metricUnits);
    for (const tag of Object.keys(EXPORT_UNITS)) assert.ok(facts.summaryFields.includes(tag), tag);
    for (const k of ["p50", "p90", "p99", "avg", "unit"]) assert.ok(facts.statKeys.includes(k), k);
  });

  it("the recorded real export (AIPerf 0.8.0) writes the fields it has in the same units, and its command line uses flags the pin has", () => {
    const prov = JSON.parse(readFileSync(join(FIXTURES, "provenance.json"), "utf8")) as Record<
      string,
      { sha256: string }
    >;
    const text = readFileSync(join(FIXTURES, REAL));
    assert.equal(createHash("sha256").update(text).digest("hex"), prov[REAL]!.sha256, "fixture edited");
    const doc = JSON.parse(text.toString("utf8")) as Record<string, { unit?: string }> & {
      input_config: { artifacts: { cli_command: string } };
    };
    const present = Object.keys(EXPORT_UNITS).filter((t) => doc[t] !== undefined);
    assert.deepEqual(
      present.sort(),
      [
        "benchmark_duration",
        "request_count",
        "request_latency",
        "request_throughput",
        "output_token_throughput",
      ].sort(),
    );
    for (const t of present) assert.equal(doc[t]!.unit, facts.metricUnits[t], t);
    const used = doc.input_config.artifacts.cli_command.match(/--[a-z-]+/g) ?? [];
    assert.deepEqual(unknownFlags(used), []);
  });

  it("AIPerf's own Kubernetes mode is not implemented at the pin, so measure runs a plain Job", () => {
    assert.equal(facts.kubernetesServiceManagerImplemented, false);
  });

  it("the Job runs on the release's frontend image, which ships AIPerf on its PATH and a shell: nothing is built", () => {
    const { facts: f, provenance: p } = loadFacts<FrontendFacts>("dynamo-frontend-aiperf");
    const image = release().frontendImage!;
    assert.equal(image.repository, f.image);
    assert.ok(f.installsBenchmarksPackage && f.hasShell && f.aiperfOnPath.endsWith("/bin"));
    // The image's entrypoint is the Frontend's own (/epp): the Job names its command, a shell that finds aiperf.
    assert.notEqual(f.entrypoint, "sh");
    const job = renderBenchJob({ ...JOB, image: `${f.image}@sha256:${"a".repeat(64)}` });
    const c = job.spec!.template.spec!.containers[0]!;
    assert.deepEqual(c.command?.slice(0, 2), ["sh", "-c"]);
    assert.match(JOB_SCRIPT, /^aiperf "\$@"/);
    assert.equal(job.spec!.template.spec!.securityContext!.runAsUser, f.benchmarkJob.runAsUser);
    // The version the release data states is one a readable copy pins, and it says where it could not be read.
    const pins = [f.aiperf, ...f.later.map((l) => l.aiperf)];
    assert.ok(pins.includes(image.aiperf!.version), `${image.aiperf!.version} not in ${pins.join(", ")}`);
    assert.match(image.aiperf!.source, /\[verify for 1\.6\.2\]/);
    assert.match(p.notes ?? "", /v1\.6\.2 tag .* could not be read/);
    const doc = readFileSync(join(__dirname, "..", "..", "docs", "MEASURE.md"), "utf8");
    assert.doesNotMatch(doc, /docker (build|push)/, "docs/MEASURE.md asks for no image build");
  });

  it("the NIXL series measure reads are the ones vLLM registers (facts/vllm-nixl-metrics.json)", () => {
    const { facts: v } = loadFacts<{ series: Record<string, string> }>("vllm-nixl-metrics");
    const base = (s: string) => s.replace(/_(sum|count|total)$/, "");
    for (const s of Object.values(NIXL_SERIES)) assert.ok(v.series[base(s)], s);
    assert.equal(v.series[base(NIXL_SERIES.bytesSum)], "histogram");
    assert.equal(v.series[base(NIXL_SERIES.xferSecondsSum)], "histogram");
    assert.equal(v.series[NIXL_SERIES.failed], "counter");
  });
});
