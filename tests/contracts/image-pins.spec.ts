/**
 * The image's engine pins and arch rules against their upstream facts: Dynamo's pyproject at DYNAMO_REF pins exactly
 * the vLLM and TRT-LLM versions.ts ships, and the catalog's torch rows equal what torch's extension builder accepts
 * (source fact and the real torch on the device). Each check also rejects a skewed input.
 */
import * as assert from "assert";
import { readFileSync } from "fs";
import { join } from "path";
import { argDefaults } from "../helpers/dockerfile";
import { loadFacts } from "./facts";
import { DYNAMO_COMMIT, image } from "../../components/versions";
import { consumerArchLists, fatArchs } from "../../components/catalog";
import { TORCH_CUDA_ARCHS, NGC_PYTORCH_TORCH } from "../../components/catalog/archs";
import { valueOf } from "../../components/_shared/problems";

interface DynamoPins {
  projectVersion: string;
  trtllm: Record<string, string>;
  vllm: Record<string, string>;
}
interface TorchSource {
  torch: string;
  supportedArches: string[];
}
interface TorchDevice {
  torch: string;
  supportedArches: string[];
  lists: { list: string; accepted: boolean; error?: string }[];
  acceptedSingles: string[];
  rejectedSingles: string[];
}

const DOCKERFILE = readFileSync(join(__dirname, "..", "..", "dockerfiles", "Dockerfile.dynamo-combined-efa"), "utf8");

/** Why versions.ts / the Dockerfile disagree with Dynamo's pyproject at the pinned commit; empty when they agree. */
export function dynamoPinProblems(
  f: { provenance: { commit: string }; facts: DynamoPins },
  v: { commit: string; vllm: string; trtllm: string },
  dockerfile: string,
): string[] {
  const out: string[] = [];
  if (!/^[0-9a-f]{40}$/.test(v.commit)) out.push(`DYNAMO_COMMIT ${v.commit} is not a full 40-hex commit`);
  if (f.provenance.commit !== v.commit)
    out.push(`facts were read at ${f.provenance.commit}, versions.ts pins ${v.commit}`);
  if (f.facts.trtllm["tensorrt-llm"] !== v.trtllm)
    out.push(`Dynamo pins tensorrt-llm ${f.facts.trtllm["tensorrt-llm"]}, versions.ts ${v.trtllm}`);
  if (`v${f.facts.vllm.vllm}` !== v.vllm) out.push(`Dynamo pins vllm ${f.facts.vllm.vllm}, versions.ts ${v.vllm}`);
  const refs = argDefaults(dockerfile, "DYNAMO_REF");
  if (refs.length === 0 || refs.some((r) => r !== v.commit))
    out.push(`Dockerfile DYNAMO_REF defaults ${refs.join(", ")} != ${v.commit}`);
  if (/--branch "\$\{DYNAMO_REF\}"/.test(dockerfile))
    out.push("Dockerfile clones DYNAMO_REF with --branch, which cannot take a commit");
  return out;
}

/** Rows of the catalog that differ from the facts. */
function torchRowProblems(
  rows: readonly { torch: string; accepted: readonly string[] }[],
  facts: TorchSource[],
): string[] {
  return facts.flatMap((f) => {
    const row = rows.find((r) => r.torch === f.torch);
    return row && JSON.stringify([...row.accepted].sort()) === JSON.stringify([...f.supportedArches].sort())
      ? []
      : [`catalog row torch ${f.torch} != fact ${f.supportedArches.join(",")}`];
  });
}

