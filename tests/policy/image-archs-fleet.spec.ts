/**
 * `image-archs-cover-fleet` (F10): an image's CUDA arch list covers the SM of every GPU pool it can
 * run on, and a prebuilt image states its list.
 */
import { strict as assert } from "assert";
import { imageArchsCoverFleet } from "../../policy/rules/image-archs";
import { graphIn, happyLaunchTemplate, happyStack, imageIn, named, T } from "../helpers/policy-fixtures";
import { loose } from "../helpers/policy-graph-fixtures";
import { urnOf } from "../helpers/policy-harness";
import { planResource, PlanResource, runStackPolicy, stackArgs, stackPolicyTable } from "../helpers/policy-harness";

describe("policies: image arch lists cover the fleet (F10)", () => {
  const uncovered = (subject: string, src: string, list: string, sm: string, where: string) =>
    `${subject} (${src}: ${list}) has no kernels for ${sm} (${where}) and no PTX that can JIT to it (F10); add ${sm} to the image's cudaArchs or use "auto"`;
  const onlyTorch = (plan: PlanResource[], list: string) => {
    const b = imageIn(plan).buildArgs;
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
        const b = imageIn(plan).buildArgs;
        delete b.TORCH_CUDA_ARCH_LIST;
        delete b.NVCC_GENCODE;
        delete b.FLASHINFER_CUDA_ARCH_LIST;
      },
      expect: [],
    },
    {
      title: "a graph whose stated archs miss its own workers' GPUs",
      mutate: (plan) => {
        graphIn(plan).metadata.annotations["dynamo-efa/image-cuda-archs"] = "sm_100";
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
        delete graphIn(plan).metadata.annotations["dynamo-efa/image-cuda-archs"];
        loose(g).dependencies = [];
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
        delete graphIn(plan).metadata.annotations["dynamo-efa/image-cuda-archs"];
        loose(g).dependencies = [comp.urn];
        return [...plan.map((r) => (r.type === T.Image ? { ...r, parent: comp.urn } : r)), comp];
      },
      expect: [],
    },
    {
      title: "an image built in the stack needs no annotation",
      mutate: (plan) => {
        delete graphIn(plan).metadata.annotations["dynamo-efa/image-cuda-archs"];
      },
      expect: [],
    },
    {
      title: "the EP kernel list (Hopper+ only by design) does not decide coverage",
      mutate: (plan) => {
        onlyTorch(plan, "8.0;9.0");
        imageIn(plan).buildArgs.EP_KERNELS_CUDA_ARCH_LIST = "10.0";
      },
      expect: [],
    },
    {
      title: "the FlashInfer list decides coverage only for an AOT build",
      mutate: (plan) => {
        const b = imageIn(plan).buildArgs;
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
        const b = imageIn(plan).buildArgs;
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
});
