/**
 * Dynamo's upstream behaviour as a ledger (tests/contracts/facts/dynamo-release-ledger.json): every Behavioral,
 * Removed and Deprecated entry of Dynamo's release notes from the seed's version through 1.6.2 is a row with the
 * project's decision. The spec fails when an entry of that range has no row (no decision), when a release's entries
 * fall short of its published count (a dropped entry), when a version of the range is neither read nor said to be
 * unreadable, and when an entry that touches what this package renders or runs names no test, or a test that does
 * not exist. Where a release's section could not be read but its GitHub release notes could (v1.6.1), the entries read
 * there are rows too (facts.releaseNoteEntries, each naming its source), held to the same rules. The tests such rows
 * name that no other spec holds are at the end of this file.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { loadFacts } from "./facts";
import { GraphService } from "../../components/_shared/names";
import { Backend } from "../../components/inference/args";
import { deployedForm, renderGraph } from "../../components/inference/graph";
import type { V1beta1Graph } from "../../components/inference/dgd-v1beta1";
import { release, ReleaseId, RELEASES } from "../../components/releases";
import { argValue, envOf, IMAGE, mainOf, resolved } from "../helpers/inference-fixtures";

interface Entry {
  readonly id: string;
  readonly version: string;
  readonly badge: string;
  readonly title: string;
  readonly prs: readonly number[];
  readonly touches: readonly string[] | null;
  readonly decision: string | null;
  readonly test?: string;
  /** Where a row not extracted from the Deprecations page was read (facts.releaseNoteEntries). */
  readonly source?: string;
}
interface Ledger {
  readonly range: {
    readonly from: string;
    readonly through: string;
    readonly versions: Readonly<Record<string, string>>;
    readonly unreleased: string;
  };
  readonly publishedCounts: Readonly<Record<string, number>>;
  readonly entries: readonly Entry[];
  /** Entries read in a release's GitHub notes where its Deprecations section could not be read. */
  readonly releaseNoteEntries?: readonly Entry[];
}
const L = loadFacts<Ledger>("dynamo-release-ledger").facts;
const ROOT = path.join(__dirname, "..", "..");

/** What a row may say it touches: what this package renders or runs. */
const KINDS = ["graph-field", "env", "flag", "port", "probe", "chart-value", "image", "flow", "request"];
/** The versions from the seed's to dynamo-1.6's, every release and patch of the release table. */
const RANGE = ["1.1.0", "1.1.1", "1.2.0", "1.2.1", "1.3.0", "1.3.1", "1.4.0", "1.4.1", "1.4.2", "1.5.0", "1.5.1"];
const RANGE_16 = ["1.6.0", "1.6.1", "1.6.2"];

const num = (v: string) => v.split(".").map(Number);
const inRange = (v: string) => v === "Unreleased" || (num(v) >= num(L.range.from) && num(v) <= num(L.range.through));

/** Every reason the ledger is incomplete; empty when each entry of the range has a row that holds. */
export function ledgerProblems(l: Ledger): string[] {
  const out: string[] = [];
  const all = [...l.entries, ...(l.releaseNoteEntries ?? [])];
  for (const e of (l.releaseNoteEntries ?? []).filter((x) => !x.source || x.source.length < 20))
    out.push(`${e.id}: a row from the release notes names no source`);
  for (const e of all.filter((x) => inRange(x.version))) {
    if (!Array.isArray(e.touches) || !e.decision || e.decision.trim().length < 10)
      out.push(`${e.id}: no row (touches and decision)`);
    for (const k of e.touches ?? [])
      if (!KINDS.includes(k)) out.push(`${e.id}: touches ${k}, not one of ${KINDS.join(", ")}`);
    if ((e.touches ?? []).length > 0) out.push(...testProblems(e));
  }
  for (const [v, n] of Object.entries(l.publishedCounts).filter(([v]) => inRange(v))) {
    const have = l.entries.filter((e) => e.version === v).length;
    if (have !== n) out.push(`v${v}: ${have} entries, the release published ${n}`);
  }
  for (const v of [...RANGE, ...RANGE_16]) {
    const status = l.range.versions[v];
    if (!status) out.push(`v${v}: neither read nor said to be unreadable`);
    else if (/^(read|partly read)/.test(status) && !all.some((e) => e.version === v))
      out.push(`v${v}: ${status.split(":")[0]}, but no entry`);
  }
  return out;
}

/**
 * A touching row names `path > title`, that spec file exists and holds that title, and it names the row (a
 * `// Ledger row <id>` comment at the test), so a reader of the test finds the upstream change it holds.
 */
