/**
 * A small SVG writer: elements as strings, every attribute and text escaped. Enough for the render's
 * diagrams (rectangles, text, paths, groups) with no browser and no dependency. Pure.
 */

/** Attribute values: numbers are rounded to one decimal so output is byte-stable. */
export type Attrs = Readonly<Record<string, string | number | undefined>>;

/** Text and attribute values with the five XML special characters escaped. */
export function esc(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

function attrs(a: Attrs): string {
  return Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${esc(typeof v === "number" ? String(Math.round(v * 10) / 10) : String(v))}"`)
    .join("");
}

/** One element; children are already-written elements. */
export function el(name: string, a: Attrs, children: readonly string[] = []): string {
  return children.length === 0 ? `<${name}${attrs(a)}/>` : `<${name}${attrs(a)}>${children.join("")}</${name}>`;
}

/** A text element (content escaped). */
export function text(x: number, y: number, content: string, a: Attrs = {}): string {
  return `<text${attrs({ x, y, ...a })}>${esc(content)}</text>`;
}

/** Rough width in px of `s` at `size` px of a sans-serif font (layout only; never under-estimates much). */
export function textWidth(s: string, size: number): number {
  return s.length * size * 0.6;
}

/** The document: an `<svg>` root of the given size with a title for screen readers. */
export function svgDocument(width: number, height: number, title: string, body: readonly string[]): string {
  const root = {
    xmlns: "http://www.w3.org/2000/svg",
    width: Math.ceil(width),
    height: Math.ceil(height),
    viewBox: `0 0 ${Math.ceil(width)} ${Math.ceil(height)}`,
    "font-family": "Helvetica, Arial, sans-serif",
    "font-size": 11,
    role: "img",
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${el("svg", root, [el("title", {}, [esc(title)]), ...body])}\n`;
}
