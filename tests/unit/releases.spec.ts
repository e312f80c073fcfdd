/**
 * The releases as data: `seed` is exactly what components/versions.ts pinned, `dynamo-1.6` is Dynamo 1.6.2 on the
 * v1beta1 graph, every pin names its source, and a bad `release` value is refused with the choices and a suggestion.
 */
import { strict as assert } from "assert";
import { charts, DYNAMO_COMMIT, image } from "../../components/versions";
import {
  DEFAULT_RELEASE,
  GraphApiVersion,
  ImagePin,
  Pin,
  release,
  releaseProblems,
  RELEASES,
  upgradePath,
  upgradeProblems,
} from "../../components/releases";

/** Every Pin and ImagePin inside a value, with its path. */
function pins(v: unknown, at = ""): { at: string; pin: Pin | ImagePin }[] {
  if (v === null || typeof v !== "object") return [];
  const o = v as Record<string, unknown>;
  if (typeof o.source === "string" && (typeof o.version === "string" || typeof o.repository === "string"))
    return [{ at, pin: o as unknown as Pin | ImagePin }];
  return Object.entries(o).flatMap(([k, x]) => pins(x, at ? `${at}.${k}` : k));
}

describe("releases", () => {
  it("dynamo-1.6 is the default", () => {
    assert.equal(DEFAULT_RELEASE, "dynamo-1.6");
    assert.equal(release().dynamo.version, "1.6.2");
  });

  it("seed is today's versions.ts set: runtime commit, chart 1.0.1, v1alpha1, vLLM 0.17.1, TRT-LLM 1.3.0rc7, NIXL 0.10.1", () => {
    const s = release("seed");
    assert.equal(s.dynamo.commit, DYNAMO_COMMIT);
    assert.equal(s.platform.chart.version, charts.dynamoPlatform.version);
    assert.equal(s.graph.apiVersion, GraphApiVersion.V1alpha1);
    assert.equal(s.graph.runtimeVersionOverride, undefined);
    assert.equal(`v${s.engines.vllm.engine.version}`, image.vllm);
    assert.equal(s.engines.trtllm.engine.version, image.tensorrtLlm);
    assert.deepEqual([s.engines.vllm.nixl.version, s.engines.trtllm.nixl.version], [image.nixl, image.nixl]);
    assert.deepEqual(
      [s.ucx.version, s.libfabric.version, s.efaInstaller.version],
      [image.ucx, image.libfabric, image.efaInstaller],
    );
  });

  it("dynamo-1.6 renders v1beta1 with a bare-version runtimeVersionOverride and installs operator 1.6.2", () => {
    const r = release("dynamo-1.6");
    assert.equal(r.graph.apiVersion, GraphApiVersion.V1beta1);
    assert.match(r.graph.runtimeVersionOverride!.version, /^\d+\.\d+\.\d+$/);
    assert.equal(r.graph.runtimeVersionOverride!.version, r.dynamo.version);
    assert.equal(r.platform.chart.version, "1.6.2");
    assert.equal(r.platform.natsInstalledByDefault, false);
  });

  for (const r of Object.values(RELEASES)) {
    it(`${r.id}: every pin names its source; image digests are sha256`, () => {
      const all = pins(r);
      assert.ok(all.length >= 10, `${all.length} pins`);
      for (const { at, pin } of all) {
        assert.ok(pin.source.trim().length > 10, `${r.id}.${at} has no source`);
        if ("digest" in pin && pin.digest !== undefined) assert.match(pin.digest, /^sha256:[0-9a-f]{64}$/, at);
      }
    });
  }

  it("a bad release is refused with the choices and a suggestion; undefined is the default", () => {
    assert.deepEqual(releaseProblems(undefined), []);
    assert.deepEqual(releaseProblems("seed"), []);
    const [p] = releaseProblems("dynamo-1.5");
    assert.equal(p.propertyPath, "release");
    assert.match(p.reason, /must be one of "dynamo-1\.6", "seed"; got "dynamo-1\.5"; did you mean "dynamo-1\.6"\?/);
    assert.throws(() => release("nope" as never), /unknown release "nope"/);
  });
});

describe("releases: moving a stack between releases", () => {
  it("seed -> dynamo-1.6 in one step is refused with the minor-by-minor path", () => {
    const [p] = upgradeProblems("seed", "1.6.2");
    assert.equal(p.propertyPath, "previousRelease");
    assert.match(p.reason, /one minor at a time; 1\.0\.1 -> 1\.6\.2 skips 5 minor/);
    assert.match(p.reason, /"1\.1\.1", "1\.2\.1", "1\.3\.1", "1\.4\.2", "1\.5\.1"/);
    assert.deepEqual(upgradePath("1.0.1", "1.6.2"), ["1.1.1", "1.2.1", "1.3.1", "1.4.2", "1.5.1", "1.6.2"]);
  });
  it("one minor at a time passes; a downgrade and a bad value are refused; no previousRelease checks nothing", () => {
    assert.deepEqual(upgradeProblems("1.5.1", "1.6.2"), []);
    assert.deepEqual(upgradeProblems("seed", "1.1.1"), []);
    assert.deepEqual(upgradeProblems("dynamo-1.6", "1.6.2"), []);
    assert.deepEqual(upgradeProblems(undefined, "1.6.2"), []);
    assert.match(upgradeProblems("dynamo-1.6", "1.0.1")[0].reason, /cannot move down from 1\.6\.2 to 1\.0\.1/);
    assert.match(
      upgradeProblems("latest", "1.6.2")[0].reason,
      /must be a release \(dynamo-1\.6, seed\) or the dynamo-platform chart version/,
    );
  });
});
