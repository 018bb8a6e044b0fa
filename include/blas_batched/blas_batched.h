/* blas_batched: the proposed Batched BLAS/LAPACK standard (C API).
 *
 * One call runs many independent small problems, grouped by size. SPEC.md at the
 * repository root is the normative description of every rule stated here briefly.
 *
 * The header compiles as C11 and C++17 (gcc, clang) and inside .cu files under nvcc.
 * Element types are named blas_<prec>_t: the ISO types of the proposal (_Float16,
 * float _Complex, _Float128, ...) where the compiler has them, otherwise layout-compatible
 * types (same size, alignment and bit layout; SPEC.md section 1.1). */
#ifndef BLAS_BATCHED_H
#define BLAS_BATCHED_H

#include <stdint.h>
#ifdef __cplusplus
#include <complex>
#endif

#define BLAS_BATCHED_VERSION_MAJOR 0
#define BLAS_BATCHED_VERSION_MINOR 1

/* ---- element types ------------------------------------------------------------ */
/* The ISO type where the compiler has it (feature macros), otherwise storage of the same
 * size, alignment and bit layout: a caller whose compiler lacks _Float16 or _Float128 (clang
 * in C mode, nvcc) can still use every other precision, and pass half or quad data as bits. */
#ifdef __GNUC__
#define BLAS_BATCHED_EXTENSION __extension__ /* keeps -pedantic quiet about TS 18661-3 types */
#else
#define BLAS_BATCHED_EXTENSION
#endif
#if defined(__FLT16_MAX__) && !defined(__CUDACC__)
BLAS_BATCHED_EXTENSION typedef _Float16 blas_r16_t;
#else
typedef struct blas_r16_storage { unsigned short bits; } blas_r16_t;
#endif
#if defined(__FLT16_MAX__) && !defined(__cplusplus) && !defined(__CUDACC__)
BLAS_BATCHED_EXTENSION typedef _Complex _Float16 blas_c16_t;
#else
typedef struct blas_c16_storage { blas_r16_t re, im; } blas_c16_t;
#endif
typedef float blas_r32_t;
typedef double blas_r64_t;
#ifdef __cplusplus
typedef std::complex<float> blas_c32_t;
typedef std::complex<double> blas_c64_t;
#else
typedef float _Complex blas_c32_t;
typedef double _Complex blas_c64_t;
#endif
#if defined(__FLT128_MAX__) && !defined(__cplusplus) && !defined(__CUDACC__)
BLAS_BATCHED_EXTENSION typedef _Float128 blas_r128_t;
BLAS_BATCHED_EXTENSION typedef _Complex _Float128 blas_c128_t;
#else
#if defined(__SIZEOF_FLOAT128__) && !defined(__CUDACC__)
BLAS_BATCHED_EXTENSION typedef __float128 blas_r128_t;
#elif defined(__cplusplus)
typedef struct alignas(16) blas_r128_storage { unsigned char bytes[16]; } blas_r128_t;
#else
typedef struct blas_r128_storage { _Alignas(16) unsigned char bytes[16]; } blas_r128_t;
#endif
typedef struct blas_c128_storage { blas_r128_t re, im; } blas_c128_t;
#endif

/* ---- enums (CBLAS values) ------------------------------------------------------ */
/* In C++ the enums get int as their fixed underlying type: the library must read and reject
 * any int a caller passes, and for an enum without a fixed type reading a value outside its
 * enumerators' range is undefined behaviour. Size and passing are those of C's enum. */
