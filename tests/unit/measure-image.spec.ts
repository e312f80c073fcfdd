/**
 * The image measure's benchmark Job runs (tools/measure/image.ts): the release's image that ships AIPerf, at the
 * digest a pod of the graph already runs it, else the release's digest, else the user's --aiperf-image; never a
 * tag. For the default release that is the frontend image: `npm run measure -- p5en-8gpu` needs nothing built.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { benchImage, pinnedImageOf } from "../../tools/measure/image";
import { release, ReleaseId } from "../../components/releases";

const D = (c: string) => `sha256:${c.repeat(64)}`;
const FRONTEND = `nvcr.io/nvidia/ai-dynamo/dynamo-frontend@${D("a")}`;
const RUNTIME = `nvcr.io/nvidia/ai-dynamo/vllm-runtime@${D("b")}`;
const OVERRIDE = `123456789012.dkr.ecr.us-east-2.amazonaws.com/aiperf@${D("c")}`;

describe("measure: the image AIPerf runs from", () => {
  const r16 = release(ReleaseId.Dynamo16);

  it("the default release ships AIPerf in its frontend image: the Job runs it at the digest the Frontend runs", () => {
    const i = benchImage(r16, [RUNTIME, FRONTEND]);
    assert.ok("ref" in i, JSON.stringify(i));
    assert.equal(i.ref, FRONTEND);
    assert.match(
      i.why,
      /the image the graph's Frontend runs: nvcr\.io\/nvidia\/ai-dynamo\/dynamo-frontend:1\.6\.2 ships AIPerf/,
    );
  });

  it("--aiperf-image wins; without a running copy or a release digest, a problem says what to pass", () => {
    assert.deepEqual(benchImage(r16, [FRONTEND], OVERRIDE), { ref: OVERRIDE, why: "--aiperf-image" });
    const none = benchImage(r16, [RUNTIME]);
    assert.ok("problem" in none);
    assert.match(none.problem, /ships AIPerf .* no digest of it is known here: no pod of the graph runs it/);
    assert.match(none.problem, /--aiperf-image nvcr\.io\/nvidia\/ai-dynamo\/dynamo-frontend@sha256:<digest>/);
  });

  it("a release digest serves when no pod runs the image; a release without an AIPerf image asks for one", () => {
    const pinned = { ...r16, frontendImage: { ...r16.frontendImage!, digest: D("d") } };
    const i = benchImage(pinned, []);
    assert.ok("ref" in i);
    assert.equal(i.ref, `nvcr.io/nvidia/ai-dynamo/dynamo-frontend@${D("d")}`);
    const seed = benchImage(release(ReleaseId.Seed), [FRONTEND]);
    assert.ok("problem" in seed);
    assert.match(seed.problem, /release seed names no image that ships AIPerf; pass --aiperf-image/);
  });

  it("a pod's image is pinned by its spec's digest, else by the kubelet's image ID; a tag alone is not", () => {
    assert.equal(pinnedImageOf(FRONTEND, undefined), FRONTEND);
    assert.equal(
      pinnedImageOf("nvcr.io/nvidia/ai-dynamo/dynamo-frontend:1.6.2", `docker-pullable://${FRONTEND}`),
      FRONTEND,
    );
    assert.equal(pinnedImageOf("nvcr.io/nvidia/ai-dynamo/dynamo-frontend:1.6.2", FRONTEND), FRONTEND);
    assert.equal(pinnedImageOf("x:1", undefined), undefined);
    assert.equal(pinnedImageOf("x:1", "sha256:abc"), undefined);
  });

  it("the default stack's Frontend runs the release's frontend image by digest: measure reuses it, nothing built", () => {
    const dir = path.join(__dirname, "..", "golden", "render", "p5en-8gpu", "manifests");
    const dgd = fs.readFileSync(
      path.join(
        dir,
        fs.readdirSync(dir).find((f) => f.includes("dynamographdeployment"))!,
      ),
      "utf8",
    );
    const frontend = /image: (nvcr\.io\/nvidia\/ai-dynamo\/dynamo-frontend@sha256:[0-9a-f]{64})/.exec(dgd)?.[1];
    assert.ok(frontend, "the rendered Frontend runs the frontend image, digest-pinned");
    const i = benchImage(r16, [frontend]);
    assert.ok("ref" in i);
    assert.equal(i.ref, frontend);
  });
});
