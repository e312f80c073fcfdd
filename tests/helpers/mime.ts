/**
 * A small MIME multipart reader for tests: user data is checked as parsed data (headers, parts, YAML bodies),
 * never as a string. Follows RFC 2046: the top-level Content-Type names the boundary, parts are delimited by
 * `--boundary` lines and the document ends at `--boundary--`; each part has headers, a blank line and a body.
 */
import YAML from "yaml";

export interface ParsedPart {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}
export interface ParsedMultipart {
  readonly headers: Readonly<Record<string, string>>;
  readonly parts: readonly ParsedPart[];
  readonly closed: boolean;
}

function headersAndBody(text: string): { headers: Record<string, string>; body: string } {
  const lines = text.split(/\r?\n/);
  const headers: Record<string, string> = {};
  let i = 0;
  for (; i < lines.length && lines[i] !== ""; i++) {
    const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(lines[i]);
    if (!m) throw new Error(`not a MIME header line: ${JSON.stringify(lines[i])}`);
    headers[m[1].toLowerCase()] = m[2];
  }
  return { headers, body: lines.slice(i + 1).join("\n") };
}

/** Parses a multipart document; throws when it is not one. */
export function parseMultipart(text: string): ParsedMultipart {
  const top = headersAndBody(text);
  const ct = top.headers["content-type"] ?? "";
  const b = /^multipart\/[a-z]+;\s*boundary="?([^";]+)"?/i.exec(ct);
  if (!b) throw new Error(`Content-Type ${JSON.stringify(ct)} is not multipart with a boundary`);
  const delimiter = `--${b[1]}`;
  const lines = top.body.split("\n");
  const parts: ParsedPart[] = [];
  let current: string[] | undefined;
  let closed = false;
  for (const line of lines) {
    if (line === `${delimiter}--`) {
      closed = true;
      break;
    }
    if (line === delimiter) {
      if (current) parts.push(headersAndBody(current.join("\n")));
      current = [];
      continue;
    }
    current?.push(line);
  }
  if (current) parts.push(headersAndBody(current.join("\n")));
  return { headers: top.headers, parts, closed };
}

/** The YAML documents of every part of `mediaType`. */
export function yamlParts(doc: ParsedMultipart, mediaType: string): unknown[] {
  return doc.parts
    .filter((p) => p.headers["content-type"] === mediaType)
    .flatMap((p) => YAML.parseAllDocuments(p.body).map((d) => d.toJS()));
}
