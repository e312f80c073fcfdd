#!/usr/bin/env bash
# Entrypoint AND python launcher of dynamo-combined-efa. The image holds two Python environments, each engine on
# the torch it was built against (the field's working layout, dmvevents/awsome-inference-1 evidence/BUILD.md@0e58e904):
#   vllm   /opt/dynamo/venv   PyPI torch (CUDA 12.9): vLLM, FlashInfer, LMCache, DeepEP, nixl_cu12, Dynamo
#   trtllm /opt/trtllm-venv   NGC torch (CUDA 13.1): TensorRT-LLM, flash-attn, nixl_cu13, Dynamo
# Each environment's variables (VIRTUAL_ENV, LD_LIBRARY_PATH, NIXL_*) live in /etc/dynamo/env/<env>.env, the one
# place both this script and the build-time check (image-smoke.py) read them from.
#
# Installed twice:
#   /usr/local/bin/dynamo-entrypoint   the image ENTRYPOINT:
#       vllm|trtllm|frontend [args...]  -> python3 -m dynamo.<name> [args...] in that engine's environment
#       nccl-tests <binary> [args...]    -> /usr/local/nccl-tests/bin/<binary> [args...]
#       anything else                    -> exec'd as given
#   /opt/dynamo/bin/python3 (and python), first on PATH: what Kubernetes `command: [python3, -m, dynamo.trtllm, ...]`
#       runs (the operator's command bypasses ENTRYPOINT). It picks the environment from DYNAMO_BACKEND (vllm|trtllm)
#       if set, else from the module (`-m dynamo.trtllm` -> trtllm), else vllm, and execs that venv's python.
# Engines run without HPC-X's variables: the field's workers unset HPCX_* before exec (dgd.yaml@ce80c01d).
set -euo pipefail

ENV_DIR="${DYNAMO_ENV_DIR:-/etc/dynamo/env}"

# The environment for python arguments "$@": DYNAMO_BACKEND, else the -m module, else vllm.
pick_env() {
  if [ -n "${DYNAMO_BACKEND:-}" ]; then
    echo "${DYNAMO_BACKEND}"
    return
  fi
  local prev=""
  for a in "$@"; do
    if [ "${prev}" = "-m" ]; then
      case "${a}" in
        dynamo.trtllm | dynamo.trtllm.* | tensorrt_llm | tensorrt_llm.*) echo trtllm ;;
        *) echo vllm ;;
      esac
      return
    fi
    prev="${a}"
  done
  echo vllm
}

# Loads <env>.env into this shell (exported) and drops HPC-X's variables; exits 64 on an unknown environment.
load_env() {
  local name="$1"
  if [ ! -f "${ENV_DIR}/${name}.env" ]; then
    echo "dynamo-entrypoint: unknown environment '${name}' (DYNAMO_BACKEND): allowed $(cd "${ENV_DIR}" && ls -- *.env | sed 's/\.env$//' | tr '\n' ' ')" >&2
    exit 64
  fi
  set -a
  # shellcheck source=/dev/null
  . "${ENV_DIR}/${name}.env"
  set +a
  local v
  for v in $(compgen -e HPCX_ || true); do unset "${v}"; done
}

run_python() {
  load_env "$(pick_env "$@")"
  exec "${VIRTUAL_ENV}/bin/python3" "$@"
}

case "$(basename "$0")" in
  python | python3 | python3.12) run_python "$@" ;;
esac

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
  vllm | trtllm)
    shift
    DYNAMO_BACKEND="${engine}" run_python -m "dynamo.${engine}" "$@"
    ;;
  frontend)
    shift
    run_python -m dynamo.frontend "$@"
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
