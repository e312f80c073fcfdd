/**
 * `topology.svg`: the plan as a picture. Each GPU node is a box with one cell per GPU and per EFA
 * rail; each worker replica is drawn on the GPUs and rails it is expected to get (role colours),
 * idle GPUs and unused rails are grey and dashed; the Frontend sits outside the GPU nodes; the KV
 * path from prefill to decode is labelled with its transport and the estimated transfer time of the workload's
 * prompt (plan `fit`); under the title, what runs: the model, the engine and its version, the Dynamo release and
 * NIXL (plan `runtime`), so a vLLM and a TensorRT-LLM picture differ. Pure: computed from the plan only
 * (`../plan/layout.ts` places workers).
 *
 * Every cell carries `data-*` attributes (node, GPU or rail index, worker) so a test can read the
 * picture back and check it against `plan.json`.
 */
import { pairingLegend } from "../plan/pairing";
import type { Plan } from "../plan/plan";
import { Layout, LaidOutNode, layoutOf, PlacedWorker } from "../plan/layout";
import { el, esc, svgDocument, text, textWidth } from "./svg";
import { idleNodesLine, placementOf } from "../plan/placement";

/** Fill colour per role; anything else gets OTHER. */
export const ROLE_COLOURS: Readonly<Record<string, string>> = {
  prefill: "#3b6fb6",
  decode: "#2f8f5b",
  frontend: "#b7791f",
};
const OTHER = "#7a5ea8";
const IDLE = { fill: "#f4f4f4", stroke: "#9a9a9a", "stroke-dasharray": "4 3" } as const;

const M = 20;
const CELL = 84;
const GPU_H = 46;
const RAIL_H = 22;
/** Font size of a rail cell's label, in px. */
const RAIL_FONT = 9;
const NODE_HEAD = 24;
const NODE_GAP = 56;
const NODE_H = NODE_HEAD + GPU_H + 8 + RAIL_H + 12;

const colour = (role: string) => ROLE_COLOURS[role] ?? OTHER;
const short = (w: PlacedWorker) => `${w.role} ${w.replica}`;
const workerId = (w: PlacedWorker) => `${w.service}/${w.replica}`;

function gpuCell(node: LaidOutNode, g: number, x: number, y: number): string {
  const w = node.workers.find((p) => p.gpus.includes(g));
  const box = {
    class: "gpu",
    "data-node": `${node.pool}-${node.index}`,
    "data-gpu": g,
    x,
    y,
    width: CELL - 6,
    height: GPU_H,
    rx: 4,
  };
  const cx = x + (CELL - 6) / 2;
  if (!w)
    return el("g", {}, [
      el("rect", { ...box, "data-state": "idle", ...IDLE }),
      text(cx, y + 18, `GPU ${g}`, { "text-anchor": "middle", fill: "#666" }),
      text(cx, y + 34, "idle", { "text-anchor": "middle", fill: "#888", "font-style": "italic" }),
    ]);
  const data = { "data-state": "used", "data-worker": workerId(w), "data-role": w.role };
  return el("g", {}, [
    el("rect", { ...box, ...data, fill: colour(w.role), stroke: "#222" }),
    text(cx, y + 18, `GPU ${g}`, { "text-anchor": "middle", fill: "#fff" }),
    text(cx, y + 34, short(w), { "text-anchor": "middle", fill: "#fff", "font-weight": "bold" }),
  ]);
}

