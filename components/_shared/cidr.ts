/**
 * CIDR blocks, IPv4 and IPv6, parsed to numbers, and whether a set of them covers an address range. One parser
 * for every check that reads a CIDR (the cluster's validator, the policy pack, the NetworkPolicies), because
 * comparing strings misses spellings: `0.0.0.0/00` is the whole IPv4 internet, and so are `0.0.0.0/1` and
 * `128.0.0.0/1` together. Pure.
 */

/** A parsed CIDR block: the first address and the prefix length, in the family's bit width. */
export interface Cidr {
  readonly family: 4 | 6;
  /** The address as written (host bits included). */
  readonly address: bigint;
  readonly prefix: number;
  /** The address with the host bits cleared. */
  readonly network: bigint;
  /** The last address of the block. */
  readonly last: bigint;
}

/** A CIDR, or why it is not one. */
/**
 * A parsed block, or why not: `error` is `reason` plus `hint` (a "did you mean" for a leading-zero octet, else empty),
 * so a caller that shows the bad value can put it between the two.
 */
export type ParsedCidr =
  { readonly cidr: Cidr } | { readonly error: string; readonly reason: string; readonly hint: string };

const BITS = { 4: 32, 6: 128 } as const;

function ipv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256n + BigInt(p), 0n);
}

function groups(text: string): bigint[] | undefined {
  if (text === "") return [];
  const out: bigint[] = [];
  const parts = text.split(":");
  for (const [i, p] of parts.entries()) {
    if (i === parts.length - 1 && p.includes(".")) {
      const v4 = ipv4(p);
      if (v4 === undefined) return undefined;
      out.push(v4 >> 16n, v4 & 0xffffn);
    } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(BigInt(`0x${p}`));
    else return undefined;
  }
  return out;
}

function ipv6(text: string): bigint | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<bigint>(halves.length === 2 ? missing : 0).fill(0n), ...tail];
  return all.reduce((acc, g) => (acc << 16n) + g, 0n);
}

/**
 * `text` with the leading zeros of its dotted-quad octets dropped ("010.0.0.0/8" -> "10.0.0.0/8"), or undefined when
 * it has none. Such a text names two networks: 10.0.0.0/8 to a decimal reader (this parser, before) and 8.0.0.0/8 to
 * inet_aton, which reads "010" as octal; Python's ipaddress refuses it (tests/unit/cidr.spec.ts runs both). So it is
 * refused, not guessed.
 */
export function leadingZeroFix(text: string): string | undefined {
  const slash = text.indexOf("/");
  const addr = slash < 0 ? text : text.slice(0, slash);
  const quad = addr.slice(addr.lastIndexOf(":") + 1);
  if (!quad.includes(".") || !quad.split(".").some((o) => /^0\d/.test(o))) return undefined;
  const fixed = quad
    .split(".")
    .map((o) => o.replace(/^0+(?=\d)/, ""))
    .join(".");
  return `${addr.slice(0, addr.length - quad.length)}${fixed}${slash < 0 ? "" : text.slice(slash)}`;
}

/** The "did you mean" for a CIDR with a leading-zero octet (`010.0.0.0/8`), else "". */
export function leadingZeroHint(text: unknown): string {
  const fix = typeof text === "string" ? leadingZeroFix(text) : undefined;
  return fix === undefined ? "" : `; without leading zeros (some tools read "010" as octal 8): did you mean "${fix}"?`;
}

/** Parses `a.b.c.d/n` or an IPv6 `x:y::z/n`; the error says what was expected. */
export function parseCidr(text: unknown): ParsedCidr {
  const expected = `must be a CIDR such as "203.0.113.0/24" or "2001:db8::/32"`;
  const refuse = (reason: string, hint = "") => ({ error: reason + hint, reason, hint });
  if (typeof text !== "string") return refuse(expected);
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text.trim() === text ? text : "");
  if (!m) return refuse(expected);
  const hint = leadingZeroHint(text);
  if (hint) return refuse(expected, hint);
  const family = m[1].includes(":") ? 6 : 4;
  const address = family === 4 ? ipv4(m[1]) : ipv6(m[1]);
  if (address === undefined) return refuse(expected);
  const prefix = Number(m[2]);
  const bits = BigInt(BITS[family]);
  if (prefix > BITS[family]) return refuse(`prefix length must be /0../${BITS[family]} for IPv${family}`);
  const hostBits = bits - BigInt(prefix);
  const network = (address >> hostBits) << hostBits;
  return { cidr: { family, address, prefix, network, last: network + (1n << hostBits) - 1n } };
}

