/**
 * The picture of a measure report: TTFT and ITL against the requests per second served, one panel each; the
 * estimate's curve of each layout with its band (the estimate's own range, else +-AGREE_WITHIN), and the measured
 * points over it (P50 dot, P90 tick and a whisker up to P99). Pure: the report in, SVG text out.
 */
import { el, svgDocument, text } from "../render/pictures/svg";
import type { Percentiles } from "./aiperf";
import { AGREE_WITHIN, type EstimatePoint, Layout } from "./estimate";
import type { MeasureReport } from "./summary";

const W = 900;
const H = 460;
const PANEL = { w: 380, h: 300, top: 60, left: [70, 510] } as const;
const COLOR: Readonly<Record<Layout, string>> = { disaggregated: "#1f77b4", aggregated: "#ff7f0e" };

type Metric = "ttft" | "itl";
const TITLE: Readonly<Record<Metric, string>> = { ttft: "Time to first token (ms)", itl: "Inter-token latency (ms)" };

/** A nice upper bound for an axis: 1, 2 or 5 times a power of ten at or above `v`. */
export function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].find((m) => m * p >= v) ?? 10) * p;
}

interface Scale {
  readonly x: (v: number) => number;
  readonly y: (v: number) => number;
  readonly xMax: number;
  readonly yMax: number;
}

function scale(left: number, xMax: number, yMax: number): Scale {
  return {
    x: (v) => left + (v / xMax) * PANEL.w,
    y: (v) => PANEL.top + PANEL.h - (Math.min(v, yMax) / yMax) * PANEL.h,
    xMax,
    yMax,
  };
}

const estOf = (p: EstimatePoint, m: Metric) => (m === "ttft" ? p.ttftMs : p.itlMs);
const rangeOf = (p: EstimatePoint, m: Metric) => (m === "ttft" ? p.ttftRange : p.itlRange);

function axes(s: Scale, left: number, m: Metric): string[] {
  const out = [
    el("rect", { x: left, y: PANEL.top, width: PANEL.w, height: PANEL.h, fill: "none", stroke: "#999" }),
    text(left + PANEL.w / 2, PANEL.top - 10, TITLE[m], { "text-anchor": "middle", "font-size": 13 }),
    text(left + PANEL.w / 2, PANEL.top + PANEL.h + 34, "requests/s served", { "text-anchor": "middle" }),
  ];
  for (let i = 0; i <= 4; i++) {
    const xv = (s.xMax * i) / 4;
    const yv = (s.yMax * i) / 4;
    out.push(text(s.x(xv), PANEL.top + PANEL.h + 16, String(+xv.toPrecision(3)), { "text-anchor": "middle" }));
    out.push(text(left - 6, s.y(yv) + 4, String(+yv.toPrecision(3)), { "text-anchor": "end" }));
    out.push(el("line", { x1: left, x2: left + PANEL.w, y1: s.y(yv), y2: s.y(yv), stroke: "#eee" }));
  }
  return out;
}

/** The estimate's line and band of one layout; saturated rates (null) end the line. */
function estimate(s: Scale, curve: readonly EstimatePoint[], m: Metric, color: string): string[] {
  const pts = curve.filter((p) => estOf(p, m) !== null);
  if (pts.length < 2) return [];
  const lo = pts.map((p) => rangeOf(p, m)?.lo ?? estOf(p, m)! * (1 - AGREE_WITHIN));
  const hi = pts.map((p) => rangeOf(p, m)?.hi ?? estOf(p, m)! * (1 + AGREE_WITHIN));
  const xy = (i: number, v: number) => `${s.x(pts[i]!.requestsPerSecond).toFixed(1)},${s.y(v).toFixed(1)}`;
  const band = [
    ...pts.map((_, i) => xy(i, hi[i]!)),
    ...pts.map((_, i) => xy(pts.length - 1 - i, lo[pts.length - 1 - i]!)),
  ];
  return [
    el("polygon", { points: band.join(" "), fill: color, "fill-opacity": 0.12, stroke: "none" }),
    el("polyline", {
      points: pts.map((p, i) => xy(i, estOf(p, m)!)).join(" "),
      fill: "none",
      stroke: color,
      "stroke-width": 2,
      "stroke-dasharray": "6 4",
    }),
  ];
}

