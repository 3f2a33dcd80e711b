// SPDX-License-Identifier: Apache-2.0
// What differs between the foreign kinds (foreign_bloom.h) at compile time: which library
// a ForeignBloomFilter<Scheme> follows, its name in messages and its limit on k.
#pragma once

#include <cstdint>
#include <string_view>

#include "bloomkit/foreign_bloom.h"

namespace bloomkit::internal {

template <typename Scheme>
inline constexpr bool kIsGuava = Scheme::kKind == FilterKind::kGuava;

template <typename Scheme>
inline constexpr bool kIsParquet = Scheme::kKind == FilterKind::kParquet;

template <typename Scheme>
inline constexpr std::string_view kLibrary = kIsGuava<Scheme>     ? "Guava"
                                             : kIsParquet<Scheme> ? "Parquet"
                                                                  : "bits-and-blooms";

template <typename Scheme>
inline constexpr std::uint32_t kMaxHashes = kIsGuava<Scheme>     ? kMaxGuavaNumHashes
                                            : kIsParquet<Scheme> ? kParquetNumHashes
                                                                 : kMaxBitsAndBloomsNumHashes;

}  // namespace bloomkit::internal
