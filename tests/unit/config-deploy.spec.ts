/** Stack-config keys of the deployment shape: inference.kvTransport, inference.platform, and AZs against aws:region. */
import { strict as assert } from "assert";
import { checkStackConfig } from "../../program/config-schema";

const base = {
  region: "us-east-2",
  hfTokenSet: true,
  cluster: {
    availabilityZone: "us-east-2b",
    deployFromInsideVpc: true,
    gpuNodes: { instanceType: "p5en.48xlarge", count: 1 },
  },
};
const problems = (inference: object, extra: object = {}) =>
  checkStackConfig({ ...base, ...extra, inference: { model: "m/x", ...inference } }).problems.map(
    (p) => `${p.propertyPath}: ${p.reason}`,
  );

describe("config: inference.kvTransport, inference.platform and AZs against aws:region", () => {
  it("defaults: kvTransport auto, platform installed at the pinned chart version; the region reaches the cluster args", () => {
    const { config } = checkStackConfig({ ...base, inference: { model: "m/x" } });
    assert.equal(config?.inference.kvTransport, "auto");
    assert.deepEqual(config?.platform, { version: "1.0.1" });
    assert.equal("platform" in (config?.inference ?? {}), false, "the platform is the cluster's, not a graph setting");
    assert.equal(config?.clusterArgs.region, "us-east-2");
  });

  it("a platform version reaches the DynamoPlatform args; kvTransport ucx passes through", () => {
    const { config } = checkStackConfig({ ...base, inference: { model: "m/x", kvTransport: "ucx" } });
    assert.equal(config?.inference.kvTransport, "ucx");
    const pinned = checkStackConfig({ ...base, inference: { model: "m/x", platform: { version: "1.1.0" } } });
    assert.deepEqual(pinned.config?.platform, { version: "1.1.0" });
  });

  it("refuses what cannot work on the new cluster the program always creates: platform.install false, an existing Prometheus", () => {
    const { config, problems } = checkStackConfig({
      ...base,
      inference: { model: "m/x", platform: { install: false } },
      observability: { prometheus: "existing", monitorLabels: { release: "kps" } },
    });
    assert.equal(config, undefined);
    assert.deepEqual(
      problems.map((p) => `${p.propertyPath}: ${p.reason}`),
      [
        "inference.platform.install: false needs a cluster that already runs the Dynamo operator and its CRDs, but this program always creates a new EKS cluster, where nothing else would install the DynamoGraphDeployment CRD; leave it true (the default), or compose DisaggInference onto your own cluster",
        'observability.prometheus: "existing" needs a Prometheus Operator already on the cluster, but this program always creates a new EKS cluster: the PodMonitors would have no CRD and the dashboard ConfigMap no namespace. Use "install" (the default), or compose DynamoObservability onto your own cluster',
      ],
    );
    assert.deepEqual(
      checkStackConfig({ ...base, inference: { model: "m/x", platform: { install: true } } }).problems,
      [],
    );
  });

  it("rejects a bad kvTransport, a non-boolean platform.install and a bad chart version, naming the key and the allowed values", () => {
    const out = problems({ kvTransport: "efa", platform: { install: "no", version: "v1" } });
    assert.equal(out.length, 3, out.join("\n"));
    assert.match(
      out.find((l) => l.startsWith("inference.kvTransport: "))!,
      /"auto", "libfabric", "ucx".*"efa"/,
    );
    assert.ok(
      out.some((l) => l.startsWith("inference.platform.install: ")),
      out.join("\n"),
    );
    assert.ok(
      out.some((l) => l.startsWith("inference.platform.version: ") && l.includes('"v1"')),
      out.join("\n"),
    );
  });

  it("an AZ outside aws:region is reported once, at the key the user wrote", () => {
    assert.deepEqual(problems({}, { region: "us-west-2" }), [
      'cluster.availabilityZone: "us-east-2b" is not in region "us-west-2" (aws:region); use a zone of that region such as "us-west-2a", or change the region',
    ]);
  });
});
