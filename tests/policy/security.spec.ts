/**
 * Workload and data-safety policies: the HF token kept secret and complete (F9), privileged only for
 * an EFA worker that owns its node, and data-holding resources retained.
 */
import { strict as assert } from "assert";
import { hfTokenIsSecret, privilegedOnlyForEfaWorkers, statefulResourcesRetained } from "../../policy/rules/security";
import { decode, happyGraph, loose, serviceLabel } from "../helpers/policy-graph-fixtures";
import { happyStack, named, T } from "../helpers/policy-fixtures";
import { assertMessages, resourceArgs, resourcePolicyTable, runResourcePolicy } from "../helpers/policy-harness";

const D = serviceLabel("DecodeWorker");
const F = serviceLabel("Frontend");
const props = (name: string) => () => JSON.parse(JSON.stringify(named(happyStack(), name).props));

describe("policies: secrets, privilege and data safety (F9)", () => {
  resourcePolicyTable(
    hfTokenIsSecret,
    T.Dgd,
    happyGraph,
    [
      {
        title: "the token as a literal env value",
        mutate: (g) => {
          decode(g).envs.push({ name: "HF_TOKEN", value: "hf_abc" });
        },
        expect: [
          `${D} sets HF_TOKEN as a literal value in spec.services.DecodeWorker.envs, so the token is stored in clear text in the plan and the pod spec; reference the HF secret with envFromSecret or valueFrom.secretKeyRef`,
        ],
      },
      {
        title: "graph-wide literal of the other key name",
        mutate: (g) => {
          loose(g.spec).envs = [{ name: "HUGGING_FACE_HUB_TOKEN", value: "hf_abc" }];
        },
        expect: ["DecodeWorker", "Frontend", "PrefillWorker"].map(
          (k) =>
            `${serviceLabel(k)} sets HUGGING_FACE_HUB_TOKEN as a literal value in spec.envs, so the token is stored in clear text in the plan and the pod spec; reference the HF secret with envFromSecret or valueFrom.secretKeyRef`,
        ),
      },
      {
        title: "a secretKeyRef is fine",
        mutate: (g) => {
          decode(g).envs.push({
            name: "HF_TOKEN",
            valueFrom: { secretKeyRef: { name: "llama-hf-token", key: "HF_TOKEN" } },
          });
        },
        expect: [],
      },
    ],
    { name: "inf-graph" },
  );
  resourcePolicyTable(
    hfTokenIsSecret,
    T.Secret,
    props("inf-hf-token"),
    [
      {
        title: "only one of the two key names (F9)",
        mutate: (s) => {
          delete s.stringData.HUGGING_FACE_HUB_TOKEN;
        },
        expect: [
          `Secret "inf-hf-token" holds the HF token in stringData without HUGGING_FACE_HUB_TOKEN; tools read one name or the other (F9): set HF_TOKEN and HUGGING_FACE_HUB_TOKEN to the same token`,
        ],
      },
      {
        title: "base64 data with the other name only",
        mutate: (s) => {
          delete s.stringData;
          s.data = { HUGGING_FACE_HUB_TOKEN: "aGZfYWJj" };
        },
        expect: [
          `Secret "inf-hf-token" holds the HF token in data without HF_TOKEN; tools read one name or the other (F9): set HF_TOKEN and HUGGING_FACE_HUB_TOKEN to the same token`,
        ],
      },
      {
        title: "a secret without the token is not checked",
        mutate: (s) => {
          s.stringData = { other: "x" };
        },
        expect: [],
      },
    ],
    { name: "inf-hf-token", opts: { additionalSecretOutputs: ["data", "stringData"] } },
  );

  it("hf-token-is-secret: a Secret whose token is not marked secret", async () => {
    const run = await runResourcePolicy(
      hfTokenIsSecret,
      resourceArgs(T.Secret, props("inf-hf-token")(), { name: "inf-hf-token", opts: { additionalSecretOutputs: [] } }),
    );
    assertMessages(run, [
      `Secret "inf-hf-token" holds the HF token in stringData without marking it secret (additionalSecretOutputs lacks "stringData"); create it with @pulumi/kubernetes' Secret from a Pulumi secret so the token is encrypted in state`,
    ]);
  });

  it("hf-token-is-secret: a ConfigMap holding the token", async () => {
    const run = await runResourcePolicy(
      hfTokenIsSecret,
      resourceArgs(T.ConfigMap, { data: { HF_TOKEN: "hf_abc", other: "x" } }, { name: "cfg" }),
    );
    assertMessages(run, [
      `ConfigMap "cfg" holds HF_TOKEN, and ConfigMaps are not secret; put the token in a Kubernetes Secret created from a Pulumi secret`,
    ]);
  });

  const priv = (s: string, where: string, why: string) =>
    `${s} runs ${where} privileged but ${why}; nothing here needs privileged (EFA workers need only IPC_LOCK): remove securityContext.privileged`;
  const shared = (s: string, what: string, why: string) =>
    `${s} runs its main container with ${what} and ${why}; a privileged container sees every GPU and EFA device of the node: co-located engines all take cuda:0 and NIXL opens every EFA device (kubernetes/kubernetes#81256). Drop privileged and add capabilities IPC_LOCK (the EFA and NVIDIA device plugins mount the allocated devices), as upstream Dynamo's EKS example does`;
  const privileged = (svc: { extraPodSpec: { mainContainer: object } }) => {
    loose(svc.extraPodSpec.mainContainer).securityContext = { privileged: true };
  };
  resourcePolicyTable(
    privilegedOnlyForEfaWorkers,
    T.Dgd,
    happyGraph,
    [
      {
        title: "a privileged Frontend",
        mutate: (g) => {
          privileged(g.spec.services.Frontend);
        },
        expect: [priv(F, "its main container", "the service is not an EFA worker")],
      },
      {
        title: "a privileged worker without EFA",
        mutate: (g) => {
          delete decode(g).resources.limits.custom["vpc.amazonaws.com/efa"];
          privileged(decode(g));
        },
        expect: [priv(D, "its main container", "the worker requests no EFA")],
      },
      {
        title: "a privileged sidecar next to an EFA worker",
        mutate: (g) => {
          loose(decode(g).extraPodSpec).containers = [
            { name: "metrics", image: "x", securityContext: { privileged: true } },
          ];
        },
        expect: [priv(D, 'container "metrics"', "that is not the EFA worker's main container")],
      },
      {
        title: "SYS_ADMIN on the Frontend",
        mutate: (g) => {
          loose(g.spec.services.Frontend.extraPodSpec.mainContainer.securityContext).capabilities = {
            add: ["SYS_ADMIN", "NET_BIND_SERVICE"],
          };
        },
        expect: [
          `${F} adds capabilities SYS_ADMIN to its main container but the service is not an EFA worker; remove them from securityContext.capabilities.add`,
        ],
      },
      {
        title: "a privileged 1-GPU EFA worker: 8 of them share a p5en node (the field's layout)",
        mutate: (g) => {
          privileged(decode(g));
        },
        expect: [
          shared(D, "privileged", "it requests 1 of the 8 GPUs of a p5en.48xlarge, so other GPU pods share its node"),
        ],
      },
      {
        title: "SYS_ADMIN on a 4-GPU EFA worker",
        mutate: (g) => {
          decode(g).resources.limits.gpu = "4";
          decode(g).extraPodSpec.mainContainer.securityContext.capabilities.add = ["SYS_ADMIN"];
        },
        expect: [
          shared(
            D,
            "capability SYS_ADMIN",
            "it requests 4 of the 8 GPUs of a p5en.48xlarge, so other GPU pods share its node",
          ),
        ],
      },
      {
        title: "a privileged 8-GPU EFA worker alone on its p5en node (allowed)",
        mutate: (g) => {
          decode(g).resources.limits.gpu = "8";
          privileged(decode(g));
        },
        expect: [],
      },
      {
        title: "a privileged EFA worker pinned to no instance type",
        mutate: (g) => {
          privileged(decode(g));
          delete decode(g).extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"];
        },
        expect: [
          shared(
            D,
            "privileged",
            "it is not pinned to a known instance type (undefined), so nothing proves it is alone on its node",
          ),
        ],
      },
    ],
    { name: "inf-graph" },
  );

  const notKept = (kind: string, name: string) =>
    `${kind} "${name}" holds data but is neither protected nor retained on delete, so a destroy or replacement loses it; set the resource option retainOnDelete: true (or protect: true)`;
  const retained = async (type: string, name: string, opts: object) =>
    runResourcePolicy(statefulResourcesRetained, resourceArgs(type, props(name)(), { name, opts }));
  describe("stateful-resources-retained", () => {
    for (const [type, name, kind] of [
      [T.Repository, "img-repo", "ECR repository"],
      [T.Pvc, "inf-model-cache", "PersistentVolumeClaim"],
    ] as const) {
      it(`${kind}: retained passes, protected passes, neither fails`, async () => {
        assertMessages(await retained(type, name, { retainOnDelete: true }), []);
        assertMessages(await retained(type, name, { protect: true }), []);
        assertMessages(await retained(type, name, {}), [notKept(kind, name)]);
      });
    }
    it("EFS file system without retention", async () => {
      assertMessages(
        await runResourcePolicy(
          statefulResourcesRetained,
          resourceArgs("aws:efs/fileSystem:FileSystem", { encrypted: true }, { name: "c-efs" }),
        ),
        [notKept("EFS file system", "c-efs")],
      );
    });
    it("the build-cache repository is exempt", async () => {
      assertMessages(await retained(T.Repository, "img-build-cache", {}), []);
    });
    it("under the policy server (no retainOnDelete sent) an unprotected resource is not applicable, not a false violation", async () => {
      const args = resourceArgs(T.Pvc, props("inf-model-cache")(), { name: "inf-model-cache" });
      delete (args.opts as { retainOnDelete?: boolean }).retainOnDelete;
      const run = await runResourcePolicy(statefulResourcesRetained, args);
      assert.deepEqual(
        [run.violations, run.notApplicable],
        [[], "retainOnDelete is not visible to the policy server; checked by the offline render"],
      );
    });
  });
});
