/**
 * Contract tests of dockerfiles/Dockerfile.dynamo-combined-efa with a real parser (dockerfile-ast) and
 * linter (dockerfile-utils): the field defects F10/F11 (undeclared build args, wrong arch lists),
 * unpinned images, no-op env vars and baked SSH keys must be impossible to reintroduce silently.
 */
import * as assert from "assert";
import { readFileSync } from "fs";
import { join } from "path";
import { DockerfileParser, Dockerfile } from "dockerfile-ast";
import { validate, ValidationSeverity } from "dockerfile-utils";
import { image as imageVersions } from "../../components/versions";
import { DOCKERFILE_STAGES, PASSABLE_BUILD_ARGS, VERSION_ARGS } from "../../components/image/build-args";
import { declaredArgs, stageNames } from "../../components/image/dockerfile";
import { argProperties, fromReferences } from "../helpers/dockerfile";
import { DEFAULT_CUDA_TOOLKIT, consumerArchLists, fatArchs } from "../../components/catalog";
import { NGC_PYTORCH_TORCH } from "../../components/catalog/archs";
import { valueOf } from "../../components/_shared/problems";

const DIR = join(__dirname, "..", "..", "dockerfiles");
const TEXT = readFileSync(join(DIR, "Dockerfile.dynamo-combined-efa"), "utf8");
const README = readFileSync(join(DIR, "README.md"), "utf8");
const LINES = TEXT.split("\n");
const df: Dockerfile = DockerfileParser.parse(TEXT);

interface ArgDecl {
  name: string;
  value: string | null;
  line: number;
  stage: string | undefined;
}
interface StageSpan {
  name: string;
  start: number;
  end: number;
}

const froms = df.getFROMs();
const stages: StageSpan[] = froms.map((f, i) => ({
  name: f.getBuildStage() ?? `#${i}`,
  start: f.getRange().start.line,
  end: i + 1 < froms.length ? froms[i + 1].getRange().start.line - 1 : LINES.length - 1,
}));
const stageAt = (line: number) => stages.find((s) => line >= s.start && line <= s.end)?.name;

const args: ArgDecl[] = argProperties(df).map((a) => ({ ...a, stage: stageAt(a.line) }));
const globalDefaults = new Map(args.filter((a) => a.stage === undefined).map((a) => [a.name, a.value ?? ""]));

/** Expands `${NAME}` / `$NAME` with the global ARG defaults (how BuildKit resolves FROM lines). */
function expand(s: string): string {
  return s.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, n: string) => globalDefaults.get(n) ?? `<undefined ${n}>`);
}
const code = (line: string) => !line.trimStart().startsWith("#");
const refersTo = (line: string, name: string) => new RegExp(`\\$\\{?${name}(?![A-Za-z0-9_])`).test(line);

function isPinnedImage(ref: string): boolean {
  if (/@sha256:[0-9a-f]{64}$/.test(ref)) return true;
  const m = /^[^@]+:([A-Za-z0-9_.-]+)$/.exec(ref);
  return !!m && m[1] !== "latest";
}

