/**
 * `DynamoImage`: builds `dockerfiles/Dockerfile.dynamo-combined-efa` with BuildKit (`@pulumi/docker-build`)
 * for a validated CUDA arch list, pushes it to an IMMUTABLE, scanned, encrypted, retained ECR repository
 * with a registry build cache in a separate mutable repository, and exports a digest-pinned ref. With `ref`
 * it builds nothing and passes the given digest-pinned image through. Thin class: the decisions are in
 * `plan.ts` / `derive.ts` / `validate.ts`.
 */
import * as aws from "@pulumi/aws";
import * as dockerbuild from "@pulumi/docker-build";
import * as pulumi from "@pulumi/pulumi";
import { assertChecked } from "../_shared/pulumi-errors";
import { DynamoImageArgs } from "./args";
import { checkImagePlan, ImageBuildPlan, ImageCombinedPlan, ImagePlan, packagePath } from "./plan";
import { ImageBackend, VendorImage } from "./sources";
import { ecrRegistryOf, ecrRepositoryName, registryOf, withDigest, withTag } from "./ref";
import { ImageDigest } from "./image-digest";

/** Pulumi type token of `DynamoImage`. */
export const DYNAMO_IMAGE_TYPE = "dynamo-efa:image:DynamoImage";

/**
 * The Dynamo serving image for a GPU fleet: builds the combined vLLM + TensorRT-LLM Dockerfile for a
 * CUDA arch list validated against the build's CUDA toolkit (`"auto"`: the SM archs of `instanceTypes`),
 * pushes it to an ECR repository with immutable, scanned, encrypted, retained tags, and exposes the
 * digest-pinned `ref`. Given a digest-pinned `ref` and explicit `cudaArchs` it builds nothing and passes
 * the image through. Invalid arguments (and Dockerfile problems) throw one error that names each argument path.
 *
 * @example
 * const img = new DynamoImage("dynamo", { cudaArchs: "auto", instanceTypes: ["p5en.48xlarge"] });
 * // img.ref: "<account>.dkr.ecr.<region>.amazonaws.com/dynamo@sha256:...", img.cudaArchs: ["sm_90"]
 */
export class DynamoImage extends pulumi.ComponentResource {
  /** Digest-pinned image reference, `<repository>@sha256:<hex>`. */
  public readonly ref: pulumi.Output<string>;
  /** The resolved CUDA arch list the image is built for, canonical strings ("sm_90", "sm_120+PTX"). */
  public readonly cudaArchs: pulumi.Output<string[]>;
  /** CUDA toolkit of the compile stages (the archs were validated against it). */
  public readonly cudaToolkit: pulumi.Output<string>;
  /** The exact build args passed to the build (empty with `ref`). */
  public readonly buildArgs: pulumi.Output<Record<string, string>>;
  /** Repository the image was pushed to (undefined with `ref`). */
  public readonly repositoryUrl: pulumi.Output<string | undefined>;
  /** The plain plan this component executed (what the offline render writes to image.json). */
  public readonly plan: ImagePlan;

  constructor(name: string, args: DynamoImageArgs = {}, opts?: pulumi.ComponentResourceOptions) {
    super(DYNAMO_IMAGE_TYPE, name, {}, opts);
    // resolveArgs -> read the Dockerfile -> validate -> ONE error with every problem, before any child.
    const plan = assertChecked("DynamoImage", checkImagePlan(args));
    this.plan = plan;
    this.cudaArchs = pulumi.output([...plan.cudaArchs]);
    this.cudaToolkit = pulumi.output(plan.cudaToolkit);
    if (plan.kind === "prebuilt") {
      this.ref =
        plan.ref !== undefined ? pulumi.output(plan.ref) : this.resolveDigest(`${name}-${plan.backend}`, plan.resolve!);
      this.buildArgs = pulumi.output<Record<string, string>>({});
      this.repositoryUrl = pulumi.output(undefined);
    } else if (plan.kind === "combined") {
      const built = this.buildCombined(name, args, plan);
      this.ref = built.ref;
      this.buildArgs = built.buildArgs;
      this.repositoryUrl = built.repositoryUrl;
    } else {
      const built = this.build(name, args, plan);
      this.ref = built.ref;
      this.buildArgs = pulumi.output({ ...plan.buildArgs });
      this.repositoryUrl = built.repositoryUrl;
    }
    this.registerOutputs({
      ref: this.ref,
      cudaArchs: this.cudaArchs,
      cudaToolkit: this.cudaToolkit,
      buildArgs: this.buildArgs,
      repositoryUrl: this.repositoryUrl,
      plan: this.plan,
    });
  }

