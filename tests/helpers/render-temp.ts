/** Renders a stack with the render CLI into a temporary directory, hands the stack's output directory to `read`, and removes it. */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";

export async function withRenderedStack<T>(stack: string, read: (dir: string) => T): Promise<T> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-"));
  try {
    const code = await runCli([stack, "--out", tmp], {
      ...defaultDeps(),
      stdout: () => undefined,
      stderr: () => undefined,
    });
    assert.equal(code, 0, `render ${stack} exits 0`);
    return read(path.join(tmp, stack));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The user data (decoded) of the stack's single GPU launch template, from its resources.json. */
export function gpuLaunchTemplateUserData(dir: string): string {
  const resources: { type: string; name: string; inputs: { userData: string } }[] = JSON.parse(
    fs.readFileSync(path.join(dir, "resources.json"), "utf8"),
  );
  const lts = resources.filter((r) => r.type === "aws:ec2/launchTemplate:LaunchTemplate" && r.name.includes("gpu-lt"));
  assert.equal(lts.length, 1);
  return Buffer.from(lts[0].inputs.userData, "base64").toString("utf8");
}
