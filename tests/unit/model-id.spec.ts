/**
 * One model-id rule for the render and the prefetch (components/inference/validate.ts is the source; the Python
 * script carries the same expressions): the Python literals equal the TypeScript ones, and both accept and refuse
 * the same ids and revisions, run over one list of cases in one python3 process.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as path from "path";
import { MODEL_ID_RULE, modelIdProblem, REVISION_RULE, validate } from "../../components/inference/validate";
import { modelCacheDir, NODE_CACHE_MOUNT, PREFETCH_SCRIPT } from "../../components/inference/cache";
import { renderWorker } from "../../components/inference/graph";
import { ServingRole } from "../../components/inference/args";
import type { InferenceSettings } from "../../components/inference";
import { argValue, IMAGE, mainOf, MODEL, pool, resolved } from "../helpers/inference-fixtures";

const SCRIPT = path.join(__dirname, "..", "..", "components", "inference", "prefetch", "prefetch.py");

const IDS: readonly [string, boolean][] = [
  ["meta-llama/Llama-3.1-8B-Instruct", true],
  ["deepseek-ai/DeepSeek-R1", true],
  ["Qwen/Qwen3-235B-A22B", true],
  ["a/b", true],
  ["_org/_name_", true],
  ["org/sub/name", false],
  ["/models/llama", false],
  ["./llama", false],
  ["../etc", false],
  ["llama", false],
  ["org/", false],
  ["/name", false],
  ["org/na--me", false],
  ["org/na..me", false],
  ["org/-name", false],
  ["org/name.", false],
  ["org/name\n", false],
  ["org /name", false],
  ["org/naïve", false],
  [`org/${"x".repeat(96)}`, true],
  [`org/${"x".repeat(97)}`, false],
  ["", false],
];
const REVISIONS: readonly [string, boolean][] = [
  ["main", true],
  ["0123456789abcdef0123456789abcdef01234567", true],
  ["v1.0", true],
  ["refs/pr/1", false],
  ["..", false],
  ["-x", false],
  ["", false],
];

/** The source of `NAME = re.compile(r"...")` in the script. */
function pythonRule(name: string): string {
  const m = new RegExp(`^${name} = re\\.compile\\(r"(.+)"\\)$`, "m").exec(PREFETCH_SCRIPT);
  assert.ok(m, `prefetch.py has no ${name} = re.compile(r"...")`);
  return m[1];
}

