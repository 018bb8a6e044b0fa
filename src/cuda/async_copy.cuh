// Asynchronous copies from global into shared memory (cp.async, Ampere and later): a lane's
// loads all in flight at once without registers to hold them.
#pragma once

namespace bb::cuda {

template <class S> __device__ __forceinline__ void copy_async(S *shared, const S *global) {
  static_assert(sizeof(S) == 4 || sizeof(S) == 8 || sizeof(S) == 16, "cp.async.ca copies 4, 8 or 16 bytes");
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(unsigned(__cvta_generic_to_shared(shared))),
               "l"(global), "n"(int(sizeof(S))));
#else
  *shared = *global;
#endif
}
__device__ __forceinline__ void wait_async_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}  // namespace bb::cuda
