/**
 * `topology.svg` stays legible where it used to break: 32 EFA rails per node (p5, p5e) and 4-8 GPU nodes. No
 * two text boxes overlap, each box estimated from the SVG geometry alone: font size (inherited down the tree)
 * x character count x 0.6 wide, 0.8 x size above the baseline and 0.2 below, placed by `text-anchor`. Pure:
 * synthetic plans through `topologySvg`, no render.
 */
import { strict as assert } from "assert";
import type { Plan } from "../../tools/render/plan/plan";
import { topologySvg } from "../../tools/render/pictures/topology";
import { planWorker as worker } from "../helpers/plan-worker";
import { parseXml, XmlElement } from "../helpers/xml";

/** A text element's estimated box. */
export interface TextBox {
  readonly text: string;
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
}

/** Every `<text>` of an SVG with its estimated box (font size inherited from the nearest ancestor that sets it). */
export function textBoxes(svg: string): TextBox[] {
  const out: TextBox[] = [];
  const walk = (e: XmlElement, size: number) => {
    const own = e.attrs["font-size"] !== undefined ? Number(e.attrs["font-size"]) : size;
    if (e.name === "text") {
      const w = e.text.length * own * 0.6;
      const x = Number(e.attrs.x);
      const anchor = e.attrs["text-anchor"] ?? "start";
      const x0 = anchor === "middle" ? x - w / 2 : anchor === "end" ? x - w : x;
      const y = Number(e.attrs.y);
      out.push({ text: e.text, x0, x1: x0 + w, y0: y - 0.8 * own, y1: y + 0.2 * own });
    }
    for (const c of e.children) walk(c, own);
  };
  walk(parseXml(svg), 16);
  return out;
}

/** Pairs of text boxes that overlap (touching edges do not count). */
export function overlaps(boxes: readonly TextBox[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i];
      const b = boxes[j];
      if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1) out.push(`"${a.text}" overlaps "${b.text}"`);
    }
  return out;
}

/** A plan of `nodes` x `type` with `perRole` one-GPU workers per role kept apart (`idle` nodes left over). */
function plan(type: string, nodes: number, gpusPerNode: number, efaPerNode: number, perRole: number): Plan {
  const efa = efaPerNode / gpusPerNode;
  const workers = [
    worker("frontend", 1, 0, 0),
    worker("prefill", perRole, 1, efa, ["DecodeWorker"]),
    worker("decode", perRole, 1, efa, ["PrefillWorker"]),
  ];
  return {
    stack: "legibility",
    region: "us-east-2",
    gpuPools: [{ name: "gpu", instanceType: type, nodes, gpusPerNode, efaPerNode, smArch: "sm_90" }],
    workers,
    gpus: { requested: 2 * perRole, provisioned: nodes * gpusPerNode },
    efaRails: { used: 2 * perRole * efa, provisioned: nodes * efaPerNode },
    kvTransport: { transport: "LIBFABRIC", rdma: true },
    fit: [
      {
        role: "prefill",
        kvLinkGbps: 400,
        kvTransferMs: 10.74,
        kvTransferMs1k: 2.69,
        maxModelLen: 4096,
        kvPromptTokens: 1024,
        kvTransferMsAtPrompt: 2.69,
      },
    ],
    model: { id: "meta-llama/Llama-3.1-70B-Instruct" },
    runtime: {
      backend: "trtllm",
      release: "dynamo-1.6",
      dynamo: "1.6.2",
      engine: { name: "TensorRT-LLM", version: "1.3.0rc29" },
      nixl: "1.3.1",
    },
  } as unknown as Plan;
}

describe("render: topology.svg legibility (no two text boxes overlap)", () => {
  const cases: [string, Plan][] = [
    ["p5.48xlarge (32 rails), 2 nodes, 8 + 8", plan("p5.48xlarge", 2, 8, 32, 8)],
    ["p5e.48xlarge (32 rails), 4 nodes, 16 + 16", plan("p5e.48xlarge", 4, 8, 32, 16)],
    ["p5.48xlarge (32 rails), 8 nodes, 24 + 24 (2 idle)", plan("p5.48xlarge", 8, 8, 32, 24)],
    ["p5en.48xlarge (16 rails), 4 nodes, 8 + 8 (2 idle)", plan("p5en.48xlarge", 4, 8, 16, 8)],
    ["p5en.48xlarge (16 rails), 8 nodes, 32 + 32", plan("p5en.48xlarge", 8, 8, 16, 32)],
  ];
  for (const [title, p] of cases)
    it(title, () => {
      const svg = topologySvg(p);
      const boxes = textBoxes(svg);
      assert.ok(boxes.length > 50, `only ${boxes.length} text elements`);
      assert.deepEqual(overlaps(boxes), []);
      const root = parseXml(svg).attrs;
      const outside = boxes.filter(
        (t) => t.x0 < 0 || t.x1 > Number(root.width) || t.y0 < 0 || t.y1 > Number(root.height),
      );
      assert.deepEqual(
        outside.map((t) => t.text),
        [],
        "text outside the picture",
      );
    });

  it("the check finds overlapping labels, passes separate ones, and inherits the font size", () => {
    const two = '<svg font-size="11"><text x="0" y="10">efa10</text><text x="10" y="12">efa11</text></svg>';
    assert.deepEqual(overlaps(textBoxes(two)), ['"efa10" overlaps "efa11"']);
    const apart = '<svg font-size="11"><text x="0" y="10">efa10</text><text x="0" y="30">efa11</text></svg>';
    assert.deepEqual(overlaps(textBoxes(apart)), []);
    const inherited = '<svg><g font-size="9"><text x="0" y="10" text-anchor="middle">abcd</text></g></svg>';
    const b = textBoxes(inherited)[0];
    assert.deepEqual(
      [b.x0, b.x1, b.y0, b.y1].map((v) => Math.round(v * 10) / 10),
      [-10.8, 10.8, 2.8, 11.8],
    );
  });
});
