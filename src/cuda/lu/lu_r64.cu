// The r64 instantiation of the device LU (one file per precision: parallel builds).
#include "lu_impl.cuh"

namespace bb::cuda {
BB_LU_DECLARE(double, )
}