function railCell(node: LaidOutNode, r: number, x: number, y: number, width: number): string {
  const w = node.workers.find((p) => p.rails.includes(r));
  const box = {
    class: "rail",
    "data-node": `${node.pool}-${node.index}`,
    "data-rail": r,
    x,
    y,
    width,
    height: RAIL_H,
    rx: 3,
  };
  // 32 rails on a p5/p5e leave ~18 px per cell: "efa31" at 9 px does not fit, so narrow cells show the number only.
  const long = `efa${r}`;
  const label = text(x + width / 2, y + 15, textWidth(long, RAIL_FONT) <= width ? long : String(r), {
    "text-anchor": "middle",
    "font-size": RAIL_FONT,
    fill: w ? "#fff" : "#888",
  });
  if (!w) return el("g", {}, [el("rect", { ...box, "data-state": "idle", ...IDLE }), label]);
  return el("g", {}, [
    el("rect", {
      ...box,
      "data-state": "used",
      "data-worker": workerId(w),
      "data-role": w.role,
      fill: colour(w.role),
      "fill-opacity": 0.75,
      stroke: "#222",
    }),
    label,
  ]);
}

function nodeBox(node: LaidOutNode, x: number, y: number): string {
  const width = node.gpuCount * CELL + 12;
  const railW = node.railCount > 0 ? (node.gpuCount * CELL) / node.railCount : 0;
  const used = node.workers.reduce((s, w) => s + w.gpus.length, 0);
  const rails = node.workers.reduce((s, w) => s + w.rails.length, 0);
  const head = `${node.pool}-${node.index}: ${node.instanceType}, ${used}/${node.gpuCount} GPUs, ${rails}/${node.railCount} EFA rails in use`;
  return el(
    "g",
    {
      class: "node",
      "data-node": `${node.pool}-${node.index}`,
      "data-pool": node.pool,
      "data-instance-type": node.instanceType,
    },
    [
      el("rect", { x, y, width, height: NODE_H, rx: 8, fill: "#fff", stroke: "#333", "stroke-width": 1.5 }),
      text(x + 8, y + 16, head, { "font-weight": "bold" }),
      ...Array.from({ length: node.gpuCount }, (_, g) => gpuCell(node, g, x + 9 + g * CELL, y + NODE_HEAD)),
      ...Array.from({ length: node.railCount }, (_, r) =>
        railCell(node, r, x + 9 + r * railW, y + NODE_HEAD + GPU_H + 8, railW - 3),
      ),
    ],
  );
}

/** Centre of a worker's first GPU cell and the bottom of its rail row. */
interface Anchor {
  readonly x: number;
  readonly y: number;
  readonly node: number;
}

function anchor(layout: Layout, role: string): Anchor | undefined {
  for (const [i, n] of layout.nodes.entries()) {
    const w = n.workers.find((p) => p.role === role);
    if (w)
      return { x: M + 9 + w.gpus[0] * CELL + (CELL - 6) / 2, y: nodeTop(i) + NODE_HEAD + GPU_H + 8 + RAIL_H, node: i };
  }
  return undefined;
}

const FRONTEND_H = 46;
/** Top of the Frontend's box: under the title and the line naming what runs. */
const FRONTEND_Y = M + 46;
const nodeTop = (i: number) => FRONTEND_Y + FRONTEND_H + 24 + i * (NODE_H + NODE_GAP);

/** The prefill worker's fit row (the KV it sends), else the first. */
const kvFit = (plan: Pick<Plan, "fit">) => plan.fit?.find((x) => x.role === "prefill") ?? plan.fit?.[0];

/** The KV path's one-line label: the time of the workload's prompt first, then of `maxModelLen`. */
export function kvLabel(plan: Pick<Plan, "fit" | "kvTransport" | "serving">): string {
  const f = kvFit(plan);
  const wire = plan.kvTransport
    ? `NIXL ${plan.kvTransport.transport} (${plan.kvTransport.rdma ? "RDMA over EFA" : "TCP"})`
    : "transport not recorded";
  if (!f) return `KV prefill -> decode: ${wire}; transfer time unknown (model not in the catalog)`;
  const which = plan.serving?.workload.declared === false ? "the default workload's" : "the declared workload's";
  return `KV prefill -> decode: ${wire}, ${f.kvLinkGbps} Gbps per worker; ~${f.kvTransferMsAtPrompt} ms expected for ${which} ${f.kvPromptTokens.toLocaleString("en-US")}-token prompt, ~${f.kvTransferMs} ms at maxModelLen ${f.maxModelLen.toLocaleString("en-US")} (line rate ${f.kvTransferBoundMs} ms)`;
}

