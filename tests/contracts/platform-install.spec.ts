/**
 * The Dynamo platform is installed as upstream ships it since 1.0 (facts/dynamo-platform-install.json): one
 * `dynamo-platform` release from the published tarball, whose operator hook applies the CRDs; no
 * `dynamo-crds` chart (it has no release past 0.9.1, so pinning it to the platform version fails).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { charts } from "../../components/versions";
import { loadFacts } from "./facts";

interface PlatformFacts {
  chart: string;
  upgradeCRD: boolean;
  dgdCrdInChart: string | null;
  crdsChartInTree: boolean;
  tarballUrl: string;
}
const { facts } = loadFacts<PlatformFacts>("dynamo-platform-install");
const GOLDEN = path.join(__dirname, "..", "golden", "render");

/** `# chart: <name>  version: <v>  ... url: <url>` headers of rendered Helm values files. */
function releases(): { file: string; chart: string; version: string; url?: string }[] {
  return fs.readdirSync(GOLDEN).flatMap((stack) =>
    fs.readdirSync(path.join(GOLDEN, stack, "helm")).map((f) => {
      const head = fs.readFileSync(path.join(GOLDEN, stack, "helm", f), "utf8").split("\n")[1];
      const m = /^# chart: (\S+)\s+version: (\S+)(?:.*\burl: (\S+))?/.exec(head)!;
      return { file: `${stack}/helm/${f}`, chart: m[1], version: m[2], ...(m[3] ? { url: m[3] } : {}) };
    }),
  );
}

/** Problems of the rendered Dynamo releases against the facts. */
export function platformProblems(
  rels: readonly { file: string; chart: string; version: string; url?: string }[],
  f: PlatformFacts,
): string[] {
  const dynamo = rels.filter((r) => r.chart.startsWith("dynamo-"));
  const out = dynamo
    .filter((r) => r.chart !== f.chart)
    .map((r) => `${r.file}: chart ${r.chart} is not installed upstream since 1.0 (the CRDs ship in ${f.chart})`);
  for (const r of dynamo.filter((x) => x.chart === f.chart)) {
    const want = f.tarballUrl.replace("{version}", r.version);
    if (r.url !== want)
      out.push(`${r.file}: installed from ${r.url ?? "a repository index"}, not the published tarball ${want}`);
  }
  return out;
}

describe("contracts: the Dynamo platform release", () => {
  it("upstream ships the DGD CRD in dynamo-platform and applies it with the operator's hook; dynamo-crds is gone", () => {
    assert.deepEqual([facts.upgradeCRD, facts.dgdCrdInChart !== null, facts.crdsChartInTree], [true, true, false]);
  });

  it("versions.ts builds the published tarball URL", () => {
    assert.equal(charts.dynamoPlatform.tarballUrl("1.0.1"), facts.tarballUrl.replace("{version}", "1.0.1"));
  });

  it("both stacks render exactly one Dynamo release, dynamo-platform from its tarball", () => {
    const rels = releases();
    assert.equal(rels.filter((r) => r.chart.startsWith("dynamo-")).length, fs.readdirSync(GOLDEN).length);
    assert.deepEqual(platformProblems(rels, facts), []);
  });

  it("fails a dynamo-crds release and a platform installed from a repository index (mutations)", () => {
    const ok = {
      file: "s/helm/dynamo-platform.values.yaml",
      chart: "dynamo-platform",
      version: "1.0.1",
      url: facts.tarballUrl.replace("{version}", "1.0.1"),
    };
    assert.deepEqual(
      platformProblems([ok, { file: "s/helm/dynamo-crds.values.yaml", chart: "dynamo-crds", version: "1.0.1" }], facts),
      [
        "s/helm/dynamo-crds.values.yaml: chart dynamo-crds is not installed upstream since 1.0 (the CRDs ship in dynamo-platform)",
      ],
    );
    assert.deepEqual(platformProblems([{ ...ok, url: undefined }], facts), [
      `s/helm/dynamo-platform.values.yaml: installed from a repository index, not the published tarball ${ok.url}`,
    ]);
  });
});
