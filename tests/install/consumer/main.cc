// SPDX-License-Identifier: Apache-2.0
// A user's program against an installed bloomkit: the umbrella header, a classic and a
// blocked filter, sizing and a round trip through the file format.
#include <bloomkit/bloomkit.h>

#include <cstdio>
#include <string>

namespace {

int failures = 0;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: FAILED: %s\n", what);
    ++failures;
  }
}

template <typename Filter>
void Exercise(const char* name) {
  auto filter = Filter::Create({.capacity = 10'000, .fp_rate = 0.01});
  Check(filter.ok(), name);
  if (!filter.ok()) return;
  for (int i = 0; i < 10'000; ++i) Check(filter->Add("user:" + std::to_string(i)).ok(), "add");
  bool all = true;
  for (int i = 0; i < 10'000; ++i) all = all && filter->MayContain("user:" + std::to_string(i));
  Check(all, "every added key is found");
  int positives = 0;
  for (int i = 0; i < 10'000; ++i) positives += filter->MayContain("absent:" + std::to_string(i)) ? 1 : 0;
  Check(positives < 300, "about 1% false positives");
  for (const bool compress : {false, true}) {
    const auto bytes = filter->Serialize(bloomkit::SaveOptions{.compress = compress});
    auto loaded = Filter::Deserialize(bytes);
    Check(loaded.ok() && loaded.value() == filter.value(), "round trip through the file format");
  }
  std::printf("%s: %d false positives in 10000\n", name, positives);
}

}  // namespace

int main() {
  Exercise<bloomkit::BloomFilter>("classic");
  Exercise<bloomkit::BlockedBloomFilter>("blocked");
  auto params = bloomkit::CalculateParameters(10'000'000, 0.01);
  Check(params.ok() && params->num_bits == 95'850'584 && params->num_hashes == 7, "sizing table");
  auto bad = bloomkit::BloomFilter::Create({.capacity = 0});
  Check(!bad.ok() && bad.error().code() == bloomkit::ErrorCode::kInvalidArgument, "capacity 0 is an error");
  if (failures != 0) return 1;
  std::printf("bloomkit consumer: ok\n");
  return 0;
}
