// Representative serving-style kernels for `npm run bench:gencode`: fused residual-add + RMSNorm and a causal
// softmax over attention scores, in fp16/bf16 with fp32 accumulation, templated over block sizes the way inference
// libraries instantiate them. The point is a realistic per-arch compile cost, not speed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T> __device__ __forceinline__ float to_float(T v);
template <> __device__ __forceinline__ float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <int BLOCK>
__device__ float block_reduce(float v, bool is_max) {
  __shared__ float partial[BLOCK / 32];
  v = is_max ? warp_max(v) : warp_sum(v);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < BLOCK / 32 ? partial[threadIdx.x] : (is_max ? -INFINITY : 0.f);
  if (threadIdx.x < 32) v = is_max ? warp_max(v) : warp_sum(v);
  __shared__ float result;
  if (threadIdx.x == 0) result = v;
  __syncthreads();
  return result;
}

// out = rmsnorm(x + residual) * weight; residual <- x + residual.
template <typename T, int BLOCK>
__global__ void fused_add_rmsnorm(T* __restrict__ out, T* __restrict__ residual, const T* __restrict__ x,
                                  const T* __restrict__ weight, int hidden, float eps) {
  const size_t row = blockIdx.x;
  float sq = 0.f;
  for (int i = threadIdx.x; i < hidden; i += BLOCK) {
    float v = to_float(x[row * hidden + i]) + to_float(residual[row * hidden + i]);
    residual[row * hidden + i] = from_float<T>(v);
    sq += v * v;
  }
  const float inv = rsqrtf(block_reduce<BLOCK>(sq, false) / hidden + eps);
  for (int i = threadIdx.x; i < hidden; i += BLOCK) {
    out[row * hidden + i] = from_float<T>(to_float(residual[row * hidden + i]) * inv * to_float(weight[i]));
  }
}

// Row-wise causal softmax of scaled attention scores (one block per query row).
template <typename T, int BLOCK>
__global__ void causal_softmax(T* __restrict__ probs, const float* __restrict__ scores, int kv_len, int q_offset, float scale) {
  const size_t row = blockIdx.x;
  const int limit = min(kv_len, q_offset + static_cast<int>(row) + 1);
  float m = -INFINITY;
  for (int j = threadIdx.x; j < limit; j += BLOCK) m = fmaxf(m, scores[row * kv_len + j] * scale);
  m = block_reduce<BLOCK>(m, true);
  float s = 0.f;
  for (int j = threadIdx.x; j < limit; j += BLOCK) s += __expf(scores[row * kv_len + j] * scale - m);
  s = block_reduce<BLOCK>(s, false);
  for (int j = threadIdx.x; j < kv_len; j += BLOCK) {
    const float p = j < limit ? __expf(scores[row * kv_len + j] * scale - m) / s : 0.f;
    probs[row * kv_len + j] = from_float<T>(p);
  }
}

#define INSTANTIATE(T, B)                                                                                   \
  template __global__ void fused_add_rmsnorm<T, B>(T*, T*, const T*, const T*, int, float);                 \
  template __global__ void causal_softmax<T, B>(T*, const float*, int, int, float);

INSTANTIATE(__half, 128)
INSTANTIATE(__half, 256)
INSTANTIATE(__half, 512)
INSTANTIATE(__half, 1024)
INSTANTIATE(__nv_bfloat16, 128)
INSTANTIATE(__nv_bfloat16, 256)
INSTANTIATE(__nv_bfloat16, 512)
INSTANTIATE(__nv_bfloat16, 1024)
