/**
 * Extracts what Kubernetes accepts as a container's `runAsUser` from a kubernetes/kubernetes checkout: the API
 * server's range (apimachinery's `IsValidUserID`, `minUserID`/`maxUserID`) and the kubelet's refusal of UID 0 beside
 * `runAsNonRoot: true` (`verifyRunAsNonRoot`). Usage: npx tsx tests/contracts/extract/kubernetes-user-id.ts <checkout>
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = process.argv[2];
const validation = readFileSync(
  join(root, "staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go"),
  "utf8",
);
const kubelet = readFileSync(join(root, "pkg/kubelet/kuberuntime/security_context_others.go"), "utf8");
const min = /minUserID\s*=\s*(\d+)/.exec(validation)?.[1];
const max = /maxUserID\s*=\s*math\.(MaxInt32)/.exec(validation)?.[1];
const refusesRoot = /RunAsUser == 0 \{\s*return fmt\.Errorf\("container's runAsUser breaks non-root policy/.test(
  kubelet,
);
if (min === undefined || max === undefined || !refusesRoot) throw new Error("checkout: a rule was not found");
process.stdout.write(
  `${JSON.stringify({ apiServer: { minUserId: Number(min), maxUserId: 2 ** 31 - 1, maxUserIdSource: `math.${max}` }, kubelet: { runAsNonRootRefusesUid0: true, message: "container's runAsUser breaks non-root policy" } }, null, 2)}\n`,
);
