// SPDX-License-Identifier: Apache-2.0
// The probes of the classic filter (bloom_filter.h), single keys and batches,
// compiled twice: for any x86-64 or other CPU, and with BMI1/BMI2 (mulx, shlx, shrx,
// andn) for the CPUs that have them. Both copies set and read the same bits; the tests
// compare them for every unrolled k. Inserts return whether the key set a new bit; sets
// and batch adds only set the bits (Add, AddHash, AddBatch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "bloomkit/hash.h"

namespace bloomkit::internal {

struct ClassicOps {
  // One hash pair (hash id 1, AddHash, MayContainHash).
  bool (*insert)(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes, HashPair hash) noexcept;
  void (*set)(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes, HashPair hash) noexcept;
  bool (*contains)(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                   HashPair hash) noexcept;
  // One key under hash id 4, hashed inside (HashKeyShortPair).
  bool (*insert_short_key)(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                           std::string_view key) noexcept;
  void (*set_short_key)(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                        std::string_view key) noexcept;
  bool (*contains_short_key)(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                             std::string_view key) noexcept;
  // Batch adds (AddBatch under hash id 1 and 4, AddHashBatch).
  void (*add_keys)(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                   std::span<const std::string_view> keys) noexcept;
  void (*add_short_keys)(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                         std::span<const std::string_view> keys) noexcept;
  void (*add_hashes)(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                     std::span<const std::uint64_t> hashes) noexcept;
  // Batch queries (MayContainBatch, MayContainHashBatch): out[i] for each key, and the
  // number found.
  std::size_t (*contains_keys)(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                               std::span<const std::string_view> keys, bool* out) noexcept;
  std::size_t (*contains_short_keys)(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                                     std::span<const std::string_view> keys, bool* out) noexcept;
  std::size_t (*contains_hashes)(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                                 std::span<const std::uint64_t> hashes, bool* out) noexcept;
};

enum class ClassicIsa { kPortable, kBmi2 };

// True when the CPU has BMI1 and BMI2.
bool CpuHasBmi2() noexcept;

// The operations of one instruction set (kBmi2 only when CpuHasBmi2(), the portable
// ones otherwise): the tables through which ClassicBits (detail/classic_bits.h) makes
// every call, the BMI2 one when the CPU has it. The tests run both.
const ClassicOps& GetClassicOps(ClassicIsa isa) noexcept;

}  // namespace bloomkit::internal
