/**
 * The prefetch script's requests against the Hugging Face Hub API as huggingface_hub calls it
 * (facts/hf-hub-api.json): the listing and download URLs, the listing's JSON keys, the endpoint default and
 * override, and the offline switch the workers get. Checked on the script text the cluster runs.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { PREFETCH_SCRIPT, nodeCacheEnv } from "../../components/inference/cache";
import { HF_ENDPOINT } from "../../components/inference/hf-commit";
import { resolved, pool } from "../helpers/inference-fixtures";
import { accessOf } from "../../tools/measure/tokenizer";
import { loadFacts } from "./facts";

interface HfFacts {
  defaultEndpoint: string;
  endpointEnv: string;
  resolveUrl: string;
  modelRevisionUrl: string;
  blobsParam: boolean;
  listingKeys: {
    sha: boolean;
    shaIsRevisionCommit: boolean;
    siblingFile: string;
    siblingSize: string;
    siblingBlobId: string;
    siblingLfs: string;
    lfsSha256: string;
    lfsSize: string;
  };
  offlineEnv: string;
  modelInfoUrl: string;
  access: { gatedValues: (string | false)[]; gatedKey: string; privateKey: string };
}
const { facts } = loadFacts<HfFacts>("hf-hub-api");

/** The script's URL f-strings in the facts' placeholder form. */
function scriptUrls(script: string): { listing?: string; resolve?: string; blobs: boolean } {
  const norm = (u: string) =>
    u
      .replace("{c['endpoint']}", "{endpoint}")
      .replace("{c['model']}", "{repo_id}")
      .replace("{urllib.parse.quote(c['revision'])}", "{revision}")
      .replace("{sha}", "{revision}")
      .replace("{urllib.parse.quote(name)}", "{filename}");
  const urls = [...script.matchAll(/url = f"([^"]+)"/g)].map((m) => m[1]);
  const listing = urls.find((u) => u.includes("/api/"));
  const resolve = urls.find((u) => u.includes("/resolve/"));
  return {
    listing: listing && norm(listing.split("?")[0]),
    resolve: resolve && norm(resolve),
    blobs: /\?blobs=true/.test(listing ?? ""),
  };
}

/** Problems of a script text against the facts. */
export function hfProblems(script: string, f: HfFacts = facts): string[] {
  const out: string[] = [];
  const u = scriptUrls(script);
  if (u.listing !== f.modelRevisionUrl) out.push(`listing URL ${u.listing} is not ${f.modelRevisionUrl}`);
  if (u.resolve !== f.resolveUrl) out.push(`download URL ${u.resolve} is not ${f.resolveUrl}`);
  if (f.blobsParam && !u.blobs) out.push("the listing does not ask for blobs (file sizes)");
  if (!script.includes(`s["${f.listingKeys.siblingFile}"]`))
    out.push(`the script does not read siblings[].${f.listingKeys.siblingFile}`);
  if (!script.includes(`s.get("${f.listingKeys.siblingSize}")`))
    out.push(`the script does not read siblings[].${f.listingKeys.siblingSize}`);
  if (f.listingKeys.sha && !script.includes(`info.get("sha")`)) out.push("the script does not read the listing's sha");
  const k = f.listingKeys;
  if (!script.includes(`s.get("${k.siblingBlobId}")`))
    out.push(`the script does not verify files by siblings[].${k.siblingBlobId}`);
  if (!script.includes(`s.get("${k.siblingLfs}")`)) out.push(`the script does not read siblings[].${k.siblingLfs}`);
  if (!script.includes(`lfs["${k.lfsSha256}"]`) || !script.includes(`lfs["${k.lfsSize}"]`))
    out.push(`the script does not verify LFS files by ${k.siblingLfs}.${k.lfsSha256} and ${k.siblingLfs}.${k.lfsSize}`);
  if (!script.includes(`env.get("${f.endpointEnv}") or "${f.defaultEndpoint}"`))
    out.push(`the endpoint is not ${f.endpointEnv} with default ${f.defaultEndpoint}`);
  return out;
}