  private build(name: string, args: DynamoImageArgs, plan: ImageBuildPlan) {
    const repoName = ecrRepositoryName(args.repositoryName ?? name);
    const repositoryUrl =
      args.repositoryUrl !== undefined
        ? pulumi.output(args.repositoryUrl)
        : this.repository(`${name}-repo`, repoName, args, true).repositoryUrl;
    const cache = plan.cache;
    const cacheUrl = !cache
      ? undefined
      : args.cacheRepositoryUrl !== undefined
        ? pulumi.output(args.cacheRepositoryUrl)
        : this.repository(`${name}-cache`, `${repoName}-cache`, args, false).repositoryUrl;
    const cacheRef = cacheUrl && cache ? cacheUrl.apply((u) => withTag(u, cache.tag)) : undefined;
    const digest = this.pushImage(name, plan, repositoryUrl, cacheUrl, {
      target: plan.target,
      buildArgs: { ...plan.buildArgs },
      ...(cacheRef && cache
        ? {
            cacheFrom: [{ registry: { ref: cacheRef } }],
            cacheTo: [
              {
                registry: {
                  ref: cacheRef,
                  mode: dockerbuild.CacheMode.Max,
                  imageManifest: cache.imageManifest,
                  ociMediaTypes: cache.ociMediaTypes,
                },
              },
            ],
          }
        : {}),
    });
    return {
      ref: pulumi.all([repositoryUrl, digest]).apply(([u, d]) => withDigest(u, d)),
      repositoryUrl: repositoryUrl as pulumi.Output<string | undefined>,
    };
  }

  /** The BuildKit build both build paths share: push to the repository with the plan's tag; its digest. */
  private pushImage(
    name: string,
    plan: ImageBuildPlan | ImageCombinedPlan,
    repositoryUrl: pulumi.Output<string>,
    cacheUrl: pulumi.Output<string> | undefined,
    extra: Pick<dockerbuild.ImageArgs, "target" | "buildArgs" | "cacheFrom" | "cacheTo">,
  ): pulumi.Output<string> {
    return new dockerbuild.Image(
      `${name}-image`,
      {
        push: true,
        buildOnPreview: false,
        context: { location: packagePath(plan.context) },
        dockerfile: { location: packagePath(plan.dockerfile) },
        platforms: [...plan.platforms] as dockerbuild.types.enums.Platform[],
        tags: [repositoryUrl.apply((u) => withTag(u, plan.tag))],
        registries: this.registries(pulumi.all([repositoryUrl, cacheUrl ?? repositoryUrl])),
        ...extra,
        ...(plan.builder ? { builder: { name: plan.builder } } : {}),
      },
      { parent: this },
    ).digest;
  }

  /**
   * The vendor image's tag resolved to its digest once and kept in the stack's state (`ImageDigest`: a later
   * `pulumi up` deploys the same digest until the release or the tag changes), deployed as `repository@sha256:...`:
   * never the moving tag. An ECR repository (AWS Deep Learning Containers) is read with this account's ECR token
   * (a secret input); public registries anonymously.
   */
  private resolveDigest(name: string, image: VendorImage): pulumi.Output<string> {
    const ecr = ecrRegistryOf(image.repository);
    const basicAuth = ecr
      ? pulumi.secret(
          aws.ecr
            .getAuthorizationTokenOutput({ registryId: ecr.registryId, region: ecr.region }, { parent: this })
            .apply((t) => `${t.userName}:${t.password}`),
        )
      : undefined;
    return new ImageDigest(
      `${name}-digest`,
      { repository: image.repository, tag: image.tag, ...(basicAuth ? { basicAuth } : {}) },
      { parent: this, additionalSecretOutputs: ["basicAuth"] },
    ).ref;
  }

