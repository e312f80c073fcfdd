/**
 * The Pulumi program (`Pulumi.yaml` `main: index.ts`): `pulumi up -s p5en-8gpu`. All the work is in
 * `program/program.ts`, shared with the offline render (`npm run render -- p5en-8gpu`).
 */
import * as pulumi from "@pulumi/pulumi";
import { formatProblems } from "./components/_shared/problems";
import { problemsOf } from "./components/_shared/pulumi-errors";
import { runProgram } from "./program/program";

function run() {
  try {
    return runProgram().exports;
  } catch (e) {
    const problems = problemsOf(e);
    // One readable error listing every config problem, without a stack trace.
    if (problems) throw new pulumi.RunError(formatProblems("dynamo-efa stack config", problems));
    throw e;
  }
}

const out = run();

/** In-cluster URL of the OpenAI-compatible Frontend. */
export const frontendUrl = out.frontendUrl;
/** URL of the Frontend's internal load balancer (only with `frontend.serviceType: InternalLoadBalancer`; else null). */
export const frontendLoadBalancerUrl = out.frontendLoadBalancerUrl;
/** Digest-pinned image the workers run. */
export const imageRef = out.imageRef;
/** EKS cluster name. */
export const clusterName = out.clusterName;
/** Kubeconfig of the cluster (secret). */
export const kubeconfig = out.kubeconfig;
/** Served model name clients send in `model`. */
export const servedModelName = out.servedModelName;
/** Plan summary: pools, workers, GPUs and EFA rails used vs provisioned, image archs. */
export const plan = out.plan;
