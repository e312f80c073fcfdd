/**
 * Runs a dynamic provider the way the Pulumi CLI's provider host does: serialized by the SDK's own
 * `serializeFunction` and loaded in a plain Node.js process, where its `create` is called with `inputs`. Returns its
 * outs; fails with the process's output when the create (or the load) fails.
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

export async function createSerialized(provider: object, inputs: object): Promise<Record<string, unknown>> {
  const sf = await pulumi.runtime.serializeFunction(() => provider);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "serialized-provider-"));
  try {
    fs.writeFileSync(path.join(dir, "provider.js"), sf.text);
    const code = `require(${JSON.stringify(path.join(dir, "provider.js"))}).handler().create(${JSON.stringify(inputs)}).then((r) => console.log(JSON.stringify(r.outs)), (e) => { console.error(e.message); process.exit(1); })`;
    const child = spawn(process.execPath, ["-e", code], {
      cwd: dir,
      // The provider host runs in the project, beside its node_modules; this process finds them by NODE_PATH.
      env: { PATH: process.env.PATH ?? "", NODE_PATH: path.join(__dirname, "..", "..", "node_modules") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += String(d)));
    child.stderr.on("data", (d) => (out += String(d)));
    const status = await new Promise((resolve) => child.on("close", resolve));
    assert.equal(status, 0, out);
    return JSON.parse(out) as Record<string, unknown>;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
