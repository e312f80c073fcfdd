/**
 * EFA workers are isolated the way upstream Dynamo's EKS example runs several LIBFABRIC workers per node
 * (facts/dynamo-eks-example.json): never privileged, no hostNetwork, only IPC_LOCK added. A privileged
 * container sees every GPU and EFA device of its node (kubernetes/kubernetes#81256), so with several
 * workers per node every engine would take cuda:0 and NIXL would open every EFA device.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import YAML from "yaml";
import { graphModel } from "../../components/inference/dgd-v1beta1";
import { loadFacts } from "./facts";
import { at, recordAt } from "./json";

interface UpstreamWorker {
  readonly service: string;
  readonly gpusPerWorker: number;
  readonly instanceType: string;
  readonly nixlBackends: readonly string[];
  readonly privileged: boolean;
  readonly hostNetwork: boolean;
  readonly capabilitiesAdd: readonly string[];
}

const { facts } = loadFacts<{ workers: UpstreamWorker[] }>("dynamo-eks-example");
const GOLDEN = path.join(__dirname, "..", "golden");

/** Problems of one rendered worker service against the upstream shape. */
export function workerIsolationProblems(label: string, svc: unknown, allowedCaps: readonly string[]): string[] {
  const sc = at(svc, "extraPodSpec", "mainContainer", "securityContext");
  const out: string[] = [];
  if (at(sc, "privileged") === true) out.push(`${label}: privileged (upstream's LIBFABRIC workers are not)`);
  if (at(svc, "extraPodSpec", "hostNetwork") === true)
    out.push(`${label}: hostNetwork (upstream's workers do not use it)`);
  const caps = at(sc, "capabilities", "add");
  const add = Array.isArray(caps) ? caps.map(String) : [];
  for (const c of add.filter((x) => !allowedCaps.includes(x)))
    out.push(`${label}: adds ${c}; upstream adds only ${allowedCaps.join(", ")}`);
  for (const c of allowedCaps.filter((x) => !add.includes(x)))
    out.push(`${label}: lacks ${c}, which upstream's EFA workers add`);
  return out;
}

/** Every rendered graph we ship: both stacks' golden manifests and the golden inference graphs. */
function renderedGraphs(): { file: string; graph: unknown }[] {
  const files = [
    ...fs.readdirSync(path.join(GOLDEN, "inference")).map((f) => path.join("inference", f)),
    ...fs.readdirSync(path.join(GOLDEN, "render")).flatMap((s) =>
      fs
        .readdirSync(path.join(GOLDEN, "render", s, "manifests"))
        .filter((f) => f.includes("-dynamographdeployment-"))
        .map((f) => path.join("render", s, "manifests", f)),
    ),
  ];
  return files.map((file) => ({ file, graph: YAML.parse(fs.readFileSync(path.join(GOLDEN, file), "utf8")) }));
}

/** The EFA worker services of a graph, v1alpha1 or v1beta1 (read back in the model's shape, as the policies do). */
const efaWorkers = (graph: unknown) =>
  Object.entries(recordAt(graphModel(graph), "spec", "services")).filter(
    ([, s]) => at(s, "componentType") === "worker" && at(s, "resources", "limits", "custom", "vpc.amazonaws.com/efa"),
  );

/** The part of a worker service the isolation check reads, as the mutations below build it. */
interface IsolationFields {
  extraPodSpec: {
    hostNetwork?: boolean;
    mainContainer: { securityContext: { privileged?: boolean; capabilities: { add: string[] } } };
  };
}

describe("contracts: EFA worker isolation as upstream Dynamo's EKS example runs it", () => {
  const caps = [...new Set(facts.workers.flatMap((w) => w.capabilitiesAdd))];

  it("upstream runs several LIBFABRIC workers per node, unprivileged, with IPC_LOCK only", () => {
    assert.deepEqual(caps, ["IPC_LOCK"]);
    for (const w of facts.workers) {
      assert.deepEqual([w.privileged, w.hostNetwork, w.nixlBackends], [false, false, ["LIBFABRIC"]], w.service);
      assert.ok(
        w.gpusPerWorker < 8,
        `${w.service}: ${w.gpusPerWorker} of a ${w.instanceType}'s 8 GPUs, so workers share nodes`,
      );
    }
  });

  it("every EFA worker we render has the same isolation (golden graphs of both backends and both stacks)", () => {
    const graphs = renderedGraphs();
    assert.ok(graphs.length >= 6, graphs.map((g) => g.file).join(", "));
    let checked = 0;
    for (const { file, graph } of graphs) {
      for (const [key, svc] of efaWorkers(graph)) {
        assert.deepEqual(workerIsolationProblems(`${file} ${key}`, svc, caps), []);
        checked++;
      }
    }
    assert.ok(checked >= 12, `${checked} EFA workers checked`);
  });

  it("fails a privileged worker, a hostNetwork worker, an extra capability and a missing IPC_LOCK (mutations)", () => {
    const svc = (): IsolationFields => ({
      extraPodSpec: { mainContainer: { securityContext: { capabilities: { add: ["IPC_LOCK"] } } } },
    });
    const cases: [string, (s: IsolationFields) => void, string][] = [
      [
        "privileged",
        (s) => {
          s.extraPodSpec.mainContainer.securityContext.privileged = true;
        },
        "w: privileged (upstream's LIBFABRIC workers are not)",
      ],
      [
        "hostNetwork",
        (s) => {
          s.extraPodSpec.hostNetwork = true;
        },
        "w: hostNetwork (upstream's workers do not use it)",
      ],
      [
        "SYS_ADMIN",
        (s) => {
          s.extraPodSpec.mainContainer.securityContext.capabilities.add.push("SYS_ADMIN");
        },
        "w: adds SYS_ADMIN; upstream adds only IPC_LOCK",
      ],
      [
        "no IPC_LOCK",
        (s) => {
          s.extraPodSpec.mainContainer.securityContext.capabilities.add = [];
        },
        "w: lacks IPC_LOCK, which upstream's EFA workers add",
      ],
    ];
    assert.deepEqual(workerIsolationProblems("w", svc(), caps), []);
    for (const [, mutate, want] of cases) {
      const s = svc();
      mutate(s);
      assert.deepEqual(workerIsolationProblems("w", s, caps), [want]);
    }
  });
});