/** The program's one request (components/inference/hf-commit.ts) against the facts: the revision URL, its `sha`. */
export function commitProblems(source: string, f: HfFacts = facts): string[] {
  const out: string[] = [];
  const m =
    /new URL\(`\$\{q\.endpoint\}(\/api\/models\/)\$\{q\.model\}(\/revision\/)\$\{encodeURIComponent\(q\.revision\)\}`\)/.exec(
      source,
    );
  const url = m ? `{endpoint}${m[1]}{repo_id}${m[2]}{revision}` : undefined;
  if (url !== f.modelRevisionUrl) out.push(`the commit is asked at ${url}, not ${f.modelRevisionUrl}`);
  if (!f.listingKeys.sha || !f.listingKeys.shaIsRevisionCommit)
    out.push("the listing's sha is not documented as the revision's commit: a moving revision cannot be pinned by it");
  if (!/JSON\.parse\(text\) as \{ sha\?: unknown \} \| null\)\?\.sha/.test(source))
    out.push("the answer's sha is not what is read");
  return out;
}

const HF_COMMIT = fs.readFileSync(path.join(__dirname, "..", "..", "components", "inference", "hf-commit.ts"), "utf8");

describe("contract: the program resolves a moving revision with the hub's own revision endpoint", () => {
  it("the same URL as huggingface_hub's model_info, its sha (the revision's commit), the default endpoint", () => {
    assert.deepEqual(commitProblems(HF_COMMIT), []);
    assert.equal(HF_ENDPOINT, facts.defaultEndpoint);
  });

  it("mutations are caught: another path, another key, a sha not documented as the revision's commit", () => {
    assert.match(commitProblems(HF_COMMIT.replace("/revision/", "/tree/")).join(), /is asked at undefined/);
    assert.match(commitProblems(HF_COMMIT.replace(")?.sha;", ")?.oid;")).join(), /sha is not what is read/);
    const undocumented = { ...facts, listingKeys: { ...facts.listingKeys, shaIsRevisionCommit: false } };
    assert.match(commitProblems(HF_COMMIT, undocumented).join(), /cannot be pinned/);
  });
});

describe("contract: the prefetch speaks the Hugging Face Hub API (huggingface_hub)", () => {
  it("the script's URLs, listing keys and endpoint match the client's", () =>
    assert.deepEqual(hfProblems(PREFETCH_SCRIPT), []));

  it("local-nvme workers get the offline switch huggingface_hub reads", () => {
    const r = resolved("p5en-8x1gpu", "vllm", {
      modelCacheMode: "local-nvme",
      gpuPool: pool("p5en.48xlarge", 2, true, { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } }),
    });
    assert.deepEqual(nodeCacheEnv(r), [{ name: facts.offlineEnv, value: "1" }]);
  });

  it("mutations are caught: another listing path, a dropped blobs parameter, another sibling key", () => {
    const cases: [string, string, RegExp][] = [
      ["/api/models/", "/api/model/", /listing URL/],
      ["?blobs=true", "", /blobs/],
      ['s["rfilename"]', 's["filename"]', /siblings\[\]\.rfilename/],
      ["/resolve/", "/raw/", /download URL/],
      ['s.get("blobId")', 's.get("oid")', /siblings\[\]\.blobId/],
      ['lfs["sha256"]', 'lfs["oid"]', /lfs\.sha256/],
    ];
    for (const [from, to, expect] of cases) {
      const problems = hfProblems(PREFETCH_SCRIPT.replace(from, to));
      assert.ok(
        problems.some((p) => expect.test(p)),
        `${from} -> ${to}: ${problems.join("; ")}`,
      );
    }
  });

  it("measure reads the model info's access fields as the hub's client does: each gated value, private", () => {
    assert.equal(facts.modelInfoUrl, "{endpoint}/api/models/{repo_id}");
    for (const g of facts.access.gatedValues)
      assert.equal(accessOf(200, { [facts.access.gatedKey]: g, [facts.access.privateKey]: false }).token, g !== false);
    assert.equal(accessOf(200, { [facts.access.gatedKey]: false, [facts.access.privateKey]: true }).token, true);
  });
});
