// SPDX-License-Identifier: Apache-2.0
#include <bloomkit/bloomkit.h>

#include <cstdio>

int main() {
  auto seen = bloomkit::BloomFilter::Create({.capacity = 1'000'000, .fp_rate = 0.01});
  if (!seen.ok()) return std::fprintf(stderr, "%s\n", seen.error().message().c_str()), 1;
  seen->Add("user:42");  // cannot fail on a classic filter: returns bloomkit::Done
  std::printf("user:42 %s, user:43 %s\n", seen->MayContain("user:42") ? "maybe" : "no",
              seen->MayContain("user:43") ? "maybe" : "no");
  return bloomkit::SaveFile(seen.value(), "seen.bf").ok() ? 0 : 1;
}