/** Writes an address of a family in its usual text form (IPv6 uncompressed groups, lower case). */
export function formatAddress(family: 4 | 6, address: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((address >> s) & 0xffn)).join(".");
  return Array.from({ length: 8 }, (_, i) => ((address >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(":");
}

/** True when the blocks of `within`'s family, merged, include every address of `within`. */
export function covers(blocks: readonly Cidr[], within: Cidr): boolean {
  return coversSpan(blocks, within.family, within.network, within.last);
}

/** True when the blocks of `family`, merged, include every address from `from` to `to`. */
function coversSpan(blocks: readonly Cidr[], family: 4 | 6, from: bigint, to: bigint): boolean {
  const spans = blocks
    .filter((b) => b.family === family)
    .map((b) => [b.network, b.last] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let next = from;
  for (const [first, last] of spans) {
    if (first > next) break;
    if (last >= next) next = last + 1n;
    if (next > to) return true;
  }
  return false;
}

/**
 * The IPv4 blocks no internet host has (IANA's IPv4 Special-Purpose Address Registry, RFC 6890, with multicast and
 * the reserved 240.0.0.0/4): "this network", private, shared (CGNAT), loopback, link-local, IETF protocol
 * assignments, the three documentation ranges, benchmarking, multicast, reserved and broadcast. EKS refuses a
 * public-access block that includes any of them ("The block cannot include reserved addresses",
 * tests/contracts/facts/aws-network-limits.json).
 */
export const NON_INTERNET_V4 = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
] as const;

/** The IPv6 global unicast space (RFC 4291 2.4): every address an internet host has today lies in it. */
export const INTERNET_V6 = "2000::/3";

/** The gaps between sorted, merged blocks of one family inside `[from, to]`: what they leave uncovered. */
function gaps(blocks: readonly Cidr[], from: bigint, to: bigint): [bigint, bigint][] {
  const out: [bigint, bigint][] = [];
  let next = from;
  for (const b of [...blocks].sort((a, c) => (a.network < c.network ? -1 : a.network > c.network ? 1 : 0))) {
    if (b.network > next) out.push([next, b.network - 1n]);
    if (b.last + 1n > next) next = b.last + 1n;
  }
  if (next <= to) out.push([next, to]);
  return out;
}

/**
 * The internets (`"IPv4"`, `"IPv6"`) that `texts` together open to: every publicly routable address of the family is
 * in some block. Computed as coverage of the space left once the non-internet blocks are taken out, so
 * `0.0.0.0/1, 128.0.0.0/2, 192.0.0.0/3, 224.0.0.0/4` (everything but 240.0.0.0/4) or any split of the public space
 * counts, not only `0.0.0.0/0`.
 */
export function internetsCovered(texts: readonly unknown[]): ("IPv4" | "IPv6")[] {
  const blocks = parsedBlocks(texts);
  const out: ("IPv4" | "IPv6")[] = [];
  const v4Public = gaps(parsedBlocks(NON_INTERNET_V4), 0n, (1n << 32n) - 1n);
  if (v4Public.every(([from, to]) => coversSpan(blocks, 4, from, to))) out.push("IPv4");
  const v6 = parsedBlocks([INTERNET_V6])[0];
  if (coversSpan(blocks, 6, v6.network, v6.last)) out.push("IPv6");
  return out;
}

/** The non-internet IPv4 blocks (`NON_INTERNET_V4`) that `text` shares an address with. */
export function nonInternetOverlap(text: unknown): string[] {
  const p = parseCidr(text);
  if (!("cidr" in p) || p.cidr.family !== 4) return [];
  const { network, last } = p.cidr;
  return parsedBlocks(NON_INTERNET_V4)
    .filter((r) => r.network <= last && network <= r.last)
    .map((r) => `${formatAddress(4, r.network)}/${r.prefix}`);
}

/** The whole address space of each family. */
export const WHOLE_INTERNET = { v4: "0.0.0.0/0", v6: "::/0" } as const;

/** The parsed blocks of a list, skipping what does not parse (validators report those separately). */
export function parsedBlocks(texts: readonly unknown[]): Cidr[] {
  return texts.flatMap((t) => {
    const p = parseCidr(t);
    return "cidr" in p ? [p.cidr] : [];
  });
}

/** The ranges of `spaces` (CIDR texts) that `texts` cover completely, e.g. `["0.0.0.0/0"]`. */
export function coveredSpaces(texts: readonly unknown[], spaces: readonly string[]): string[] {
  const blocks = parsedBlocks(texts);
  return spaces.filter((s) => {
    const p = parseCidr(s);
    return "cidr" in p && covers(blocks, p.cidr);
  });
}
