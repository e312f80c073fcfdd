/**
 * Every Dynamo setting that decides whether a deploy answers is stated on every rendered worker and on the Frontend,
 * never left to a release default (tests/contracts/facts/dynamo-runtime-settings.json): the discovery backend, the
 * request, response and event planes (the same on both sides: a mismatch and they never see each other), the system
 * port, self-hosted model cards (all workers alike: cards of both kinds park the model in a silent Conflict), the
 * canary health checks, and the Frontend's admin API and nvext (its worker-pinning headers) off unless asked. Both
 * releases, both backends, both shipped shapes; each check also fails on the mutation it guards against.
 */
import { strict as assert } from "assert";
import { loadFacts } from "./facts";
import { GraphService } from "../../components/_shared/names";
import type { DgdService, EnvVar } from "../../components/inference/dgd";
import { Backend, InferenceSettings } from "../../components/inference/args";
import { DgdObject, renderGraph } from "../../components/inference/graph";
import { ModelCards, release, ReleaseId, RELEASES } from "../../components/releases";
import { argValue, IMAGE, resolved, Variant } from "../helpers/inference-fixtures";

interface Choice {
  readonly env: string;
  readonly default: string | null;
  readonly choices: readonly string[];
}
interface SettingsFacts {
  readonly discoveryBackend: Choice;
  readonly requestPlane: Choice;
  readonly responsePlane: Choice;
  readonly eventPlane: Choice;
  readonly selfHostedMetadata: {
    readonly variable: string;
    readonly truthyValues: readonly string[];
    readonly rewriteBeforeHfPaths: boolean;
    readonly urlPortIsSystemPort: boolean;
    readonly skippedWithoutSystemPort: boolean;
  };
  readonly zmqEventPlane: Readonly<Record<string, boolean>>;
  readonly frontend: {
    readonly nvext: { readonly disabledBy: string; readonly default: boolean };
    readonly adminApi: { readonly disabledBy: string; readonly default: boolean };
    readonly routerMode: Choice;
  };
}
const F = loadFacts<SettingsFacts>("dynamo-runtime-settings").facts;
const SYSTEM_PORT = loadFacts<{ workerSystemPort: number }>("dynamo-network").facts.workerSystemPort;
const WORKERS = [GraphService.Prefill, GraphService.Decode] as const;
const PLANES = [F.discoveryBackend, F.requestPlane, F.eventPlane] as const;

const envOf = (s: DgdService): Map<string, string | undefined> =>
  new Map((s.envs ?? []).map((e: EnvVar) => [e.name, e.value]));
const truthy = (v: string | undefined) =>
  v !== undefined && F.selfHostedMetadata.truthyValues.includes(v.trim().toLowerCase());

/** Every way the rendered graph leaves a deciding setting to a default, or states it inconsistently. */
function settingsProblems(g: DgdObject, rel: ReleaseId): string[] {
  const out: string[] = [];
  const frontend = envOf(g.spec.services[GraphService.Frontend]);
  const planes = [...PLANES, ...(rel === "dynamo-1.6" ? [F.responsePlane] : [])];
  for (const key of WORKERS) {
    const w = envOf(g.spec.services[key]);
    for (const p of planes) {
      const v = w.get(p.env);
      if (v === undefined || !p.choices.includes(v))
        out.push(`${key}: ${p.env}=${v} is not one of ${p.choices.join(", ")}`);
      if (frontend.get(p.env) !== v) out.push(`${key} and the Frontend disagree on ${p.env}`);
    }
    if (w.get("DYN_SYSTEM_PORT") !== String(SYSTEM_PORT)) out.push(`${key}: DYN_SYSTEM_PORT is not ${SYSTEM_PORT}`);
    const selfHost = release(rel).runtime.modelCards.mode === ModelCards.SelfHosted;
    if (truthy(w.get(F.selfHostedMetadata.variable)) !== selfHost)
      out.push(
        `${key}: ${F.selfHostedMetadata.variable}=${w.get(F.selfHostedMetadata.variable)} disagrees with the release's model cards`,
      );
    if (!["true", "false"].includes(w.get("DYN_HEALTH_CHECK_ENABLED") ?? ""))
      out.push(`${key}: canary health checks not stated`);
  }
  return out;
}

/** The Frontend's surfaces and router mode against what the settings say. */
function frontendProblems(g: DgdObject, over: { adminApi?: boolean; nvext?: boolean; routerMode?: string }): string[] {
  const out: string[] = [];
  const fe = g.spec.services[GraphService.Frontend];
  const env = envOf(fe);
  for (const [key, sw] of [
    ["adminApi", F.frontend.adminApi],
    ["nvext", F.frontend.nvext],
  ] as const) {
    const off = env.get(sw.disabledBy) === "1";
    if (off === (over[key] ?? false)) out.push(`${key}: ${sw.disabledBy} is ${env.get(sw.disabledBy)}`);
  }
  const mode = argValue(fe, "--router-mode");
  if (!F.frontend.routerMode.choices.includes(mode) || mode !== (over.routerMode ?? "round-robin"))
    out.push(`--router-mode ${mode}`);
  return out;
}

