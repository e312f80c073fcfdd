/**
 * `pulumi up` does not run our code through tsx: @pulumi/pulumi registers its own ts-node (the
 * vendored 7.0.1 unless the project installs one) with the project's TypeScript, emitting CommonJS.
 * Code that works under tsx can still fail there (a local named `exports` shadowed the module object
 * and crashed the program at load), so the entry is loaded once that way, in a child process.
 */
import { strict as assert } from "assert";
import { execFileSync } from "child_process";
import * as path from "path";

const LOADER = path.join(__dirname, "fixtures", "pulumi-loader.cjs");

describe("index.ts under Pulumi's own TypeScript loader", function () {
  this.timeout(60000);

  it("loads with @pulumi/pulumi's ts-node and the project's TypeScript, and exports the promised outputs", async () => {
    let stdout: string;
    try {
      stdout = execFileSync(process.execPath, [LOADER], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      assert.fail(`the program does not load the way \`pulumi up\` loads it:\n${err.stderr ?? err.message}`);
    }
    const { loader, outputs } = JSON.parse(stdout.trim().split("\n").pop()!);
    const { version } = await import("typescript");
    assert.equal(loader.typescript, version, "Pulumi must compile with the project's TypeScript");
    assert.deepEqual(Object.keys(outputs).sort(), [
      "clusterName",
      "frontendLoadBalancerUrl",
      "frontendUrl",
      "imageRef",
      "kubeconfig",
      "plan",
      "servedModelName",
    ]);
    assert.equal(outputs.kubeconfig, "[secret]");
    assert.deepEqual(
      [outputs.plan.gpus, outputs.plan.efaRails],
      [
        { requested: 16, provisioned: 16 },
        { used: 32, provisioned: 32 },
      ],
    );
  });
});
