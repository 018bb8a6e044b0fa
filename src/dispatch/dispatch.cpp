#include "backend.hpp"
#include "record.hpp"
#include "../common/workspace.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace bb {

Workspace &thread_workspace() {
  thread_local Workspace ws;
  return ws;
}

bool backend_from_env(Backend &b) {
  const char *s = std::getenv("BLAS_BATCHED_BACKEND");
  if (!s || !*s || !std::strcmp(s, "auto") || !std::strcmp(s, "native")) b = Backend::native;
  else if (!std::strcmp(s, "vendor")) b = Backend::vendor;
  else if (!std::strcmp(s, "reference")) b = Backend::reference;
  else return false;
  return true;
}

const char *backend_name(Backend b) {
  switch (b) {
    case Backend::native: return "native";
    case Backend::vendor: return "vendor";
    case Backend::reference: return "reference";
  }
  return "?";
}

const char *where_name(Where w) {
  switch (w) {
    case Where::none: return "nothing to do";
    case Where::reference: return "host/reference";
    case Where::host_kernel: return "host/kernel";
    case Where::host_lapack: return "host/openblas";
    case Where::cuda_kernel: return "cuda/kernel";
    case Where::cuda_vendor: return "cuda/cublas";
    case Where::cuda_solver: return "cuda/cusolver";
    case Where::cuda_staged: return "cuda/staged-host";
  }
  return "?";
}

CallRecord &last_call_record() {
  thread_local CallRecord r;
  return r;
}

}  // namespace bb

extern "C" __attribute__((visibility("default"))) const char *blas_batched_last_call(void) {
  bb::CallRecord &r = bb::last_call_record();
  if (!*r.precision) return "no BLAS_*_batched call on this thread yet";
  // Formatting needs memory too; no exception may leave the C API.
  try {
    std::string &t = r.text;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s_batched_%s: returned %d, backend %s, %d group(s)",
                  r.name, r.precision, r.result, *r.backend ? r.backend : "not chosen", r.group_count);
    t = buf;
    const int shown = 16;
    for (int g = 0; g < r.group_count && g < shown; ++g) {
      const bb::GroupRecord &gr = r.groups[g];
      if (gr.code)
        std::snprintf(buf, sizeof buf, "\n  group %d: %lld problem(s) skipped, argument %d invalid", g,
                      (long long)r.problems(g), -gr.code);
      else
        std::snprintf(buf, sizeof buf, "\n  group %d: %lld problem(s) on %s", g,
                      (long long)r.problems(g), bb::where_name(gr.where));
      t += buf;
    }
    if (r.group_count > shown) t += "\n  ...";
    return t.c_str();
  } catch (const std::bad_alloc &) {
    return "blas_batched_last_call: out of memory";
  }
}

extern "C" __attribute__((visibility("default"))) double blas_batched_last_device_ms(void) {
  return bb::last_call_record().device_ms;
}
