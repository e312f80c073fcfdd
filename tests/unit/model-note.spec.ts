/**
 * A model the catalog does not know renders (any Hugging Face id may be served), so a typo in its id gives no
 * problem; the render's console note says the fit, the download time and the estimate are unknown and names the
 * catalog id two edits away, if any (`loadStack`, what the render runs before the program; no render here).
 */
import { strict as assert } from "assert";
import * as path from "path";
import { parseArgs } from "../../tools/render/cli/cli";
import { loadStack } from "../../tools/render/cli/command";

const ROOT = path.join(__dirname, "..", "..");
const noteOf = (...set: string[]) =>
  loadStack(parseArgs(["p5en-8gpu", ...set.flatMap((s) => ["--set", s]), "--out", "unused"]), { root: ROOT, cwd: ROOT })
    .note?.split("\n")
    .find((l) => l.includes("inference.model"));

describe("render: a model outside the catalog", () => {
  it("a typo in a catalog id: a note naming the id it was probably meant to be", () => {
    const note = noteOf("inference.model=meta-llama/Llama-3.1-8B-Instruc");
    assert.ok(note, "a note");
    assert.match(
      note,
      /^note: dynamo-efa:inference\.model "meta-llama\/Llama-3\.1-8B-Instruc" is not in the model catalog \(did you mean "meta-llama\/Llama-3\.1-8B-Instruct"\?\)\. Rendered as given: /,
    );
    assert.match(note, /state the model's shape in inference\.modelShape/);
  });

  it("another model: the note, with no catalog id offered for a merely similar name", () => {
    const note = noteOf("inference.model=mistralai/Mistral-7B-Instruct-v0.3");
    assert.ok(note, "a note");
    assert.doesNotMatch(note, /did you mean/);
  });

  it("no note for a catalog model, or for a stated shape", () => {
    assert.equal(noteOf(), undefined);
    assert.equal(
      noteOf(
        "inference.model=mistralai/Mistral-7B-Instruct-v0.3",
        "inference.modelShape={paramsB: 7.2, weightDtype: bf16, layers: 32, attentionHeads: 32, kvHeads: 8, headDim: 128, maxContext: 32768}",
      ),
      undefined,
    );
  });
});
