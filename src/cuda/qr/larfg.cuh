// LAPACK's xlarfg in the compute type: the Householder reflector H = I - tau v v^H with
// H^H (alpha, x) = (beta, 0), v = (1, x * factor). Sign convention beta = -sign(Re(alpha)) *
// ||(alpha, x)||; tau = 0 when x is zero and alpha real. Norms that would over- or underflow
// in a plain sum of squares are recomputed scaled (as xnrm2 would give them), and a tiny beta
// is rescaled as xlarfg does (x by 1/safmin in place, up to 20 times).
#pragma once
#include "../scalar.cuh"

namespace bb::cuda {

template <class CT>
struct Reflector {
  CT tau;
  real_t<CT> beta;
  CT factor;  // v's entries below the first are x * factor (the caller scales x)
};

template <class R> __device__ __forceinline__ R epsilon();
template <> __device__ __forceinline__ float epsilon<float>() { return FLT_EPSILON * 0.5f; }
template <> __device__ __forceinline__ double epsilon<double>() { return DBL_EPSILON * 0.5; }

// ||(a, b, c)|| without overflow (xlapy3).
template <class R>
__device__ __forceinline__ R norm3(R a, R b, R c) {
  a = fabs(a), b = fabs(b), c = fabs(c);
  const R w = fmax(a, fmax(b, c));
  if (w == R(0) || !isfinite(w)) return a + b + c;  // Inf stays Inf (w / w would be NaN)
  return w * sqrt_of((a / w) * (a / w) + (b / w) * (b / w) + (c / w) * (c / w));
}

// Where x lies in one thread, its sums and maxima are the thread's own.
struct OwnElements {
  template <class R> __device__ __forceinline__ R sum(R x) const { return x; }
  template <class R> __device__ __forceinline__ R max(R x) const { return x; }
};

// `each(f)` calls f(CT &) on every element of x this thread holds; `over` combines the
// threads' partial sums and maxima (OwnElements when one thread holds all of x); `ssq` is the
// plain sum of |x_i|^2 over all of x. Every thread that shares x gets the same reflector.
template <class CT, class Each, class Over = OwnElements>
__device__ Reflector<CT> larfg(CT alpha, real_t<CT> ssq, Each &&each, const Over &over = {}) {
  using R = real_t<CT>;
  const R safmin = smallest_normal<R>() / epsilon<R>();
  // A plain sum of squares is exact enough between these bounds; outside, scale by the largest.
  const bool plain = ssq >= safmin && ssq <= R(1) / safmin;
  R xnorm = 0;  // ||x||, where the plain sum will not do
  if (!plain) {
    R big = 0;
    each([&](CT &x) { big = fmax(big, fmax(fabs(real_of(x)), fabs(imag_of(x)))); });
    big = over.max(big);
    if (big == R(0) || isinf(big)) {
      xnorm = sqrt_of(ssq);  // zero (or only NaN), or infinite: nothing to scale
    } else {
      R s = 0;
      // Divided, not multiplied by 1 / big: a subnormal big's reciprocal overflows (host alike).
      each([&](CT &x) {
        const R re = real_of(x) / big, im = imag_of(x) / big;
        s += re * re + im * im;
      });
      xnorm = big * sqrt_of(over.sum(s));
    }
  }
  Reflector<CT> h{from_real<CT>(R(0)), real_of(alpha), from_real<CT>(R(1))};
  if (!plain && xnorm == R(0) && imag_of(alpha) == R(0)) return h;  // H = I (plain: x is not zero)
  R ar = real_of(alpha), ai = imag_of(alpha);
  // The host path's sign rule (-0 counts as positive).
  auto signed_norm = [](R norm, R re) { return re >= R(0) ? -norm : norm; };
  // ||(alpha, x)||: where neither |alpha|^2 nor the sum leaves the plain range, one square root
  // (the host kernels' condition); else xlapy3's scaled form (three divisions and a root).
  const R alpha2 = ar * ar + ai * ai;
  R beta = signed_norm(plain && alpha2 <= R(1) / safmin ? sqrt_of(alpha2 + ssq) : norm3(ar, ai, plain ? sqrt_of(ssq) : xnorm), ar);
  int knt = 0;
  if (fabs(beta) < safmin) {  // beta may be inaccurate: scale x and recompute (xlarfg)
    const R rsafmn = R(1) / safmin;
    do {
      ++knt;
      each([&](CT &x) { x = scale_by(x, rsafmn); });
      beta *= rsafmn, ai *= rsafmn, ar *= rsafmn;
    } while (fabs(beta) < safmin && knt < 20);
    R s = 0;
    each([&](CT &x) { s += abs2(x); });
    beta = signed_norm(norm3(ar, ai, sqrt_of(over.sum(s))), ar);
  }
  if constexpr (dev_complex<CT>) h.tau = CT{(beta - ar) / beta, -ai / beta};
  else h.tau = (beta - ar) / beta;
  CT shifted;
  if constexpr (dev_complex<CT>) shifted = CT{ar - beta, ai};
  else shifted = ar - beta;
  h.factor = divide(from_real<CT>(R(1)), shifted);
  for (int k = 0; k < knt; ++k) beta *= safmin;
  h.beta = beta;
  return h;
}

}  // namespace bb::cuda
