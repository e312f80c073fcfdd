/**
 * The GPU nodes' user data (components/cluster/user-data.ts): the MIME multipart and the nodeadm NodeConfig parsed
 * back (tests/helpers/mime.ts), RAID0 on instance-store NVMe per catalogued type, and the localNvme arg's check.
 */
import { strict as assert } from "assert";
import YAML from "yaml";
import { instance, instanceNames } from "../../components/catalog/instances";
import { resolvePool } from "../../components/cluster/args";
import { poolFacts } from "../../components/cluster/derive";
import {
  efaRlimits,
  gpuUserData,
  LocalStorageStrategy,
  mimeMultipart,
  NODEADM,
} from "../../components/cluster/user-data";
import { poolProblems } from "../../components/cluster/validate-pool";
import { parseMultipart, yamlParts } from "../helpers/mime";

/** The part of a nodeadm NodeConfig these tests read. */
interface NodeConfig {
  readonly spec: { readonly cluster?: unknown; readonly instance?: { readonly localStorage: { strategy: string } } };
}

const P5EN = { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2b" };

describe("cluster: GPU node user data (nodeadm NodeConfig, MIME multipart)", () => {
  it("p5en: one application/node.eks.aws part whose NodeConfig asks for RAID0 and the EFA memlock limit, nothing else", () => {
    const doc = parseMultipart(gpuUserData(resolvePool("gpu", P5EN), 0)!);
    assert.equal(doc.headers["mime-version"], "1.0");
    assert.equal(doc.closed, true, "the document ends with the closing boundary");
    assert.deepEqual(
      doc.parts.map((p) => p.headers["content-type"]),
      [NODEADM.mediaType],
    );
    const configs = yamlParts(doc, NODEADM.mediaType) as NodeConfig[];
    assert.deepEqual(configs, [
      {
        apiVersion: "node.eks.aws/v1alpha1",
        kind: "NodeConfig",
        spec: {
          instance: { localStorage: { strategy: "RAID0" } },
          containerd: { baseRuntimeSpec: { process: { rlimits: efaRlimits() } } },
        },
      },
    ]);
    assert.deepEqual(
      efaRlimits().find((r) => r.type === "RLIMIT_MEMLOCK"),
      { type: "RLIMIT_MEMLOCK", soft: 2 ** 53, hard: 2 ** 53 },
    );
  });

  it("no cluster section: EKS appends the cluster coordinates for a managed node group on an EKS AMI type", () => {
    const [cfg] = yamlParts(
      parseMultipart(gpuUserData(resolvePool("gpu", P5EN), 0)!),
      NODEADM.mediaType,
    ) as NodeConfig[];
    assert.equal(cfg.spec.cluster, undefined);
  });

  it("every catalogued GPU type has instance-store NVMe, so every pool gets RAID0 by default; localNvme: false keeps only the EFA part", () => {
    for (const name of instanceNames()) {
      assert.ok(instance(name).localNvmeGB > 0, name);
      assert.equal(
        resolvePool("gpu", { instanceType: name, nodes: 1, availabilityZone: "us-east-2b" }).localNvme,
        true,
        name,
      );
    }
    assert.equal(gpuUserData(resolvePool("gpu", { ...P5EN, localNvme: false, efa: false }), 0), undefined);
    const efaOnly = yamlParts(
      parseMultipart(gpuUserData(resolvePool("gpu", { ...P5EN, localNvme: false }), 0)!),
      NODEADM.mediaType,
    );
    assert.deepEqual(efaOnly, [
      {
        apiVersion: NODEADM.apiVersion,
        kind: "NodeConfig",
        spec: { containerd: { baseRuntimeSpec: { process: { rlimits: efaRlimits() } } } },
      },
    ]);
  });

  it("pool facts carry the array's mount point only when RAID0 is set up", () => {
    assert.deepEqual(poolFacts(resolvePool("gpu", P5EN)).localNvme, { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 });
    assert.equal(poolFacts(resolvePool("gpu", { ...P5EN, localNvme: false })).localNvme, undefined);
  });

  it("localNvme must be a boolean", () => {
    const fromConfig = { ...P5EN, localNvme: "yes" as unknown as boolean }; // what untyped stack config can send
    assert.deepEqual(
      poolProblems("gpu", resolvePool("gpu", fromConfig)).map((p) => [p.propertyPath, p.reason]),
      [["gpuPools.gpu.localNvme", 'must be true or false; got "yes"']],
    );
  });

  it("the parser sees a changed strategy or a missing closing boundary (the checks can fail)", () => {
    const bad = mimeMultipart([
      {
        contentType: NODEADM.mediaType,
        body: YAML.stringify({
          apiVersion: NODEADM.apiVersion,
          kind: NODEADM.kind,
          spec: { instance: { localStorage: { strategy: LocalStorageStrategy.Mount } } },
        }),
      },
    ]);
    assert.equal(
      (yamlParts(parseMultipart(bad), NODEADM.mediaType)[0] as NodeConfig).spec.instance?.localStorage.strategy,
      "Mount",
    );
    assert.equal(parseMultipart(bad.replace(/--[^\n]*--\n$/, "")).closed, false);
    assert.throws(
      () => mimeMultipart([{ contentType: "text/plain", body: "--==DYNAMO-EFA-BOUNDARY==" }]),
      /contains the MIME boundary/,
    );
  });
});