const withEnv = (g: DgdObject, key: GraphService, edit: (e: EnvVar[]) => EnvVar[]): DgdObject => ({
  ...g,
  spec: {
    ...g.spec,
    services: {
      ...g.spec.services,
      [key]: { ...g.spec.services[key], envs: edit([...(g.spec.services[key].envs ?? [])]) },
    },
  },
});

describe("contracts: every deciding Dynamo setting is stated (facts/dynamo-runtime-settings.json)", () => {
  it("the facts hold what the render relies on", () => {
    assert.equal(
      F.discoveryBackend.default,
      "etcd",
      "the runtime's own default would look for an etcd no platform runs",
    );
    assert.deepEqual([F.requestPlane.default, F.responsePlane.default], ["tcp", "tcp"]);
    assert.equal(F.eventPlane.default, null, "the event plane's default is computed, so the render states it");
    assert.ok(F.selfHostedMetadata.rewriteBeforeHfPaths && F.selfHostedMetadata.urlPortIsSystemPort);
    assert.ok(F.selfHostedMetadata.skippedWithoutSystemPort, "without a system port the card keeps its paths");
    assert.ok(Object.values(F.zmqEventPlane).every(Boolean), "publishers bind a kernel port and advertise it");
    assert.deepEqual([F.frontend.adminApi.default, F.frontend.nvext.default], [true, true]);
  });

  for (const rel of Object.keys(RELEASES) as ReleaseId[])
    it(`${rel}: each stated setting is a value the runtime takes, with why and source`, () => {
      const rt = release(rel).runtime;
      for (const s of [...rt.workerEnv, ...rt.frontendEnv, ...Object.values(rt.frontendSwitches)]) {
        assert.ok(s.why.length > 20 && s.source.length > 20, s.name);
        const plane = [...PLANES, F.responsePlane].find((p) => p.env === s.name);
        if (plane) assert.ok(plane.choices.includes(s.value), `${s.name}=${s.value}`);
      }
      for (const m of rt.routerModes.modes) assert.ok(F.frontend.routerMode.choices.includes(m), m);
    });

  for (const rel of Object.keys(RELEASES) as ReleaseId[])
    for (const variant of ["p5en-1gpu", "p5en-8x1gpu"] as Variant[])
      for (const backend of ["vllm", "trtllm"] as Backend[])
        // Ledger row 1.1.0:enable-nats-and-use-kv-events-removed-from-distributedruntime (#7265).
        // Ledger row 1.5.0:worker-canary-health-checks-enabled-by-default-in-operator (#11083).
        it(`${rel} ${variant} ${backend}: every worker and the Frontend state them`, () => {
          const g = renderGraph(resolved(variant, backend, { release: rel }), IMAGE);
          assert.deepEqual(settingsProblems(g, rel), []);
          if (rel === "dynamo-1.6") assert.deepEqual(frontendProblems(g, {}), []);
        });

  it("fails on a worker that leaves the event plane to its default, and on a Frontend on another plane", () => {
    const g = renderGraph(resolved("p5en-8x1gpu", "vllm", {}), IMAGE);
    const dropped = withEnv(g, GraphService.Decode, (e) => e.filter((x) => x.name !== "DYN_EVENT_PLANE"));
    assert.match(settingsProblems(dropped, "dynamo-1.6").join("\n"), /DecodeWorker: DYN_EVENT_PLANE=undefined/);
    const other = withEnv(g, GraphService.Frontend, (e) =>
      e.map((x) => (x.name === "DYN_EVENT_PLANE" ? { ...x, value: "nats" } : x)),
    );
    assert.match(settingsProblems(other, "dynamo-1.6").join("\n"), /disagree on DYN_EVENT_PLANE/);
  });

  it("fails on one worker that does not self-host (cards of both kinds)", () => {
    const g = renderGraph(resolved("p5en-8x1gpu", "vllm", {}), IMAGE);
    const mixed = withEnv(g, GraphService.Prefill, (e) =>
      e.map((x) => (x.name === "DYN_SELF_HOST_METADATA" ? { ...x, value: "0" } : x)),
    );
    assert.match(settingsProblems(mixed, "dynamo-1.6").join("\n"), /PrefillWorker: DYN_SELF_HOST_METADATA=0/);
  });

  for (const over of [
    { adminApi: true },
    { nvext: true },
    { adminApi: true, nvext: true },
    { routerMode: "kv" as const },
  ])
    // Ledger row 1.3.0:frontend-nvext-admin-api-master-switches-renamed-to-opt (#11123).
    // Ledger row 1.4.0:direct-dispatch-now-bypasses-local-worker-inhibition (#11993).
    it(`dynamo-1.6 frontend ${JSON.stringify(over)}: exactly what was asked is on`, () => {
      const g = renderGraph(resolved("p5en-1gpu", "vllm", { frontend: over } as Partial<InferenceSettings>), IMAGE);
      assert.deepEqual(frontendProblems(g, over), []);
      assert.notDeepEqual(frontendProblems(g, {}), [], "the default check would fail on it");
    });
});