/** What runs: "meta-llama/Llama-3.1-8B-Instruct on vLLM 0.31.0, Dynamo 1.6.2 (release dynamo-1.6), NIXL 1.4.1". */
export function runsLine(plan: Pick<Plan, "model" | "runtime">): string {
  const model = plan.model?.id ?? "no model";
  const r = plan.runtime;
  if (!r) return `${model}; no graph`;
  return `${model} on ${r.engine.name} ${r.engine.version} (backend ${r.backend}), Dynamo ${r.dynamo} (release ${r.release}), NIXL ${r.nixl}`;
}

/** Same node: a curve under the rail row. Two nodes: out of the prefill node's right side and into the decode node's. */
function kvRoute(layout: Layout, p: Anchor, d: Anchor): { path: string; lx: number; ly: number; anchor: string } {
  if (p.node === d.node) {
    const dip = p.y + 30;
    return {
      path: `M ${p.x} ${p.y} C ${p.x} ${dip}, ${d.x} ${dip}, ${d.x} ${p.y}`,
      lx: (p.x + d.x) / 2,
      ly: dip + 10,
      anchor: "middle",
    };
  }
  const right = M + Math.max(...layout.nodes.map((n) => n.gpuCount * CELL + 12));
  const yp = nodeTop(p.node) + NODE_HEAD + GPU_H / 2;
  const yd = nodeTop(d.node) + NODE_HEAD + GPU_H / 2;
  return {
    path: `M ${right} ${yp} H ${right + 40} V ${yd} H ${right + 4}`,
    lx: right + 48,
    ly: (yp + yd) / 2 + 4,
    anchor: "start",
  };
}

function kvPath(plan: Plan, layout: Layout): string[] {
  const p = anchor(layout, "prefill");
  const d = anchor(layout, "decode");
  if (!p || !d) return [];
  const r = kvRoute(layout, p, d);
  const f = kvFit(plan);
  const short = f ? `KV ~${f.kvTransferMsAtPrompt} ms` : "KV";
  const bx = r.anchor === "middle" ? r.lx - 50 : r.lx - 4;
  return [
    el("g", { class: "kv-path", "data-transport": plan.kvTransport?.transport ?? "unknown" }, [
      el("path", { d: r.path, fill: "none", stroke: "#c0392b", "stroke-width": 2.5, "marker-end": "url(#arrow)" }),
      el("rect", { x: bx, y: r.ly - 12, width: 100, height: 16, rx: 3, fill: "#fff", stroke: "#c0392b" }),
      text(r.lx, r.ly, short, { "text-anchor": r.anchor, fill: "#c0392b", "font-weight": "bold" }),
      el("title", {}, [esc(kvLabel(plan))]),
    ]),
  ];
}

function frontend(plan: Plan): string {
  const f = plan.workers.find((w) => w.role === "frontend");
  const label = f
    ? `${f.service} x${f.replicas}: OpenAI HTTP :8000, no GPU (the GPU nodes are tainted: runs on the system nodes), routes to prefill and decode`
    : "no Frontend in the graph";
  return el("g", { class: "frontend", "data-replicas": f?.replicas ?? 0 }, [
    el("rect", {
      x: M,
      y: FRONTEND_Y,
      width: textWidth(label, 11) + 20,
      height: FRONTEND_H,
      rx: 6,
      fill: f ? ROLE_COLOURS.frontend : "#fff",
      stroke: "#222",
    }),
    text(M + 10, FRONTEND_Y + 28, label, { fill: f ? "#fff" : "#a00", "font-weight": "bold" }),
  ]);
}