#ifdef __cplusplus
#define BLAS_BATCHED_ENUM(name) enum name : int
#else
#define BLAS_BATCHED_ENUM(name) enum name
#endif
typedef BLAS_BATCHED_ENUM(BLAS_Layout) { BLAS_RowMajor = 101, BLAS_ColMajor = 102 } BLAS_Layout;
typedef BLAS_BATCHED_ENUM(BLAS_Op) { BLAS_NoTrans = 111, BLAS_Trans = 112, BLAS_ConjTrans = 113 } BLAS_Op;
typedef BLAS_BATCHED_ENUM(BLAS_Uplo) { BLAS_Upper = 121, BLAS_Lower = 122 } BLAS_Uplo;
typedef BLAS_BATCHED_ENUM(BLAS_Diag) { BLAS_NonUnit = 131, BLAS_Unit = 132 } BLAS_Diag;
typedef BLAS_BATCHED_ENUM(BLAS_Side) { BLAS_Left = 141, BLAS_Right = 142 } BLAS_Side;
#undef BLAS_BATCHED_ENUM

#ifdef __cplusplus
extern "C" {
#endif

/* Return values beyond the standard's 0 / -k / count (see SPEC.md, "Return value"). */
#define BLAS_BATCHED_ERR_ALLOC (-1001)   /* host workspace could not be allocated */
#define BLAS_BATCHED_ERR_BACKEND (-1002) /* BLAS_BATCHED_BACKEND names no backend */
#define BLAS_BATCHED_ERR_DEVICE (-1003)  /* a CUDA call or kernel failed (launch failure, lost device) */
#define BLAS_BATCHED_ERR_DEVICE_ALLOC (-1004) /* device or pinned host memory could not be allocated */
#define BLAS_BATCHED_ERR_UNSUPPORTED (-1005)  /* device-resident data for a routine with no device
                                                 path in this release or build; nothing was run */

/* ---- the 56 entry points ------------------------------------------------------- */
#define BLAS_BATCHED_DECLARE(p, T)                                                                 \
  int BLAS_gemm_batched_##p(BLAS_Layout layout, const BLAS_Op *A_trans, const BLAS_Op *B_trans,  \
                            const int *m, const int *n, const int *k, const T *alpha, T **A,     \
                            const int *A_ld, T **B, const int *B_ld, const T *beta, T **C,       \
                            const int *C_ld, int group_count, const int *group_sizes, int *info); \
  int BLAS_trsm_batched_##p(BLAS_Layout layout, const BLAS_Side *side, const BLAS_Uplo *uplo,    \
                            const BLAS_Op *A_trans, const BLAS_Diag *diag, const int *m,         \
                            const int *n, const T *alpha, T **A, const int *A_ld, T **B,         \
                            const int *B_ld, int group_count, const int *group_sizes, int *info); \
  int BLAS_trmm_batched_##p(BLAS_Layout layout, const BLAS_Side *side, const BLAS_Uplo *uplo,    \
                            const BLAS_Op *A_trans, const BLAS_Diag *diag, const int *m,         \
                            const int *n, const T *alpha, T **A, const int *A_ld, T **B,         \
                            const int *B_ld, int group_count, const int *group_sizes, int *info); \
  int BLAS_getrf_batched_##p(BLAS_Layout layout, const int *m, const int *n, T **A,              \
                             const int *A_ld, int **ipiv, int group_count,                       \
                             const int *group_sizes, int *info);                                 \
  int BLAS_getri_batched_##p(BLAS_Layout layout, const int *n, T **A, const int *A_ld,           \
                             int **ipiv, int group_count, const int *group_sizes, int *info);    \
  int BLAS_potrf_batched_##p(BLAS_Layout layout, const BLAS_Uplo *uplo, const int *n, T **A,     \
                             const int *A_ld, int group_count, const int *group_sizes,           \
                             int *info);                                                         \
  int BLAS_geqrf_batched_##p(BLAS_Layout layout, const int *m, const int *n, T **A,              \
                             const int *A_ld, T **tau, int group_count, const int *group_sizes,  \
                             int *info);

