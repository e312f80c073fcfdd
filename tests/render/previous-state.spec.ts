/**
 * An existing stack upgrades in place: every URN a p5en-8gpu or p5en-1gpu stack deployed with an earlier version
 * holds (tests/fixtures/previous-state, recorded from that version's render) is a URN of today's render, or an
 * alias one of its resources declares. A URN that is neither would be deleted and a new resource created: for the
 * GPU pools that means draining and relaunching every GPU node. pulumi-eks's upgrade test holds its baseline state
 * the same way (a previous version's state must preview cleanly). The aliased resources also keep their inputs but
 * for the physical names the mocks derive from the logical name (a real stack keeps the existing resource's).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { readJson, renderStack } from "./render-harness";

interface Recorded {
  urn: string;
  name: string;
  type: string;
  aliases?: string[];
  inputs: Record<string, unknown>;
}

/**
 * Previous resources deliberately dropped, each holding nothing in the cloud: deleting it from the state deletes
 * nothing a user has. The Docker provider DynamoImage used only for its registry lookup (`getRegistryImage`, an
 * invoke, re-run at every `pulumi up`); the vendor digest is now an ImageDigest resource kept in state. The
 * `@pulumi/docker` package stays a dependency so the engine has its plugin to drop that provider on the upgrade.
 */
const DROPPED = (stack: string): string[] => [
  `urn:pulumi:${stack}::dynamo-efa::dynamo-efa:image:DynamoImage$pulumi:providers:docker::dynamo-efa-vllm-registry`,
];

const previous = (stack: string): string[] =>
  JSON.parse(fs.readFileSync(path.join(__dirname, "..", "fixtures", "previous-state", `${stack}.json`), "utf8")).urns;

describe("render: a stack of the previous version upgrades in place (URNs kept or aliased)", function () {
  this.timeout(120000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "previous-state-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const stack of ["p5en-8gpu", "p5en-1gpu"]) {
    it(`${stack}: every previous URN is a URN or an alias of the new render, and the pools' children keep their names`, async () => {
      const r = await renderStack(stack, tmp);
      assert.equal(r.code, 0, [...r.stdout, ...r.stderr].join("\n"));
      const now = readJson(r.dir, "resources.json") as Recorded[];
      const known = new Map<string, Recorded>();
      for (const x of now) for (const u of [x.urn, ...(x.aliases ?? [])]) known.set(u, x);
      const dropped = DROPPED(stack);
      const lost = previous(stack).filter((u) => !known.has(u) && !dropped.includes(u));
      // Each dropped URN was in the previous state and is gone now (an entry that matches nothing is stale).
      for (const u of dropped) assert.ok(previous(stack).includes(u) && !known.has(u), `DROPPED is stale: ${u}`);
      assert.deepEqual(lost, [], "these resources would be replaced on `pulumi up`: give them aliases");
      // The pool's children moved under EfaGpuPool and say where they were: their old URNs, under the cluster.
      const moved = now.filter((x) => x.urn.includes("EfaGpuPool$"));
      for (const x of moved) assert.equal(x.aliases?.length, 1, `${x.name}: one alias, its old URN`);
      assert.deepEqual(moved.map((x) => `${x.type} ${x.name}`).sort(), [
        "aws:ec2/launchTemplate:LaunchTemplate dynamo-efa-gpu-gpu-lt",
        "aws:ec2/placementGroup:PlacementGroup dynamo-efa-gpu-gpu-placement",
        "aws:eks/nodeGroup:NodeGroup dynamo-efa-gpu-gpu-ng",
      ]);
      // The launch template's instance tag still names the pool as before (a new tag would be a new version, and a
      // new version rolls every GPU node).
      const lt = moved.find((x) => x.type === "aws:ec2/launchTemplate:LaunchTemplate")!;
      const specs = lt.inputs.tagSpecifications as { tags: { Name: string } }[];
      assert.deepEqual([...new Set(specs.map((t) => t.tags.Name))], ["dynamo-efa-gpu-gpu"]);
    });
  }
});
