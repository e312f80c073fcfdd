/**
 * `image.builder` is a stack config key: `--set image.builder=…` is accepted and reaches
 * the image component's buildx builder; without it the default builder is used; a non-string is a
 * config error naming the key. image.json names each build arg once. The default release
 * (dynamo-1.6) deploys the vendor's prebuilt image and builds nothing, so the build cases render
 * `release=seed`, which builds from source.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";

const IMAGE = "docker-build:index:Image";
/** The inputs of the image build these tests read (resources.json). */
interface ImageInputs {
  readonly builder?: { readonly name: string };
}

async function render(out: string, extra: string[]): Promise<{ code: number; err: string; image?: ImageInputs }> {
  const err: string[] = [];
  const code = await runCli(["p5en-1gpu", "--out", out, ...extra], {
    ...defaultDeps(),
    stdout: () => undefined,
    stderr: (l) => err.push(l),
  });
  const file = path.join(out, "p5en-1gpu", "resources.json");
  const image =
    code === 0
      ? (JSON.parse(fs.readFileSync(file, "utf8")) as { type: string; inputs: ImageInputs }[]).find(
          (r) => r.type === IMAGE,
        )?.inputs
      : undefined;
  return { code, err: err.join("\n"), ...(image ? { image } : {}) };
}

describe("render: image.builder from stack config", function () {
  this.timeout(120000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-builder-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("--set image.builder=NAME reaches the image build's builder", async () => {
    const r = await render(path.join(tmp, "a"), ["--set", "release=seed", "--set", "image.builder=dynamo-amd64"]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.image?.builder, { name: "dynamo-amd64" });
  });

  it("without it the build uses the default builder", async () => {
    const r = await render(path.join(tmp, "b"), ["--set", "release=seed"]);
    assert.equal(r.code, 0, r.err);
    assert.ok(r.image, "image built");
    assert.equal(r.image.builder, undefined);
  });

  it("image.json states the build args once (in plan.buildArgs), not twice", () => {
    const text = fs.readFileSync(path.join(tmp, "b", "p5en-1gpu", "image.json"), "utf8");
    const image = JSON.parse(text) as { plan: { buildArgs: Record<string, string> }; buildArgs?: unknown };
    assert.ok(Object.keys(image.plan.buildArgs).length > 10);
    assert.equal(image.buildArgs, undefined);
    assert.equal(text.split('"VLLM_REF"').length, 2, "VLLM_REF appears once");
  });

  it("a non-string builder is a config error naming image.builder", async () => {
    const r = await render(path.join(tmp, "c"), ["--set", "image.builder=[a, b]"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /image\.builder/);
  });
});
