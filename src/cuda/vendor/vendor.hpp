// The vendor libraries for the dense factorizations and trsm on device data (the `vendor`
// backend, SPEC.md section 7): cuBLAS getrfBatched, getriBatched, geqrfBatched, trsmBatched and
// cuSOLVER potrfBatched, on runs the device layer's adapters hand over. Plain C++ (the calls
// live in vendor.cu).
//
// These routines take device pointer arrays without offsets, their pivots packed n per problem
// and an info per problem: a run's operands become pointer lists in stream-ordered workspace
// of the session's pool, and small kernels move pivots and codes between the vendor's form and
// the run's. What the vendor leaves differently from LAPACK's semantics is put right there (getri
// of a singular problem leaves A unchanged) or the run stays on the library's kernels.
#pragma once
#include "../factor_run.hpp"
#include "../session.hpp"
#include "../tri/tri.hpp"

namespace bb::cuda {

enum class VendorFactor : uint8_t { getrf, getri, getrf_getri, potrf, geqrf };

// Whether the vendor library takes problems of this shape (precision, layout, sizes): column-major
// square getrf/getri, column-major geqrf, potrf in both layouts (row-major as the other
// triangle), r32..c64; potrf only where the build has cuSOLVER.
bool factor_vendor_ok(VendorFactor f, DevPrec p, const FactorRun &shape);
bool trsm_vendor_ok(DevPrec p, const TriRun &shape);

// The run on the vendor library, enqueued on the session's stream (no sync); returns the
// session's status. Its workspace (pointer lists, packed pivots, codes; getri's copy of A) comes
// from the session's pool in batches of at most what the pool keeps: none to be had is
// BLAS_BATCHED_ERR_DEVICE_ALLOC with the run untouched. Not for a stream being captured (the
// adapters plan no vendor run there). Problem codes go where the run's kernels would put them
// (FactorRun::codes, ::info), only into entries still 0 (a NULL problem's -k stays).
int factor_vendor(Session &s, DevPrec p, VendorFactor f, const FactorRun &r);
// getrf of a run (column-major, square, r32 or r64) by cuSOLVER's getrf, one problem after
// another on the session's stream, each problem's addresses from FactorRun::host_a and
// host_ipiv (or the strided operands). As for cuBLAS's getrf, problems with NaN, Inf or
// subnormal entries, and those cuSOLVER finds singular, are factored again from their kept
// input by the library's kernels (unblocked or blocked by order, lu_tuning.hpp), whose choices
// there are LAPACK's.
int getrf_solver(Session &s, DevPrec p, const FactorRun &r);
// potrf of a run (r32..c64, either layout and triangle) by cuSOLVER's potrf one problem after
// another, each problem's address from FactorRun::host_a (or the strided operand): the
// column-major view of the stored triangle (row-major Lower is the column-major Upper of A's
// conjugate, whose factor is the row-major L). Codes as potrfBatched's (potrf_codes).
int potrf_solver(Session &s, DevPrec p, const FactorRun &r);
int trsm_vendor(Session &s, DevPrec p, const TriRun &r);

}  // namespace bb::cuda