  /** The vendor-combined image: both vendor images by digest, one small Dockerfile, pushed like a build. */
  private buildCombined(name: string, args: DynamoImageArgs, plan: ImageCombinedPlan) {
    const repositoryUrl =
      args.repositoryUrl !== undefined
        ? pulumi.output(args.repositoryUrl)
        : this.repository(`${name}-repo`, ecrRepositoryName(args.repositoryName ?? name), args, true).repositoryUrl;
    const refs = (Object.entries(plan.images) as [ImageBackend, VendorImage][]).map(([b, v]) =>
      v.digest !== undefined
        ? pulumi.output(withDigest(v.repository, v.digest))
        : this.resolveDigest(`${name}-${b}`, v),
    );
    const buildArgs = pulumi
      .all(refs)
      .apply(([vllm, trtllm]): Record<string, string> => ({ VLLM_RUNTIME_IMAGE: vllm, TRTLLM_RUNTIME_IMAGE: trtllm }));
    const digest = this.pushImage(name, plan, repositoryUrl, undefined, { buildArgs });
    return {
      ref: pulumi.all([repositoryUrl, digest]).apply(([u, d]) => withDigest(u, d)),
      buildArgs,
      repositoryUrl: repositoryUrl as pulumi.Output<string | undefined>,
    };
  }

  /** An ECR repository: image repo = IMMUTABLE, scan on push, retained; cache repo = MUTABLE (cache tag is rewritten). */
  private repository(
    resourceName: string,
    repoName: string,
    args: DynamoImageArgs,
    isImage: boolean,
  ): aws.ecr.Repository {
    const encryption =
      args.kmsKeyArn !== undefined ? { encryptionType: "KMS", kmsKey: args.kmsKeyArn } : { encryptionType: "AES256" };
    const repo = new aws.ecr.Repository(
      resourceName,
      {
        name: repoName,
        imageTagMutability: isImage ? "IMMUTABLE" : "MUTABLE",
        imageScanningConfiguration: { scanOnPush: isImage },
        encryptionConfigurations: [encryption],
        forceDelete: !isImage,
        tags: { ...(args.tags ?? {}), "dynamo-efa/role": isImage ? "image" : "build-cache" },
      },
      isImage ? { parent: this, retainOnDelete: true, protect: args.protect ?? false } : { parent: this },
    );
    if (!isImage) {
      new aws.ecr.LifecyclePolicy(
        `${resourceName}-lifecycle`,
        {
          repository: repo.name,
          policy: JSON.stringify({
            rules: [
              {
                rulePriority: 1,
                description: "expire untagged cache blobs after 14 days",
                selection: { tagStatus: "untagged", countType: "sinceImagePushed", countUnit: "days", countNumber: 14 },
                action: { type: "expire" },
              },
            ],
          }),
        },
        { parent: this },
      );
    }
    return repo;
  }

  /** Registry credentials for every ECR registry involved (other registries: the builder's own login). */
  private registries(urls: pulumi.Output<[string, string]>): pulumi.Output<dockerbuild.types.input.RegistryArgs[]> {
    return urls.apply((list) => {
      const hosts = [...new Map(list.map((u) => [registryOf(u), ecrRegistryOf(u)])).entries()];
      return pulumi.all(
        hosts.flatMap(([address, ecr]) =>
          ecr
            ? [
                aws.ecr
                  .getAuthorizationTokenOutput({ registryId: ecr.registryId, region: ecr.region }, { parent: this })
                  .apply((t): dockerbuild.types.input.RegistryArgs => ({
                    address,
                    username: t.userName,
                    password: pulumi.secret(t.password),
                  })),
              ]
            : [],
        ),
      );
    });
  }
}
