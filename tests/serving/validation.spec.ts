/**
 * docs/SERVING.md's validation section is the serving model run on the calibration and validation setups
 * (serving/validation.ts), and serving/bands.json (the ranges the plan prints)
 * is the validation set's error bands; both written by `npx tsx serving/validation.ts`. The validation set holds the model
 * to what the issue asks of it (the bar: 22 of 28 within +-30%, mean error at most 25%), and the calibration rows
 * reproduce the measurements they were fitted on.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import { allRows, BANDS_JSON, bandsJson, servingMdWith, SERVING_MD, summary } from "../../serving/validation";

const rows = allRows();

describe("serving model validation (docs/SERVING.md#validation)", () => {
  it("the docs table is the model's output on the calibration and validation setups (refresh: npx tsx serving/validation.ts)", () => {
    const doc = fs.readFileSync(SERVING_MD, "utf8");
    assert.equal(doc, servingMdWith(doc));
  });

  it("the plan's error bands (serving/bands.json) are the validation set's (refresh: npx tsx serving/validation.ts)", () =>
    assert.equal(fs.readFileSync(BANDS_JSON, "utf8"), bandsJson(rows)));

  it("calibration and validation are apart: no validation source is a calibration source", () => {
    const cal = new Set(rows.filter((r) => r.set === "calibration").map((r) => r.source));
    for (const r of rows.filter((x) => x.set !== "calibration")) assert.ok(!cal.has(r.source), r.source);
  });

  it("the calibration rows reproduce the measured decode steps within 6%", () => {
    const s = summary(rows.filter((r) => r.set === "calibration"));
    assert.ok(s.points >= 10 && s.noEstimate === 0 && s.meanError < 0.06, JSON.stringify(s));
  });

  it("the validation set: the issue's bar (22 of 28 within +-30%, at most 3 of 28 without an estimate, mean error <= 25%)", () => {
    const s = summary(rows.filter((r) => r.set === "validation"));
    assert.ok(s.points >= 30, `${s.points} points`);
    assert.ok(s.within30 >= (22 / 28) * s.points, JSON.stringify(s));
    assert.ok(s.noEstimate <= (3 / 28) * s.points, JSON.stringify(s));
    assert.ok(s.meanError <= 0.25, JSON.stringify(s));
  });

  it("dense TP1-2 offline throughput (TensorRT-LLM tables) within +-30% at every point; the FP8 70B no longer 12-39% optimistic", () => {
    const dense = rows.filter((r) => r.source === "TensorRT-LLM perf overview" && r.regime === "dense TP1-2");
    for (const r of dense)
      assert.ok(
        Math.abs(r.predicted! / r.published - 1) <= 0.3,
        `${r.setup} ${r.label}: ${r.predicted} vs ${r.published}`,
      );
    const fp8x70 = dense.filter((r) => r.setup.startsWith("Llama 3.3 70B"));
    assert.ok(
      fp8x70.every((r) => r.predicted! / r.published < 1.2),
      "70B FP8 within 20% optimistic",
    );
  });

  it("Dynamo p5: disaggregation's gain is right in direction at ISL 4000 and 8000", () => {
    for (const isl of ["4000", "8000"]) {
      const g = rows.find((x) => x.label === `disagg / agg throughput, ISL ${isl}`)!;
      assert.ok(g.published > 1 && g.predicted! > 1, `${isl}: ${g.predicted}`);
    }
  });
});
