// Strided batches (SPEC.md section 9.1): one group whose problems sit at base + p * stride.
// The call becomes a group call of the same routine, its arguments checked here in the
// strided signature's numbering. Device data that the GPU computes goes through run_call as
// it is (Addressing::strided: the device run takes bases and strides, nothing is read per
// problem); anything else gets pointer arrays built from the bases and strides, a chunk of
// problems at a time, so every backend, residency rule and info code of the group API
// applies unchanged.
#pragma once
#include "../dispatch/driver.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>
#include <vector>

namespace bb {

// One pointer argument of a strided call, in pointer_arrays() order.
struct StridedOperand {
  const void *base;
  int64_t stride;      // elements
  std::size_t elem;    // bytes per element
  bool output;
  int64_t extent = 0;  // outputs: elements from a problem's first to its last element
};

// Problems per chunk of pointer arrays: bounds the memory a strided call takes.
constexpr int64_t kStridedChunk = int64_t(1) << 20;

// Whether the GPU computes the call from its bases: every base the problems need is memory of
// one device, the routine has GPU arithmetic for T, and the backend is not the reference.
// Its queries go to the cache of the call numbered `call`, which run_call goes on with.
template <class Call, int N>
bool strided_on_device(const Call &c, const StridedOperand (&ops)[N], uint64_t call) {
  if (!device::Adapter<Call>::native || !cuda::available()) return false;
  Backend backend;
  if (!backend_from_env(backend) || backend == Backend::reference) return false;
  const unsigned needed = c.needed_pointers(0);
  device::ResidencyCache &cache = device::ResidencyCache::for_call(call);
  int ordinal = -1;
  for (int i = 0; i < N; ++i) {
    if (!(needed >> i & 1u)) continue;
    cuda::PointerInfo r;
    if (!ops[i].base || cache.query(ops[i].base, r, false) || !r.device) return false;
    if (ordinal >= 0 && r.ordinal != ordinal) return false;  // the group call reports it
    ordinal = r.ordinal;
  }
  return ordinal >= 0;
}

// The device ordinal of `info` when it is device memory (not managed: the host writes that),
// -1 for host memory, BLAS_BATCHED_ERR_DEVICE when the runtime cannot tell.
inline int info_device_of(const int *info, uint64_t call) {
  cuda::PointerInfo r;
  if (!info || !cuda::available()) return -1;
  if (int st = device::ResidencyCache::for_call(call).query(info, r, false)) return st;
  return r.device && !r.managed ? r.ordinal : -1;
}

// `c` holds the call's one group of parameters (arrays of one element); `bind` points its
// pointer arrays at the chunk's (bind(c, arrays), arrays[i] for operand i).
template <class T, class Call, int N, class Bind>
int run_strided(Call c, const StridedSignature &sig, const StridedOperand (&ops)[N], int batch_count, int *info,
                Bind bind) noexcept {
  // Call-level arguments, nothing touched: layout, NULL scalars, batch_count.
  int bad = 0;
  auto fail = [&](int pos) {
    if (!bad || pos < bad) bad = pos;
  };
  if (c.layout != BLAS_ColMajor && c.layout != BLAS_RowMajor) fail(1);
  for (const ArgRef &a : c.group_arrays())
    if (!a.ptr) fail(sig.map(a.pos));
  if (batch_count < 0) fail(sig.map(Call::pos_group_sizes));
  if (bad) return -bad;
  if (batch_count == 0) return 0;
  // Group-level arguments, strides included: every problem gets the lowest-numbered error.
  int code = 0;
  if (int g = c.check_group(0)) code = sig.map(-g);
  for (int i = 0; i < N; ++i) {
    const StridedOperand &o = ops[i];
    const bool overlap = o.output && batch_count > 1 && o.extent > 0 && o.stride < o.extent;
    if ((o.stride < 0 || overlap) && (!code || sig.stride_pos(i) < code)) code = sig.stride_pos(i);
  }
  // A NULL base where problems need the operand: every problem has that NULL pointer.
  if (!code) {
    const unsigned needed = c.needed_pointers(0);
    int i = 0;
    for (const ArgRef &a : c.pointer_arrays()) {
      if ((needed >> i & 1u) && !ops[i].base && !code) code = sig.map(a.pos);
      ++i;
    }
  }
  const uint64_t call = cuda::available() ? device::ResidencyCache::next_call() : 0;
  const int info_device = info_device_of(info, call);
  if (info_device < -1) return info_device;  // never a guess of host memory; nothing touched
  if (code) {
    if (info_device >= 0) {
      cuda::Session s(info_device);
      if (!cuda::info_fill(s, info, batch_count, -code)) s.sync();
      if (s.status()) return s.status();
    } else if (info) {
      std::fill(info, info + batch_count, -code);
    }
    return batch_count;
  }

  if (strided_on_device(c, ops, call)) {
    for (int i = 0; i < N; ++i) c.strided[i] = {ops[i].base, ops[i].stride * int64_t(ops[i].elem)};
    c.addressing = Addressing::strided, c.residency_call = call, c.signature = &sig;
    const int size = batch_count;
    c.group_count = 1, c.group_sizes = &size, c.info = info;
    return run_call<T>(c);  // every argument checked: no code in the group API's numbering
  }

  // Info in device memory: filled here in host memory, renumbered, then copied.
  std::vector<int> info_copy;
  int *const caller_info = info;
  std::vector<void *> arrays;
  const int64_t chunk = std::min<int64_t>(batch_count, kStridedChunk);
  try {
    arrays.resize(std::size_t(N) * std::size_t(chunk));
    if (info_device >= 0) info_copy.resize(std::size_t(batch_count)), info = info_copy.data();
  } catch (const std::bad_alloc &) {
    last_call_record().result = BLAS_BATCHED_ERR_ALLOC;
    return BLAS_BATCHED_ERR_ALLOC;  // nothing touched
  }
  int64_t failures = 0;
  for (int64_t off = 0; off < batch_count; off += chunk) {
    const int64_t count = std::min<int64_t>(chunk, batch_count - off);
    void **heads[N];
    for (int i = 0; i < N; ++i) heads[i] = arrays.data() + std::size_t(i) * std::size_t(chunk);
#pragma omp parallel for schedule(static) if (count >= 65536)
    for (int64_t p = 0; p < count; ++p)
      for (int i = 0; i < N; ++i) {
        // Unsigned: a stride the caller's memory cannot hold wraps instead of overflowing.
        const auto base = reinterpret_cast<std::uintptr_t>(ops[i].base);
        heads[i][p] = base ? reinterpret_cast<void *>(base + uint64_t(off + p) * uint64_t(ops[i].stride) * ops[i].elem)
                           : nullptr;
      }
    const int size = int(count);
    c.group_count = 1, c.group_sizes = &size, c.info = info ? info + off : nullptr;
    bind(c, heads);
    const int r = run_call<T>(c);
    if (r < 0) return r;
    failures += r;
    // Per-problem codes of the group API (NULL pointers, getri's pivots, mixed residency) in
    // this signature's numbering; numerical codes and BLAS_BATCHED_ERR_* stay as they are.
    if (r > 0 && info)
      for (int64_t p = off; p < off + count; ++p)
        if (info[p] < 0 && -info[p] <= Call::pos_group_sizes + 1) info[p] = -sig.map(-info[p]);
  }
  if (info_device >= 0) {
    cuda::Session s(info_device);
    if (!s.upload(caller_info, info, info_copy.size() * sizeof(int))) s.sync();
    if (s.status()) return s.status();
  }
  return failures > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max() : int(failures);
}

}  // namespace bb
