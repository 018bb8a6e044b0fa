#pragma once
// The library is built with hidden visibility; only the C API is exported.
#define BB_EXPORT extern "C" __attribute__((visibility("default")))
// Public element pointers to the layout-identical internal type T (checked in scalar.hpp).
#define BB_CAST(T, x) reinterpret_cast<T>(x)
