#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds and runs the C demo twice as a user
# would: through find_package(blas_batched) and through pkg-config.
#   examples/check_install.sh <build-dir> <scratch-dir>
set -euo pipefail
build=$1 scratch=$2
src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$scratch" && mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
libdir=$(dirname "$(find "$scratch/prefix" -name 'libblas_batched.so' | head -n1)")

echo "== exported symbols: the C API only"
extra=$(nm -D --defined-only "$libdir/libblas_batched.so" | awk '{print $3}' |
        grep -v -E '^(BLAS_(gemm|trsm|trmm|getrf|getri|potrf|geqrf|getrf_getri)_batched_(strided_)?(r16|c16|r32|c32|r64|c64|r128|c128)|blas_batched_(last_call|set_cuda_stream|set_blocking|last_device_ms|set_device_timing))$' |
        grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' || true)
if [ -n "$extra" ]; then echo "exported beyond the C API:"; echo "$extra" | head -20; exit 1; fi

echo "== CMake package"
cmake -S "$src/consumer" -B "$scratch/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/cmake-build" >/dev/null
"$scratch/cmake-build/consumer_demo"

echo "== pkg-config"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# As README says: the library's directory recorded at link time (rpath), or LD_LIBRARY_PATH.
cc -std=c11 -Wall -Wextra -pedantic-errors "$src/demo.c" $(pkg-config --cflags --libs blas_batched) \
  -Wl,-rpath,"$(pkg-config --variable=libdir blas_batched)" -lm -o "$scratch/pc_demo"
"$scratch/pc_demo"
cc -std=c11 "$src/demo.c" $(pkg-config --cflags --libs blas_batched) -lm -o "$scratch/pc_demo_plain"
LD_LIBRARY_PATH="$libdir" "$scratch/pc_demo_plain" > /dev/null
