/**
 * Hugepages on EFA nodes are reserved, not assumed (tests/contracts/facts/eks-hugepages.json): the EKS AL2023 AMI
 * sets no `nr_hugepages`, so the GPU launch template's user data reserves the pool's `hugepages2MiPerNode` in a
 * cloud-init script, which runs before nodeadm starts the kubelet; the workers' `hugepages-2Mi` requests divide that
 * same count, so a node's reservation always holds what its workers ask for. When the kernel reserves fewer, the
 * script writes a NodeConfig drop-in that nodeadm-run (after cloud-init) merges, so the kubelet registers the node
 * tainted with the counts, beside the pool's own taints.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { resolvePool } from "../../components/cluster/args";
import { poolFacts } from "../../components/cluster/derive";
import { GPU_POOL_TAINTS } from "../../components/catalog/pool";
import {
  gpuUserData,
  HUGEPAGES_DROP_IN,
  HUGEPAGES_TAINT,
  hugepagesDropIn,
  hugepagesScript,
  NODEADM,
  NODEADM_DROP_IN_DIR,
  NodeConfig,
  parseHugepagesTaintValue,
  SHELL_SCRIPT_MEDIA_TYPE,
} from "../../components/cluster/user-data";
import { ServingRole } from "../../components/inference";
import { workerShape } from "../../components/inference/fit";
import { resolved } from "../helpers/inference-fixtures";
import { parseMultipart } from "../helpers/mime";
import { gpuLaunchTemplateUserData, withRenderedStack } from "../helpers/render-temp";
import { loadFacts } from "./facts";

const F = loadFacts<{
  efaInstallerArgs: string[];
  nrHugepagesSetBy: string[];
  nodeadmRunAfter: string[];
  nodeadmRunConfigSources: string[];
  configPhaseRerunsWhenCacheDiffers: boolean;
  dropInExtensions: string[];
  emptyDropInDirectoryTolerated: boolean;
  kubeletFlagsField: string;
  kubeletFlagsMergeAppends: boolean;
}>("eks-hugepages").facts;

/** A taint as the kubelet's `--register-with-taints` parses one (kubernetes pkg/util/taints parseTaint). */
interface FlagTaint {
  key: string;
  value: string;
  effect: string;
}
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** The taints a NodeConfig's flags register the node with (the last `--register-with-taints` wins), or problems. */
function registeredTaints(cfg: NodeConfig): { taints: FlagTaint[]; problems: string[] } {
  const flags = (cfg.spec.kubelet?.flags ?? []).filter((f) => f.startsWith("--register-with-taints="));
  const problems: string[] = [];
  const list = flags.at(-1)?.slice("--register-with-taints=".length) ?? "";
  const taints =
    list === ""
      ? []
      : list.split(",").map((item) => {
          const m = /^([^=:]+)=([^=:]*):([^=:]+)$/.exec(item);
          if (!m) return (problems.push(`not key=value:effect: ${item}`), { key: item, value: "", effect: "" });
          const [, key, value, effect] = m;
          if (!QUALIFIED_NAME.test(key)) problems.push(`key is no qualified name: ${key}`);
          if (value.length > 63 || !LABEL_VALUE.test(value)) problems.push(`value is no label value: ${value}`);
          if (!["NoSchedule", "PreferNoSchedule", "NoExecute"].includes(effect)) problems.push(`effect: ${effect}`);
          return { key, value, effect };
        });
  return { taints, problems };
}

/** Problems of a drop-in for a node that reserved `got` of `asked` pages: every pool taint, and the counts. */
function dropInProblems(cfg: NodeConfig, got: number, asked: number): string[] {
  const { taints, problems } = registeredTaints(cfg);
  for (const t of GPU_POOL_TAINTS)
    if (!taints.some((x) => x.key === t.key && x.value === t.value && x.effect === t.effect))
      problems.push(`the pool's taint ${t.key} is not restated (the last --register-with-taints replaces the list)`);
  const huge = taints.filter((t) => t.key === HUGEPAGES_TAINT.key);
  if (huge.length !== 1 || huge[0].effect !== HUGEPAGES_TAINT.effect) problems.push("no hugepages taint");
  else if (JSON.stringify(parseHugepagesTaintValue(huge[0].value)) !== JSON.stringify({ got, asked }))
    problems.push(`the hugepages taint says ${huge[0].value}, not ${got} of ${asked}`);
  return problems;
}

const scriptsOf = (userData: string) =>
  parseMultipart(userData).parts.filter((p) => p.headers["content-type"] === SHELL_SCRIPT_MEDIA_TYPE);
const reserved = (script: string) => Number(/^pages=(\d+)$/m.exec(script)?.[1]);