/** One measured point: P50 dot, P90 tick, whisker to P99. */
function measured(s: Scale, rps: number, p: Percentiles, color: string): string[] {
  const x = s.x(rps);
  return [
    el("line", { x1: x, x2: x, y1: s.y(p.p50), y2: s.y(p.p99), stroke: color, "stroke-width": 1.5 }),
    el("line", { x1: x - 5, x2: x + 5, y1: s.y(p.p90), y2: s.y(p.p90), stroke: color, "stroke-width": 1.5 }),
    el("circle", { cx: x, cy: s.y(p.p50), r: 4.5, fill: color, stroke: "#fff" }),
  ];
}

function limits(r: MeasureReport, m: Metric): { xMax: number; yMax: number } {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const l of r.layouts)
    for (const p of l.points) {
      xs.push(p.measured.requestsPerSecond);
      const v = p[m].measured;
      if (v) ys.push(v.p99);
    }
  for (const c of r.curves)
    for (const p of c.points) {
      const v = estOf(p, m);
      if (v !== null) {
        xs.push(p.requestsPerSecond);
        ys.push(rangeOf(p, m)?.hi ?? v * (1 + AGREE_WITHIN));
      }
    }
  return { xMax: niceMax(Math.max(...xs, 0)), yMax: niceMax(Math.max(...ys, 0)) };
}

function panel(r: MeasureReport, m: Metric, left: number): string[] {
  const { xMax, yMax } = limits(r, m);
  const s = scale(left, xMax, yMax);
  const out = axes(s, left, m);
  for (const c of r.curves) out.push(...estimate(s, c.points, m, COLOR[c.layout]));
  for (const l of r.layouts)
    for (const p of l.points) {
      const v = p[m].measured;
      if (v) out.push(...measured(s, p.measured.requestsPerSecond, v, COLOR[l.layout]));
    }
  return out;
}

/** One legend row per layout shown, under the panels. */
function legend(r: MeasureReport): string[] {
  const shown = [Layout.Disaggregated, Layout.Aggregated].filter((l) => r.layouts.some((x) => x.layout === l));
  return shown.flatMap((layout, i) => {
    const c = COLOR[layout];
    const y = PANEL.top + PANEL.h + 62 + 20 * i;
    return [
      el("circle", { cx: 76, cy: y - 4, r: 4.5, fill: c }),
      text(86, y, `${layout}: measured P50 (tick P90, whisker to P99)`),
      el("line", { x1: 400, x2: 430, y1: y - 4, y2: y - 4, stroke: c, "stroke-width": 2, "stroke-dasharray": "6 4" }),
      text(436, y, `${layout}: estimate, band = its range or +-${AGREE_WITHIN * 100}%`),
    ];
  });
}

/** The whole picture. */
export function renderChart(r: MeasureReport): string {
  const wl = r.workload;
  const load =
    wl.requestsPerSecond !== undefined ? `${wl.requestsPerSecond} requests/s` : `concurrency ${wl.concurrency}`;
  const title = `${r.stack}: measured (AIPerf ${r.aiperf.version}) beside the estimate; ISL ${wl.isl}, OSL ${wl.osl}, declared ${load}`;
  const height = H + 20 * Math.max(0, r.layouts.length - 1);
  const body = [
    el("rect", { x: 0, y: 0, width: W, height, fill: "#fff" }),
    text(W / 2, 24, title, { "text-anchor": "middle", "font-size": 13, "font-weight": "bold" }),
    ...panel(r, "ttft", PANEL.left[0]),
    ...panel(r, "itl", PANEL.left[1]),
    ...legend(r),
  ];
  return svgDocument(W, height, title, body);
}
