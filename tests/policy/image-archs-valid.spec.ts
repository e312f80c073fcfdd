/**
 * `image-archs-valid-for-toolkit` (F10): every CUDA arch an image or graph states is valid for its
 * toolkit's nvcc, and every TORCH_CUDA_ARCH_LIST entry for its torch.
 */
import { strict as assert } from "assert";
import { checkArchToken, parseCudaToolkit } from "../../components/catalog/cuda";
import { torchArchProblems } from "../../components/catalog/archs";
import { gencodeTokens } from "../../policy/rules/_image-archs";
import { imageArchsValidForToolkit } from "../../policy/rules/image-archs";
import { happyGraph } from "../helpers/policy-graph-fixtures";
import { happyImage, T } from "../helpers/policy-fixtures";
import { resourcePolicyTable } from "../helpers/policy-harness";

const reason = (token: string, toolkit: "12.9" | "13.0") => {
  const r = checkArchToken(token, toolkit);
  if (!("reason" in r)) throw new Error(`${token} is valid on ${toolkit}`);
  return r.reason;
};
const toolkitReason = (v: string, path: string) => {
  const r = parseCudaToolkit(v, path);
  if (r.ok) throw new Error("valid toolkit");
  return r.problems[0].reason;
};

describe("policies: image arch lists valid for the toolkit (F10)", () => {
  it("gencodeTokens reads the code= targets of NVCC_GENCODE", () => {
    assert.deepEqual(
      gencodeTokens("-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_100a,code=[sm_100a,compute_100a]"),
      ["sm_90", "sm_100a", "compute_100a"],
    );
  });

  const invalid = (subject: string, source: string, text: string, toolkit: string, why: string) =>
    `${subject}: ${source} "${text}" is not valid for CUDA ${toolkit}: ${why} (F10)`;
  resourcePolicyTable(
    imageArchsValidForToolkit,
    T.Image,
    happyImage,
    [
      {
        title: "sm_101 on CUDA 13.0 (renamed sm_110: F10)",
        mutate: (i) => {
          i.buildArgs.CUDA_VERSION = "13.0";
          i.buildArgs.TORCH_CUDA_ARCH_LIST = "9.0;10.1";
        },
        expect: [invalid('image "img"', "buildArgs.TORCH_CUDA_ARCH_LIST", "9.0;10.1", "13.0", reason("10.1", "13.0"))],
      },
      {
        title: "a gencode target the toolkit lacks",
        mutate: (i) => {
          i.buildArgs.CUDA_VERSION = "13.0";
          i.buildArgs.NVCC_GENCODE = "-gencode=arch=compute_101,code=sm_101";
        },
        expect: [
          invalid(
            'image "img"',
            "buildArgs.NVCC_GENCODE",
            "-gencode=arch=compute_101,code=sm_101",
            "13.0",
            reason("sm_101", "13.0"),
          ),
        ],
      },
      {
        title: "a typo in the FlashInfer list",
        mutate: (i) => {
          i.buildArgs.FLASHINFER_CUDA_ARCH_LIST = "9.O";
        },
        expect: [invalid('image "img"', "buildArgs.FLASHINFER_CUDA_ARCH_LIST", "9.O", "12.9", reason("9.O", "12.9"))],
      },
      {
        title: "an unknown CUDA toolkit",
        mutate: (i) => {
          i.buildArgs.CUDA_VERSION = "12.10";
        },
        expect: [`image "img": buildArgs.CUDA_VERSION: ${toolkitReason("12.10", "buildArgs.CUDA_VERSION")}`],
      },
      {
        title: "sm_101: nvcc 12.9 takes it, torch 2.10's extension builder does not",
        mutate: (i) => {
          i.buildArgs.TORCH_CUDA_ARCH_LIST = "9.0;10.1";
        },
        expect: [
          `image "img": buildArgs.TORCH_CUDA_ARCH_LIST "9.0;10.1": ${torchArchProblems([{ sm: 101, variant: "", ptx: false }], "2.10", "x")[0].reason}`,
        ],
      },
      {
        title: "sm_101 in NVCC_GENCODE alone is fine on 12.9 (nccl-tests only)",
        mutate: (i) => {
          i.buildArgs.NVCC_GENCODE = "-gencode=arch=compute_101,code=sm_101";
        },
        expect: [],
      },
      {
        title: "an EP kernel list the toolkit rejects",
        mutate: (i) => {
          i.buildArgs.CUDA_VERSION = "13.0";
          i.buildArgs.TORCH_CUDA_ARCH_LIST = "9.0";
          i.buildArgs.EP_KERNELS_CUDA_ARCH_LIST = "9.0;10.1";
        },
        expect: [
          invalid('image "img"', "buildArgs.EP_KERNELS_CUDA_ARCH_LIST", "9.0;10.1", "13.0", reason("10.1", "13.0")),
        ],
      },
    ],
    { name: "img" },
  );

  const ARCHS = "annotation dynamo-efa/image-cuda-archs";
  resourcePolicyTable(
    imageArchsValidForToolkit,
    T.Dgd,
    happyGraph,
    [
      {
        title: "a prebuilt image's stated archs invalid for its toolkit",
        mutate: (g) => {
          g.metadata.annotations["dynamo-efa/image-cuda-archs"] = "sm_90,sm_101";
          g.metadata.annotations["dynamo-efa/image-cuda-toolkit"] = "13.0";
        },
        expect: [invalid('DynamoGraphDeployment "llama"', ARCHS, "sm_90,sm_101", "13.0", reason("sm_101", "13.0"))],
      },
      {
        title: "an unknown stated toolkit",
        mutate: (g) => {
          g.metadata.annotations["dynamo-efa/image-cuda-toolkit"] = "11.8";
        },
        expect: [
          `DynamoGraphDeployment "llama": annotation dynamo-efa/image-cuda-toolkit: ${toolkitReason("11.8", "annotation dynamo-efa/image-cuda-toolkit")}`,
        ],
      },
    ],
    { name: "inf-graph" },
  );
});
