/**
 * The README (with docs/OPERATIONS.md for the image build) takes a person from render to first token and
 * back: the sections "First request", "Building the image" and "Teardown" exist, and every command in their
 * shell blocks is either marked as needing AWS / the Pulumi CLI or is an offline `npm run render` that this
 * test runs. The "What survives pulumi destroy" table exists once, in docs/OPERATIONS.md (Teardown links to it,
 * never repeats it).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import { USAGE } from "../../tools/verify/cli";
import { DEFAULT_GRAPH_NAME } from "../../components/_shared/names";
import { checkStackConfigMap } from "../../tools/_shared/stack-check";
import { loadProject, stackConfig } from "../../tools/_shared/stackfile";

const ROOT = path.join(__dirname, "..", "..");
const read = (f: string): string => fs.readFileSync(path.join(ROOT, f), "utf8");
const README = read("README.md");
const OPERATIONS = read("docs/OPERATIONS.md");
const RENDER_DOC = read("docs/RENDER.md");
const VERIFY_DOC = read("docs/VERIFY.md");
const SECTIONS = ["First request", "Building the image", "Teardown"];
const MARKED = /#\s*needs (AWS|the Pulumi CLI)\b/;

/** The body of the `### title` section of the README or docs/OPERATIONS.md, up to the next heading. */
function section(title: string): string {
  const doc = [README, OPERATIONS].find((d) => d.includes(`\n### ${title}\n`));
  assert.ok(doc !== undefined, `neither README nor docs/OPERATIONS.md has "### ${title}"`);
  const start = doc.indexOf(`\n### ${title}\n`);
  const rest = doc.slice(start + title.length + 6);
  const end = rest.search(/\n#{2,3} /);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Commands of the ```sh blocks, continuation lines joined. */
export function commands(body: string): string[] {
  const blocks = [...body.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks.flatMap((b) =>
    b
      .replace(/\\\n/g, " ")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.length > 0),
  );
}

describe("README: first request, image build, teardown", function () {
  this.timeout(120000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "readme-journey-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const title of SECTIONS) {
    it(`"${title}": every command is run here or marked as needing AWS`, async () => {
      const cmds = commands(section(title));
      assert.ok(cmds.length > 0, `${title}: no commands`);
      for (const c of cmds) {
        if (MARKED.test(c)) continue;
        const m = /^npm run render -- (.*?)\s*(#.*)?$/.exec(c);
        assert.ok(m, `${title}: "${c}" is neither run by a test nor marked "# needs AWS"`);
        const args = m[1].split(/\s+/);
        const code = await runCli([...args, "--out", tmp], {
          ...defaultDeps(),
          stdout: () => undefined,
          stderr: () => undefined,
        });
        assert.equal(code, 0, c);
        // A builder the text sets must reach the image build (so the command must also select a release that builds).
        const builder = args.find((a, i) => args[i - 1] === "--set" && a.startsWith("image.builder="));
        if (builder !== undefined) {
          const res = JSON.parse(fs.readFileSync(path.join(tmp, args[0], "resources.json"), "utf8")) as {
            type: string;
            inputs: { builder?: { name: string } };
          }[];
          assert.deepEqual(
            res.find((r) => r.type === "docker-build:index:Image")?.inputs.builder,
            {
              name: builder.split("=")[1],
            },
            c,
          );
        }
      }
    });
  }

  it("the retained-resources table is written once and Teardown points to it", () => {
    assert.equal((README + OPERATIONS).split("### What survives `pulumi destroy`").length, 2);
    assert.match(section("Teardown"), /what-survives-pulumi-destroy/);
    assert.match(section("First request"), /\/v1\/chat\/completions/);
    assert.match(section("First request"), /npm run verify/);
  });

  it("README help texts match the code: outputs.json fields, verify --graph default", async () => {
    const code = await runCli(["p5en-1gpu", "--out", tmp], {
      ...defaultDeps(),
      stdout: () => undefined,
      stderr: () => undefined,
    });
    assert.equal(code, 0);
    const outputs = Object.keys(JSON.parse(fs.readFileSync(path.join(tmp, "p5en-1gpu", "outputs.json"), "utf8")));
    const row = RENDER_DOC.split("\n").find((l) => l.startsWith("| `outputs.json` |")) ?? "";
    assert.deepEqual(
      [...row.matchAll(/`(\w+)`/g)]
        .map((m) => m[1])
        .filter((k) => k !== "outputs" && k !== "secret")
        .sort(),
      outputs.sort(),
    );
    const graphLine = USAGE.split("\n").find((l) => l.trim().startsWith("--graph")) ?? "";
    assert.ok(graphLine.includes(`"${DEFAULT_GRAPH_NAME}"`), graphLine);
    assert.ok(VERIFY_DOC.includes(`\`dynamo-efa:graphName\` (default \`${DEFAULT_GRAPH_NAME}\`)`));
  });

  it("the deploy steps admit the deploying machine to the API endpoint before the first preview/up", () => {
    const start = README.indexOf("\n## Deploy\n");
    assert.ok(start >= 0, 'README lacks "## Deploy"');
    const cmds = commands(README.slice(start, README.indexOf("\n## ", start + 1)));
    const firstDeploy = cmds.findIndex((c) => /^pulumi (preview|up)\b/.test(c));
    const set = cmds.findIndex((c) => c.includes("dynamo-efa:cluster.publicAccessCidrs["));
    assert.ok(set >= 0 && set < firstDeploy, `no publicAccessCidrs set before "${cmds[firstDeploy]}"`);
    const m =
      /--path 'dynamo-efa:cluster\.publicAccessCidrs\[(\d+)\]' "\$\(curl -s https:\/\/checkip\.amazonaws\.com\)\/32"/.exec(
        cmds[set],
      );
    assert.ok(m, cmds[set]);
    // The stack as `pulumi up` sees it after the step (the address the command would print), checked not offline.
    const project = loadProject(ROOT);
    const cfg = stackConfig(project, path.join(ROOT, "stacks", "Pulumi.p5en-8gpu.yaml"));
    const before = checkStackConfigMap(project.name, cfg, true, false).problems.map((p) => p.propertyPath);
    assert.deepEqual(
      before,
      [`cluster.publicAccessCidrs[${m[1]}]`],
      "the shipped placeholder is what the step replaces",
    );
    const cluster = JSON.parse(cfg.config["dynamo-efa:cluster"]) as { publicAccessCidrs: string[] };
    cluster.publicAccessCidrs[Number(m[1])] = "3.5.140.2/32";
    const after = { ...cfg, config: { ...cfg.config, "dynamo-efa:cluster": JSON.stringify(cluster) } };
    assert.deepEqual(checkStackConfigMap(project.name, after, true, false).problems, []);
  });

  it("the check fails on an unmarked AWS command", () => {
    const cmds = commands("```sh\npulumi destroy -s x\n```\n");
    assert.deepEqual(
      cmds.filter((c) => !MARKED.test(c) && !c.startsWith("npm run render -- ")),
      ["pulumi destroy -s x"],
    );
  });
});
