#!/usr/bin/env bash
# Builds UCX and NIXL (native install + the nixl-cu<major> wheel + the nixl meta wheel) against the CUDA toolkit of
# the stage it runs in, as Dynamo's wheel_builder.Dockerfile @ f2fd3a16e does once per image (PKG_NAME=nixl-cu${CUDA_MAJOR}):
# the image runs it twice, for the vLLM environment (CUDA 12.9 -> nixl_cu12) and the TRT-LLM one (CUDA 13.1 -> nixl_cu13).
# NIXL 0.10.1 meson.build names the Python package directory from nvcc's major version (12 -> nixl_cu12,
# 13 -> nixl_cu13); pyproject.toml names the distribution nixl-cu12, renamed here for CUDA 13 as Dynamo does.
#
# Inputs (environment): CUDA_HOME, UCX_REF, UCX_PREFIX, NIXL_REF, NIXL_PREFIX, WHEEL_DIR, GDRCOPY_PREFIX,
# LIBFABRIC_PREFIX, PYTHON (the interpreter the wheel is for), MAX_JOBS.
set -euxo pipefail
: "${CUDA_HOME:?}" "${UCX_REF:?}" "${UCX_PREFIX:?}" "${NIXL_REF:?}" "${NIXL_PREFIX:?}" "${WHEEL_DIR:?}"
: "${GDRCOPY_PREFIX:?}" "${LIBFABRIC_PREFIX:?}" "${PYTHON:?}" "${MAX_JOBS:?}"

cuda_major="$("${CUDA_HOME}/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')"
case "${cuda_major}" in 12 | 13) ;; *) echo "build-nixl: CUDA ${cuda_major} is not one NIXL 0.10.1 builds a wheel for (12, 13)" >&2; exit 1 ;; esac
work="$(mktemp -d)"

git clone --depth 1 --branch "${UCX_REF}" https://github.com/openucx/ucx.git "${work}/ucx"
(
  cd "${work}/ucx"
  ./autogen.sh
  ./contrib/configure-release --prefix="${UCX_PREFIX}" --with-cuda="${CUDA_HOME}" --with-verbs --with-dm \
    --with-gdrcopy="${GDRCOPY_PREFIX}" --with-efa --enable-mt
  make -j"${MAX_JOBS}" && make install
)

git clone --depth 1 --branch "${NIXL_REF}" https://github.com/ai-dynamo/nixl.git "${work}/nixl"
cd "${work}/nixl"
pkg="nixl-cu${cuda_major}"
sed -i "s/^name = \"nixl-cu12\"$/name = \"${pkg}\"/" pyproject.toml
grep -qx "name = \"${pkg}\"" pyproject.toml
export PKG_CONFIG_PATH="${UCX_PREFIX}/lib/pkgconfig:${LIBFABRIC_PREFIX}/lib/pkgconfig:${PKG_CONFIG_PATH:-}"
export LD_LIBRARY_PATH="${UCX_PREFIX}/lib:${LIBFABRIC_PREFIX}/lib:${GDRCOPY_PREFIX}/lib:${LD_LIBRARY_PATH:-}"
meson setup build --prefix="${NIXL_PREFIX}" --libdir=lib64 --buildtype=release \
  -Dcudapath_lib="${CUDA_HOME}/lib64" -Dcudapath_inc="${CUDA_HOME}/include" \
  -Ducx_path="${UCX_PREFIX}" -Dlibfabric_path="${LIBFABRIC_PREFIX}"
ninja -C build -j"${MAX_JOBS}" install
# The nixl-cu<major> wheel (module nixl_cu<major>) and the `nixl` meta package (module nixl, re-exporting
# nixl_cu13 or nixl_cu12: what vLLM's NixlConnector imports as nixl._api), as NIXL's contrib/Dockerfile builds them.
uv build --wheel --python "${PYTHON}" --out-dir "${WHEEL_DIR}" \
  -Csetup-args=-Dcudapath_lib="${CUDA_HOME}/lib64" -Csetup-args=-Dcudapath_inc="${CUDA_HOME}/include" \
  -Csetup-args=-Ducx_path="${UCX_PREFIX}" -Csetup-args=-Dlibfabric_path="${LIBFABRIC_PREFIX}"
cp build/src/bindings/python/nixl-meta/nixl-*-py3-none-any.whl "${WHEEL_DIR}/"
ls "${WHEEL_DIR}/nixl_cu${cuda_major}-"*.whl "${WHEEL_DIR}/"nixl-*-py3-none-any.whl
for plugin in LIBFABRIC UCX; do test -f "${NIXL_PREFIX}/lib64/plugins/libplugin_${plugin}.so"; done
test -f "${NIXL_PREFIX}/lib64/plugins/libplugin_OBJ.so" || echo "build-nixl: NIXL OBJ plugin not built (AWS SDK or asio not found)"
cd /
rm -rf "${work}"