/** The placement line: which nodes each role is expected on, and why they cannot mix. */
export function placementLegend(plan: Pick<Plan, "gpuPools" | "workers">): string {
  const p = placementOf(plan);
  const roles = Object.entries(p.nodesByRole).map(([role, nodes]) => `${role} on ${nodes.join(", ")}`);
  const how =
    p.mode === "separate-nodes"
      ? "required anti-affinity keeps prefill and decode on disjoint nodes"
      : "no anti-affinity between the roles: they may share a node";
  return `Expected placement (the scheduler decides): ${roles.join("; ") || "no GPU worker"}; ${how}.`;
}

/**
 * The legend's text lines, in order: KV, capacity, placement, the EFA pairing rule, then the warnings (idle nodes,
 * unplaced replicas).
 */
function legendLines(plan: Plan, layout: Layout): string[] {
  return [
    kvLabel(plan),
    `GPUs ${plan.gpus.requested}/${plan.gpus.provisioned} requested; EFA rails ${plan.efaRails.used}/${plan.efaRails.provisioned} used; grey dashed = idle.`,
    placementLegend(plan),
    pairingLegend(plan.workers),
    ...[idleNodesLine(placementOf(plan))].filter((l): l is string => l !== undefined),
    ...(layout.unplaced.length > 0
      ? [`NOT PLACED (would stay Pending): ${layout.unplaced.map((u) => `${u.service}/${u.replica}`).join(", ")}`]
      : []),
  ];
}

/** Legend lines from this index on are warnings (drawn red). */
const WARNINGS_FROM = 4;

function legend(plan: Plan, layout: Layout, y: number): string[] {
  const lines = legendLines(plan, layout);
  const swatches = Object.entries(ROLE_COLOURS).map(([role, fill], i) =>
    el("g", {}, [
      el("rect", { x: M + i * 110, y, width: 14, height: 14, fill, stroke: "#222" }),
      text(M + i * 110 + 20, y + 11, role),
    ]),
  );
  const idle = el("g", {}, [
    el("rect", { x: M + 330, y, width: 14, height: 14, ...IDLE }),
    text(M + 350, y + 11, "idle"),
  ]);
  return [
    el("g", { class: "legend" }, [
      ...swatches,
      idle,
      ...lines.map((l, i) =>
        text(M, y + 32 + i * 16, l, i >= WARNINGS_FROM ? { fill: "#a00", "font-weight": "bold" } : {}),
      ),
    ]),
  ];
}

/** The SVG document for a plan. */
export function topologySvg(plan: Plan): string {
  const layout = layoutOf(plan);
  const title = `Topology of stack ${plan.stack} (${plan.region}): ${layout.nodes.length} GPU node(s)`;
  const runs = runsLine(plan);
  const legendY = nodeTop(layout.nodes.length) - NODE_GAP + 40;
  const widths = [
    ...layout.nodes.map((n) => n.gpuCount * CELL + 12 + 160),
    ...legendLines(plan, layout).map((l) => textWidth(l, 11)),
    textWidth(title, 14),
    textWidth(runs, 12),
  ];
  const width = M * 2 + Math.max(...widths);
  // Legend: KV, capacity, placement, pairing, and up to two warnings (idle nodes, unplaced replicas).
  const height = legendY + 32 + (WARNINGS_FROM + 2) * 16 + M;
  const defs = el("defs", {}, [
    el(
      "marker",
      {
        id: "arrow",
        viewBox: "0 0 10 10",
        refX: 9,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: "auto-start-reverse",
      },
      [el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#c0392b" })],
    ),
  ]);
  return svgDocument(width, height, title, [
    defs,
    el("rect", { x: 0, y: 0, width: Math.ceil(width), height: Math.ceil(height), fill: "#fafafa" }),
    text(M, M + 6, title, { "font-size": 14, "font-weight": "bold" }),
    el("g", { class: "runs", "data-backend": plan.runtime?.backend ?? "" }, [
      text(M, M + 26, runs, { "font-size": 12 }),
    ]),
    frontend(plan),
    ...layout.nodes.map((n, i) => nodeBox(n, M, nodeTop(i))),
    ...kvPath(plan, layout),
    ...legend(plan, layout, legendY),
  ]);
}
