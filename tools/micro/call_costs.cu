// The host cost of each runtime call a small batched call makes (1000 problems of n = 4: the
// whole call is tens of microseconds, its floor one upload, one launch and one synchronize), so
// that the fixed costs are known before they are cut. Median of many repetitions, in us.
//   nvcc -O3 -o /tmp/cc tools/micro/call_costs.cu -lcuda && /tmp/cc
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
template <int Bytes>
struct Params {
  char b[Bytes];
};
template <int Bytes>
__global__ void empty_kernel(Params<Bytes> p) {
  if (p.b[0] == 42 && threadIdx.x == 1000) printf("never\n");
}

template <class F>
double median_us(F f, int reps = 2000) {
  std::vector<double> t(reps);
  for (int r = 0; r < reps; ++r) {
    auto a = std::chrono::steady_clock::now();
    f();
    t[r] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count();
  }
  std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
  return t[reps / 2];
}

#define OK(x)                                                                       \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)
}  // namespace

int main() {
  OK(cudaFree(nullptr));
  cudaStream_t s;
  OK(cudaStreamCreate(&s));
  void *dev = nullptr, *pinned = nullptr;
  OK(cudaMalloc(&dev, 1 << 24));
  OK(cudaHostAlloc(&pinned, 1 << 20, cudaHostAllocDefault));
  void *devbuf = nullptr;
  OK(cudaMalloc(&devbuf, 1 << 20));
  std::vector<char> host(1 << 20);
  cudaEvent_t ev, t0, t1;
  OK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  OK(cudaEventCreate(&t0));
  OK(cudaEventCreate(&t1));
  cudaPointerAttributes a;
  auto row = [](const char *what, double us) { std::printf("%-58s %7.3f us\n", what, us); };

  row("cudaPointerGetAttributes, pageable host", median_us([&] { cudaPointerGetAttributes(&a, host.data() + 64); }));
  row("cudaPointerGetAttributes, cudaMalloc", median_us([&] { cudaPointerGetAttributes(&a, (char *)dev + 64); }));
  row("cudaPointerGetAttributes, pinned", median_us([&] { cudaPointerGetAttributes(&a, (char *)pinned + 64); }));
  CUdeviceptr p = CUdeviceptr((char *)dev + 64);
  CUpointer_attribute two[2] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  CUdeviceptr start = 0;
  size_t size = 0;
  void *two_data[2] = {&start, &size};
  row("cuPointerGetAttributes, range (2), cudaMalloc", median_us([&] { cuPointerGetAttributes(2, two, two_data, p); }));
  CUpointer_attribute five[5] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                 CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  unsigned type = 0;
  int ordinal = -1;
  unsigned managed = 0;
  void *five_data[5] = {&type, &ordinal, &managed, &start, &size};
  row("cuPointerGetAttributes, 5 attributes, cudaMalloc", median_us([&] { cuPointerGetAttributes(5, five, five_data, p); }));
  row("cuPointerGetAttributes, 5 attributes, pageable host",
      median_us([&] { cuPointerGetAttributes(5, five, five_data, CUdeviceptr(host.data() + 64)); }));
  int d = 0;
  row("cudaGetDevice", median_us([&] { cudaGetDevice(&d); }));
  row("cudaSetDevice (same device)", median_us([&] { cudaSetDevice(0); }));
  row("cudaGetLastError", median_us([&] { cudaGetLastError(); }));
  cudaStreamCaptureStatus cs;
  row("cudaStreamIsCapturing", median_us([&] { cudaStreamIsCapturing(s, &cs); }));
  CUcontext ctx;
  row("cuCtxGetCurrent", median_us([&] { cuCtxGetCurrent(&ctx); }));
  // allow_dynamic_shared (run_table.cuh) asks this before every launch with dynamic shared memory.
  cudaFuncAttributes fa;
  row("cudaFuncGetAttributes", median_us([&] { cudaFuncGetAttributes(&fa, empty_kernel<16>); }));
  row("cudaFuncSetAttribute, max dynamic shared (same value)", median_us([&] {
        cudaFuncSetAttribute(empty_kernel<16>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
      }));
  row("cudaEventRecord", median_us([&] { cudaEventRecord(ev, s); }));
  OK(cudaStreamSynchronize(s));
  row("cudaStreamSynchronize, idle stream", median_us([&] { cudaStreamSynchronize(s); }));
  row("cudaEventSynchronize, done event", median_us([&] { cudaEventSynchronize(ev); }));
  // Launches: enqueue cost by parameter size, then launch + synchronize.
  Params<16> p16{};
  Params<1120> p1k{};
  Params<4096> p4k{};
  row("launch, 16 B of parameters (enqueue)", median_us([&] { empty_kernel<16><<<132, 128, 0, s>>>(p16); }, 500));
  OK(cudaStreamSynchronize(s));
  row("launch, 1120 B of parameters (enqueue)", median_us([&] { empty_kernel<1120><<<132, 128, 0, s>>>(p1k); }, 500));
  OK(cudaStreamSynchronize(s));
  row("launch, 4096 B of parameters (enqueue)", median_us([&] { empty_kernel<4096><<<132, 128, 0, s>>>(p4k); }, 500));
  OK(cudaStreamSynchronize(s));
  row("launch 16 B + synchronize", median_us([&] { empty_kernel<16><<<132, 128, 0, s>>>(p16); cudaStreamSynchronize(s); }));
  row("launch 1120 B + synchronize", median_us([&] { empty_kernel<1120><<<132, 128, 0, s>>>(p1k); cudaStreamSynchronize(s); }));
  row("24 KB pinned upload + launch 16 B + synchronize", median_us([&] {
        cudaMemcpyAsync(devbuf, pinned, 24000, cudaMemcpyHostToDevice, s);
        empty_kernel<16><<<132, 128, 0, s>>>(p16);
        cudaStreamSynchronize(s);
      }));
  row("launch 1120 B + event record + event synchronize", median_us([&] {
        empty_kernel<1120><<<132, 128, 0, s>>>(p1k);
        cudaEventRecord(ev, s);
        cudaEventSynchronize(ev);
      }));
  row("timing events: record, launch, record, synchronize, elapsed", median_us([&] {
        cudaEventRecord(t0, s);
        empty_kernel<16><<<132, 128, 0, s>>>(p16);
        cudaEventRecord(t1, s);
        cudaStreamSynchronize(s);
        float ms;
        cudaEventElapsedTime(&ms, t0, t1);
      }));
  OK(cudaGetLastError());
  return 0;
}
