/**
 * Launch-template policies: IMDSv2 required, and no empty tag specification.
 */
import { imdsv2Required, launchTemplateTagsNonEmpty } from "../../policy/rules/launch-template";
import { happyLaunchTemplate, T } from "../helpers/policy-fixtures";
import { loose } from "../helpers/policy-graph-fixtures";
import { resourcePolicyTable } from "../helpers/policy-harness";

describe("policies: launch templates (IMDSv2, tag specifications)", () => {
  resourcePolicyTable(
    imdsv2Required,
    T.LaunchTemplate,
    happyLaunchTemplate,
    [
      {
        title: "IMDSv1 allowed",
        mutate: (lt) => {
          lt.metadataOptions.httpTokens = "optional";
        },
        expect: [
          `launch template "c-gpu-lt" does not require IMDSv2 (metadataOptions.httpTokens is "optional"); set metadataOptions: { httpTokens: "required" }`,
        ],
      },
      {
        title: "no metadata options (AWS default allows IMDSv1)",
        mutate: (lt) => {
          delete loose(lt).metadataOptions;
        },
        expect: [
          `launch template "c-gpu-lt" does not require IMDSv2 (metadataOptions.httpTokens is undefined); set metadataOptions: { httpTokens: "required" }`,
        ],
      },
      {
        title: "hop limit above the configured maximum",
        mutate: (lt) => {
          lt.metadataOptions.httpPutResponseHopLimit = 3;
        },
        expect: [
          `launch template "c-gpu-lt" sets metadataOptions.httpPutResponseHopLimit 3, letting containers reach instance credentials; set it to 2 or less`,
        ],
      },
    ],
    { name: "c-gpu-lt" },
  );

  const emptySpec = (i: number, type: string) =>
    `launch template "c-gpu-lt" has tagSpecifications[${i}] (resourceType "${type}") with no tags; EC2 rejects it with InvalidTagSpecification.Malformed and no node launches: give it at least a Name tag, or drop the specification`;
  resourcePolicyTable(
    launchTemplateTagsNonEmpty,
    T.LaunchTemplate,
    happyLaunchTemplate,
    [
      {
        title: "the system template's old `tags: {}` for instance and volume (terraform-provider-aws#13155)",
        mutate: (lt) => {
          loose(lt).tagSpecifications = [
            { resourceType: "instance", tags: {} },
            { resourceType: "volume", tags: {} },
          ];
        },
        expect: [emptySpec(0, "instance"), emptySpec(1, "volume")],
      },
      {
        title: "a specification without a tags field",
        mutate: (lt) => {
          loose(lt.tagSpecifications)[2] = { resourceType: "network-interface" };
        },
        expect: [emptySpec(2, "network-interface")],
      },
      {
        title: "no tag specification at all is valid",
        mutate: (lt) => {
          delete loose(lt).tagSpecifications;
        },
        expect: [],
      },
    ],
    { name: "c-gpu-lt" },
  );
});
