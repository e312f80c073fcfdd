/**
 * The Pulumi program (`Pulumi.yaml` `main: index.ts`): `pulumi up -s p5en-8gpu` (a whole stack), `-s p5en-cluster`
 * (a shared cluster) or `-s p5en-llama-8b` (a model on it). All the work is in `program/program.ts`, shared with the
 * offline render (`npm run render -- p5en-8gpu`). The module exports one async function, which Pulumi's Node runtime
 * calls and awaits (@pulumi/pulumi 3.248.0 cmd/run/run.js: "If the exported value was itself a Function, then just
 * execute it"): a model stack reads its cluster stack's output before it creates anything. The object it returns
 * is the stack's outputs: for a stack that serves a graph `frontendUrl`, `frontendLoadBalancerUrl` (null unless an
 * internal load balancer), `imageRef`, `clusterName`, `kubeconfig` (secret), `servedModelName` and `plan`; for a
 * cluster stack `cluster` (the handoff model stacks read, program/handoff.ts), `clusterName` and `kubeconfig`.
 */
import * as pulumi from "@pulumi/pulumi";
import { formatProblems } from "./components/_shared/problems";
import { problemsOf } from "./components/_shared/pulumi-errors";
import { runProgram } from "./program/program";

export = async (): Promise<Record<string, unknown>> => {
  try {
    return (await runProgram()).exports;
  } catch (e) {
    const problems = problemsOf(e);
    // One readable error listing every config problem, without a stack trace.
    if (problems) throw new pulumi.RunError(formatProblems("dynamo-efa stack config", problems));
    throw e;
  }
};
