/**
 * The shared CIDR parser and coverage check (components/_shared/cidr.ts), and the cluster's "never the whole
 * internet" endpoint rule on top of it: other spellings of 0.0.0.0/0 and sets that add up to it are refused.
 */
import { strict as assert } from "assert";
import fc from "fast-check";
import { spawnSync } from "child_process";
import {
  covers,
  coveredSpaces,
  formatAddress,
  internetsCovered,
  leadingZeroFix,
  NON_INTERNET_V4,
  parseCidr,
  parsedBlocks,
} from "../../components/_shared/cidr";
import { EfaClusterArgs } from "../../components/cluster/args";
import { validateClusterArgs } from "../../components/cluster/validate";
import { EKS_MAX_PUBLIC_ACCESS_CIDRS } from "../../components/cluster/validate-network";

/** The smallest CIDR list of `[from, to]` (the textbook split: the largest aligned block at each step). */
function rangeToCidrs(from: bigint, to: bigint): string[] {
  const out: string[] = [];
  while (from <= to) {
    let size = 32;
    while (size > 0) {
      const block = 1n << BigInt(33 - size);
      if (from % block !== 0n || from + block - 1n > to) break;
      size--;
    }
    out.push(`${formatAddress(4, from)}/${size}`);
    from += 1n << BigInt(32 - size);
  }
  return out;
}

/** Every IPv4 address outside NON_INTERNET_V4, as CIDRs: the public internet, split around each reserved block. */
function publicIpv4Blocks(): string[] {
  const reserved = NON_INTERNET_V4.map(cidr).sort((a, b) => (a.network < b.network ? -1 : 1));
  const out: string[] = [];
  let next = 0n;
  for (const r of reserved) {
    if (r.network > next) out.push(...rangeToCidrs(next, r.network - 1n));
    if (r.last + 1n > next) next = r.last + 1n;
  }
  return out;
}

const cidr = (t: string) => {
  const p = parseCidr(t);
  if (!("cidr" in p)) throw new Error(`${t}: ${p.error}`);
  return p.cidr;
};

describe("cidr: parseCidr", () => {
  const good: [string, 4 | 6, number, string][] = [
    ["10.0.0.0/16", 4, 16, "10.0.0.0"],
    ["0.0.0.0/00", 4, 0, "0.0.0.0"],
    ["203.0.113.7/24", 4, 24, "203.0.113.0"],
    ["::/0", 6, 0, "0:0:0:0:0:0:0:0"],
    ["2001:db8::/32", 6, 32, "2001:db8:0:0:0:0:0:0"],
    ["2001:DB8:0:0:1::/80", 6, 80, "2001:db8:0:0:1:0:0:0"],
    ["::ffff:192.0.2.0/120", 6, 120, "0:0:0:0:0:ffff:c000:200"],
    ["1:2:3:4:5:6:7:8/128", 6, 128, "1:2:3:4:5:6:7:8"],
  ];
  for (const [text, family, prefix, network] of good)
    it(`parses ${text}`, () => {
      const c = cidr(text);
      assert.deepEqual([c.family, c.prefix, formatAddress(c.family, c.network)], [family, prefix, network]);
    });

  const bad = [
    "10.0.0.0",
    "10.0.0/8",
    "256.0.0.0/8",
    "10.0.0.0/33",
    "::/129",
    "1::2::3/64",
    "1:2:3:4:5:6:7:8:9/64",
    "1:2:3:4:5:6:7/64",
    "12345::/16",
    " 10.0.0.0/8",
    "10.0.0.0/-1",
    "",
  ];
  for (const text of bad)
    it(`refuses ${JSON.stringify(text)}`, () => assert.ok("error" in parseCidr(text), JSON.stringify(parseCidr(text))));
  it("refuses what is not a string", () => assert.ok("error" in parseCidr(42)));

  // "010.0.0.0/8" parsed as 10.0.0.0/8 here once, while inet_aton reads it as 8.0.0.0/8 and Python's ipaddress
  // refuses it: the text is refused with the unambiguous spelling, and Python (where present) agrees on every case.
  const leadingZero: [string, string][] = [
    ["010.0.0.0/8", "10.0.0.0/8"],
    ["10.00.0.0/16", "10.0.0.0/16"],
    ["192.168.001.000/24", "192.168.1.0/24"],
    ["::ffff:010.0.0.0/104", "::ffff:10.0.0.0/104"],
  ];
  for (const [text, fixed] of leadingZero)
    it(`refuses ${text}, suggesting ${fixed}`, () => {
      const p = parseCidr(text);
      assert.ok("error" in p && p.error.endsWith(`did you mean "${fixed}"?`), JSON.stringify(p));
      assert.equal(leadingZeroFix(text), fixed);
      assert.ok("cidr" in parseCidr(fixed), `${fixed} parses`);
    });
  it("agrees with Python's ipaddress on leading zeros and the plain spellings", function () {
    const texts = [...leadingZero.flat(), ...good.map((g) => g[0]), "10.0.0.0/8", "0.0.0.0/0"];
    const py = spawnSync(
      "python3",
      [
        "-c",
        "import ipaddress,json,sys\nfor t in json.load(sys.stdin):\n try: ipaddress.ip_network(t, strict=False); print(1)\n except ValueError: print(0)",
      ],
      { input: JSON.stringify(texts), encoding: "utf8" },
    );
    if (py.error || py.status !== 0) {
      console.log(`      skipped: python3 is not available here (${py.error?.message ?? py.stderr})`);
      this.skip();
    }
    const octal = spawnSync("python3", ["-c", "import socket; print(socket.inet_aton('010.0.0.0')[0])"], {
      encoding: "utf8",
    });
    assert.equal(octal.stdout.trim(), "8", "inet_aton reads 010 as octal: the text names two networks");
    const theirs = py.stdout.trim().split("\n");
    assert.deepEqual(
      texts.map((t) => `${t}: ${"cidr" in parseCidr(t) ? 1 : 0}`),
      texts.map((t, i) => `${t}: ${theirs[i]}`),
    );
  });
});

