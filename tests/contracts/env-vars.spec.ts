/**
 * Every FI_*, NIXL_*, VLLM_*, TRTLLM_* and UCX_* variable the project sets -- in every rendered graph of both
 * stacks, the golden inference graphs, and the image's ENV lines -- is read by the upstream version we pin
 * (facts/env-*.json). A name nothing reads is a knob that silently does nothing (F3, F13; FI_EFA_ENABLE_SHM).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { envProperties } from "../helpers/dockerfile";
import { fakeCheckout } from "../helpers/fake-checkout";
import { envFactFiles, envVerdict } from "./env-contract";
import { extractEnv } from "./extract/env-vars";
import { at, recordAt } from "./json";
import { envNames, renderedDgds } from "./rendered";

const DOCKERFILE = path.join(__dirname, "..", "..", "dockerfiles", "Dockerfile.dynamo-combined-efa");

interface Setting {
  readonly source: string;
  readonly name: string;
}

/** The settings whose name the pinned upstream does not read, with why. */
function dead(settings: readonly Setting[]): string[] {
  return settings.flatMap((s) => {
    const v = envVerdict(s.name);
    return v.checked && !v.read
      ? [`${s.source}: ${v.reason}${v.suggestion ? `; did you mean ${v.suggestion}?` : ""}`]
      : [];
  });
}

function dockerfileEnv(text: string, source: string): Setting[] {
  return envProperties(text).map((p) => ({ source: `${source}:${p.line + 1}`, name: p.name }));
}