BLAS_BATCHED_DECLARE(r16, blas_r16_t)
BLAS_BATCHED_DECLARE(c16, blas_c16_t)
BLAS_BATCHED_DECLARE(r32, blas_r32_t)
BLAS_BATCHED_DECLARE(c32, blas_c32_t)
BLAS_BATCHED_DECLARE(r64, blas_r64_t)
BLAS_BATCHED_DECLARE(c64, blas_c64_t)
BLAS_BATCHED_DECLARE(r128, blas_r128_t)
BLAS_BATCHED_DECLARE(c128, blas_c128_t)
#undef BLAS_BATCHED_DECLARE

/* ---- extensions (not part of the proposal) -------------------------------------- */
/* Strided batches (SPEC.md section 9.1): one group of batch_count problems; problem p uses
 * A + p * A_stride (elements), ipiv + p * ipiv_stride, ... Same semantics, info codes and
 * return values as the group API with one group; -k numbers the argument's position in these
 * signatures. Strides are >= 0; 0 is allowed for an operand that is only read; an output
 * whose problems would overlap (stride below its extent) is an invalid argument. */
#define BLAS_BATCHED_DECLARE_STRIDED(p, T)                                                         \
  int BLAS_gemm_batched_strided_##p(BLAS_Layout layout, BLAS_Op A_trans, BLAS_Op B_trans, int m,  \
                                    int n, int k, const T *alpha, const T *A, int A_ld,          \
                                    int64_t A_stride, const T *B, int B_ld, int64_t B_stride,    \
                                    const T *beta, T *C, int C_ld, int64_t C_stride,             \
                                    int batch_count, int *info);                                 \
  int BLAS_trsm_batched_strided_##p(BLAS_Layout layout, BLAS_Side side, BLAS_Uplo uplo,           \
                                    BLAS_Op A_trans, BLAS_Diag diag, int m, int n, const T *alpha, \
                                    const T *A, int A_ld, int64_t A_stride, T *B, int B_ld,      \
                                    int64_t B_stride, int batch_count, int *info);               \
  int BLAS_trmm_batched_strided_##p(BLAS_Layout layout, BLAS_Side side, BLAS_Uplo uplo,           \
                                    BLAS_Op A_trans, BLAS_Diag diag, int m, int n, const T *alpha, \
                                    const T *A, int A_ld, int64_t A_stride, T *B, int B_ld,      \
                                    int64_t B_stride, int batch_count, int *info);               \
  int BLAS_getrf_batched_strided_##p(BLAS_Layout layout, int m, int n, T *A, int A_ld,            \
                                     int64_t A_stride, int *ipiv, int64_t ipiv_stride,           \
                                     int batch_count, int *info);                                \
  int BLAS_getri_batched_strided_##p(BLAS_Layout layout, int n, T *A, int A_ld, int64_t A_stride, \
                                     const int *ipiv, int64_t ipiv_stride, int batch_count,      \
                                     int *info);                                                 \
  int BLAS_potrf_batched_strided_##p(BLAS_Layout layout, BLAS_Uplo uplo, int n, T *A, int A_ld,   \
                                     int64_t A_stride, int batch_count, int *info);              \
  int BLAS_geqrf_batched_strided_##p(BLAS_Layout layout, int m, int n, T *A, int A_ld,            \
                                     int64_t A_stride, T *tau, int64_t tau_stride,               \
                                     int batch_count, int *info);

BLAS_BATCHED_DECLARE_STRIDED(r16, blas_r16_t)
BLAS_BATCHED_DECLARE_STRIDED(c16, blas_c16_t)
BLAS_BATCHED_DECLARE_STRIDED(r32, blas_r32_t)
BLAS_BATCHED_DECLARE_STRIDED(c32, blas_c32_t)
BLAS_BATCHED_DECLARE_STRIDED(r64, blas_r64_t)
BLAS_BATCHED_DECLARE_STRIDED(c64, blas_c64_t)
BLAS_BATCHED_DECLARE_STRIDED(r128, blas_r128_t)
BLAS_BATCHED_DECLARE_STRIDED(c128, blas_c128_t)
#undef BLAS_BATCHED_DECLARE_STRIDED

