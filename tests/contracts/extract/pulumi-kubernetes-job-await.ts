/**
 * Extracts how `pulumi up` waits for a Kubernetes Job, which the first-token check relies on
 * (components/inference/first-token.ts): from the installed @pulumi/kubernetes (the version the lockfile pins) its
 * Job's documented await rules (ready on `Complete`, failed at once on `Failed`, 10 minutes unless `customTimeouts`,
 * the `pulumi.com/replaceUnready` annotation), and from the provider's source the pod checker that puts a terminated
 * container's message into the error it reports.
 * Usage: npx tsx tests/contracts/extract/pulumi-kubernetes-job-await.ts <pulumi/pulumi-kubernetes checkout> --ref <tag> [--commit <sha>]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { checkoutArgs, matcher, printFacts, readText, today } from "./_checkout";

export const CHECKER = "provider/pkg/await/checker/pod/check.go";
const SDK = join(__dirname, "..", "..", "..", "node_modules", "@pulumi", "kubernetes");

const must = matcher("pulumi-kubernetes-job-await");

/** The facts: the installed SDK's Job doc comment and the provider checkout's pod checker. */
export function extract(root: string): Record<string, unknown> {
  const doc = readFileSync(join(SDK, "batch", "v1", "job.d.ts"), "utf8");
  const comment = must(/\/\*\*([\s\S]*?)\*\/\s*export declare class Job/, doc, "Job doc comment")[1].replace(
    /\n\s*\*/g,
    " ",
  );
  const checker = readText(root, CHECKER);
  const terminated = must(/func containerTerminatedError[\s\S]*?\n}\n/, checker, "containerTerminatedError")[0];
  return {
    sdkVersion: JSON.parse(readFileSync(join(SDK, "package.json"), "utf8")).version,
    readyWhenCompleteTrue: /type 'Complete', and a 'status' set\s+to 'True'/.test(comment),
    failsAtOnceOnFailed: /type 'Failed'[\s\S]*?we should fail the Job immediately/.test(comment),
    defaultTimeoutMinutes: Number(must(/has not reached a Ready state after (\d+) minutes/, comment, "timeout")[1]),
    timeoutOverride: must(/setting the '(\w+)' option/, comment, "customTimeouts")[1],
    replaceUnreadyAnnotation: must(/"(pulumi\.com\/replaceUnready)": "true"/, comment, "replaceUnready")[1],
    terminatedMessageInError: /len\(state\.Message\) > 0[\s\S]*?state\.Message/.test(terminated),
  };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "pulumi-kubernetes-job-await.ts");
  printFacts(
    {
      repository: "pulumi/pulumi-kubernetes",
      ref: a.ref,
      commit: a.commit,
      paths: [CHECKER, "node_modules/@pulumi/kubernetes/batch/v1/job.d.ts (the installed SDK)"],
      extracted: today(),
      extractor: "tests/contracts/extract/pulumi-kubernetes-job-await.ts",
      notes: a.notes ?? "",
    },
    extract(a.root),
  );
}
