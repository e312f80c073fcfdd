/**
 * The GPU node group's user data against nodeadm's own source (facts/nodeadm-nodeconfig.json,
 * awslabs/amazon-eks-ami): the media type nodeadm reads, the NodeConfig apiVersion/kind, the localStorage field
 * and strategy enum, and the mount point `setup-local-disks` gives a RAID0 array (where the model cache lives).
 * Checked on parsed data, on the user data of the launch template the p5en-8gpu program really renders.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { gpuUserData, NODEADM } from "../../components/cluster/user-data";
import { resolvePool } from "../../components/cluster/args";
import { defaultDeps, runCli } from "../../tools/render/cli";
import { parseMultipart, ParsedMultipart, yamlParts } from "../helpers/mime";
import { loadFacts } from "./facts";
import { at, isRecord } from "./json";

interface NodeadmFacts {
  apiVersion: string;
  kind: string;
  userDataMediaType: string;
  specPath: string[];
  localStorageFields: string[];
  strategies: string[];
  defaultMountDir: string;
  raidArrayMountPoint: string;
  raidBindMounts: string[];
}
const { facts } = loadFacts<NodeadmFacts>("nodeadm-nodeconfig");

/** Problems of a user data document against the facts: every NodeConfig part well-formed, RAID0 requested. */
export function userDataProblems(doc: ParsedMultipart, f: NodeadmFacts = facts): string[] {
  const out: string[] = [];
  if (!doc.closed) out.push("the MIME document has no closing boundary");
  const configs = yamlParts(doc, f.userDataMediaType);
  if (configs.length === 0) out.push(`no part of media type ${f.userDataMediaType}`);
  for (const c of configs) {
    const [apiVersion, kind] = [at(c, "apiVersion"), at(c, "kind")];
    if (apiVersion !== f.apiVersion) out.push(`apiVersion ${JSON.stringify(apiVersion)} is not ${f.apiVersion}`);
    if (kind !== f.kind) out.push(`kind ${JSON.stringify(kind)} is not ${f.kind}`);
    const ls = at(c, "spec", ...f.specPath);
    for (const k of Object.keys(isRecord(ls) ? ls : {}))
      if (!f.localStorageFields.includes(k))
        out.push(`localStorage.${k} is not a nodeadm field (${f.localStorageFields.join(", ")})`);
    const strategy = at(ls, "strategy");
    if (strategy !== undefined && !f.strategies.some((s) => s === strategy))
      out.push(`strategy ${JSON.stringify(strategy)} is not one of ${f.strategies.join(", ")}`);
    if (at(ls, "mountPath") !== undefined) out.push("mountPath is set: the cache path assumes the default mount point");
  }
  if (!configs.some((c) => at(c, "spec", ...f.specPath, "strategy") === "RAID0"))
    out.push("no NodeConfig asks for strategy RAID0");
  return out;
}

describe("contract: GPU node user data vs nodeadm (amazon-eks-ami)", () => {
  it("our constants are nodeadm's: apiVersion, kind, media type, RAID0 mount point", () => {
    assert.deepEqual(
      {
        apiVersion: NODEADM.apiVersion,
        kind: NODEADM.kind,
        mediaType: NODEADM.mediaType,
        raidMountPoint: NODEADM.raidMountPoint,
      },
      {
        apiVersion: facts.apiVersion,
        kind: facts.kind,
        mediaType: facts.userDataMediaType,
        raidMountPoint: facts.raidArrayMountPoint,
      },
    );
    assert.ok(facts.strategies.includes("RAID0"));
  });

  it("the p5en-8gpu launch template's user data (base64, as EC2 takes it) parses to a RAID0 NodeConfig", async function () {
    this.timeout(120000);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nodeadm-"));
    try {
      const code = await runCli(["p5en-8gpu", "--out", tmp], {
        ...defaultDeps(),
        stdout: () => undefined,
        stderr: () => undefined,
      });
      assert.equal(code, 0);
      // resources.json as tools/render writes it; only the fields read here are declared.
      const resources: { type: string; name: string; inputs: { userData: string } }[] = JSON.parse(
        fs.readFileSync(path.join(tmp, "p5en-8gpu", "resources.json"), "utf8"),
      );
      const lts = resources.filter(
        (r) => r.type === "aws:ec2/launchTemplate:LaunchTemplate" && r.name.includes("gpu-lt"),
      );
      assert.equal(lts.length, 1);
      const doc = parseMultipart(Buffer.from(lts[0].inputs.userData, "base64").toString("utf8"));
      assert.deepEqual(userDataProblems(doc), []);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("mutations are caught: another strategy, an unknown field, a wrong kind, a different apiVersion", () => {
    const ours = gpuUserData(
      resolvePool("gpu", { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2b" }),
    )!;
    for (const [from, to, expect] of [
      ["strategy: RAID0", "strategy: RAID5", /strategy "RAID5" is not one of/],
      ["strategy: RAID0", "strategy: RAID0\n      raidLevel: 0", /localStorage.raidLevel is not a nodeadm field/],
      ["kind: NodeConfig", "kind: NodeConfiguration", /kind "NodeConfiguration"/],
      ["node.eks.aws/v1alpha1", "node.eks.aws/v1beta1", /apiVersion "node.eks.aws\/v1beta1"/],
    ] as const) {
      const problems = userDataProblems(parseMultipart(ours.replace(from, to)));
      assert.ok(
        problems.some((p) => expect.test(p)),
        `${to}: ${problems.join("; ")}`,
      );
    }
    assert.deepEqual(userDataProblems(parseMultipart(ours), { ...facts, raidArrayMountPoint: "/mnt/elsewhere/0" }), []);
    assert.notEqual(NODEADM.raidMountPoint, "/mnt/elsewhere/0", "a moved mount point fails the constants test above");
  });
});
