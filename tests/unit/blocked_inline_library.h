// SPDX-License-Identifier: Apache-2.0
// Single-key functions of BlockedBloomFilter as seen by code compiled without AVX2
// (blocked_inline_library.cc), for blocked_inline_test, which is compiled with it.
#pragma once

#include <string_view>

#include "bloomkit/blocked_bloom_filter.h"

namespace bloomkit::inline_test {

using BlockedMayContainFn = bool (BlockedBloomFilter::*)(std::string_view) const noexcept;
using BlockedAddFn = Done (BlockedBloomFilter::*)(std::string_view) noexcept;

// &BlockedBloomFilter::MayContain and &BlockedBloomFilter::Add taken in a translation
// unit compiled without AVX2.
BlockedMayContainFn LibraryCallerMayContain() noexcept;
BlockedAddFn LibraryCallerAdd() noexcept;

}  // namespace bloomkit::inline_test
