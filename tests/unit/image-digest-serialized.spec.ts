/**
 * The ImageDigest provider as the Pulumi CLI runs it: serialized with Pulumi's own closure serializer, loaded by a
 * plain Node.js process (as the CLI's dynamic provider host does), and asked to resolve a tag against a fake
 * registry on 127.0.0.1. Slow (the serializer walks the closure through the inspector): in `npm run test:slow`.
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as http from "http";
import type { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { imageDigestProvider } from "../../components/image/image-digest";

const DIGEST = `sha256:${"cd".repeat(32)}`;

describe("ImageDigest: the serialized provider resolves in a plain Node.js process", function () {
  this.timeout(120000);
  let server: http.Server;
  let endpoint: string;
  beforeEach(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { "Docker-Content-Digest": DIGEST });
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => new Promise<void>((r) => server.close(() => r())));

  it("its serialized form resolves the tag to the registry's digest", async () => {
    const sf = await pulumi.runtime.serializeFunction(() => imageDigestProvider);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "image-digest-"));
    try {
      fs.writeFileSync(path.join(dir, "provider.js"), sf.text);
      const inputs = { repository: "nvcr.io/nvidia/ai-dynamo/vllm-runtime", tag: "1.6.2-efa", endpoint };
      const code = `require(${JSON.stringify(path.join(dir, "provider.js"))}).handler().create(${JSON.stringify(inputs)}).then((r) => console.log(JSON.stringify(r.outs)), (e) => { console.error(e.message); process.exit(1); })`;
      const child = spawn(process.execPath, ["-e", code], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", NODE_PATH: path.join(__dirname, "..", "..", "node_modules") },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d) => (out += String(d)));
      child.stderr.on("data", (d) => (out += String(d)));
      const status = await new Promise((resolve) => child.on("close", resolve));
      assert.equal(status, 0, out);
      assert.equal(JSON.parse(out).digest, DIGEST);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
