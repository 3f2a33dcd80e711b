// SPDX-License-Identifier: Apache-2.0
// BMI2's mulx, written out for the kernels compiled for CPUs that have it (the classic
// filter's BMI2 copy, the blocked filter's AVX2 kernels). GCC 12 does not choose mulx
// for a 128-bit product even where BMI2 is enabled (nor for _mulx_u64, which it
// implements with one): mul needs one factor in rax and writes rdx, which costs moves
// and clobbered registers in the probe and batch loops, and sometimes a trip through
// the stack. Call only where the CPU has BMI2.
#pragma once

#include <cstdint>

namespace bloomkit::internal {

#if defined(__x86_64__)
// The high 64 bits of the 128-bit product a * b; the low 64 bits go to *lo. mulx reads
// both factors before it writes either half.
inline std::uint64_t MulxHigh(std::uint64_t a, std::uint64_t b, std::uint64_t* lo) noexcept {
  std::uint64_t hi = 0;
  asm("mulx %3, %0, %1" : "=r"(*lo), "=r"(hi) : "d"(a), "rm"(b));
  return hi;
}
#endif

}  // namespace bloomkit::internal
