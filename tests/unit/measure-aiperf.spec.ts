/**
 * `measure`'s AIPerf side without a cluster: the command line of a load point from the stack's declared workload,
 * the Job and its NetworkPolicies as rendered for a real stack (evaluated together with the graph's own policies),
 * and the parser on the real AIPerf export recorded from AIPerf's repository.
 */
import { strict as assert } from "assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { aiperfArgs, ExportError, parseSummary } from "../../tools/measure/aiperf";
import {
  ARTIFACT_DIR,
  EXPORT_BEGIN,
  EXPORT_END,
  exportFromLog,
  frontendUrl,
  JOB_TTL_SECONDS,
  renderBenchConfigMap,
  renderBenchJob,
  renderBenchPolicies,
  TOKENIZER_CONTAINER,
} from "../../tools/measure/job";
import { TOKENIZER_ROOT } from "../../tools/measure/tokenizer";
import { modelCacheDir, PREFETCH_FILE, PREFETCH_SCRIPT } from "../../components/inference/cache";
import { benchJobFor, loadPoints } from "../../tools/measure/plan";
import { stackInference } from "../../tools/verify/target";
import { renderNetworkPolicies } from "../../components/inference/network";
import { GraphService, OperatorLabel } from "../../components/_shared/names";
import { allows, type Endpoint } from "../helpers/network-policy-eval";

const ROOT = join(__dirname, "..", "..");
const REAL = readFileSync(
  join(ROOT, "tests", "fixtures", "aiperf", "baseline-chat-bare.profile_export_aiperf.json"),
  "utf8",
);
const IMAGE = `registry.example/aiperf@sha256:${"a".repeat(64)}`;
const stack = (name: string) => stackInference(ROOT, join(ROOT, "stacks", `Pulumi.${name}.yaml`)).resolved;

describe("measure: AIPerf export parser on the recorded real export", () => {
  it("reads AIPerf's fields, not its console: throughput, latency percentiles, counts, duration", () => {
    assert.deepEqual(parseSummary(REAL), {
      aiperfVersion: "0.8.0",
      streaming: false,
      requestLatencyMs: { p50: 0.6734304999999999, p90: 0.9101727000000001, p99: 15.14387014 },
      requestsPerSecond: 1854.929714829192,
      outputTokensPerSecond: 1022443.0554692096,
      requests: 64,
      errorRequests: 0,
      durationS: 0.034502655,
      wasCancelled: false,
    });
  });

  it("a non-streamed run has no TTFT or ITL; a streamed run without them is refused", () => {
    const s = parseSummary(REAL);
    assert.equal(s.ttftMs, undefined);
    assert.equal(s.itlMs, undefined);
    const doc = JSON.parse(REAL) as { input_config: { endpoint: Record<string, unknown> } };
    doc.input_config.endpoint.streaming = true;
    assert.throws(() => parseSummary(JSON.stringify(doc)), /a streamed run without time_to_first_token/);
  });

  it("refuses what it cannot read, naming AIPerf's field", () => {
    const doc = JSON.parse(REAL) as Record<string, unknown>;
    const cases: [string, unknown, RegExp][] = [
      ["not JSON", "{", /^not JSON/],
      ["an array", [], /not a JSON object/],
      ["no throughput", { ...doc, request_throughput: undefined }, /request_throughput is missing/],
      [
        "ms become s",
        { ...doc, request_latency: { unit: "s", avg: 1, p50: 1, p90: 1, p99: 1 } },
        /request_latency.unit is "s"; measure reads it in "ms"/,
      ],
      [
        "a percentile not a number",
        { ...doc, request_latency: { unit: "ms", p50: "x", p90: 1, p99: 1 } },
        /request_latency.p50 is not a number/,
      ],
    ];
    for (const [why, v, re] of cases)
      assert.throws(
        () => parseSummary(typeof v === "string" ? v : JSON.stringify(v)),
        (e: Error) => e instanceof ExportError && re.test(e.message),
        why,
      );
  });

  it("finds the export between the Job's markers, after AIPerf's own output; none when AIPerf wrote none", () => {
    const log = `aiperf console table...\n${EXPORT_BEGIN}\n${REAL}\n${EXPORT_END}\n`;
    assert.equal(parseSummary(exportFromLog(log)!).requests, 64);
    assert.equal(exportFromLog(`${EXPORT_BEGIN}\n\n${EXPORT_END}`), undefined);
    assert.equal(exportFromLog("Traceback ..."), undefined);
  });
});

