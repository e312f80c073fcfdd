/**
 * The prefetch script's metadata-only mode (`METADATA_ONLY=1`), which fills the Frontend's copy of the files the
 * workers' model card names (components/inference/frontend-model.ts): the card's files only (an allow-list), never a
 * weight or a stray file, verified and marked under a key of its own, so a full run never takes it for complete. Against the fake hub on 127.0.0.1; needs python3 (skips with the reason).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { completionMarker, modelCacheDir } from "../../components/inference/cache";
import { Fake, fakeHf, FILES, MODEL } from "../helpers/fake-hf";
import { assertComplete, needPython, run } from "../helpers/prefetch-run";

describe("prefetch: METADATA_ONLY fetches the model card's files and no weights (fake HF on 127.0.0.1)", function () {
  this.timeout(60000);
  let hf: Fake;
  let root: string;
  before(function () {
    needPython(this);
  });
  beforeEach(async () => {
    hf = await fakeHf();
    root = fs.mkdtempSync(path.join(os.tmpdir(), "prefetch-meta-"));
  });
  afterEach(async () => {
    await hf?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it("downloads config.json only, at the path the workers publish, and marks it complete under its own key", async () => {
    const r = await run(root, hf, { METADATA_ONLY: "1" }).done;
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(hf.gets, { "config.json": 1 });
    const dir = modelCacheDir(root, MODEL);
    assert.ok(fs.readFileSync(path.join(dir, "config.json")).equals(FILES["config.json"]));
    const marker = JSON.parse(fs.readFileSync(completionMarker(root, MODEL, "main", true), "utf8"));
    assert.deepEqual(Object.keys(marker.files), ["config.json"]);
    assert.equal(marker.metadata_only, true);
    assert.equal(fs.existsSync(completionMarker(root, MODEL)), false, "no full-download marker");
    assert.deepEqual(fs.readdirSync(dir), ["config.json"], "no weight on disk");
  });

  it("fetches every file a model card names and nothing else: stray top-level .ot, .npz and .nemo files stay on the hub (audit M1)", async () => {
    const card = {
      "tokenizer.json": Buffer.from('{"version": "1.0"}'),
      "tokenizer_config.json": Buffer.from('{"chat_template": "{{ messages }}"}'),
      "generation_config.json": Buffer.from('{"bos_token_id": 1}'),
      "chat_template.jinja": Buffer.from("{{ messages }}"),
    };
    const stray = {
      "rust_model.ot": Buffer.alloc(4 << 20, 3),
      "weights.npz": Buffer.alloc(1 << 20, 4),
      "model.nemo": Buffer.alloc(1 << 20, 5),
      "special_tokens_map.json": Buffer.from("{}"),
      "README.md": Buffer.from("# model"),
    };
    Object.assign(hf.files, card, stray);
    const r = await run(root, hf, { METADATA_ONLY: "1" }).done;
    assert.equal(r.code, 0, r.stderr);
    const cardFiles = [
      "chat_template.jinja",
      "config.json",
      "generation_config.json",
      "tokenizer.json",
      "tokenizer_config.json",
    ];
    assert.deepEqual(Object.keys(hf.gets).sort(), cardFiles);
    assert.deepEqual(fs.readdirSync(modelCacheDir(root, MODEL)).sort(), cardFiles);
  });

  it("a full run after a metadata-only run on the same cache downloads the weights, never 'already complete' (audit M2)", async () => {
    const meta = await run(root, hf, { METADATA_ONLY: "1" }).done;
    assert.equal(meta.code, 0, meta.stderr);
    const full = await run(root, hf, { METADATA_ONLY: "0" }).done;
    assert.equal(full.code, 0, full.stderr);
    assert.doesNotMatch(full.stderr, /completed by another pod|already complete/);
    assert.equal(hf.gets["model-00001-of-00002.safetensors"], 1);
    assertComplete(root);
    // And a metadata-only run after a full one trusts the full download (it holds every card file): no request.
    const before = { ...hf.gets };
    const again = await run(root, hf, { METADATA_ONLY: "1" }).done;
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(hf.gets, before);
  });

  it("without it, the weights come too (the switch is what leaves them out)", async () => {
    const r = await run(root, hf, { METADATA_ONLY: "0" }).done;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(hf.gets["model-00001-of-00002.safetensors"] === 1);
  });
});
