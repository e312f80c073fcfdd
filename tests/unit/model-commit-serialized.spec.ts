/**
 * The ModelCommit provider as the Pulumi CLI runs it (issue 31 point 8): serialized with Pulumi's own closure
 * serializer, loaded by a plain Node.js process (as the CLI's dynamic provider host does), and asked to resolve
 * `main` against the fake hub on 127.0.0.1. Slow (the serializer walks the closure through the inspector): in
 * `npm run test:slow`.
 */
import { strict as assert } from "assert";
import { createSerialized } from "../helpers/serialized-provider";
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
    assert.equal((await createSerialized(modelCommitProvider, inputs())).commit, SHA);
  });
});
