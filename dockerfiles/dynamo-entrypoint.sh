#!/usr/bin/env bash
# Entrypoint of dynamo-combined-efa: the first argument picks the engine by module name.
#   vllm|trtllm|frontend [args...]  -> exec python3 -m dynamo.<name> [args...]
#   nccl-tests <binary> [args...]    -> exec /usr/local/nccl-tests/bin/<binary> [args...]
#   anything else                    -> exec'd as given (e.g. `python3 -m dynamo.vllm ...`, `bash`)
# Kubernetes `command:` (what the Dynamo operator sets) bypasses this script entirely.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: dynamo-entrypoint (vllm|trtllm|frontend) [engine args...]
       dynamo-entrypoint nccl-tests <all_reduce_perf|all_gather_perf|...> [args...]
       dynamo-entrypoint <command> [args...]
USAGE
}

if [ "$#" -eq 0 ] || [ "$1" = "--help" ] || [ "$1" = "-h" ]; then
  usage
  exit 0
fi

engine="$1"
case "${engine}" in
  vllm|trtllm|frontend)
    shift
    exec python3 -m "dynamo.${engine}" "$@"
    ;;
  nccl-tests)
    shift
    if [ "$#" -eq 0 ]; then ls /usr/local/nccl-tests/bin; exit 0; fi
    bin="$1"
    shift
    exec "/usr/local/nccl-tests/bin/${bin}" "$@"
    ;;
  *)
    exec "$@"
    ;;
esac
