/**
 * Policies on the DynamoGraphDeployment's shape and pods: probes sized to the model-load budget (F2),
 * one graph per model (F1), and pod placement (F6, F7). The KV-transfer checks (F3, F13) live in
 * `kv-transfer.ts`.
 */
import type { ReportViolation, StackValidationPolicy } from "@pulumi/policy";
import { dgdPolicy, schemaFor } from "./_policy";
import {
  annotation,
  configOf,
  GraphService,
  graphServices,
  isFrontend,
  isWorker,
  PlanProbe,
  probeBudgetSeconds,
  dgdName,
  dgdNamespace,
  rawPropsOf,
  workers,
} from "./_predicates";
import { DynamoPort, OperatorLabel } from "../../components/_shared/names";
import { mainContainer } from "./_command";
import { ofType } from "./_stack";
import { PlanDgd, PlanPodAffinity, PlanService } from "./_dgd";
import { show } from "../../components/_shared/problems";
import { ResourceType } from "./_resources";
import { Annotation } from "../../components/_shared/annotations";

function loadBudget(props: PlanDgd, fallback: number): { seconds: number; source: string } | { error: string } {
  const raw = annotation(props, Annotation.ModelLoadBudgetSeconds);
  if (raw === undefined)
    return {
      seconds: fallback,
      source: `the policy default; record it as annotation ${Annotation.ModelLoadBudgetSeconds}`,
    };
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    return {
      error: `annotation ${Annotation.ModelLoadBudgetSeconds} must be a positive number of seconds; got ${show(raw)}`,
    };
  return { seconds: n, source: `annotation ${Annotation.ModelLoadBudgetSeconds}` };
}

const httpTarget = (p: PlanProbe) =>
  p?.httpGet
    ? `httpGet ${p.httpGet.path} on port ${p.httpGet.port}`
    : Object.keys(p ?? {})
        .filter((k) => !/Seconds|Threshold/.test(k))
        .join("/") || "no handler";

function checkBudget(w: GraphService, load: { seconds: number; source: string }, report: ReportViolation): void {
  const startup = mainContainer(w.svc).startupProbe;
  const readiness = w.svc.readinessProbe ?? mainContainer(w.svc).readinessProbe;
  const probe = startup ?? readiness;
  const which = startup
    ? "extraPodSpec.mainContainer.startupProbe"
    : readiness
      ? "readinessProbe"
      : "the operator's default readiness probe";
  const budget = probeBudgetSeconds(probe);
  if (budget >= load.seconds) return;
  const delay = Number(probe?.initialDelaySeconds ?? 0);
  const period = Number(probe?.periodSeconds ?? 10);
  const need = Math.ceil((load.seconds - delay) / period);
  report(
    `${w.label}: startup budget is ${budget} s (${which}: ${delay} s + ${period} s x ${Number(probe?.failureThreshold ?? 3)}), less than the model-load budget ${load.seconds} s (${load.source}), so the worker is killed or never listed before the model loads (F2); set extraPodSpec.mainContainer.startupProbe failureThreshold >= ${need} at periodSeconds ${period}`,
  );
}

/** 3. Workers have their own readiness on the system port and a startup budget >= the model-load budget. */
export const workerProbeBudget = dgdPolicy({
  name: "worker-probe-budget",
  description:
    "Workers have readiness on /health at the system port and a startup budget at least the model-load budget recorded on the graph.",
  defaults: { defaultModelLoadBudgetSeconds: 600, systemPort: DynamoPort.WorkerSystem, readinessPath: "/health" },
  check: (props, args, report, cfg) => {
    const load = loadBudget(props, cfg.defaultModelLoadBudgetSeconds);
    if ("error" in load) report(`DynamoGraphDeployment ${show(dgdName(props, args.name))}: ${load.error}`);
    for (const w of workers(props, args.name)) {
      const readiness = w.svc.readinessProbe ?? mainContainer(w.svc).readinessProbe;
      const want = `readinessProbe httpGet ${cfg.readinessPath} on port ${cfg.systemPort}`;
      if (!readiness) {
        report(
          `${w.label} has no readinessProbe, so the operator's 30 s default applies and the Frontend lists 0 instances while the model loads (F2); add ${want}`,
        );
      } else if (
        readiness.httpGet?.path !== cfg.readinessPath ||
        !([cfg.systemPort, String(cfg.systemPort), "system"] as readonly unknown[]).includes(readiness.httpGet?.port)
      ) {
        report(
          `${w.label}: readinessProbe is ${httpTarget(readiness)}; use ${want} (the operator's handler type and port, or Kubernetes rejects two handler types)`,
        );
      }
      if (!("error" in load)) checkBudget(w, load, report);
    }
  },
});

