// The c16 instantiation of the device gemm (one file per precision: parallel builds).
#include "gemm_kernel.cuh"

namespace bb::cuda {
template int run_gemm<chalf>(Session &, const GemmGroup *, int);
}