/* The inverse in one call (SPEC.md section 9.4): getrf then getri on the same arguments, with
 * getri's signature. A becomes inv(A) and ipiv gets getrf's pivots; info and the return value
 * as getri's. A singular problem gets info = i (the first zero U(i,i), as getrf reports it) and
 * keeps getrf's factors in A and its pivots in ipiv. */
#define BLAS_BATCHED_DECLARE_INVERSE(p, T)                                                         \
  int BLAS_getrf_getri_batched_##p(BLAS_Layout layout, const int *n, T **A, const int *A_ld,     \
                                   int **ipiv, int group_count, const int *group_sizes,          \
                                   int *info);

BLAS_BATCHED_DECLARE_INVERSE(r16, blas_r16_t)
BLAS_BATCHED_DECLARE_INVERSE(c16, blas_c16_t)
BLAS_BATCHED_DECLARE_INVERSE(r32, blas_r32_t)
BLAS_BATCHED_DECLARE_INVERSE(c32, blas_c32_t)
BLAS_BATCHED_DECLARE_INVERSE(r64, blas_r64_t)
BLAS_BATCHED_DECLARE_INVERSE(c64, blas_c64_t)
BLAS_BATCHED_DECLARE_INVERSE(r128, blas_r128_t)
BLAS_BATCHED_DECLARE_INVERSE(c128, blas_c128_t)
#undef BLAS_BATCHED_DECLARE_INVERSE

/* What the calling thread's last BLAS_*_batched call did: routine, precision and, per
 * group, where it ran ("host/tiny", "host/openblas", "reference", "skipped -9", ...).
 * The string stays valid until the thread's next call. */
const char *blas_batched_last_call(void);

/* The CUDA stream (a cudaStream_t passed as void *) that the calling thread's calls use for
 * device-resident groups; NULL goes back to the library's own stream. Work already queued on
 * the stream runs first. Calls wait for their own work on the stream before returning, unless
 * blas_batched_set_blocking(0) makes an eligible call non-blocking. Returns 0, BLAS_BATCHED_ERR_DEVICE for a stream the CUDA runtime does not
 * know, or BLAS_BATCHED_ERR_UNSUPPORTED in a build without CUDA. */
int blas_batched_set_cuda_stream(void *stream);

/* Non-blocking calls (SPEC.md section 9.3), per thread: with 0, a call whose groups are all
 * device-resident without host pointer arrays (strided, or pointer arrays in device memory) and
 * whose info is NULL or device memory is enqueued on the thread's stream and returns without
 * waiting; such calls can be captured into a CUDA graph after a first call of the same shape.
 * Other calls stay synchronous. 1 (the default) makes every call synchronous. Returns 0, or
 * BLAS_BATCHED_ERR_UNSUPPORTED in a build without CUDA. */
int blas_batched_set_blocking(int blocking);

/* With device timing on (BLAS_BATCHED_DEVICE_TIMING set to a non-empty value other than 0 in
 * the environment, or blas_batched_set_device_timing(1) on this thread): the device time in ms
 * of the calling thread's last call, from its first to its last operation on the GPU (host work
 * before the first one is not included; a strided call of several chunks reports its last).
 * Otherwise, when the call had no device work, or for a non-blocking call, -1. */
double blas_batched_last_device_ms(void);

/* Device timing for the calling thread's calls: 0 off, any positive value on, any negative
 * value back to the environment's BLAS_BATCHED_DEVICE_TIMING (the default). Timing costs a
 * blocking call two event records and an elapsed-time query (a few microseconds), a
 * non-blocking one a start event. Returns 0, or BLAS_BATCHED_ERR_UNSUPPORTED in a build without
 * CUDA. */
int blas_batched_set_device_timing(int on);

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* BLAS_BATCHED_H */