describe("Dockerfile.dynamo-combined-efa contract", () => {
  it("has exactly the stages of build-args.ts, in order", () => {
    assert.deepStrictEqual(
      froms.map((f) => f.getBuildStage()),
      [...DOCKERFILE_STAGES],
    );
  });

  it("the run-time stage reader agrees with dockerfile-ast", () => {
    assert.deepStrictEqual(
      stageNames(TEXT),
      froms.map((f) => f.getBuildStage()),
    );
    assert.deepStrictEqual([...declaredArgs(TEXT)].sort(), [...new Set(args.map((a) => a.name))].sort());
  });

  it("passes the dockerfile-utils linter with no errors or warnings", () => {
    const diags = validate(TEXT).filter(
      (d) => d.severity === ValidationSeverity.ERROR || d.severity === ValidationSeverity.WARNING,
    );
    assert.deepStrictEqual(
      diags.map((d) => `${d.range.start.line + 1}: ${d.message}`),
      [],
    );
  });

  it("every COPY --from / --mount from names an earlier stage or a tag-pinned image", () => {
    const refs = fromReferences(df);
    assert.ok(refs.length >= 10, `expected many cross-stage references, found ${refs.length}`);
    for (const { ref, line } of refs) {
      const earlier = stages.filter((s) => s.start < line).map((s) => s.name);
      const ok = earlier.includes(ref) && stageAt(line) !== ref;
      assert.ok(
        ok || isPinnedImage(expand(ref)),
        `line ${line + 1}: from=${ref} is neither an earlier stage nor a tag-pinned image`,
      );
    }
  });

  it("every FROM image is pinned by tag after expanding ARG defaults, and nothing says :latest", () => {
    for (const f of froms) {
      const img = expand(f.getImage() ?? "");
      if ((DOCKERFILE_STAGES as readonly string[]).includes(img)) continue;
      assert.ok(isPinnedImage(img), `FROM ${f.getImage()} expands to ${img}, not tag-pinned`);
    }
    const latest = LINES.map((l, i) => [l, i] as const).filter(([l]) => code(l) && /:latest\b/.test(expand(l)));
    assert.deepStrictEqual(
      latest.map(([, i]) => i + 1),
      [],
    );
  });

  it("the per-consumer arch ARG defaults equal the catalog's fat (linux/amd64) lists for the toolkit and torch", () => {
    assert.strictEqual(imageVersions.cudaToolkit, DEFAULT_CUDA_TOOLKIT);
    const torch = NGC_PYTORCH_TORCH[imageVersions.pytorchImageTag].torch;
    const lists = valueOf(
      "fat list",
      consumerArchLists(fatArchs(DEFAULT_CUDA_TOOLKIT), { toolkit: DEFAULT_CUDA_TOOLKIT, torch }, "fat"),
    );
    const want: Record<string, string> = {
      NVCC_GENCODE: lists.nvcc,
      TORCH_CUDA_ARCH_LIST: lists.torch,
      FLASHINFER_CUDA_ARCH_LIST: lists.flashinfer,
      EP_KERNELS_CUDA_ARCH_LIST: lists.epKernels,
    };
    for (const [name, value] of Object.entries(want)) {
      const decls = args.filter((a) => a.name === name);
      assert.ok(decls.length >= 2, `${name} is declared in the compile stage and in final`);
      for (const d of decls) assert.strictEqual(d.value, value, `${d.stage} ARG ${name}`);
    }
  });

  it("every build arg the component or image:args can pass is declared", () => {
    const declared = new Set(args.map((a) => a.name));
    assert.deepStrictEqual(
      PASSABLE_BUILD_ARGS.filter((a) => !declared.has(a)),
      [],
    );
  });

  it("every ARG is used after its declaration, within its stage (global ARGs: in a FROM or redeclared)", () => {
    const unused: string[] = [];
    for (const a of args) {
      if (a.stage === undefined) {
        const inFrom = froms.some((f) => refersTo(f.getImage() ?? "", a.name));
        if (!inFrom && !args.some((b) => b.stage !== undefined && b.name === a.name)) unused.push(a.name);
        continue;
      }
      const span = stages.find((s) => s.name === a.stage)!;
      const used = LINES.slice(a.line + 1, span.end + 1).some((l) => code(l) && refersTo(l, a.name));
      if (!used) unused.push(`${a.stage}:${a.name}`);
    }
    assert.deepStrictEqual(unused, []);
  });

  it("every version ARG default equals components/versions.ts `image`, in every stage that declares it", () => {
    const byArg = new Map(
      Object.entries(VERSION_ARGS).map(([k, arg]) => [arg, (imageVersions as Record<string, string>)[k]]),
    );
    const checked = new Set<string>();
    for (const a of args) {
      const want = byArg.get(a.name);
      if (want === undefined || a.value === null) continue;
      assert.strictEqual(a.value, want, `${a.stage ?? "global"} ARG ${a.name}=${a.value}, versions.ts says ${want}`);
      checked.add(a.name);
    }
    assert.deepStrictEqual(
      [...byArg.keys()].filter((k) => !checked.has(k)),
      [],
      "version ARGs without a default in the Dockerfile",
    );
  });

  it("final stage: non-root USER, entrypoint, SBOM files and an OCI label per version", () => {
    const finalSpan = stages.find((s) => s.name === "final")!;
    const finalText = LINES.slice(finalSpan.start, finalSpan.end + 1).join("\n");
    const users = df
      .getInstructions()
      .filter((i) => i.getKeyword() === "USER" && stageAt(i.getRange().start.line) === "final");
    const lastUser = expand(users.at(-1)?.getArgumentsContent() ?? "root").replace(/\$\{?DYNAMO_UID\}?/, "1000");
    assert.ok(!/^(root|0)(:|$)/.test(lastUser), `final USER is ${lastUser}`);
    assert.match(finalText, /ENTRYPOINT \["\/usr\/local\/bin\/dynamo-entrypoint"\]/);
    assert.match(finalText, /> \/SBOM\.txt/);
    assert.match(finalText, /> \/THIRD-PARTY-LICENSES/);
    const labels = df
      .getInstructions()
      .filter((i) => i.getKeyword() === "LABEL")
      .map((i) => i.getTextContent())
      .join("\n");
    const unlabelled = Object.values(VERSION_ARGS).filter(
      (arg) => arg !== "TENSORRTLLM_INDEX_URL" && !refersTo(labels, arg),
    );
    assert.ok(refersTo(labels, "EP_KERNELS_CUDA_ARCH_LIST"));
    assert.deepStrictEqual(unlabelled, []);
  });

  it("the entrypoint selects the engine's environment, and is also the python3 first on PATH", () => {
    const ep = readFileSync(join(DIR, "dynamo-entrypoint.sh"), "utf8");
    assert.match(ep, /vllm \| trtllm\)/);
    assert.match(ep, /run_python -m "dynamo\.\$\{engine\}"/);
    assert.match(ep, /exec "\$\{VIRTUAL_ENV\}\/bin\/python3" "\$@"/);
    assert.match(TEXT, /ln -sf \/usr\/local\/bin\/dynamo-entrypoint "\/opt\/dynamo\/bin\/\$\{name\}"/);
  });

  it("sets no no-op env var (F3, F13) and bakes no SSH server or key", () => {
    const live = LINES.filter(code).join("\n");
    for (const bad of [
      "NIXL_BACKEND",
      "VLLM_NIXL_KVCACHE_BACKEND",
      "NIXL_LIBFABRIC_MAX_RAILS",
      "NIXL_SKIP_TOPOLOGY_CHECK",
    ]) {
      assert.ok(!live.includes(bad), `${bad} is not read by NIXL/vLLM (F3, F13: docs/FIELD-FAILURES.md)`);
    }
    for (const bad of [/openssh-server/, /ssh-keygen/, /authorized_keys/, /id_(rsa|ecdsa|ed25519)/])
      assert.doesNotMatch(live, bad);
  });

  it("dockerfiles/README.md documents every ARG and every stage", () => {
    const missing = [...new Set(args.map((a) => a.name))].filter((n) => !README.includes(`\`${n}\``));
    assert.deepStrictEqual(missing, []);
    for (const s of DOCKERFILE_STAGES) assert.ok(README.includes(`\`${s}\``), `README lacks stage ${s}`);
  });
});
