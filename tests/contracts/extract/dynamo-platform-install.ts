/**
 * Extracts how the dynamo-platform chart installs the Dynamo CRDs: the operator subchart's `upgradeCRD`
 * default (a pre-install/pre-upgrade hook Job applies the CRDs) and whether the DynamoGraphDeployment CRD
 * ships in the chart, plus whether a separate `dynamo-crds` chart still exists in the tree.
 * Usage: npx tsx tests/contracts/extract/dynamo-platform-install.ts <ai-dynamo/dynamo checkout> <commit> > tests/contracts/facts/dynamo-platform-install.json
 */
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";

export const OPERATOR_VALUES = "deploy/helm/charts/platform/components/operator/values.yaml";
export const DGD_CRD = "deploy/helm/charts/platform/components/operator/crds/nvidia.com_dynamographdeployments.yaml";
export const CRDS_CHART = "deploy/helm/charts/crds";
/** Where NVIDIA publishes the chart (docs.nvidia.com/dynamo installation guide; not in the repository). */
export const TARBALL_URL = "https://helm.ngc.nvidia.com/nvidia/ai-dynamo/charts/dynamo-platform-{version}.tgz";

export function extract(checkout: string): Record<string, unknown> {
  const values = YAML.parse(fs.readFileSync(path.join(checkout, OPERATOR_VALUES), "utf8"));
  return {
    chart: "dynamo-platform",
    upgradeCRD: values.upgradeCRD === true,
    dgdCrdInChart: fs.existsSync(path.join(checkout, DGD_CRD)) ? DGD_CRD : null,
    crdsChartInTree: fs.existsSync(path.join(checkout, CRDS_CHART)),
    tarballUrl: TARBALL_URL,
  };
}

if (require.main === module) {
  const [checkout, commit] = process.argv.slice(2);
  if (!checkout || !commit) throw new Error("usage: dynamo-platform-install.ts <checkout> <commit>");
  const provenance = {
    repository: "ai-dynamo/dynamo",
    ref: "main",
    commit,
    paths: [OPERATOR_VALUES, DGD_CRD, CRDS_CHART],
    extracted: new Date().toISOString().slice(0, 10),
    extractor: "tests/contracts/extract/dynamo-platform-install.ts",
  };
  process.stdout.write(`${JSON.stringify({ provenance, facts: extract(checkout) }, null, 2)}\n`);
}
