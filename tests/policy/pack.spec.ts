import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";

const PACK = path.join(__dirname, "..", "..", "policy");

describe("policy pack: CrossGuard entry point", function () {
  this.timeout(90_000);

  it("PulumiPolicy.yaml and package.json describe a nodejs pack with a version", () => {
    assert.match(fs.readFileSync(path.join(PACK, "PulumiPolicy.yaml"), "utf8"), /^runtime: nodejs$/m);
    const pkg = JSON.parse(fs.readFileSync(path.join(PACK, "package.json"), "utf8"));
    assert.match(pkg.version, /^\d+\.\d+\.\d+$/);
    assert.equal(pkg.dependencies["@pulumi/pulumi"], "3.248.0");
    assert.ok(pkg.dependencies["@pulumi/policy"]);
  });

  it("Pulumi's own policy-pack runner loads index.ts (ts-node, type-checked) and starts the policy server", async () => {
    // What `pulumi preview --policy-pack policy` runs: `run-policy-pack <engine-address> <pack dir>`.
    const runner = require.resolve("@pulumi/pulumi/cmd/run-policy-pack");
    const child = spawn(process.execPath, [runner, "127.0.0.1:0", "."], { cwd: PACK, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    try {
      const port = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d) => resolve(String(d).trim()));
        child.on("exit", (code) => reject(new Error(`pack exited with ${code} before printing a port:\n${stderr}`)));
      });
      assert.match(port, /^\d+$/);
    } finally {
      child.kill();
    }
  });
});
