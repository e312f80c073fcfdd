/**
 * Property test of `workerShape` (components/inference/fit.ts) over random pools and role specs that pass
 * `validate`: per-worker hugepages, CPU, memory and GPUs times the workers per node fit the node, EFA is whole.
 */
import { strict as assert } from "assert";
import fc from "fast-check";
import { Placement, ServingRole, validate } from "../../components/inference";
import { workerShape } from "../../components/inference/fit";
import { pool, resolved } from "../helpers/inference-fixtures";

const EFA_TYPES = [
  "p4d.24xlarge",
  "p5.48xlarge",
  "p5e.48xlarge",
  "p5en.48xlarge",
  "p6-b200.48xlarge",
  "p6-b300.48xlarge",
] as const;

describe("inference: per-worker shares never oversubscribe a node (property)", () => {
  it("hugepages, CPU and memory x workers per node fit the node, for every valid spec", () => {
    let valid = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...EFA_TYPES),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(1, 2, 4, 8),
        fc.constantFrom(1, 2, 4, 8),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(Placement.SeparateNodes, Placement.Any),
        fc.integer({ min: 0, max: 20000 }),
        (type, nodes, pg, dg, pr, dr, placement, huge) => {
          const r = resolved("p5en-1gpu", "vllm", {
            gpuPool: pool(type, nodes, true, { hugepages2MiPerNode: huge }),
            placement,
            prefill: { replicas: pr, gpusPerWorker: pg },
            decode: { replicas: dr, gpusPerWorker: dg },
          });
          if (validate(r, true).length > 0) return; // only valid specs are rendered
          valid++;
          for (const role of [ServingRole.Prefill, ServingRole.Decode]) {
            const s = workerShape(r, role);
            assert.ok(s.hugepages2MiPages * s.workersPerNode <= r.pool.hugepages2MiPerNode);
            assert.ok(s.cpu * s.workersPerNode <= r.pool.vcpusPerNode);
            assert.ok(
              s.memoryGiB * s.workersPerNode + (r.pool.hugepages2MiPerNode * 2) / 1024 <= r.pool.memoryGiBPerNode,
            );
            assert.ok(Number.isInteger(s.efaPerWorker) && s.efaPerWorker >= 1);
            assert.ok(
              s.workersPerNode * (placement === Placement.Any ? Math.min(pg, dg) : s.gpusPerWorker) <=
                r.pool.gpusPerNode,
            );
          }
        },
      ),
      { numRuns: 300, seed: 5 },
    );
    assert.ok(valid > 30, `only ${valid} valid specs generated`);
  });
});
