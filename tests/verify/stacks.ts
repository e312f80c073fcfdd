/**
 * Stack files for verify tests: a project root (the repository's `Pulumi.yaml`) whose stacks are
 * complete, valid configs (the program's schema checks the whole file, as `render` does), differing
 * only in the `inference` block and top-level extras the test names.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const REPO = path.resolve(__dirname, "..", "..");

/** A valid stack file: the repo's 1-GPU cluster and image, with `inference` (YAML lines, 4-space indented) and `extra` config lines. */
export function stackText(inference: string, extra = "", namespace = "dynamo-efa:"): string {
  return (
    [
      "config:",
      "  aws:region: us-east-2",
      `  ${namespace}cluster:`,
      "    availabilityZones: [us-east-2a, us-east-2b]",
      "    publicAccessCidrs: [203.0.113.0/24]",
      "    gpuPools: { gpu: { instanceType: p5en.48xlarge, nodes: 1, availabilityZone: us-east-2b } }",
      `  ${namespace}image: { cudaArchs: auto }`,
      `  ${namespace}inference:`,
      inference.replace(/\n$/, ""),
      extra.replace(/\n$/, ""),
    ]
      .filter((l) => l !== "")
      .join("\n") + "\n"
  );
}

/** A temporary project root holding `Pulumi.yaml` and `stacks/Pulumi.<name>.yaml` for each entry. */
export function projectWith(stacks: Readonly<Record<string, string>>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "verify-stack-"));
  fs.copyFileSync(path.join(REPO, "Pulumi.yaml"), path.join(root, "Pulumi.yaml"));
  fs.mkdirSync(path.join(root, "stacks"));
  for (const [name, text] of Object.entries(stacks))
    fs.writeFileSync(path.join(root, "stacks", `Pulumi.${name}.yaml`), text);
  return root;
}