/** 4. (stack) A Frontend and its prefill/decode workers live in one graph. */
export const oneGraphPerModel: StackValidationPolicy = {
  name: "one-graph-per-model",
  description:
    "A Frontend and its prefill and decode workers live in one DynamoGraphDeployment, never split across graphs.",
  configSchema: schemaFor({ requireDisaggregated: true }),
  validateStack: (args, report) => {
    const cfg = configOf(args, { requireDisaggregated: true });
    const graphs = ofType(args.resources, ResourceType.Dgd).map((r) => ({ r, props: rawPropsOf(r, ResourceType.Dgd) }));
    if (graphs.length === 0) args.notApplicable("no DynamoGraphDeployment in the stack");
    const parts = graphs.map(({ r, props }) => {
      const svcs = graphServices(props, r.name);
      const has = (sub: string) =>
        svcs.filter((s) => isWorker(s.svc) && s.svc.subComponentType === sub).map((s) => s.key);
      return {
        r,
        name: dgdName(props, r.name),
        ns: dgdNamespace(props),
        frontend: svcs.filter((s) => isFrontend(s.svc)).map((s) => s.key),
        prefill: has("prefill"),
        decode: has("decode"),
        workers: svcs.filter((s) => isWorker(s.svc)).map((s) => s.key),
      };
    });
    const fix =
      "separate graphs get separate Dynamo namespaces and the Frontend sees 0 workers (F1); put Frontend, PrefillWorker and DecodeWorker in one DynamoGraphDeployment";
    for (const g of parts) {
      const elsewhere = (pick: (p: typeof g) => string[]) =>
        parts.filter((o) => o !== g && o.ns === g.ns && pick(o).length > 0).map((o) => show(o.name));
      const where = (pick: (p: typeof g) => string[]) =>
        elsewhere(pick).length ? ` (found in ${elsewhere(pick).join(", ")})` : "";
      const subject = `DynamoGraphDeployment ${show(g.name)} in namespace ${show(g.ns)}`;
      if (g.workers.length > 0 && g.frontend.length === 0)
        report(
          `${subject} has workers ${g.workers.join(", ")} but no Frontend${where((p) => p.frontend)}; ${fix}`,
          g.r.urn,
        );
      if (g.frontend.length > 0 && g.workers.length === 0)
        report(`${subject} has a Frontend but no workers${where((p) => p.workers)}; ${fix}`, g.r.urn);
      if (cfg.requireDisaggregated && g.prefill.length > 0 && g.decode.length === 0)
        report(`${subject} has prefill workers but no decode worker${where((p) => p.decode)}; ${fix}`, g.r.urn);
      if (cfg.requireDisaggregated && g.decode.length > 0 && g.prefill.length === 0)
        report(`${subject} has decode workers but no prefill worker${where((p) => p.prefill)}; ${fix}`, g.r.urn);
    }
  },
};

/** 7. Workers never use the host network. */
export const noHostNetworkWorkers = dgdPolicy({
  name: "no-host-network-workers",
  description:
    "Worker pods do not use hostNetwork, so co-scheduled workers cannot clash on the system and NIXL side-channel ports.",
  defaults: { includeFrontend: true },
  check: (props, args, report, cfg) => {
    for (const s of graphServices(props, args.name)) {
      if (!isWorker(s.svc) && !(cfg.includeFrontend && isFrontend(s.svc))) continue;
      if (s.svc?.extraPodSpec?.hostNetwork === true) {
        report(
          `${s.label} sets extraPodSpec.hostNetwork: true; remove it (hostNetwork pods on one node clash on ports ${DynamoPort.WorkerSystem} and 5600/5700: F6)`,
        );
      }
    }
  },
});

/** Label keys a pod-(anti-)affinity selector of a DGD service may use. */
function selectableLabels(props: PlanDgd, name: string, forbidden: readonly string[]): ReadonlySet<unknown> {
  const own = graphServices(props, name).flatMap((s) => [
    ...Object.keys(s.svc?.labels ?? {}),
    ...Object.keys(s.svc?.extraPodMetadata?.labels ?? {}),
  ]);
  return new Set([...Object.values(OperatorLabel), ...own].filter((k) => !forbidden.includes(k)));
}

/** Every (term path, selector keys) of a service's pod affinity and anti-affinity. */
function affinitySelectors(svc: PlanService): [string, unknown[]][] {
  const out: [string, unknown[]][] = [];
  for (const kind of ["podAffinity", "podAntiAffinity"] as const) {
    const a: PlanPodAffinity = svc?.extraPodSpec?.affinity?.[kind] ?? {};
    const req = a.requiredDuringSchedulingIgnoredDuringExecution ?? [];
    const pref = (a.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((p) => p?.podAffinityTerm);
    for (const [mode, terms] of [
      ["required", req],
      ["preferred", pref],
    ] as const) {
      for (const t of terms) {
        const sel = t?.labelSelector ?? {};
        const keys = [...Object.keys(sel.matchLabels ?? {}), ...(sel.matchExpressions ?? []).map((e) => e?.key)];
        out.push([`extraPodSpec.affinity.${kind} (${mode})`, keys]);
      }
    }
  }
  return out;
}

/** 8. Pod (anti-)affinity selects on labels the operator really puts on pods. */
export const antiAffinityOnOperatorLabels = dgdPolicy({
  name: "anti-affinity-on-operator-labels",
  description:
    "Pod affinity and anti-affinity of graph services select on labels the Dynamo operator sets on its pods, never on app.kubernetes.io/part-of.",
  defaults: { forbiddenLabels: ["app.kubernetes.io/part-of"] },
  check: (props, args, report, cfg) => {
    const allowed = selectableLabels(props, args.name, cfg.forbiddenLabels);
    for (const s of graphServices(props, args.name)) {
      for (const [path, keys] of affinitySelectors(s.svc)) {
        for (const key of keys.filter((k) => !allowed.has(k))) {
          report(
            `${s.label}: ${path} selects pods by ${show(key)}, a label the Dynamo operator does not keep on its pods, so the rule matches nothing (F7); select on ${OperatorLabel.GraphName} and ${OperatorLabel.Component}`,
          );
        }
      }
    }
  },
});

/** Policies of this module, in pack order. */
export const inferencePolicies = [
  workerProbeBudget,
  oneGraphPerModel,
  noHostNetworkWorkers,
  antiAffinityOnOperatorLabels,
];
