/**
 * Image policies: what runs is pinned by digest and what is built carries a real tag (F5); the
 * registry scans on push and keeps tags immutable.
 */
import { ecrScanAndImmutable, imagePinnedByDigest } from "../../policy/rules/images";
import { decode, happyGraph, loose, serviceLabel } from "../helpers/policy-graph-fixtures";
import { happyImage, happyRepository, T } from "../helpers/policy-fixtures";
import { resourcePolicyTable, UNKNOWN_STRING } from "../helpers/policy-harness";

const D = serviceLabel("DecodeWorker");
const F = serviceLabel("Frontend");

const happyRepo = happyRepository;
const REPO = "123456789012.dkr.ecr.us-east-2.amazonaws.com/dynamo-combined-efa";

describe("policies: images pinned by digest (F5) and registry", () => {
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
          loose(decode(g).extraPodSpec).initContainers = [{ name: "fetch", image: "busybox:1.36" }];
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
          loose(i).ref = `${REPO}:3f2a9c1d`;
        },
        expect: [
          `image "img" has ref "${REPO}:3f2a9c1d", which is not pinned by digest (F5); push it and use <repo>@sha256:<digest>`,
        ],
      },
      {
        title: "a digest ref is fine",
        mutate: (i) => {
          loose(i).ref = `${REPO}@sha256:${"cd".repeat(32)}`;
        },
        expect: [],
      },
    ],
    { name: "img" },
  );

  const R = 'ECR repository "dynamo-combined-efa"';
  resourcePolicyTable(
    ecrScanAndImmutable,
    T.Repository,
    happyRepo,
    [
      {
        title: "no scan on push",
        mutate: (r) => {
          loose(r.imageScanningConfiguration).scanOnPush = false;
        },
        expect: [
          `${R} does not scan images on push (imageScanningConfiguration.scanOnPush is false); set imageScanningConfiguration: { scanOnPush: true }`,
        ],
      },
      {
        title: "mutable tags (F5)",
        mutate: (r) => {
          loose(r).imageTagMutability = "MUTABLE";
        },
        expect: [
          `${R} has mutable tags (imageTagMutability "MUTABLE"), so a pushed tag can be replaced under a running deployment (F5); set imageTagMutability: "IMMUTABLE" and keep the build cache in its own repository`,
        ],
      },
      {
        title: "mutability unset (AWS default MUTABLE)",
        mutate: (r) => {
          delete loose(r).imageTagMutability;
        },
        expect: [
          `${R} has mutable tags (imageTagMutability "MUTABLE"), so a pushed tag can be replaced under a running deployment (F5); set imageTagMutability: "IMMUTABLE" and keep the build cache in its own repository`,
        ],
      },
      {
        title: "IMMUTABLE_WITH_EXCLUSION is immutable",
        mutate: (r) => {
          loose(r).imageTagMutability = "IMMUTABLE_WITH_EXCLUSION";
        },
        expect: [],
      },
      {
        title: "a build-cache repository may be mutable",
        mutate: (r) => {
          loose(r).name = "dynamo-combined-efa-build-cache";
          loose(r).imageTagMutability = "MUTABLE";
          loose(r.imageScanningConfiguration).scanOnPush = false;
        },
        expect: [],
      },
    ],
    { name: "img-repo" },
  );
});
