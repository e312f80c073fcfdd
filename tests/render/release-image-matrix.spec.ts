/**
 * Both shipped stacks x both backends x both releases x every image source a release builds render with exit 0 and
 * no mandatory policy violation (advisories, such as a release's known issues, are what the pack is designed to
 * say); the one combination a release cannot build (dynamo-1.6 from source) exits 2 naming `image.source` and the
 * fix. Each render is the real program under the render's mocks.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import { ExitCode } from "../../tools/_shared/exit-codes";

/** The image sources each release builds (release-image.ts: dynamo-1.6 refuses "source"). */
const SOURCES = { "dynamo-1.6": ["prebuilt", "combined"], seed: ["prebuilt", "combined", "source"] } as const;

async function render(stack: string, sets: readonly string[], out: string) {
  const log: string[] = [];
  const code = await runCli([stack, "--out", out, ...sets.flatMap((s) => ["--set", s])], {
    ...defaultDeps(),
    stdout: (l) => log.push(l),
    stderr: (l) => log.push(l),
  });
  return { code, log: log.join("\n") };
}

describe("render: stacks x backends x releases x image sources", function () {
  this.timeout(600000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "release-image-matrix-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const stack of ["p5en-1gpu", "p5en-8gpu"])
    for (const backend of ["vllm", "trtllm"])
      for (const [release, sources] of Object.entries(SOURCES))
        for (const source of sources)
          it(`${stack}, ${backend}, ${release}, ${source}: exit 0, no mandatory violation`, async () => {
            const out = path.join(tmp, `${stack}-${backend}-${release}-${source}`);
            const sets = [`inference.backend=${backend}`, `release=${release}`, `image.source=${source}`];
            const r = await render(stack, sets, out);
            assert.equal(r.code, ExitCode.Ok, r.log);
            const policy = JSON.parse(fs.readFileSync(path.join(out, stack, "policy.json"), "utf8")) as {
              mandatoryViolations: number;
            };
            assert.equal(policy.mandatoryViolations, 0, r.log);
          });

  it("dynamo-1.6 from source exits 2 at image.source, naming the fix", async () => {
    const r = await render("p5en-8gpu", ["image.source=source"], path.join(tmp, "refused"));
    assert.equal(r.code, ExitCode.InvalidConfig, r.log);
    assert.match(
      r.log,
      /image\.source: "source" builds the seed's versions .* set release "seed" to build from source/,
    );
  });
});
