/**
 * The `local-nvme` prefetch DaemonSet: on the pool's nodes, tolerating their taint, a small digest-pinned image
 * (`inference.prefetchImage`) running the workers' own prefetch containers, holding little CPU and memory; absent in
 * the other cache modes; a tag-only image is refused at the config key and at the component arg.
 */
import { strict as assert } from "assert";
import {
  renderPrefetchDaemonSet,
  PREFETCH_POD_RESOURCES,
  nodeCacheInitContainers,
} from "../../components/inference/cache";
import { validate } from "../../components/inference/validate";
import { prefetchImage } from "../../components/versions";
import { checkStackConfig } from "../../program/config";
import { IMAGE, pool, resolved } from "../helpers/inference-fixtures";

const NVME = { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } };
const local = (over = {}) =>
  resolved("p5en-8x1gpu", "vllm", {
    gpuPool: pool("p5en.48xlarge", 2, true, NVME),
    modelCacheMode: "local-nvme",
    ...over,
  });

describe("inference: the prefetch DaemonSet", () => {
  it("runs the workers' prefetch containers in the small image on the pool's nodes, tolerating their taint", () => {
    const r = local();
    const ds = renderPrefetchDaemonSet(r)!;
    const pod = ds.spec.template.spec;
    assert.deepEqual(pod.nodeSelector, r.pool.nodeSelector);
    assert.deepEqual(
      pod.tolerations.map((t) => t.key),
      r.pool.taints.map((t) => t.key),
    );
    const images = [...pod.initContainers, ...pod.containers].map((c) => c.image);
    assert.ok(images.every((i) => i === prefetchImage) && !images.includes(IMAGE), images.join(", "));
    const workers = nodeCacheInitContainers(r, IMAGE);
    assert.deepEqual(
      pod.initContainers.map((c) => [c.name, c.command, c.volumeMounts]),
      workers.map((c) => [c.name, c.command, c.volumeMounts]),
    );
    assert.deepEqual(pod.initContainers[1].resources, PREFETCH_POD_RESOURCES, "small: the pod holds it while idle");
    assert.equal(pod.automountServiceAccountToken, false);
  });

  it("takes inference.prefetchImage, and exists only in local-nvme mode", () => {
    const mirror: string = `123456789012.dkr.ecr.us-east-2.amazonaws.com/python@sha256:${"cd".repeat(32)}`;
    assert.equal(
      renderPrefetchDaemonSet(local({ prefetchImage: mirror }))!.spec.template.spec.containers[0].image,
      mirror,
    );
    assert.equal(renderPrefetchDaemonSet(resolved("p5en-8x1gpu", "vllm", { modelCacheMode: "none" })), undefined);
  });

  it("refuses a tag-only prefetch image at the component arg and at the config key", () => {
    const bad = validate(local({ prefetchImage: "python:3.12-slim" }), true).filter(
      (p) => p.propertyPath === "prefetchImage",
    );
    assert.equal(bad.length, 1);
    assert.match(bad[0].reason, /digest-pinned .* got "python:3.12-slim"/);
    const { problems } = checkStackConfig({
      region: "us-east-2",
      hfTokenSet: true,
      cluster: {
        availabilityZones: ["us-east-2a", "us-east-2b"],
        gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2b" } },
      },
      inference: { model: "m/x", prefetchImage: "python:3.12-slim" },
    });
    assert.ok(
      problems.some((p) => p.propertyPath.endsWith("inference.prefetchImage") && /sha256/.test(p.reason)),
      JSON.stringify(problems),
    );
  });
});