describe("cidr: coverage", () => {
  const cases: [string[], string, boolean][] = [
    [["0.0.0.0/0"], "0.0.0.0/0", true],
    [["0.0.0.0/00"], "0.0.0.0/0", true],
    [["0.0.0.0/1", "128.0.0.0/1"], "0.0.0.0/0", true],
    [["128.0.0.0/1", "0.0.0.0/2", "64.0.0.0/2"], "0.0.0.0/0", true],
    [["0.0.0.0/1", "128.0.0.0/2"], "0.0.0.0/0", false],
    [["0.0.0.0/1", "192.0.0.0/2"], "0.0.0.0/0", false],
    [["::/0"], "0.0.0.0/0", false],
    [["::/1", "8000::/1"], "::/0", true],
    [["10.0.0.0/16"], "10.0.5.0/24", true],
    [["10.0.0.0/24", "10.0.2.0/24"], "10.0.0.0/22", false],
  ];
  for (const [blocks, within, want] of cases)
    it(`${blocks.join(" + ")} ${want ? "covers" : "does not cover"} ${within}`, () =>
      assert.equal(covers(parsedBlocks(blocks), cidr(within)), want));

  it("coveredSpaces names each family fully covered; malformed entries never count", () => {
    assert.deepEqual(coveredSpaces(["0.0.0.0/1", "128.0.0.0/1", "::/0"], ["0.0.0.0/0", "::/0"]), ["0.0.0.0/0", "::/0"]);
    assert.deepEqual(coveredSpaces(["0.0.0.0/1", "garbage"], ["0.0.0.0/0"]), []);
  });

  it("property: splitting a block into its two halves never changes what it covers", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 31 }), (addr, prefix) => {
        const whole = cidr(`${formatAddress(4, BigInt(addr))}/${prefix}`);
        const half = 1n << BigInt(31 - prefix);
        const halves = [whole.network, whole.network + half].map((n) => cidr(`${formatAddress(4, n)}/${prefix + 1}`));
        return covers(halves, whole) && !covers([halves[0]], whole) && !covers([halves[1]], whole);
      }),
    );
  });
});

