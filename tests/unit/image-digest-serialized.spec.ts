/**
 * The ImageDigest provider as the Pulumi CLI runs it: serialized with Pulumi's own closure serializer, loaded by a
 * plain Node.js process (as the CLI's dynamic provider host does), and asked to resolve a tag against a fake
 * registry on 127.0.0.1. Slow (the serializer walks the closure through the inspector): in `npm run test:slow`.
 */
import { strict as assert } from "assert";
import { createSerialized } from "../helpers/serialized-provider";
import * as http from "http";
import type { AddressInfo } from "net";
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
    const inputs = { repository: "nvcr.io/nvidia/ai-dynamo/vllm-runtime", tag: "1.6.2-efa", endpoint };
    assert.equal((await createSerialized(imageDigestProvider, inputs)).digest, DIGEST);
  });
});
