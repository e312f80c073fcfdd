/**
 * `inference.modelCache.sizeGiB` on the real program: a retained ReadWriteMany cache on the cluster's
 * retained EFS, mounted by every worker of the graph (the shared model-cache mode "efs").
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import YAML from "yaml";
import { readJson, renderStack } from "./render-harness";

describe("render: the EFS model cache, real program", function () {
  this.timeout(60000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-cache-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("inference.modelCache.sizeGiB: a retained ReadWriteMany cache on the cluster's retained EFS, mounted by every worker", async () => {
    const r = await renderStack("p5en-8gpu", path.join(tmp, "cache"), [
      "--set",
      "inference.modelCacheMode=efs",
      "--set",
      "inference.modelCache.sizeGiB=200",
    ]);
    assert.equal(r.code, 0, r.stderr.join("\n"));
    const manifests = path.join(r.dir, "manifests");
    const read = (kind: string) =>
      YAML.parse(
        fs.readFileSync(
          path.join(
            manifests,
            fs.readdirSync(manifests).find((f) => f.includes(kind))!,
          ),
          "utf8",
        ),
      );
    const pvc = read("persistentvolumeclaim");
    assert.deepEqual(
      [pvc.spec.accessModes, pvc.spec.storageClassName, pvc.spec.resources.requests.storage],
      [["ReadWriteMany"], "efs-shared", "200Gi"],
    );
    assert.equal(read("storageclass-efs-shared").provisioner, "efs.csi.aws.com");
    // The default release writes v1beta1: no operator-managed `spec.pvcs` (nothing for the operator to create); each
    // worker's pod template mounts the retained claim by name.
    const dgd = read("dynamographdeployment");
    assert.equal(dgd.apiVersion, "nvidia.com/v1beta1");
    assert.equal(dgd.spec.pvcs, undefined);
    type Component = {
      name: string;
      podTemplate: {
        spec: {
          volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[];
          containers: { name: string; volumeMounts?: { name: string }[] }[];
        };
      };
    };
    for (const svc of ["PrefillWorker", "DecodeWorker"]) {
      const c = (dgd.spec.components as Component[]).find((x) => x.name === svc)!;
      assert.deepEqual(
        (c.podTemplate.spec.volumes ?? [])
          .filter((v) => v.persistentVolumeClaim)
          .map((v) => [v.name, v.persistentVolumeClaim!.claimName]),
        [[pvc.metadata.name, pvc.metadata.name]],
        svc,
      );
      const main = c.podTemplate.spec.containers.find((x) => x.name === "main")!;
      assert.ok(
        main.volumeMounts?.some((m) => m.name === pvc.metadata.name),
        `${svc}: main mounts the claim`,
      );
    }
    const resources = readJson(r.dir, "resources.json") as { type: string; retainOnDelete?: boolean }[];
    const list = Array.isArray(resources)
      ? resources
      : (resources as unknown as { resources: typeof resources }).resources;
    for (const type of ["aws:efs/fileSystem:FileSystem", "kubernetes:core/v1:PersistentVolumeClaim"]) {
      const hit = list.filter((x) => x.type === type);
      assert.equal(hit.length, 1, type);
      assert.equal(hit[0].retainOnDelete, true, `${type} must be retained on delete`);
    }
  });
});
