import { strict as assert } from "assert";
import { checkArchToken, parseCudaToolkit, torchArchProblems } from "../../components/catalog/cuda";
import {
  ecrScanAndImmutable,
  gencodeTokens,
  imageArchsCoverFleet,
  imageArchsValidForToolkit,
  imagePinnedByDigest,
} from "../../policy/rules/images";
import { happyGraph, happyLaunchTemplate, happyStack, T, urnOf } from "../helpers/policy-fixtures";
import {
  planResource,
  PlanResource,
  resourcePolicyTable,
  runStackPolicy,
  stackArgs,
  stackPolicyTable,
  UNKNOWN_STRING,
} from "../helpers/policy-harness";

const D = `DynamoGraphDeployment "llama" service "DecodeWorker"`;
const F = `DynamoGraphDeployment "llama" service "Frontend"`;
const decode = (g: any) => g.spec.services.DecodeWorker;
const named = (plan: PlanResource[], name: string): any => plan.find((r) => r.name === name)!;
const happyImage = () => named(happyStack(), "img").props;
const happyRepo = () => named(happyStack(), "img-repo").props;
const REPO = "123456789012.dkr.ecr.us-east-2.amazonaws.com/dynamo-combined-efa";
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

describe("policies: images (F5, F10) and registry", () => {
  const unpinned = (s: string, img: string, where = "") =>
    `${s} runs image "${img}"${where}, which is not pinned by digest, so a re-push changes what runs without a deploy (F5); use <repo>@sha256:<digest> (the DynamoImage ref output)`;
  resourcePolicyTable(
    imagePinnedByDigest,
    T.Dgd,
    happyGraph,
    [
      {
        title: "a worker on a tag (F5)",
        mutate: (g) => {
          decode(g).extraPodSpec.mainContainer.image = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.1";
        },
        expect: [unpinned(D, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.1")],
      },
      {
        title: "the Frontend on :latest",
        mutate: (g) => {
          g.spec.services.Frontend.extraPodSpec.mainContainer.image = `${REPO}:latest`;
        },
        expect: [unpinned(F, `${REPO}:latest`)],
      },
      {
        title: "an init container on a tag",
        mutate: (g) => {
          decode(g).extraPodSpec.initContainers = [{ name: "fetch", image: "busybox:1.36" }];
        },
        expect: [unpinned(D, "busybox:1.36", ' in container "fetch"')],
      },
      {
        title: "preview: the built image's ref is not known yet",
        mutate: (g) => {
          decode(g).extraPodSpec.mainContainer.image = UNKNOWN_STRING;
        },
        expect: [],
      },
    ],
    { name: "inf-graph" },
  );

  const moving = (t: string) =>
    `image "img" is tagged "${t}", which moves on every push (F5); tag it with a content-derived tag and deploy its digest-pinned ref`;
  resourcePolicyTable(
    imagePinnedByDigest,
    T.Image,
    happyImage,
    [
      {
        title: "built image tagged latest",
        mutate: (i) => {
          i.tags = [`${REPO}:latest`];
        },
        expect: [moving(`${REPO}:latest`)],
      },
      {
        title: "built image without a tag",
        mutate: (i) => {
          i.tags = ["localhost:5000/dynamo"];
        },
        expect: [moving("localhost:5000/dynamo")],
      },
      {
        title: "a recorded ref that is not a digest",
        mutate: (i) => {
          i.ref = `${REPO}:3f2a9c1d`;
        },
        expect: [
          `image "img" has ref "${REPO}:3f2a9c1d", which is not pinned by digest (F5); push it and use <repo>@sha256:<digest>`,
        ],
      },
      {
        title: "a digest ref is fine",
        mutate: (i) => {
          i.ref = `${REPO}@sha256:${"cd".repeat(32)}`;
        },
        expect: [],
      },
    ],
    { name: "img" },
  );

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

  const uncovered = (subject: string, src: string, list: string, sm: string, where: string) =>
    `${subject} (${src}: ${list}) has no kernels for ${sm} (${where}) and no PTX that can JIT to it (F10); add ${sm} to the image's cudaArchs or use "auto"`;
  const onlyTorch = (plan: PlanResource[], list: string) => {
    const b = named(plan, "img").props.buildArgs;
    b.TORCH_CUDA_ARCH_LIST = list;
    delete b.NVCC_GENCODE;
    delete b.FLASHINFER_CUDA_ARCH_LIST;
  };
  const b200Pool = (plan: PlanResource[]) => {
    const lt = planResource(
      T.LaunchTemplate,
      { ...happyLaunchTemplate(), instanceType: "p6-b200.48xlarge" },
      { name: "c-b200-lt" },
    );
    return [
      ...plan,
      lt,
      planResource(
        T.NodeGroup,
        { subnetIds: ["subnet-a"] },
        { name: "c-b200-ng", propertyDependencies: { launchTemplate: [lt.urn] } },
      ),
    ];
  };
  stackPolicyTable(imageArchsCoverFleet, happyStack, [
    {
      title: "an image built for sm_100 on a p5en fleet (F10)",
      mutate: (plan) => onlyTorch(plan, "10.0"),
      expect: [
        uncovered(
          'image "img"',
          'buildArgs.TORCH_CUDA_ARCH_LIST "10.0"',
          "sm_100",
          "sm_90",
          'p5en.48xlarge in node group "c-gpu-ng"',
        ),
      ],
    },
    { title: "older PTX JIT-compiles on newer GPUs", mutate: (plan) => onlyTorch(plan, "8.0+PTX"), expect: [] },
    {
      title: "a second pool of B200 the image does not cover",
      mutate: (plan) => {
        onlyTorch(plan, "9.0");
        return b200Pool(plan);
      },
      expect: [
        uncovered(
          'image "img"',
          'buildArgs.TORCH_CUDA_ARCH_LIST "9.0"',
          "sm_90",
          "sm_100",
          'p6-b200.48xlarge in node group "c-b200-ng"',
        ),
      ],
    },
    {
      title: "no arch args: the Dockerfile's fat default covers the fleet",
      mutate: (plan) => {
        const b = named(plan, "img").props.buildArgs;
        delete b.TORCH_CUDA_ARCH_LIST;
        delete b.NVCC_GENCODE;
        delete b.FLASHINFER_CUDA_ARCH_LIST;
      },
      expect: [],
    },
    {
      title: "a graph whose stated archs miss its own workers' GPUs",
      mutate: (plan) => {
        named(plan, "inf-graph").props.metadata.annotations["dynamo-efa/image-cuda-archs"] = "sm_100";
      },
      expect: [
        uncovered(
          'DynamoGraphDeployment "llama"',
          'annotation dynamo-efa/image-cuda-archs "sm_100"',
          "sm_100",
          "sm_90",
          'p5en.48xlarge, service "DecodeWorker"',
        ),
      ],
    },
    {
      title: "a prebuilt image that states no archs",
      mutate: (plan) => {
        const g = named(plan, "inf-graph");
        delete g.props.metadata.annotations["dynamo-efa/image-cuda-archs"];
        g.dependencies = [];
        return plan.filter((r) => r.type !== T.Image);
      },
      expect: [
        `DynamoGraphDeployment "llama" runs an image not built in this stack and states no CUDA arch list, so nothing proves it runs on sm_90 (F10); state the prebuilt image's archs (image.cudaArchs with image.ref), recorded as annotation dynamo-efa/image-cuda-archs`,
      ],
    },
    {
      title: "an image built inside a component the graph depends on needs no annotation",
      mutate: (plan) => {
        const comp = planResource("dynamo-efa:image:DynamoImage", {}, { name: "image" });
        const g = named(plan, "inf-graph");
        delete g.props.metadata.annotations["dynamo-efa/image-cuda-archs"];
        g.dependencies = [comp.urn];
        return [...plan.map((r) => (r.type === T.Image ? { ...r, parent: comp.urn } : r)), comp];
      },
      expect: [],
    },
    {
      title: "an image built in the stack needs no annotation",
      mutate: (plan) => {
        delete named(plan, "inf-graph").props.metadata.annotations["dynamo-efa/image-cuda-archs"];
      },
      expect: [],
    },
    {
      title: "the EP kernel list (Hopper+ only by design) does not decide coverage",
      mutate: (plan) => {
        onlyTorch(plan, "8.0;9.0");
        named(plan, "img").props.buildArgs.EP_KERNELS_CUDA_ARCH_LIST = "10.0";
      },
      expect: [],
    },
    {
      title: "the FlashInfer list decides coverage only for an AOT build",
      mutate: (plan) => {
        const b = named(plan, "img").props.buildArgs;
        b.TORCH_CUDA_ARCH_LIST = "9.0";
        delete b.NVCC_GENCODE;
        b.FLASHINFER_CUDA_ARCH_LIST = "10.0a";
        b.FLASHINFER_AOT = "1";
      },
      expect: [
        uncovered(
          'image "img"',
          'buildArgs.FLASHINFER_CUDA_ARCH_LIST "10.0a"',
          "sm_100a",
          "sm_90",
          'p5en.48xlarge in node group "c-gpu-ng"',
        ),
      ],
    },
    {
      title: "the same FlashInfer list without AOT is not a coverage claim",
      mutate: (plan) => {
        const b = named(plan, "img").props.buildArgs;
        b.TORCH_CUDA_ARCH_LIST = "9.0";
        delete b.NVCC_GENCODE;
        b.FLASHINFER_CUDA_ARCH_LIST = "10.0a";
        b.FLASHINFER_AOT = "0";
      },
      expect: [],
    },
  ]);

  it("image-archs-cover-fleet: not applicable without images or graphs", async () => {
    const plan = happyStack().filter((r) => r.type !== T.Image && r.type !== T.Dgd);
    assert.equal(
      (await runStackPolicy(imageArchsCoverFleet, stackArgs(plan))).notApplicable,
      "no image and no DynamoGraphDeployment in the stack",
    );
    assert.equal(urnOf(T.Image, "img"), named(happyStack(), "img").urn);
  });

  const R = 'ECR repository "dynamo-combined-efa"';
  resourcePolicyTable(
    ecrScanAndImmutable,
    T.Repository,
    happyRepo,
    [
      {
        title: "no scan on push",
        mutate: (r) => {
          r.imageScanningConfiguration.scanOnPush = false;
        },
        expect: [
          `${R} does not scan images on push (imageScanningConfiguration.scanOnPush is false); set imageScanningConfiguration: { scanOnPush: true }`,
        ],
      },
      {
        title: "mutable tags (F5)",
        mutate: (r) => {
          r.imageTagMutability = "MUTABLE";
        },
        expect: [
          `${R} has mutable tags (imageTagMutability "MUTABLE"), so a pushed tag can be replaced under a running deployment (F5); set imageTagMutability: "IMMUTABLE" and keep the build cache in its own repository`,
        ],
      },
      {
        title: "mutability unset (AWS default MUTABLE)",
        mutate: (r) => {
          delete r.imageTagMutability;
        },
        expect: [
          `${R} has mutable tags (imageTagMutability "MUTABLE"), so a pushed tag can be replaced under a running deployment (F5); set imageTagMutability: "IMMUTABLE" and keep the build cache in its own repository`,
        ],
      },
      {
        title: "IMMUTABLE_WITH_EXCLUSION is immutable",
        mutate: (r) => {
          r.imageTagMutability = "IMMUTABLE_WITH_EXCLUSION";
        },
        expect: [],
      },
      {
        title: "a build-cache repository may be mutable",
        mutate: (r) => {
          r.name = "dynamo-combined-efa-build-cache";
          r.imageTagMutability = "MUTABLE";
          r.imageScanningConfiguration.scanOnPush = false;
        },
        expect: [],
      },
    ],
    { name: "img-repo" },
  );
});
