/**
 * The prefetch script's metadata-only mode (`METADATA_ONLY=1`), which fills the Frontend's copy of the files the
 * workers' model card names (components/inference/frontend-model.ts): the config files only, never a weight,
 * verified and marked like a full download. Against the fake hub on 127.0.0.1; needs python3 (skips with the reason).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { completionMarker, modelCacheDir } from "../../components/inference/cache";
import { Fake, fakeHf, FILES, MODEL } from "../helpers/fake-hf";
import { needPython, run } from "../helpers/prefetch-run";

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

  it("downloads config.json only, at the path the workers publish, and marks it complete", async () => {
    const r = await run(root, hf, { METADATA_ONLY: "1" }).done;
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(hf.gets, { "config.json": 1 });
    const dir = modelCacheDir(root, MODEL);
    assert.ok(fs.readFileSync(path.join(dir, "config.json")).equals(FILES["config.json"]));
    const marker = JSON.parse(fs.readFileSync(completionMarker(root, MODEL), "utf8"));
    assert.deepEqual(Object.keys(marker.files ?? marker.sizes), ["config.json"]);
    assert.deepEqual(fs.readdirSync(dir), ["config.json"], "no weight on disk");
  });

  it("without it, the weights come too (the switch is what leaves them out)", async () => {
    const r = await run(root, hf, { METADATA_ONLY: "0" }).done;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(hf.gets["model-00001-of-00002.safetensors"] === 1);
  });
});
