/** Pure pieces of the render's input: stack-file merging and `--set`, the config schema and its reference rows. */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { loadProject, parseOverride, stackConfig, UsageError } from "../../tools/_shared/stackfile";
import { checkStackConfig } from "../../program/config-schema";
import { CLUSTER_FIELDS, IMAGE_FIELDS } from "../../program/config-fields";
import { INFERENCE_FIELDS } from "../../program/config-inference-fields";
import { referenceRows } from "../../program/schema";

const ROOT = path.join(__dirname, "..", "..");

describe("render units", () => {
  describe("stack files", () => {
    const project = loadProject(ROOT);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-units-"));
    after(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it("reads the project name and Pulumi.yaml defaults", () => {
      assert.equal(project.name, "dynamo-efa");
      assert.equal(project.stackConfigDir, "stacks");
      assert.equal(project.defaults["aws:region"], "us-east-2");
      assert.equal(project.defaults["dynamo-efa:graphName"], "llm");
    });

    it("merges defaults < stack file < --set, stringifies objects, marks secure keys secret", () => {
      const file = path.join(tmp, "Pulumi.t.yaml");
      fs.writeFileSync(
        file,
        "config:\n  aws:region: us-west-2\n  dynamo-efa:inference: { model: m, prefill: { replicas: 1 } }\n  dynamo-efa:hfToken:\n    secure: v1:abc\n",
      );
      const c = stackConfig(project, file, [
        parseOverride("inference.prefill.replicas=4"),
        parseOverride("inference.decode={replicas: 2}"),
        parseOverride("aws:region=eu-west-1"),
      ]);
      assert.equal(c.config["aws:region"], "eu-west-1");
      assert.deepEqual(JSON.parse(c.config["dynamo-efa:inference"]), {
        model: "m",
        prefill: { replicas: 4 },
        decode: { replicas: 2 },
      });
      assert.equal(c.config["dynamo-efa:hfToken"], "[secret]");
      assert.deepEqual(c.secretKeys, ["dynamo-efa:hfToken"]);
      assert.equal(c.config["dynamo-efa:graphName"], "llm");
    });

    it("types --set values as YAML", () => {
      assert.deepEqual(parseOverride("a.b=4"), { key: "a.b", value: 4 });
      assert.deepEqual(parseOverride("a=true"), { key: "a", value: true });
      assert.deepEqual(parseOverride("a=[sm_90]"), { key: "a", value: ["sm_90"] });
      assert.deepEqual(parseOverride("a=p5en.48xlarge"), { key: "a", value: "p5en.48xlarge" });
      assert.throws(() => parseOverride("a b=1"), UsageError);
    });
  });

  describe("config schema", () => {
    const good = {
      region: "us-east-2",
      hfTokenSet: true,
      cluster: {
        availabilityZone: "us-east-2b",
        deployFromInsideVpc: true,
        gpuNodes: { instanceType: "p5en.48xlarge", count: 2 },
      },
      image: { cudaArchs: "auto" },
      inference: { model: "meta-llama/Llama-3.1-8B-Instruct", prefill: { replicas: 8 }, decode: { replicas: 8 } },
    };

    it("maps a valid config to component args, filling defaults", () => {
      const { config, problems } = checkStackConfig(good);
      assert.deepEqual(problems, []);
      assert.deepEqual(config!.clusterArgs.gpuPools.gpu, {
        instanceType: "p5en.48xlarge",
        nodes: 2,
        availabilityZone: "us-east-2b",
        capacity: "on-demand",
      });
      assert.deepEqual(config!.clusterArgs.availabilityZones, ["us-east-2a", "us-east-2b"]);
      assert.deepEqual(config!.image.resolvedCudaArchs, ["sm_90"]);
      assert.equal(config!.gpuPool.efaPerNode, 16);
      assert.deepEqual(config!.inference.decode, { replicas: 8, gpusPerWorker: 1 });
      assert.equal(config!.inference.backend, "vllm");
    });

    it("accepts YAML numbers for versions (1.35, 12.9) and maps them to strings", () => {
      const { config, problems } = checkStackConfig({
        ...good,
        cluster: { ...good.cluster, kubernetesVersion: 1.35 },
        image: { cudaArchs: "auto", cudaToolkit: 12.9 },
      });
      assert.deepEqual(problems, []);
      assert.equal(config!.cluster.kubernetesVersion, "1.35");
    });

    it("requires the token unless an existing secret is named", () => {
      assert.deepEqual(
        checkStackConfig({ ...good, hfTokenSet: false }).problems.map((p) => p.propertyPath),
        ["hfToken"],
      );
      assert.deepEqual(
        checkStackConfig({ ...good, hfTokenSet: false, inference: { ...good.inference, hfTokenSecretName: "hf" } })
          .problems,
        [],
      );
    });

    it("documents every key with a type and a default (docs/CONFIG.md, the config reference)", () => {
      const rows = [
        ...referenceRows("cluster", CLUSTER_FIELDS),
        ...referenceRows("image", IMAGE_FIELDS),
        ...referenceRows("inference", INFERENCE_FIELDS),
      ];
      assert.ok(rows.length > 25);
      for (const r of rows) assert.ok(r.doc && r.type && r.default, JSON.stringify(r));
      const readme = fs.readFileSync(path.join(ROOT, "docs", "CONFIG.md"), "utf8");
      // The type column carries each range, generated from the components' limits tables.
      for (const r of rows)
        assert.ok(
          readme.includes(`| \`${r.key}\` | ${r.type} |`),
          `docs/CONFIG.md lacks the row of ${r.key} (type ${r.type})`,
        );
    });
  });
});
