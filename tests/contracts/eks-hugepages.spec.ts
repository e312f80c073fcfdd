/**
 * Hugepages on EFA nodes are reserved, not assumed (tests/contracts/facts/eks-hugepages.json): the EKS AL2023 AMI
 * sets no `nr_hugepages`, so the GPU launch template's user data reserves the pool's `hugepages2MiPerNode` in a
 * cloud-init script, which runs before nodeadm starts the kubelet; the workers' `hugepages-2Mi` requests divide that
 * same count, so a node's reservation always holds what its workers ask for.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { resolvePool } from "../../components/cluster/args";
import { poolFacts } from "../../components/cluster/derive";
import { gpuUserData, hugepagesScript, SHELL_SCRIPT_MEDIA_TYPE } from "../../components/cluster/user-data";
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
}>("eks-hugepages").facts;

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
