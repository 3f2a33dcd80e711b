// SPDX-License-Identifier: Apache-2.0
// The half of blocked_inline_test compiled without AVX2 (tests/unit/CMakeLists.txt):
// its Add and MayContain are the ones that call the library.
#include "blocked_inline_library.h"

#if defined(__AVX2__)
#error "blocked_inline_library.cc must be compiled without AVX2: it is the library-calling half"
#endif

namespace bloomkit::inline_test {

BlockedMayContainFn LibraryCallerMayContain() noexcept {
  return &BlockedBloomFilter::MayContain;
}

BlockedAddFn LibraryCallerAdd() noexcept {
  return &BlockedBloomFilter::Add;
}

}  // namespace bloomkit::inline_test