function testProblems(e: Entry): string[] {
  const m = /^(tests\/[\w/.-]+\.spec\.ts) > (.+)$/.exec(e.test ?? "");
  if (!m) return [`${e.id}: touches ${(e.touches ?? []).join(", ")} but names no test ("<spec file> > <title>")`];
  const file = path.join(ROOT, m[1]);
  if (!fs.existsSync(file)) return [`${e.id}: names ${m[1]}, which does not exist`];
  const text = fs.readFileSync(file, "utf8");
  if (!text.includes(m[2])) return [`${e.id}: ${m[1]} has no test "${m[2]}"`];
  return text.includes(`Ledger row ${e.id}`)
    ? []
    : [`${e.id}: ${m[1]} does not name the row ("// Ledger row ${e.id}")`];
}

describe("contracts: Dynamo's release notes as a ledger (facts/dynamo-release-ledger.json)", () => {
  it("the range runs from the seed's version to the release dynamo-1.6 deploys, each version read or said unreadable", () => {
    assert.equal(L.range.through, release("dynamo-1.6").dynamo.version);
    assert.ok(num(L.range.from) > num(release("seed").dynamo.version), "the seed's own version is not a change");
    for (const v of RANGE_16) assert.match(L.range.versions[v], /^(not readable|partly read)\b/, v);
    assert.match(L.range.versions["1.6.0"], /docs corpus .*newest read: [0-9a-f]{8}/, "says which copies were read");
    assert.ok(L.entries.length >= 130, `${L.entries.length} entries`);
  });

  it("every entry of the range has a row, each release holds its published count, and each touching row names its test", () => {
    assert.deepEqual(ledgerProblems(L), []);
  });

  it("fails when an entry has no row, when an entry is dropped, and when a touching row names no test", () => {
    const [first, ...rest] = L.entries;
    const noRow = { ...L, entries: [{ ...first, touches: null, decision: null }, ...rest] };
    assert.match(ledgerProblems(noRow).join("\n"), new RegExp(`${first.id}: no row`));
    const dropped = {
      ...L,
      entries: L.entries.filter((e) => e.id !== L.entries.find((x) => x.version === "1.4.0")!.id),
    };
    assert.match(ledgerProblems(dropped).join("\n"), /v1\.4\.0: 50 entries, the release published 51/);
    const touching = L.entries.find((e) => (e.touches ?? []).length > 0)!;
    const untested = { ...L, entries: L.entries.map((e) => (e.id === touching.id ? { ...e, test: undefined } : e)) };
    assert.match(ledgerProblems(untested).join("\n"), /names no test/);
    const wrong = {
      ...L,
      entries: L.entries.map((e) => (e.id === touching.id ? { ...e, test: `${touching.test}x` } : e)),
    };
    assert.match(ledgerProblems(wrong).join("\n"), /has no test/);
    const renamed = {
      ...L,
      entries: L.entries.map((e) => (e.id === touching.id ? { ...e, id: `${touching.id}-renamed` } : e)),
    };
    assert.match(ledgerProblems(renamed).join("\n"), /does not name the row/);
    const notes = L.releaseNoteEntries ?? [];
    assert.ok(notes.length > 0, "v1.6.1's breaking change, from its release notes");
    const partly = { ...L, releaseNoteEntries: [] };
    assert.match(ledgerProblems(partly).join("\n"), /v1\.6\.1: partly read, but no entry/);
    const unsourced = { ...L, releaseNoteEntries: notes.map((e) => ({ ...e, source: undefined })) };
    assert.match(ledgerProblems(unsourced).join("\n"), /names no source/);
    const undecided = { ...L, releaseNoteEntries: notes.map((e) => ({ ...e, decision: null })) };
    assert.match(ledgerProblems(undecided).join("\n"), new RegExp(`${notes[0].id}: no row`));
  });

  it("every ledger PR the release data cites is a row that touches what this package renders", () => {
    const data = ["dynamo-1-6.ts", "seed.ts", "types.ts"]
      .map((f) => fs.readFileSync(path.join(ROOT, "components", "releases", f), "utf8"))
      .join("\n");
    const cited = new Set([...data.matchAll(/(?<![\w/])#(\d{4,5})\b/g)].map((m) => Number(m[1])));
    const rows = L.entries.filter((e) => e.prs.some((p) => cited.has(p)));
    assert.ok(rows.length >= 4, rows.map((e) => e.id).join(", "));
    for (const e of rows) assert.ok((e.touches ?? []).length > 0, `${e.id} is cited by the release data`);
  });
});

describe("contracts: what the ledger's rows hold (tests the rows name)", () => {
  for (const rel of Object.keys(RELEASES) as ReleaseId[])
    for (const backend of ["vllm", "trtllm"] as Backend[]) {
      const r = resolved("p5en-8x1gpu", backend, { release: rel });
      const g = renderGraph(r, IMAGE);
      const workers = [GraphService.Prefill, GraphService.Decode].map((k) => g.spec.services[k]);
      // Ledger row 1.3.0:disaggregation-mode-default-changed-to-agg-prefill-and-decode (#10690).
      // Ledger row 1.4.0:removed-the-deprecated-vllm-worker-role-flags (#12089).
      it(`${rel} ${backend}: workers pass --disaggregation-mode prefill|decode, never a removed role flag`, () => {
        assert.deepEqual(
          workers.map((w) => argValue(w, "--disaggregation-mode")),
          ["prefill", "decode"],
        );
        for (const w of workers)
          assert.ok(!(mainOf(w).args ?? []).some((a) => /^--is-(prefill|decode)-worker$/.test(a)));
      });
      // Ledger row 1.5.0:worker-liveness-probe-failurethreshold-default-raised-from-1-to (#13512).
      it(`${rel} ${backend}: workers state their liveness probe (/live on the system port, failureThreshold 3)`, () => {
        for (const w of workers)
          assert.deepEqual(
            [w.livenessProbe?.httpGet?.path, w.livenessProbe?.httpGet?.port, w.livenessProbe?.failureThreshold],
            ["/live", "system", 3],
          );
      });
      // Ledger row 1.5.0:componenttype-type-fields-are-now-immutable-after-being-set (#13763).
      it(`${rel} ${backend}: each service keeps one type for its name`, () => {
        const types = (x: unknown) =>
          "components" in (x as V1beta1Graph).spec
            ? Object.fromEntries((x as V1beta1Graph).spec.components.map((c) => [c.name, c.type]))
            : Object.fromEntries(
                Object.entries(g.spec.services).map(([k, s]) => [k, s.subComponentType ?? s.componentType]),
              );
        assert.deepEqual(types(deployedForm(r, g)), {
          [GraphService.Frontend]: "frontend",
          [GraphService.Prefill]: "prefill",
          [GraphService.Decode]: "decode",
        });
      });
      if (backend === "vllm")
        // Ledger row Unreleased:vllm-ignores-dyn-connector (#12611).
        it(`${rel}: vLLM workers choose their connector by --kv-transfer-config, never DYN_CONNECTOR`, () => {
          for (const w of workers) {
            assert.match(argValue(w, "--kv-transfer-config"), /"kv_connector":"NixlConnector"/);
            assert.equal(envOf(w).DYN_CONNECTOR, undefined);
          }
        });
    }

  // Ledger row 1.5.0:runtimeversionoverride-now-participates-in-worker-hash-and-can-trigger (#12633).
  it("runtimeVersionOverride is the release's runtime version, the one its images are tagged with", () => {
    const rel = release("dynamo-1.6");
    assert.equal(rel.graph.runtimeVersionOverride?.version, rel.dynamo.version);
    for (const e of [rel.engines.vllm, rel.engines.trtllm])
      assert.ok(e.vendorImage?.tag.startsWith(`${rel.dynamo.version}-`), e.vendorImage?.tag);
  });

  // Ledger row 1.4.0:event-plane-subjects-keys-are-now-endpoint-scoped-with (#11841).
  it("the Frontend and the workers run the release's one Dynamo version", () => {
    const rel = release("dynamo-1.6");
    assert.equal(rel.frontendImage?.tag, rel.dynamo.version);
    for (const e of [rel.engines.vllm, rel.engines.trtllm])
      assert.equal(e.vendorImage?.tag.split("-")[0], rel.frontendImage?.tag);
  });

  // Ledger row 1.2.0:cuda-12-containers-discontinued-in-v1-3-0.
  // Ledger row 1.3.0:cuda-12-container-images-removed-cuda-13-only.
  it("dynamo-1.6 deploys CUDA 13 images (CUDA 12 images end with 1.2.x)", () => {
    const rel = release("dynamo-1.6");
    for (const e of [rel.engines.vllm, rel.engines.trtllm])
      assert.match(e.vendorImage?.cudaToolkit?.version ?? "", /^13\./);
  });
});