describe("measure: the benchmark Job from the render of a stack", () => {
  const r = stack("p5en-8gpu");

  it("runs the stack's declared workload: ISL, OSL and the declared load; a sweep multiplies the load", () => {
    assert.deepEqual(loadPoints(r.workload, [1]), [{ concurrency: 64 }]);
    assert.deepEqual(loadPoints(r.workload, [0.25, 1, 2]), [
      { concurrency: 16 },
      { concurrency: 64 },
      { concurrency: 128 },
    ]);
    assert.deepEqual(loadPoints({ ...r.workload, concurrency: undefined, requestsPerSecond: 4 }, [0.5, 1]), [
      { requestsPerSecond: 2 },
      { requestsPerSecond: 4 },
    ]);
    const job = benchJobFor(r, { concurrency: 64 }, { image: IMAGE, runId: "r1", index: 0, deadlineSeconds: 900 });
    const args = job.spec!.template.spec!.containers[0]!.args!;
    const after = (flag: string) => args[args.indexOf(flag) + 1];
    assert.equal(after("--synthetic-input-tokens-mean"), String(r.workload.isl));
    assert.equal(after("--output-tokens-mean"), String(r.workload.osl));
    assert.equal(after("--concurrency"), "64");
    assert.equal(after("--url"), frontendUrl(r.graphName, r.namespace));
    assert.equal(after("--model"), r.servedModelName);
    assert.equal(
      after("--tokenizer"),
      modelCacheDir(TOKENIZER_ROOT, r.model, r.modelRevision),
      "the init container's copy",
    );
    assert.equal(after("--artifact-dir"), ARTIFACT_DIR);
    assert.ok(args.includes("--streaming"));
    assert.ok(!args.includes("--goodput"), "no objectives declared: no goodput");
    const slo = aiperfArgs({
      url: "u",
      model: "m",
      tokenizer: "m",
      isl: 1,
      osl: 1,
      load: { requestsPerSecond: 2 },
      requests: 10,
      warmupRequests: 1,
      ttftMs: 300,
      artifactDir: "/r",
    });
    assert.equal(slo[slo.indexOf("--goodput") + 1], "time_to_first_token:300");
    assert.equal(slo[slo.indexOf("--request-rate-mode") + 1], "poisson");
  });

  it("is bounded, cleaned up, non-root, digest-pinned and next to the Frontend", () => {
    const job = renderBenchJob({
      name: "llm-measure-r1-0",
      namespace: r.namespace,
      graph: r.graphName,
      image: IMAGE,
      args: ["profile"],
      tokenizer: { model: r.model, revision: "main", hfSecret: "llm-hf-token" },
      runId: "r1",
      deadlineSeconds: 900,
      runAsUser: 1000,
    });
    const spec = job.spec!;
    assert.equal(spec.backoffLimit, 0);
    assert.equal(spec.activeDeadlineSeconds, 900);
    assert.equal(spec.ttlSecondsAfterFinished, JOB_TTL_SECONDS);
    const pod = spec.template.spec!;
    assert.equal(pod.restartPolicy, "Never");
    assert.equal(pod.automountServiceAccountToken, false);
    assert.equal(pod.securityContext?.runAsNonRoot, true);
    const c = pod.containers[0]!;
    assert.equal(c.image, IMAGE);
    assert.equal(c.securityContext?.readOnlyRootFilesystem, true);
    assert.deepEqual(c.securityContext?.capabilities?.drop, ["ALL"]);
    assert.equal(
      pod.affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0]?.podAffinityTerm.labelSelector
        ?.matchLabels?.[OperatorLabel.Component],
      GraphService.Frontend,
    );
  });

  it("AIPerf gets no token and reads its tokenizer offline; the init container fetches it, with the token only when it needs it", () => {
    for (const tokenizerToken of [false, true]) {
      const job = benchJobFor(
        r,
        { concurrency: 1 },
        { image: IMAGE, runId: "r1", index: 0, deadlineSeconds: 60, tokenizerToken },
      );
      const pod = job.spec!.template.spec!;
      const aiperf = pod.containers[0]!;
      assert.equal(pod.containers.length, 1);
      assert.equal(aiperf.envFrom, undefined, "no Secret in AIPerf's environment");
      assert.ok(!(aiperf.env ?? []).some((e) => e.valueFrom || /TOKEN/.test(e.name)), JSON.stringify(aiperf.env));
      assert.equal(aiperf.env!.find((e) => e.name === "HF_HUB_OFFLINE")?.value, "1");
      const dir = aiperf.args![aiperf.args!.indexOf("--tokenizer") + 1];
      assert.equal(dir, modelCacheDir(TOKENIZER_ROOT, r.model, r.modelRevision));
      const [init] = pod.initContainers!;
      assert.equal(init!.name, TOKENIZER_CONTAINER);
      const env = Object.fromEntries(init!.env!.map((e) => [e.name, e.value ?? e.valueFrom?.secretKeyRef?.name]));
      assert.equal(env.METADATA_ONLY, "1");
      assert.equal(env.CACHE_ROOT, TOKENIZER_ROOT);
      assert.equal(env.MODEL_ID, r.model);
      assert.equal("HF_TOKEN" in env, tokenizerToken, `token given: ${tokenizerToken}`);
      for (const c of [aiperf, init!]) assert.deepEqual(c.securityContext?.seccompProfile, { type: "RuntimeDefault" });
      const cm = renderBenchConfigMap({ name: job.metadata!.name!, namespace: r.namespace });
      assert.equal(pod.volumes!.find((v) => v.name === "prefetch")?.configMap?.name, cm.metadata!.name);
      assert.equal(cm.data![PREFETCH_FILE], PREFETCH_SCRIPT);
    }
  });

  it("its NetworkPolicies let the Job reach the Frontend's port through the graph's default deny, and nothing else of the graph", () => {
    const graph = renderNetworkPolicies(r);
    const mine = renderBenchPolicies({
      name: "llm-measure-r1-0",
      namespace: r.namespace,
      graph: r.graphName,
      runId: "r1",
    });
    const job = benchJobFor(r, { concurrency: 1 }, { image: IMAGE, runId: "r1", index: 0, deadlineSeconds: 60 });
    const benchPod: Endpoint = {
      pod: { namespace: r.namespace, labels: job.spec!.template.metadata!.labels! },
      ip: "10.0.1.5",
    };
    const pod = (component: string): Endpoint => ({
      pod: {
        namespace: r.namespace,
        labels: { [OperatorLabel.GraphName]: r.graphName, [OperatorLabel.Component]: component },
      },
      ip: "10.0.2.7",
    });
    const flow = (to: Endpoint, port: number) => ({ from: benchPod, to, protocol: "TCP" as const, port });
    assert.equal(allows([...graph, ...mine], flow(pod(GraphService.Frontend), 8000)), true);
    assert.equal(
      allows(graph, flow(pod(GraphService.Frontend), 8000)),
      false,
      "without them the default deny drops it",
    );
    assert.equal(allows([...graph, ...mine], flow(pod(GraphService.Decode), 9090)), false);
    assert.equal(allows([...graph, ...mine], flow(pod(GraphService.Frontend), 9090)), false);
    // HTTPS (the tokenizer's download) only to public addresses: never the VPC, a node, the pods or IMDS.
    const host = (ip: string): Endpoint => ({ ip });
    assert.equal(allows([...graph, ...mine], flow(host("18.164.1.10"), 443)), true, "the hub's CDN");
    for (const ip of ["10.0.3.4", "172.20.0.10", "192.168.1.1", "169.254.169.254", "100.64.0.7"])
      assert.equal(allows([...graph, ...mine], flow(host(ip), 443)), false, `${ip}:443`);
    assert.equal(allows([...graph, ...mine], flow(host("18.164.1.10"), 80)), false, "no plain HTTP");
    const otherRun = renderBenchPolicies({ name: "x", namespace: r.namespace, graph: r.graphName, runId: "r2" });
    assert.equal(
      allows([...graph, ...otherRun], flow(pod(GraphService.Frontend), 8000)),
      false,
      "another run's policies admit only its own pod",
    );
  });
});
