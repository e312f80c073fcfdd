/**
 * Known defects of the release a graph is written for, as policy: each release lists its known issues
 * (components/releases), and these rules say which apply to the graph in hand and what to do. The release of a graph
 * is the supported release whose graph API it uses (`nvidia.com/v1alpha1`: `seed`; `nvidia.com/v1beta1`:
 * `dynamo-1.6`).
 */
import { dgdPolicy } from "./_policy";
import { commandWords, engineOf, flagValue } from "./_command";
import { annotation, claimsDevices, efaOf, instanceTypeOf, workers } from "./_predicates";
import type { PlanDgd } from "./_dgd";
import { show } from "../../components/_shared/problems";
import { Annotation } from "../../components/_shared/annotations";
import { INSTANCES } from "../../components/catalog/instances";
import { modelFacts } from "../../components/catalog/models";
import { GraphApiVersion, KnownIssue, Release, RELEASES } from "../../components/releases";

/** The supported release whose graph API version the graph uses; undefined for any other. */
export function releaseOfGraph(props: PlanDgd | undefined): Release | undefined {
  const api: unknown = props?.apiVersion;
  return Object.values(RELEASES).find((r) => r.graph.apiVersion === (api as GraphApiVersion));
}

/** Whether `issue` applies to this graph (EFA workers for the NIXL issues; device-plugin EFA workers for the PCIe one). */
function applies(issue: KnownIssue, rel: Release, props: PlanDgd | undefined, name: string): string | undefined {
  const ws = workers(props, name);
  const efa = ws.filter((w) => efaOf(w.svc) > 0);
  if (efa.length === 0) return undefined;
  const engine = engineOf(props, ws[0]?.svc) as "vllm" | "trtllm" | undefined;
  const nixl = engine ? rel.engines[engine]?.nixl.version : undefined;
  if (issue.id === "nixl-0.10.1-efa" || issue.id === "nixl-fi-more-deadlock")
    return nixl ? `its workers move KV over EFA with NIXL ${nixl} (${engine})` : undefined;
  if (issue.id === "partial-efa-pcie-switch") {
    // A DRA claim pairs each GPU with its own EFA devices on one PCIe root: the device plugin's choice is not made.
    const partial = efa.find((w) => {
      if (claimsDevices(w.svc)) return false;
      const row = INSTANCES.get(instanceTypeOf(w.svc) ?? "");
      return row !== undefined && efaOf(w.svc) < row.efaDevices;
    });
    if (!partial) return undefined;
    const row = INSTANCES.get(instanceTypeOf(partial.svc) ?? "")!;
    return `${partial.label} takes ${efaOf(partial.svc)} of the ${row.efaDevices} EFA devices of a ${row.name} node`;
  }
  return undefined;
}

/** Known issues of the graph's release that apply to it: advisory, with the fix. */
export const releaseKnownIssues = dgdPolicy({
  name: "release-known-issues",
  description:
    "Advises on the known defects of the graph's release (components/releases) that apply to its shape, each with the fix: NIXL 0.10.1's EFA defects, NIXL's FI_MORE deadlock, partial EFA allocation across PCIe switches.",
  enforcementLevel: "advisory",
  defaults: {},
  check: (props, args, report) => {
    const rel = releaseOfGraph(props);
    if (!rel) return;
    for (const issue of rel.knownIssues) {
      const why = applies(issue, rel, props, args.name);
      if (why)
        report(`release ${show(rel.id)}: ${why}: ${issue.summary}. Fix: ${issue.fix} (${issue.id}; ${issue.source})`);
    }
  },
});

/**
 * vLLM's NIXL connector refuses a decode worker whose tensor parallelism is below prefill's: the handshake asserts
 * `tp_ratio > 0, "Decode TP cannot be smaller than prefill TP"` (vllm-project/vllm
 * vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py `_validate_remote_agent_handshake`). Every request's
 * first KV transfer fails. Only MLA models (one latent KV, replicated across ranks) are said to be exempt.
 */
export const prefillTpWithinDecodeTp = dgdPolicy({
  name: "prefill-tp-within-decode-tp",
  description:
    "Prefill workers of vLLM use no more tensor parallelism than decode workers (NixlConnector asserts decode TP >= prefill TP), except for MLA models.",
  defaults: {},
  check: (props, args, report) => {
    const ws = workers(props, args.name);
    if (engineOf(props, ws[0]?.svc) !== "vllm") return;
    const tp = (role: string) => {
      const w = ws.find((x) => x.svc.subComponentType === role);
      return w ? Number(flagValue(commandWords(w.svc), "--tensor-parallel-size") ?? 1) : undefined;
    };
    const [p, d] = [tp("prefill"), tp("decode")];
    if (p === undefined || d === undefined || p <= d) return;
    const model = annotation(props, Annotation.Model);
    if (model && modelFacts(model)?.mla) return;
    report(
      `prefill runs --tensor-parallel-size ${p} and decode ${d}: vLLM's NixlConnector asserts "Decode TP cannot be smaller than prefill TP" at the first KV handshake, so every request fails. Give decode at least prefill's GPUs per worker (inference.decode.gpusPerWorker >= inference.prefill.gpusPerWorker), or use an MLA model`,
    );
  },
});

export const knownIssuePolicies = [releaseKnownIssues, prefillTpWithinDecodeTp];
