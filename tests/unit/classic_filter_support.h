// SPDX-License-Identifier: Apache-2.0
// What the classic filter's unit tests share: a filter from options that must be valid.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "bloomkit/bloom_filter.h"

namespace bloomkit {

// BloomFilter::Create, for options a test knows to be valid: a failure throws, and
// gtest reports the exception as the test's failure.
inline BloomFilter MakeFilter(const BloomOptions& options) {
  auto f = BloomFilter::Create(options);
  if (!f.ok()) throw std::runtime_error("Create failed: " + f.error().message());
  return std::move(f).value();
}

}  // namespace bloomkit
