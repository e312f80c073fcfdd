/**
 * Extracts the network facts of Dynamo that the graph's NetworkPolicies rely on: the ports the operator gives
 * the Frontend and the workers (and the NIXL telemetry switch it sets), the runtime's request/event plane
 * defaults and the request plane's fixed-port variable, the port a caller's response-stream server binds, the
 * NATS/etcd addresses the platform chart wires, the discovery backend, what the operator itself calls on the
 * workers. How the Frontend loads the model card is tests/contracts/extract/dynamo-model-card.ts.
 * Usage: npx tsx tests/contracts/extract/dynamo-network.ts <ai-dynamo/dynamo checkout> --ref main [--commit <sha>]
 */
import YAML from "yaml";
import { checkoutArgs, dynamoProvenance, matcher, printFacts, readText } from "./_checkout";

export const PATHS = {
  consts: "deploy/operator/internal/consts/consts.go",
  worker: "deploy/operator/internal/dynamo/component_worker.go",
  runtimeArgs: "components/src/dynamo/common/configuration/groups/runtime_args.py",
  networkManager: "lib/runtime/src/pipeline/network/manager.rs",
  streamServer: "lib/runtime/src/pipeline/network/tcp/server.rs",
  pushRouter: "lib/runtime/src/pipeline/network/egress/push_router.rs",
  operatorConfig: "deploy/helm/charts/platform/components/operator/templates/operator-config.yaml",
  platformValues: "deploy/helm/charts/platform/values.yaml",
  modelController: "deploy/operator/internal/controller/dynamo_model_controller.go",
} as const;

const must = matcher("dynamo-network");

function goInt(consts: string, name: string): number {
  return Number(must(new RegExp(`\\b${name}\\s*=\\s*(\\d+)`), consts, name)[1]);
}

function pyDefault(args: string, env: string): string {
  return must(new RegExp(`env_var="${env}",\\s*default="([^"]+)"`), args, env)[1];
}

function operatorFacts(read: (p: string) => string) {
  const consts = read(PATHS.consts);
  const worker = read(PATHS.worker);
  const telemetry = must(/Name:\s*"NIXL_TELEMETRY_ENABLE",\s*Value:\s*"([^"]*)"/, worker, "NIXL_TELEMETRY_ENABLE")[1];
  const controller = read(PATHS.modelController);
  return {
    frontendHttpPort: goInt(consts, "DynamoServicePort"),
    workerSystemPort: goInt(consts, "DynamoSystemPort"),
    workerNixlTelemetryPort: goInt(consts, "DynamoNixlPort"),
    workerNixlTelemetryEnable: telemetry,
    workerContainerPortNames: [...worker.matchAll(/Name:\s*commonconsts\.(\w+PortName)/g)].map((m) => m[1]),
    operatorCallsWorkerSystemPort: /ExtractCandidates\([^)]*DynamoSystemPort\)/.test(controller),
  };
}

function runtimeFacts(read: (p: string) => string) {
  const args = read(PATHS.runtimeArgs);
  const manager = read(PATHS.networkManager);
  const server = read(PATHS.streamServer);
  return {
    requestPlaneDefault: pyDefault(args, "DYN_REQUEST_PLANE"),
    eventPlaneDefault: pyDefault(args, "DYN_EVENT_PLANE"),
    tcpRpcPortVariable: must(/tcp_port: std::env::var\("(DYN_TCP_RPC_PORT)"\)/, manager, "tcp_port")[1],
    responseStreamServerDefaultPort: Number(
      must(/#\[builder\(default = "(\d+)"\)\]\s*pub port: u16/, server, "port")[1],
    ),
    callerUsesResponseStreamServer: /resp_transport = endpoint\.drt\(\)\.tcp_server\(\)/.test(read(PATHS.pushRouter)),
  };
}

function platformFacts(read: (p: string) => string) {
  const tpl = read(PATHS.operatorConfig);
  const values = YAML.parse(read(PATHS.platformValues));
  return {
    natsAddressTemplate: must(/\$natsAddr = printf "(nats:\/\/[^"]+)"/, tpl, "natsAddr")[1],
    natsPort: values.nats.config.nats.port,
    natsEnabled: values["dynamo-operator"].nats.enabled,
    etcdAddressTemplate: must(/\$etcdAddr = printf "([^"]+)"/, tpl, "etcdAddr")[1],
    etcdInstalled: values.global.etcd.install,
    discoveryBackend: values["dynamo-operator"].discoveryBackend,
  };
}

/** The facts, read from a checkout. */
export function extract(root: string): Record<string, unknown> {
  const read = (p: string) => readText(root, p);
  return {
    ...operatorFacts(read),
    ...runtimeFacts(read),
    ...platformFacts(read),
  };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "dynamo-network.ts");
  printFacts(dynamoProvenance(a, PATHS, "dynamo-network.ts"), extract(a.root));
}
