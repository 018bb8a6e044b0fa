// Per-thread scratch memory that only grows: no allocation per problem, and after the first
// call of a given size none per call either.
#pragma once
#include <cstddef>
#include <memory>
#include <new>

namespace bb {

class Workspace {
 public:
  static constexpr int kSlots = 4;
  // Slot `s` holds at least `count` objects of C (16-byte aligned). Throws std::bad_alloc.
  template <class C>
  C *get(int s, std::size_t count) {
    std::size_t bytes = count * sizeof(C);
    if (bytes > cap_[s]) {
      std::size_t grow = bytes < 2 * cap_[s] ? 2 * cap_[s] : bytes;
      slot_[s].reset(new (std::align_val_t(64)) unsigned char[grow]);
      cap_[s] = grow;
    }
    return reinterpret_cast<C *>(slot_[s].get());
  }

 private:
  struct Free {
    void operator()(unsigned char *p) const { ::operator delete[](p, std::align_val_t(64)); }
  };
  std::unique_ptr<unsigned char[], Free> slot_[kSlots];
  std::size_t cap_[kSlots] = {};
};

// The calling thread's workspace (host backend and reference).
Workspace &thread_workspace();

}  // namespace bb