/** What the script's own expressions say of each case (one python3 run). */
function pythonVerdicts(ids: readonly string[], revisions: readonly string[]): { ids: boolean[]; revs: boolean[] } {
  const code = [
    "import importlib.util, json, sys",
    `spec = importlib.util.spec_from_file_location("prefetch", ${JSON.stringify(SCRIPT)})`,
    "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)",
    "cases = json.load(sys.stdin)",
    "print(json.dumps({'ids': [bool(m.MODEL_ID_RULE.fullmatch(x)) for x in cases['ids']], 'revs': [bool(m.REVISION_RULE.fullmatch(x)) for x in cases['revs']]}))",
  ].join("\n");
  const r = spawnSync("python3", ["-c", code], { input: JSON.stringify({ ids, revs: revisions }), encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { ids: boolean[]; revs: boolean[] };
}

describe("model id rule: one for the render and the prefetch", () => {
  it("the script's MODEL_ID_RULE and REVISION_RULE are the TypeScript expressions, character for character", () => {
    // JS escapes "/" in a literal; Python's raw string does not need to.
    assert.equal(pythonRule("MODEL_ID_RULE"), MODEL_ID_RULE.source.replace(/\\\//g, "/"));
    assert.equal(pythonRule("REVISION_RULE"), REVISION_RULE.source);
  });

  it("both accept and refuse the same ids and revisions (the expected verdict of each case too)", function () {
    const py = pythonVerdicts(
      IDS.map(([id]) => id),
      REVISIONS.map(([r]) => r),
    );
    IDS.forEach(([id, ok], i) => {
      assert.equal(MODEL_ID_RULE.test(id), ok, `TS: ${JSON.stringify(id)}`);
      assert.equal(py.ids[i], ok, `Python: ${JSON.stringify(id)}`);
    });
    REVISIONS.forEach(([rev, ok], i) => {
      assert.equal(REVISION_RULE.test(rev), ok, `TS: ${JSON.stringify(rev)}`);
      assert.equal(py.revs[i], ok, `Python: ${JSON.stringify(rev)}`);
    });
  });

  it("the render's reason names the rule and the likely fix", () => {
    assert.match(modelIdProblem("org/sub/name")!, /exactly one "\/" \(did you mean "sub\/name"\?\)/);
    assert.match(modelIdProblem("/models/llama")!, /a local path is not a model id/);
    assert.match(modelIdProblem("llama")!, /names its organization/);
    assert.equal(modelIdProblem("meta-llama/Llama-3.1-8B-Instruct"), undefined);
  });
});

describe("inference.model and inference.modelRevision at render (validate, engines, prefetch)", () => {
  const NVME = { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } };
  const COMMIT = "0123456789abcdef0123456789abcdef01234567";
  const problemsAt = (over: Partial<InferenceSettings>, backend: "vllm" | "trtllm" = "vllm") =>
    validate(resolved("p5en-1gpu", backend, over), true, "inference").map((p) => `${p.propertyPath}: ${p.reason}`);

  it("every id the prefetch refuses is a render error at inference.model", () => {
    for (const [id, ok] of IDS) {
      if (id === "" || ok) continue;
      const ps = problemsAt({ model: id }).filter((p) => p.startsWith("inference.model:"));
      assert.equal(ps.length, 1, `${JSON.stringify(id)}: ${ps.join("; ")}`);
      assert.match(ps[0], /must be a Hugging Face model id "org\/name"/);
    }
    assert.deepEqual(problemsAt({ model: MODEL }), []);
  });

  it("a bad revision is an error; a pinned one with TRT-LLM that downloads itself is an error naming local-nvme", () => {
    assert.match(
      problemsAt({ modelRevision: "refs/pr/1" }).join("\n"),
      /inference\.modelRevision: must be a 40-hex commit/,
    );
    assert.match(
      problemsAt({ modelRevision: COMMIT, modelCacheMode: "none" }, "trtllm").join("\n"),
      /inference\.modelRevision: .*dynamo\.trtllm's --revision belongs to its diffusion worker only\. Use modelCacheMode "local-nvme"/,
    );
    assert.deepEqual(problemsAt({ modelRevision: COMMIT, modelCacheMode: "none" }), []);
  });

  it("vLLM downloading itself gets --revision; with local-nvme the prefetch gets MODEL_REVISION and --model is that revision's directory", () => {
    const none = renderWorker(resolved("p5en-1gpu", "vllm", { modelRevision: COMMIT }), ServingRole.Prefill, IMAGE);
    assert.equal(argValue(none, "--revision"), COMMIT);
    const dflt = renderWorker(resolved("p5en-1gpu", "vllm"), ServingRole.Prefill, IMAGE);
    assert.equal(mainOf(dflt).args?.includes("--revision"), false, "main is the engine's own default");
    for (const backend of ["vllm", "trtllm"] as const) {
      const r = resolved("p5en-1gpu", backend, {
        modelRevision: COMMIT,
        modelCacheMode: "local-nvme",
        gpuPool: pool("p5en.48xlarge", 1, true, NVME),
      });
      const w = renderWorker(r, ServingRole.Decode, IMAGE);
      assert.equal(argValue(w, "--model"), modelCacheDir(NODE_CACHE_MOUNT, MODEL, COMMIT));
      assert.equal(mainOf(w).args?.includes("--revision"), false, "the engine loads a local directory offline");
      const prefetch = w.extraPodSpec?.initContainers?.find((c) => c.name === "model-prefetch");
      assert.equal(prefetch?.env?.find((e) => e.name === "MODEL_REVISION")?.value, COMMIT);
    }
  });
});