describe("contracts: EFA nodes reserve the hugepages their workers request (facts/eks-hugepages.json)", () => {
  it("the AMI reserves none itself, and a cloud-init script runs before nodeadm starts the kubelet", () => {
    assert.deepEqual(F.efaInstallerArgs, ["--minimal", "-y"]);
    assert.deepEqual(F.nrHugepagesSetBy, [], "the AMI sets nr_hugepages now: revisit the reservation");
    assert.ok(F.nodeadmRunAfter.includes("cloud-final.service"));
  });

  const P5EN = { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2b" };
  for (const [what, over] of [
    ["the catalog's count", {}],
    ["a measured override", { hugepages2MiPerNode: 4096 }],
  ] as const)
    it(`the script reserves the pool's own count (${what}), which the workers' requests fit`, () => {
      const pool = resolvePool("gpu", { ...P5EN, ...over });
      const perNode = poolFacts(pool).hugepages2MiPerNode;
      const [script] = scriptsOf(gpuUserData(pool, perNode)!);
      assert.equal(reserved(script.body), perNode);
      for (const variant of ["p5en-1gpu", "p5en-8x1gpu"] as const) {
        const r = resolved(variant, "vllm", { gpuPool: poolFacts(pool) });
        for (const role of [ServingRole.Prefill, ServingRole.Decode]) {
          const s = workerShape(r, role);
          const asked = s.hugepages2MiPages * s.workersPerNode;
          assert.ok(asked > 0 && asked <= perNode, `${variant} ${role}: ${asked} of ${perNode}`);
        }
      }
    });

  it("no script without EFA or without pages", () => {
    assert.deepEqual(scriptsOf(gpuUserData({ localNvme: true, efa: false }, 5128)!), []);
    assert.deepEqual(scriptsOf(gpuUserData({ localNvme: true, efa: true }, 0)!), []);
  });

  it("the script only raises the count, keeps it, and fails when the kernel reserves less", () => {
    const s = hugepagesScript(5128);
    assert.match(s, /^#!\/bin\/bash\n/);
    assert.match(s, /if \[ "\$current" -lt "\$pages" \]; then/);
    assert.match(s, /vm\.nr_hugepages = \$pages" > \/etc\/sysctl\.d\//);
    assert.match(s, /exit 1/);
  });

  it("nodeadm-run merges a drop-in written by a cloud-init script and passes its kubelet flags on (the facts)", () => {
    assert.ok(F.nodeadmRunAfter.includes("cloud-final.service"), "nodeadm-run starts after cloud-init's scripts");
    assert.deepEqual(F.nodeadmRunConfigSources, ["imds://user-data", `file://${NODEADM_DROP_IN_DIR}/`]);
    assert.equal(F.configPhaseRerunsWhenCacheDiffers, true, "a drop-in changing the cached config re-runs the config");
    assert.ok(
      F.dropInExtensions.some((e) => HUGEPAGES_DROP_IN.endsWith(e)),
      HUGEPAGES_DROP_IN,
    );
    assert.ok(HUGEPAGES_DROP_IN.startsWith(`${NODEADM_DROP_IN_DIR}/`));
    assert.equal(F.emptyDropInDirectoryTolerated, true, "a node with its pages writes no drop-in: that must be fine");
    assert.equal(F.kubeletFlagsField, "flags");
    assert.equal(F.kubeletFlagsMergeAppends, true, "the drop-in's flags come after the user data's");
    const cfg = hugepagesDropIn(1000, 5128);
    assert.equal(cfg.apiVersion, NODEADM.apiVersion);
    assert.deepEqual(Object.keys(cfg.spec), ["kubelet"], "the drop-in overrides nothing but the taints");
  });

  for (const [got, asked] of [
    [0, 5128],
    [5127, 5128],
    [9_999_999, 10_000_000],
  ])
    it(`a node that reserved ${got} of ${asked} pages registers with the pool's taints and the counts`, () => {
      assert.deepEqual(dropInProblems(hugepagesDropIn(got, asked), got, asked), []);
    });

  it("the drop-in check fails a dropped pool taint, a wrong count and a malformed taint (mutations)", () => {
    const good = hugepagesDropIn(1000, 5128);
    const flag = good.spec.kubelet!.flags[0];
    const withFlag = (f: string): NodeConfig => ({ ...good, spec: { kubelet: { flags: [f] } } });
    assert.match(
      dropInProblems(withFlag(flag.replace("nvidia.com/gpu=true:NoSchedule,", "")), 1000, 5128).join(),
      /pool's taint/,
    );
    assert.match(dropInProblems(good, 999, 5128).join(), /not 999 of 5128/);
    assert.match(dropInProblems(withFlag(`${flag},bad key=x:NoSchedule`), 1000, 5128).join(), /qualified name/);
    assert.match(dropInProblems(withFlag(flag.replace(":NoSchedule", ":Never")), 1000, 5128).join(), /effect/);
    const later: NodeConfig = {
      ...good,
      spec: { kubelet: { flags: [flag, "--register-with-taints=a=b:NoSchedule"] } },
    };
    assert.match(dropInProblems(later, 1000, 5128).join(), /no hugepages taint/, "the last flag wins");
  });

  it("p5en-8gpu: the rendered launch template reserves exactly what its node's 8 workers request", async function () {
    this.timeout(180000);
    await withRenderedStack("p5en-8gpu", (dir) => {
      const [script] = scriptsOf(gpuLaunchTemplateUserData(dir));
      const manifests = path.join(dir, "manifests");
      const file = fs.readdirSync(manifests).find((f) => f.endsWith("-dynamographdeployment-dynamo-llm.yaml"))!;
      const dgd = fs.readFileSync(path.join(manifests, file), "utf8");
      const perWorkerMi = [...dgd.matchAll(/hugepages-2Mi: (\d+)Mi/g)].map((m) => Number(m[1]));
      assert.ok(perWorkerMi.length > 0);
      for (const mi of perWorkerMi) assert.equal((mi / 2) * 8, reserved(script.body), "8 workers per node");
    });
  });
});
