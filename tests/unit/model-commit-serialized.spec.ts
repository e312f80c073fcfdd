/**
 * The ModelCommit provider as the Pulumi CLI runs it (issue 31 point 8): serialized with Pulumi's own closure
 * serializer, loaded by a plain Node.js process (as the CLI's dynamic provider host does), and asked to resolve
 * `main` against the fake hub on 127.0.0.1. Slow (the serializer walks the closure through the inspector): in
 * `npm run test:slow`.
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { modelCommitProvider } from "../../components/inference/model-commit";
import { Fake, fakeHf, MODEL, SHA } from "../helpers/fake-hf";

describe("ModelCommit: the serialized provider resolves in a plain Node.js process", function () {
  this.timeout(120000);
  let hf: Fake;
  beforeEach(async () => {
    hf = await fakeHf();
  });
  afterEach(() => hf.close());
  const inputs = () => ({ endpoint: hf.url, model: MODEL, revision: "main", token: hf.token });

  it("its serialized form (what the Pulumi CLI's provider host loads) resolves in a plain Node.js process", async () => {
    const sf = await pulumi.runtime.serializeFunction(() => modelCommitProvider);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "model-commit-"));
    try {
      fs.writeFileSync(path.join(dir, "provider.js"), sf.text);
      const code = `require(${JSON.stringify(path.join(dir, "provider.js"))}).handler().create(${JSON.stringify(inputs())}).then((r) => console.log(JSON.stringify(r.outs)), (e) => { console.error(e.message); process.exit(1); })`;
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
      assert.equal(JSON.parse(out).commit, SHA);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