describe("contract: Dynamo pyproject at DYNAMO_REF (ai-dynamo/dynamo)", () => {
  const f = loadFacts<DynamoPins>("dynamo-pyproject");
  const v = { commit: DYNAMO_COMMIT, vllm: image.vllm, trtllm: image.tensorrtLlm };

  it("pins exactly versions.ts's vLLM and TRT-LLM, and the Dockerfile fetches that full commit", () => {
    assert.deepStrictEqual(dynamoPinProblems(f, v, DOCKERFILE), []);
    assert.strictEqual(image.dynamo, DYNAMO_COMMIT);
  });

  it("rejects a skewed pin, a short ref and a branch clone (mutations)", () => {
    const skewed = { ...f, facts: { ...f.facts, vllm: { ...f.facts.vllm, vllm: "0.18.0" } } };
    assert.match(dynamoPinProblems(skewed, v, DOCKERFILE).join("\n"), /pins vllm 0\.18\.0/);
    assert.match(dynamoPinProblems(f, { ...v, commit: "f2fd3a16e" }, DOCKERFILE).join("\n"), /not a full 40-hex/);
    const tag = DOCKERFILE.replace(/^ARG DYNAMO_REF=\S+$/m, "ARG DYNAMO_REF=v1.0.1");
    assert.match(dynamoPinProblems(f, v, tag).join("\n"), /DYNAMO_REF defaults v1\.0\.1/);
    assert.match(
      dynamoPinProblems(f, v, `${DOCKERFILE}\nRUN git clone --branch "\${DYNAMO_REF}" x\n`).join("\n"),
      /--branch/,
    );
  });
});

describe("contract: torch's extension builder (TORCH_CUDA_ARCH_LIST)", () => {
  const source = loadFacts<TorchSource>("torch-cuda-archs");
  const device = loadFacts<TorchDevice>("torch-cuda-archs-device");
  const deviceMinor = device.facts.torch.split(".").slice(0, 2).join(".");
  const asFacts = [source.facts, { torch: deviceMinor, supportedArches: device.facts.supportedArches }];

  it("the catalog's rows equal the source fact (torch 2.10) and the device fact (torch 2.11)", () => {
    assert.deepStrictEqual(torchRowProblems(TORCH_CUDA_ARCHS, asFacts), []);
  });

  it("a catalog row that drifts from its fact is caught (mutation: 10.1 added back)", () => {
    const drifted = TORCH_CUDA_ARCHS.map((r) => (r.torch === "2.10" ? { ...r, accepted: [...r.accepted, "10.1"] } : r));
    assert.match(torchRowProblems(drifted, asFacts).join("\n"), /torch 2\.10/);
  });

  it("the device's real torch rejects the field's fat list with exactly the issue's error and accepts the new one", () => {
    const old = device.facts.lists.find((l) => l.list === "8.0;8.6;8.7;8.9;9.0;10.0;10.1;12.0+PTX");
    assert.strictEqual(old?.accepted, false);
    assert.strictEqual(old?.error, "ValueError: Unknown CUDA arch (10.1) or GPU not supported");
    const torch = NGC_PYTORCH_TORCH[image.pytorchImageTag].torch;
    const lists = valueOf(
      "fat list",
      consumerArchLists(fatArchs(image.cudaToolkit), { toolkit: image.cudaToolkit, torch }, "cudaArchs"),
    );
    assert.deepStrictEqual(
      device.facts.lists.find((l) => l.list === lists.torch)?.accepted,
      true,
      `${lists.torch} was probed and accepted`,
    );
    for (const entry of lists.torch.split(";"))
      assert.ok(device.facts.acceptedSingles.includes(entry), `${entry} accepted on the device`);
    for (const entry of lists.epKernels.split(";"))
      assert.ok(device.facts.acceptedSingles.includes(entry), `EP ${entry} accepted on the device`);
  });

  it("every single entry the device rejected is outside the catalog's accepted set, and vice versa", () => {
    const row = TORCH_CUDA_ARCHS.find((r) => r.torch === deviceMinor)!;
    for (const s of device.facts.rejectedSingles) assert.ok(!row.accepted.includes(s.replace(/\+PTX$/, "")), s);
    for (const s of device.facts.acceptedSingles) assert.ok(row.accepted.includes(s.replace(/\+PTX$/, "")), s);
  });
});