describe("contract: env vars we set are read by the pinned upstream", function () {
  this.timeout(120000);
  let graphs: Setting[] = [];
  before(async () => {
    graphs = (await renderedDgds()).flatMap((d) =>
      envNames(d.obj).map((e) => ({ source: `${d.source} ${e.path}`, name: e.name })),
    );
  });

  it("every checked name in every rendered and golden graph is read", () => {
    assert.ok(
      graphs.some((s) => s.name.startsWith("FI_")),
      "the graphs set FI_* variables; none found means the walk is broken",
    );
    assert.deepEqual(dead(graphs), []);
  });

  it("every checked name in the image's ENV lines is read (dockerfile-ast)", () => {
    const env = dockerfileEnv(fs.readFileSync(DOCKERFILE, "utf8"), "Dockerfile.dynamo-combined-efa");
    assert.ok(
      env.some((s) => s.name === "NIXL_PLUGIN_DIR"),
      "ENV parse found no NIXL_PLUGIN_DIR",
    );
    assert.deepEqual(dead(env), []);
  });

  it("the facts hold what the field found: FI_EFA_ENABLE_SHM is dead (did you mean ..._TRANSFER), the NIXL rail knobs are dead", () => {
    const shm = envVerdict("FI_EFA_ENABLE_SHM");
    assert.ok(
      shm.checked &&
        !shm.read &&
        /^ofiwg\/libfabric v2\.3\.0 \(ea52cb54c\) does not read FI_EFA_ENABLE_SHM$/.test(shm.reason) &&
        shm.suggestion === "FI_EFA_ENABLE_SHM_TRANSFER",
      JSON.stringify(shm),
    );
    for (const live of [
      "FI_EFA_ENABLE_SHM_TRANSFER",
      "FI_EFA_USE_DEVICE_RDMA",
      "FI_PROVIDER",
      "NIXL_PLUGIN_DIR",
      "VLLM_NIXL_SIDE_CHANNEL_PORT",
      "TRTLLM_NIXL_KVCACHE_BACKEND",
      "UCX_TLS",
      "UCX_IB_GPU_DIRECT_RDMA",
    ]) {
      const v = envVerdict(live);
      assert.ok(v.checked && v.read, live);
    }
    for (const deadName of [
      "NIXL_LIBFABRIC_MAX_RAILS",
      "NIXL_SKIP_TOPOLOGY_CHECK",
      "NIXL_BACKEND",
      "VLLM_NIXL_KVCACHE_BACKEND",
      "FI_EFA_MTU_SIZE",
      "UCX_NOT_A_FIELD",
    ]) {
      const v = envVerdict(deadName);
      assert.ok(v.checked && !v.read, deadName);
    }
    assert.deepEqual(envVerdict("HF_TOKEN"), { checked: false });
  });

  it("the policy reads the env fact files of this folder, each with a complete provenance block and its own prefix", () => {
    const files = envFactFiles();
    assert.deepEqual(
      files.map((f) => path.relative(path.join(__dirname, "facts"), f.path)),
      files.map((f) => `env-${f.project}.json`),
    );
    const prefixes = files.map((f) => f.file.facts.prefix);
    assert.deepEqual(prefixes, ["FI_", "NIXL_", "VLLM_", "TRTLLM_", "UCX_"]);
    // Disjoint: the verdict takes the first file whose prefix matches, so no prefix may start another.
    for (const a of prefixes)
      assert.deepEqual(
        prefixes.filter((b) => b !== a && b.startsWith(a)),
        [],
        a,
      );
  });

  it("mutation: a dead variable added to a rendered graph or an ENV line fails", async () => {
    const [first] = await renderedDgds();
    const g = structuredClone(first.obj);
    // The default release (dynamo-1.6) renders v1beta1: spec.components[].podTemplate.spec.containers[].env.
    assert.equal(at(g, "apiVersion"), "nvidia.com/v1beta1", first.source);
    const components = at(g, "spec", "components");
    assert.ok(Array.isArray(components) && components.length > 0, `${first.source}: no spec.components`);
    const containers = at(components[0], "podTemplate", "spec", "containers");
    assert.ok(Array.isArray(containers) && containers.length > 0, `${first.source}: no containers`);
    const main = recordAt(containers[0]);
    main.env = [
      ...(Array.isArray(main.env) ? main.env : []),
      { name: "NIXL_LIBFABRIC_MAX_RAILS", value: "1" },
      { name: "FI_EFA_ENABLE_SHM_TRANSFR", value: "0" },
    ];
    const problems = dead(envNames(g).map((e) => ({ source: e.path, name: e.name })));
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(problems[1], /did you mean FI_EFA_ENABLE_SHM_TRANSFER\?/);
    assert.deepEqual(dead(dockerfileEnv("FROM x\nENV VLLM_NOT_REAL=1 UCX_TLS=rc\n", "mutant")).length, 1);
  });

  it("the extractor rules read a checkout: fi_param_define names, getenv through constants, UCX tables", () => {
    const { root, put, remove } = fakeCheckout("env-extract-");
    try {
      put("prov/efa/src/efa_prov.c", 'struct fi_provider efa_prov = {\n\t.name = "efa",\n};\n');
      put(
        "prov/efa/src/efa_env.c",
        'char *abort_deprecated_env_vars[] = {"FI_EFA_MTU_SIZE"};\nfi_param_define(&efa_prov, "enable_shm_transfer", FI_PARAM_INT,\n "x");\nfi_param_define(&efa_prov, "mtu_size", FI_PARAM_INT, "x");\n',
      );
      put("src/fabric.c", 'fi_param_define(NULL, "provider", FI_PARAM_STRING, "x");\n');
      assert.deepEqual(extractEnv("libfabric", root), {
        prefix: "FI_",
        names: { FI_EFA_ENABLE_SHM_TRANSFER: ["prov/efa/src/efa_env.c"], FI_PROVIDER: ["src/fabric.c"] },
        deprecated: ["FI_EFA_MTU_SIZE"],
      });
      put("src/a.h", 'constexpr char dirVar[] = "NIXL_TELEMETRY_DIR";\n');
      put(
        "src/a.cpp",
        'auto d = std::getenv(dirVar);\nif (getenv("NIXL_PLUGIN_DIR")) {}\nconst char* s = "NIXL_ERR_BACKEND";\n',
      );
      put("src/test/b.cpp", 'getenv("NIXL_ONLY_IN_TESTS");\n');
      assert.deepEqual(Object.keys((extractEnv("nixl", root) as { names: object }).names), [
        "NIXL_PLUGIN_DIR",
        "NIXL_TELEMETRY_DIR",
      ]);
      put(
        "src/uct/ib/ib_iface.c",
        'ucs_config_field_t uct_ib_iface_config_table[] = {\n  {"GPU_DIRECT_RDMA", "try", "doc", 0, UCS_CONFIG_TYPE_TERNARY},\n  {NULL}\n};\nUCT_TL_DEFINE(x, "IB_", y);\n',
      );
      assert.deepEqual(extractEnv("ucx", root), {
        prefix: "UCX_",
        fields: ["GPU_DIRECT_RDMA"],
        tablePrefixes: ["IB_"],
      });
    } finally {
      remove();
    }
  });
});
