// The c16 instantiation of the device gemm (one file per precision: parallel builds).
#include "gemm_impl.cuh"

namespace bb::cuda {
BB_GEMM_DECLARE(chalf, )
}
