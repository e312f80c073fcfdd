/**
 * Both releases x both backends render (exit 0): `dynamo-1.6` the v1beta1 graph valid against its CRD and admission
 * rule with chart 1.6.2; `--set release=seed` the v1alpha1 graph valid against the seed's CRD, operator chart 1.0.1,
 * exit 0 with the seed's known issues as advisories; the default release's v1beta1 graph is held by dgd-crd.spec.ts.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import YAML from "yaml";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import { crdProblems } from "./crd-validate";
import { admissionProblems, V1beta1Graph } from "../../components/inference/dgd-v1beta1";
import type { FieldNode } from "./extract/dgd-crd";
import { loadFacts } from "./facts";

type Crd = { group: string; kind: string; version: string; schema: FieldNode };
const crd = loadFacts<Crd>("dgd-crd");
const beta = loadFacts<Crd>("dgd-crd-v1beta1");

describe("contract: release seed renders today's system", function () {
  this.timeout(300000);
  for (const backend of ["vllm", "trtllm"]) {
    // Ledger row 1.2.0:dgd-dgdr-promoted-to-v1beta1-as-the-served-api (#9235, #9262).
    // Ledger row 1.5.0:crd-storage-version-promoted-from-v1alpha1-to-v1beta1-with (#11904, #12375, #12506).
    // Ledger row 1.5.0:v1alpha1-admission-webhook-endpoints-removed-and-dgd-and-dcd (#11177).
    it(`p5en-1gpu, ${backend}, dynamo-1.6: v1beta1 graph valid against the CRD and admission rule, chart 1.6.2`, async () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "release-16-"));
      try {
        const log: string[] = [];
        const code = await runCli(["p5en-1gpu", "--out", tmp, "--set", `inference.backend=${backend}`], {
          ...defaultDeps(),
          stdout: (l) => log.push(l),
          stderr: (l) => log.push(l),
        });
        assert.equal(code, 0, log.join("\n"));
        const dir = path.join(tmp, "p5en-1gpu");
        const graphFile = fs.readdirSync(path.join(dir, "manifests")).find((f) => f.includes("dynamographdeployment"))!;
        const graph = YAML.parse(fs.readFileSync(path.join(dir, "manifests", graphFile), "utf8"));
        assert.equal(graph.apiVersion, "nvidia.com/v1beta1");
        assert.deepEqual(crdProblems(beta.facts, graph), []);
        assert.deepEqual(admissionProblems(graph as V1beta1Graph), []);
        assert.match(
          fs.readFileSync(path.join(dir, "helm", "dynamo-platform.values.yaml"), "utf8"),
          /version: 1\.6\.2 /,
        );
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
    it(`p5en-1gpu, ${backend}: v1alpha1 graph valid against the seed's CRD, chart 1.0.1, exit 0`, async () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "release-seed-"));
      try {
        const log: string[] = [];
        const code = await runCli(
          ["p5en-1gpu", "--out", tmp, "--set", "release=seed", "--set", `inference.backend=${backend}`],
          { ...defaultDeps(), stdout: (l) => log.push(l), stderr: (l) => log.push(l) },
        );
        assert.equal(code, 0, log.join("\n"));
        const dir = path.join(tmp, "p5en-1gpu");
        const graphFile = fs.readdirSync(path.join(dir, "manifests")).find((f) => f.includes("dynamographdeployment"))!;
        const graph = YAML.parse(fs.readFileSync(path.join(dir, "manifests", graphFile), "utf8"));
        assert.equal(graph.apiVersion, "nvidia.com/v1alpha1");
        assert.deepEqual(crdProblems(crd.facts, graph), []);
        const chart = fs.readFileSync(path.join(dir, "helm", "dynamo-platform.values.yaml"), "utf8");
        assert.match(chart, /version: 1\.0\.1 /);
        assert.match(log.join("\n"), /\[advisory\] release-known-issues: release "seed"/);
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
});
