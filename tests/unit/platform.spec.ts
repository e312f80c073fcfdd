/**
 * `DynamoPlatform`'s pure parts: the defaults, the one `dynamo-platform` release from the pinned chart tarball, and
 * every problem of its arguments at their path.
 */
import { strict as assert } from "assert";
import { renderPlatformRelease, resolveArgs, validate } from "../../components/platform";
import { charts } from "../../components/versions";

const url = (v: string) => `https://helm.ngc.nvidia.com/nvidia/ai-dynamo/charts/dynamo-platform-${v}.tgz`;

describe("platform: DynamoPlatform args, validation and release", () => {
  // Ledger row 1.4.0:namespace-restricted-installs-must-set-dynamo-operator-upgradecrd-false (#11689).
  // Ledger row 1.4.0:namespace-restricted-operator-mode-deprecated.
  it("defaults to release dynamo-1.6's chart (1.6.2) in dynamo-system: one dynamo-platform release, operator cluster-wide", () => {
    assert.deepEqual(renderPlatformRelease(resolveArgs()), {
      name: "dynamo-platform",
      chart: url("1.6.2"),
      version: "1.6.2",
      namespace: "dynamo-system",
      createNamespace: true,
      atomic: true,
      timeout: 600,
      values: { "dynamo-operator": { namespaceRestriction: { enabled: false } } },
    });
  });

  it("release seed installs the seed's chart (today's versions.ts pin); a bad release is refused", () => {
    const rel = renderPlatformRelease(resolveArgs({ release: "seed" }));
    assert.deepEqual([rel.chart, rel.version], [url(charts.dynamoPlatform.version), "1.0.1"]);
    assert.deepEqual(
      validate(resolveArgs({ release: "dynamo-1.5" as never })).map((p) => p.propertyPath),
      ["release"],
    );
  });

  it("a version names its tarball; a namespace moves the release", () => {
    const rel = renderPlatformRelease(resolveArgs({ version: "1.1.0", namespace: "ops" }));
    assert.deepEqual([rel.chart, rel.version, rel.namespace], [url("1.1.0"), "1.1.0", "ops"]);
  });

  it("reports a bad namespace and version at once, under the caller's prefix", () => {
    assert.deepEqual(validate(resolveArgs()), []);
    assert.deepEqual(validate(resolveArgs({ namespace: "Ops", version: "latest" }), "inference.platform"), [
      {
        propertyPath: "inference.platform.namespace",
        reason: 'must be a lower-case RFC 1123 name (a-z, 0-9, "-", <= 63 characters); got "Ops"',
      },
      {
        propertyPath: "inference.platform.version",
        reason:
          'must be a dynamo-platform chart version such as "1.0.1" (it names the chart tarball on helm.ngc.nvidia.com); got "latest"',
      },
    ]);
  });
});
