/**
 * The DCGM exporter runs with only what its chart documents as needed (tests/contracts/facts/
 * dcgm-exporter-security.json): root with SYS_ADMIN exactly while the dashboard reads profiling fields
 * (DCGM_FI_PROF_*), every other capability dropped, no privilege escalation, no host PID or network namespace;
 * the chart's documented non-root variant without them.
 */
import { strict as assert } from "assert";
import { loadFacts } from "./facts";
import { resolveArgs } from "../../components/observability/args";
import { dcgmSecurityContext, dcgmValues, PROFILING_METRICS } from "../../components/observability/render";

interface DcgmSecurity {
  readonly securityContext: { capabilities: { add: string[]; drop: string[] } } & Record<string, unknown>;
  readonly addedCapabilityNeed: string;
  readonly nonRootVariant: { condition: string; change: string };
  readonly hostPID: boolean;
  readonly hostNetwork: boolean;
}
const F = loadFacts<DcgmSecurity>("dcgm-exporter-security").facts;

describe("contracts: the DCGM exporter's privileges", () => {
  const values = dcgmValues(resolveArgs({ graphName: "llm", graphNamespace: "dynamo" }));

  it("SYS_ADMIN is documented for profiling fields only, and the dashboard reads profiling fields", () => {
    assert.match(F.addedCapabilityNeed, /profiling metrics \(DCGM_FI_PROF_\*\)/);
    assert.deepEqual(F.securityContext.capabilities.add, ["SYS_ADMIN"]);
    assert.deepEqual(PROFILING_METRICS, ["DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_PCIE_RX_BYTES"]);
  });

  it("the rendered securityContext is the chart's documented minimum for profiling, pinned in our values", () => {
    assert.deepEqual(values.securityContext, F.securityContext);
    assert.deepEqual([values.hostPID, values.hostNetwork], [F.hostPID, F.hostNetwork]);
    assert.deepEqual([values.hostPID, values.hostNetwork], [false, false]);
  });

  it("without profiling fields it is the chart's non-root variant, with no capability added", () => {
    assert.equal(F.nonRootVariant.condition, "without profiling metrics");
    assert.match(F.nonRootVariant.change, /runAsNonRoot: true, runAsUser: 1000, and remove SYS_ADMIN/);
    assert.deepEqual(dcgmSecurityContext(false), {
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      runAsUser: 1000,
      capabilities: { drop: ["ALL"] },
    });
  });
});
