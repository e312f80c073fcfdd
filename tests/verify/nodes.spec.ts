/**
 * Gate A's GPU nodes (tools/verify/nodes.ts): a node registered with the hugepages taint the GPU nodes' user data
 * writes fails the gate naming the node, both counts and the fix; other taints pass; an unread node list is said.
 */
import { strict as assert } from "assert";
import { GPU_TAINT } from "../../components/catalog/pool";
import { HUGEPAGES_TAINT, hugepagesDropIn, hugepagesTaintValue } from "../../components/cluster/user-data";
import { GateStatus, result } from "../../tools/verify/gates";
import { hugepagesShortNodes, NodeFact, withNodes } from "../../tools/verify/nodes";

const PASS_A = result("A", GateStatus.Pass, ["3 pods Running+Ready; 2 ready worker endpoints"]);
const healthy: NodeFact = { name: "ip-a", taints: [GPU_TAINT] };
/** The taint exactly as the user data's drop-in registers it. */
function shortNode(name: string, got: number, asked: number): NodeFact {
  const flag = hugepagesDropIn(got, asked).spec.kubelet!.flags[0];
  const taints = flag
    .slice("--register-with-taints=".length)
    .split(",")
    .map((item) => {
      const [kv, effect] = item.split(":");
      const [key, value] = kv.split("=");
      return { key, value, effect };
    });
  return { name, taints };
}

describe("verify: gate A reads the GPU nodes' hugepages taint", () => {
  it("passes nodes with only the pool's taints, unchanged", () => {
    assert.deepEqual(withNodes(PASS_A, { nodes: [healthy] }), PASS_A);
  });

  it("fails a node registered short of hugepages, naming it, both counts and the fix, even with every pod Ready", () => {
    const a = withNodes(PASS_A, { nodes: [healthy, shortNode("ip-b", 1000, 5128)] });
    assert.equal(a.status, GateStatus.Fail);
    assert.match(
      a.evidence[0],
      /^node ip-b: tainted dynamo-efa\/hugepages:NoSchedule at boot: the kernel reserved only 1000 of the 5128 2 MiB hugepages/,
    );
    assert.match(a.evidence[0], /replace the node/);
    assert.equal(a.evidence.at(-1), PASS_A.evidence[0]);
  });

  it("a taint value it cannot read is still reported as a shortfall", () => {
    const lines = hugepagesShortNodes([
      { name: "ip-c", taints: [{ key: HUGEPAGES_TAINT.key, value: "x", effect: "NoSchedule" }] },
    ]);
    assert.match(lines[0], /hugepages reservation short \(taint value "x"\)/);
  });

  it("one line per tainted node; the value is the one the user data writes", () => {
    assert.equal(hugepagesTaintValue(0, 1282), "reserved-0-of-1282");
    const lines = hugepagesShortNodes([shortNode("n1", 0, 1282), healthy, shortNode("n2", 7, 1282)]);
    assert.deepEqual(
      lines.map((l) => l.split(":")[0]),
      ["node n1", "node n2"],
    );
  });

  it("an unread node list is said and judges nothing", () => {
    const a = withNodes(PASS_A, { error: "cluster at https://x answered HTTP 403 to list nodes" });
    assert.equal(a.status, GateStatus.Pass);
    assert.match(a.evidence.at(-1)!, /GPU nodes not read \(.*403.*\): hugepages taints not checked/);
  });
});
