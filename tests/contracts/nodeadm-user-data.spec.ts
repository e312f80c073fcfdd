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
import { INSTANCES } from "../../components/catalog/instances";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
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
  containerdSpecField: string;
  containerdFields: string[];
  baseRuntimeSpecFile: string;
  defaultRlimits: { type: string; soft: number; hard: number }[];
  userSpecMergedOverDefault: boolean;
  mergeOverridesArraysWhole: boolean;
  mergeDecodesNumbersAsFloat64: boolean;
  everyRuntimeReadsBaseSpec: boolean;
  containerdDropIns: string[];
}
const { facts } = loadFacts<NodeadmFacts>("nodeadm-nodeconfig");
/** A p5en node's memory: a worker may register (lock) up to all of it, so the limit must not be lower. */
const p5enMemoryBytes = INSTANCES.get("p5en.48xlarge")!.memoryGiB * 2 ** 30;

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

/**
 * Problems of the memlock limit an EFA node's containers start with: some NodeConfig part sets
 * `spec.containerd.baseRuntimeSpec.process.rlimits` (nodeadm's field names) with an RLIMIT_MEMLOCK of at least
 * `minBytes`, soft = hard, exact through nodeadm's float64 round trip, and (the merge replaces the array whole)
 * every default rlimit of nodeadm's own spec restated unchanged.
 */
export function memlockProblems(doc: ParsedMultipart, minBytes: number, f: NodeadmFacts = facts): string[] {
  const out: string[] = [];
  const specs = yamlParts(doc, f.userDataMediaType).map((c) => at(c, "spec", f.containerdSpecField));
  for (const c of specs)
    for (const k of Object.keys(isRecord(c) ? c : {}))
      if (!f.containerdFields.includes(k))
        out.push(`containerd.${k} is not a nodeadm field (${f.containerdFields.join(", ")})`);
  const lists = specs.map((c) => at(c, "baseRuntimeSpec", "process", "rlimits")).filter(Array.isArray);
  if (lists.length === 0) return [...out, "no NodeConfig sets containerd.baseRuntimeSpec.process.rlimits"];
  const rlimits = lists[lists.length - 1] as unknown[]; // the last part wins: the array is replaced, not merged
  const memlock = rlimits.find((r) => at(r, "type") === "RLIMIT_MEMLOCK");
  const [soft, hard] = [at(memlock, "soft"), at(memlock, "hard")];
  if (memlock === undefined) out.push("no RLIMIT_MEMLOCK entry");
  else if (typeof soft !== "number" || soft !== hard) out.push(`RLIMIT_MEMLOCK soft ${soft} and hard ${hard} differ`);
  else if (soft < minBytes) out.push(`RLIMIT_MEMLOCK ${soft} is below ${minBytes} bytes`);
  else if (f.mergeDecodesNumbersAsFloat64 && !Number.isSafeInteger(soft) && soft !== 2 ** 53)
    out.push(`RLIMIT_MEMLOCK ${soft} does not survive nodeadm's float64 round trip exactly (at most 2^53)`);
  if (f.mergeOverridesArraysWhole)
    for (const d of f.defaultRlimits)
      if (!rlimits.some((r) => JSON.stringify(r) === JSON.stringify(d)))
        out.push(
          `the default ${d.type} ${d.soft}/${d.hard} is not restated (nodeadm replaces the rlimits array whole)`,
        );
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
      assert.deepEqual(memlockProblems(doc, p5enMemoryBytes), []);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("nodeadm gives a container no memlock limit of its own, and every runtime reads the spec we raise it in", () => {
    assert.ok(
      !facts.defaultRlimits.some((r) => r.type === "RLIMIT_MEMLOCK"),
      "the default spec sets RLIMIT_MEMLOCK now",
    );
    assert.deepEqual(
      facts.containerdDropIns,
      ["00-runtime-slice.conf"],
      "a containerd drop-in appeared: does it set LimitMEMLOCK?",
    );
    assert.ok(facts.userSpecMergedOverDefault && facts.everyRuntimeReadsBaseSpec);
    assert.equal(facts.baseRuntimeSpecFile, "/etc/containerd/base-runtime-spec.json");
    const noEfa = gpuUserData({ localNvme: true, efa: false }, 0)!;
    assert.deepEqual(memlockProblems(parseMultipart(noEfa), 1), [
      "no NodeConfig sets containerd.baseRuntimeSpec.process.rlimits",
    ]);
    assert.equal(gpuUserData({ localNvme: false, efa: false }, 0), undefined);
    assert.deepEqual(
      memlockProblems(parseMultipart(gpuUserData({ localNvme: false, efa: true }, 0)!), p5enMemoryBytes),
      [],
    );
  });

  it("memlock mutations are caught: the default NOFILE dropped, 'unlimited', soft below hard, a misspelt field", () => {
    const ours = gpuUserData({ localNvme: true, efa: true }, 0)!;
    const nofile = /\n {10}- type: RLIMIT_NOFILE\n {12}soft: 65536\n {12}hard: 1048576/;
    assert.match(ours, nofile);
    for (const [from, to, expect] of [
      [nofile, "", /RLIMIT_NOFILE 65536\/1048576 is not restated/],
      [/9007199254740992/g, "18446744073709551615", /does not survive nodeadm's float64 round trip/],
      [/soft: 9007199254740992/, "soft: 8388608", /soft 8388608 and hard 9007199254740992 differ/],
      [/baseRuntimeSpec/, "baseRuntimeSpecs", /containerd.baseRuntimeSpecs is not a nodeadm field/],
    ] as const) {
      const problems = memlockProblems(parseMultipart(ours.replace(from, to)), p5enMemoryBytes);
      assert.ok(
        problems.some((p) => expect.test(p)),
        `${to}: ${problems.join("; ")}`,
      );
    }
  });

  it("mutations are caught: another strategy, an unknown field, a wrong kind, a different apiVersion", () => {
    const ours = gpuUserData(
      resolvePool("gpu", { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2b" }),
      0,
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
