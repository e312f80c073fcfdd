/**
 * A strict little XML parser for the render's SVG: one optional `<?xml …?>` declaration, elements
 * with double-quoted attributes, text and the five predefined entities. Anything else (an unclosed
 * or mismatched tag, a duplicate attribute, a bare `&` or `<`, a second root, a comment or CDATA,
 * which the writer never emits) is an error naming the offset, so a malformed SVG fails the test.
 */

/** A parsed element. */
export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** Text directly inside this element, entities decoded. */
  text: string;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const NAME = /^[A-Za-z_][\w.:-]*/;

function decode(s: string, at: number): string {
  return s.replace(/&([^;]*);|&|</g, (m, e: string | undefined) => {
    if (e !== undefined && ENTITIES[e] !== undefined) return ENTITIES[e];
    throw new Error(`XML: bad "${m}" near offset ${at}`);
  });
}

function parseAttrs(src: string, at: number): Record<string, string> {
  const attrs: Record<string, string> = {};
  let rest = src.trim();
  while (rest.length > 0) {
    const m = /^([A-Za-z_][\w.:-]*)="([^"]*)"\s*/.exec(rest);
    if (!m) throw new Error(`XML: bad attribute syntax near offset ${at}: ${rest.slice(0, 40)}`);
    if (m[1] in attrs) throw new Error(`XML: duplicate attribute ${m[1]} near offset ${at}`);
    attrs[m[1]] = decode(m[2], at);
    rest = rest.slice(m[0].length);
  }
  return attrs;
}

/** Parses `src`; returns the root element or throws. */
export function parseXml(src: string): XmlElement {
  let i = 0;
  const decl = /^<\?xml [^?]*\?>\s*/.exec(src);
  if (decl) i = decl[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < src.length) {
    if (src[i] !== "<") {
      const end = src.indexOf("<", i) < 0 ? src.length : src.indexOf("<", i);
      const t = src.slice(i, end);
      if (stack.length === 0 && t.trim() !== "") throw new Error(`XML: text outside the root at offset ${i}`);
      if (stack.length > 0) stack[stack.length - 1].text += decode(t, i);
      i = end;
      continue;
    }
    const close = src.indexOf(">", i);
    if (close < 0) throw new Error(`XML: unterminated tag at offset ${i}`);
    const tag = src.slice(i + 1, close);
    if (tag.startsWith("/")) {
      const open = stack.pop();
      if (!open || open.name !== tag.slice(1))
        throw new Error(`XML: </${tag.slice(1)}> closes ${open ? `<${open.name}>` : "nothing"} at offset ${i}`);
    } else {
      const self = tag.endsWith("/");
      const body = self ? tag.slice(0, -1) : tag;
      const name = NAME.exec(body)?.[0];
      if (!name) throw new Error(`XML: bad tag <${tag.slice(0, 20)}> at offset ${i}`);
      const el: XmlElement = { name, attrs: parseAttrs(body.slice(name.length), i), children: [], text: "" };
      if (stack.length > 0) stack[stack.length - 1].children.push(el);
      else if (root) throw new Error(`XML: a second root <${name}> at offset ${i}`);
      else root = el;
      if (!self) stack.push(el);
    }
    i = close + 1;
  }
  if (stack.length > 0) throw new Error(`XML: <${stack[stack.length - 1].name}> is never closed`);
  if (!root) throw new Error("XML: no root element");
  return root;
}

/** Every element under (and including) `el`, depth first. */
export function allElements(el: XmlElement): XmlElement[] {
  return [el, ...el.children.flatMap(allElements)];
}
