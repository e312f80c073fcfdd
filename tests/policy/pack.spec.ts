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

  it("index.ts assembles the pack and starts the policy server (prints its port), as `--policy-pack policy` runs it", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "index.ts"], { cwd: PACK, stdio: ["ignore", "pipe", "pipe"] });
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