describe("cluster: the API endpoint is never the whole internet, however written", () => {
  const ok: EfaClusterArgs = {
    availabilityZones: ["us-east-2a", "us-east-2b"],
    gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2a" } },
  };
  const problems = (publicAccessCidrs: string[]) =>
    validateClusterArgs({ ...ok, publicAccessCidrs }).map((p) => `${p.propertyPath}: ${p.reason}`);
  const fix = "list your office/VPN/CI CIDRs, or leave publicAccessCidrs empty for a private endpoint";

  it("0.0.0.0/00 is refused at its index", () =>
    assert.deepEqual(problems(["0.0.0.0/00"]), [
      `publicAccessCidrs[0]: "0.0.0.0/00" opens the API endpoint to the whole internet; ${fix}`,
    ]));
  it("0.0.0.0/1 + 128.0.0.0/1 is refused as a set", () =>
    assert.deepEqual(problems(["0.0.0.0/1", "128.0.0.0/1"]), [
      `publicAccessCidrs: ["0.0.0.0/1","128.0.0.0/1"] together cover every public IPv4 address, which opens the API endpoint to the whole internet; ${fix}`,
    ]));
  it("four blocks that leave out only the reserved 240.0.0.0/4 are the whole internet too (coverage, not a pattern)", () => {
    const four = ["0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/3", "224.0.0.0/4"];
    assert.deepEqual(problems(four), [
      `publicAccessCidrs: ${JSON.stringify(four)} together cover every public IPv4 address, which opens the API endpoint to the whole internet; ${fix}`,
    ]);
    assert.deepEqual(internetsCovered(four), ["IPv4"]);
  });
  it("the public space split around every reserved block is the whole internet; one /24 short of it is not", () => {
    const publicSpace = publicIpv4Blocks();
    assert.deepEqual(internetsCovered(publicSpace), ["IPv4"]);
    assert.deepEqual(internetsCovered(publicSpace.filter((b) => b !== "8.0.0.0/7")), []);
    assert.deepEqual(internetsCovered([...publicSpace.filter((b) => b !== "8.0.0.0/7"), "8.0.0.0/8", "9.0.0.0/9"]), []);
    assert.deepEqual(internetsCovered(["2000::/4", "3000::/4"]), ["IPv6"]);
    assert.deepEqual(internetsCovered(["2000::/4"]), []);
  });
  it("office ranges pass", () => {
    assert.deepEqual(problems(["203.0.113.0/24", "198.51.100.0/24", "8.8.8.0/24"]), []);
  });
  it("a block with reserved addresses is refused (EKS refuses it), naming them", () => {
    assert.deepEqual(problems(["10.0.0.0/8", "8.8.8.0/24", "100.64.0.0/16"]), [
      'publicAccessCidrs[0]: "10.0.0.0/8" includes reserved addresses (10.0.0.0/8), which EKS refuses in publicAccessCidrs and no internet client has; list the public addresses pulumi up runs from, or leave publicAccessCidrs empty with deployFromInsideVpc: true for a private endpoint',
      'publicAccessCidrs[2]: "100.64.0.0/16" includes reserved addresses (100.64.0.0/10), which EKS refuses in publicAccessCidrs and no internet client has; list the public addresses pulumi up runs from, or leave publicAccessCidrs empty with deployFromInsideVpc: true for a private endpoint',
    ]);
    assert.match(
      problems(["0.0.0.0/1", "128.0.0.0/2"]).join("\n"),
      /"0.0.0.0\/1" includes reserved addresses \(0.0.0.0\/8, 10.0.0.0\/8, 100.64.0.0\/10, 127.0.0.0\/8\)/,
    );
  });
  it(`more than ${EKS_MAX_PUBLIC_ACCESS_CIDRS} CIDRs is refused (EKS's quota, not adjustable)`, () => {
    const many = Array.from({ length: 41 }, (_, i) => `8.8.${i}.0/24`);
    assert.deepEqual(problems(many.slice(0, 40)), []);
    assert.deepEqual(problems(many), [
      "publicAccessCidrs: lists 41 CIDRs; EKS accepts at most 40 per cluster (a quota AWS does not raise). Merge them into wider blocks, or use a private endpoint (publicAccessCidrs: [] with deployFromInsideVpc: true)",
    ]);
  });
  it("a malformed CIDR is an error, never silently skipped", () =>
    assert.deepEqual(problems(["8.0.0.0/7", "128.0.0.0/x"]), [
      'publicAccessCidrs[1]: must be an IPv4 CIDR such as "203.0.113.0/24"; got "128.0.0.0/x"',
    ]));
});
