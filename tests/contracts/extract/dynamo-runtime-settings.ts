/**
 * Extracts the Dynamo runtime settings the render states on every worker and the Frontend (components/releases:
 * `runtime.workerEnv`, `frontendEnv`, `frontendSwitches`, `routerModes`) and the flows that follow from them:
 * - the planes and discovery: each flag's env var, default and choices (runtime_args.py);
 * - self-hosted model cards: the values `DYN_SELF_HOST_METADATA` reads as on, that the rewrite to worker URLs runs
 *   before the hf:// rewrite, and that the URL's port is the system status server's (local_model.rs);
 * - the ZMQ event plane: a direct publisher binds port 0 and advertises what the kernel gave in discovery
 *   (event_plane/mod.rs, zmq_transport.rs);
 * - the Frontend's switches: the admin API and nvext are on unless `DYN_DISABLE_FRONTEND_*` (service_v2.rs);
 * - the Frontend's router modes (frontend_args.py).
 * Usage: npx tsx tests/contracts/extract/dynamo-runtime-settings.ts <ai-dynamo/dynamo checkout> --ref main [--commit <sha>]
 */
import { checkoutArgs, dynamoProvenance, matcher, printFacts, readText } from "./_checkout";

export const PATHS = {
  runtimeArgs: "components/src/dynamo/common/configuration/groups/runtime_args.py",
  localModel: "lib/llm/src/local_model.rs",
  eventPlane: "lib/runtime/src/transports/event_plane/mod.rs",
  zmq: "lib/runtime/src/transports/event_plane/zmq_transport.rs",
  service: "lib/llm/src/http/service/service_v2.rs",
  frontendArgs: "components/src/dynamo/frontend/frontend_args.py",
} as const;

const must = matcher("dynamo-runtime-settings");

/** One `add_argument(g, flag_name=..., env_var=..., default=..., choices=[...])` of runtime_args.py. */
function flag(args: string, name: string) {
  const block = must(new RegExp(`flag_name="${name}",([\\s\\S]*?)\\n\\s*\\)`), args, name)[1];
  const env = must(/env_var="(\w+)"/, block, `${name} env_var`)[1];
  const def = must(/default=("?[\w.-]*"?)/, block, `${name} default`)[1];
  const choices = /choices=\[([^\]]*)\]/.exec(block);
  return {
    env,
    default: def === "None" ? null : def.replace(/"/g, ""),
    choices: choices ? [...choices[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]) : [],
  };
}

function planes(read: (p: string) => string) {
  const args = read(PATHS.runtimeArgs);
  const ev = flag(args, "--event-plane");
  const help = must(/flag_name="--event-plane",[\s\S]*?help="([^"]*)"\s*\n\s*"([^"]*)"/, args, "event plane help");
  return {
    discoveryBackend: flag(args, "--discovery-backend"),
    requestPlane: flag(args, "--request-plane"),
    responsePlane: flag(args, "--response-plane"),
    eventPlane: { ...ev, unsetMeans: `${help[1]}${help[2]}`.trim() },
  };
}

function selfHosted(read: (p: string) => string) {
  const text = read(PATHS.localModel);
  const env = must(/ENV_SELF_HOST_METADATA: &str = "(\w+)"/, text, "ENV_SELF_HOST_METADATA")[1];
  const truthy = must(
    /fn env_self_host_metadata_default[\s\S]*?matches!\([\s\S]*?\.as_str\(\),\s*([^)]*)\)/,
    text,
    "truthy",
  );
  const attach = must(/pub async fn attach\([\s\S]*?\n {4}}\n/, text, "attach")[0];
  const selfHost = attach.indexOf("move_to_self_host");
  const hfRewrite = attach.indexOf("move_to_url");
  return {
    variable: env,
    truthyValues: [...truthy[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]),
    rewriteBeforeHfPaths: selfHost >= 0 && hfRewrite > selfHost,
    urlPath: must(/"\{base_url\}(\/v1\/metadata\/)/, text, "metadata URL")[1],
    urlPortIsSystemPort: /info\.port\(\)/.test(
      must(/fn self_host_base_url[\s\S]*?\n}\n/, text, "self_host_base_url")[0],
    ),
    skippedWithoutSystemPort: /DYN_SYSTEM_PORT unset/.test(text),
  };
}

function eventPlane(read: (p: string) => string) {
  const mod = read(PATHS.eventPlane);
  const zmq = read(PATHS.zmq);
  return {
    directPublisherBindsPortZero: /"tcp:\/\/0\.0\.0\.0:0"/.test(mod),
    publisherEndpointInDiscovery:
      /DiscoverySpec::EventChannel/.test(mod) && /EventTransport::zmq\(public_endpoint\)/.test(mod),
    portZeroMeansKernelPort: /ends_with\(":0"\)[\s\S]*?TcpListener::bind\("0\.0\.0\.0:0"\)/.test(zmq),
  };
}

function frontend(read: (p: string) => string) {
  const service = read(PATHS.service);
  const args = read(PATHS.frontendArgs);
  const switchOf = (field: string) => {
    const m = must(
      new RegExp(
        `\`(DYN_DISABLE_FRONTEND_\\w+)\` overrides to \`false\`\\.\\s*\\n\\s*#\\[builder\\(default = "(\\w+)"\\)\\]\\s*\\n\\s*${field}: bool`,
      ),
      service,
      field,
    );
    return { disabledBy: m[1], default: m[2] === "true" };
  };
  const mode = flag(args, "--router-mode");
  return { nvext: switchOf("enable_nvext"), adminApi: switchOf("enable_admin_api"), routerMode: mode };
}

/** The facts, read from a checkout. */
export function extract(root: string): Record<string, unknown> {
  const read = (p: string) => readText(root, p);
  return {
    ...planes(read),
    selfHostedMetadata: selfHosted(read),
    zmqEventPlane: eventPlane(read),
    frontend: frontend(read),
  };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "dynamo-runtime-settings.ts");
  printFacts(dynamoProvenance(a, PATHS, "dynamo-runtime-settings.ts"), extract(a.root));
}
