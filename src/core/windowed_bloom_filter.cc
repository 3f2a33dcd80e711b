// SPDX-License-Identifier: Apache-2.0
// The time-windowed Bloom filter (windowed_bloom_filter.h).
#include "bloomkit/windowed_bloom_filter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <new>

#include "bloomkit/format.h"
#include "bloomkit/sizing.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"
#include "internal/message.h"

namespace bloomkit {
namespace {

using internal::MakeError;

constexpr std::uint64_t kSlotRecordBytes = 64;

// The ring slot of generation `epoch`: every add, query and loader check finds a
// generation here, so they cannot disagree about where it lives.
std::size_t RingSlot(std::uint64_t epoch, std::size_t slots) noexcept {
  return static_cast<std::size_t>(epoch % slots);
}

std::uint64_t AlignUp64(std::uint64_t bytes) {
  return (bytes + 63) & ~std::uint64_t{63};
}

struct Derived {
  std::uint64_t stage_capacity = 0;
  double stage_fp_rate = 0;
  std::uint64_t stage_bytes = 0;
  std::uint32_t max_stages = 0;
};

// Checks the options and derives c = ceil(n / G), r = p c / (2 n) (kAnySchedule) or
// r = p / (G + 1) (kSteadyStream), the stage size and the stage limit. The same doubles
// on every machine: one multiply and one divide, or one divide.
Result<Derived> Derive(const WindowedOptions& o) {
  if (o.capacity == 0) return MakeError(ErrorCode::kInvalidArgument, "capacity must be at least 1, got 0");
  if (auto st = ValidateFpRate(o.fp_rate); !st.ok()) return st.error();
  if (o.generations == 0 || o.generations > kMaxWindowedGenerations) {
    return MakeError(ErrorCode::kInvalidArgument, "generations must be in [1, ", kMaxWindowedGenerations, "], got ",
                     o.generations);
  }
  if (o.window == 0 || o.window % o.generations != 0) {
    return MakeError(ErrorCode::kInvalidArgument, "window must be a positive multiple of generations (", o.generations,
                     "), got ", o.window);
  }
  if (o.sizing != WindowedSizing::kAnySchedule && o.sizing != WindowedSizing::kSteadyStream) {
    return MakeError(ErrorCode::kInvalidArgument, "sizing must be 0 (any schedule) or 1 (steady stream), got ",
                     static_cast<int>(o.sizing));
  }
  const std::uint64_t slots = std::uint64_t{o.generations} + 1;
  const std::uint64_t max_allowed = 64 * slots;
  const std::uint64_t max_stages = o.max_stages == 0 ? 3 * std::uint64_t{o.generations} + 1 : o.max_stages;
  if (max_stages < slots || max_stages > max_allowed) {
    return MakeError(ErrorCode::kInvalidArgument, "max_stages must be in [", slots, ", ", max_allowed, "] for ",
                     o.generations, " generations, got ", o.max_stages);
  }
  Derived d;
  d.max_stages = static_cast<std::uint32_t>(max_stages);
  d.stage_capacity = o.capacity / o.generations + (o.capacity % o.generations != 0 ? 1 : 0);
  d.stage_fp_rate = o.sizing == WindowedSizing::kSteadyStream
                        ? o.fp_rate / static_cast<double>(slots)
                        : o.fp_rate * static_cast<double>(d.stage_capacity) / (2.0 * static_cast<double>(o.capacity));
  auto params = CalculateParameters(d.stage_capacity, d.stage_fp_rate, FilterKind::kBlocked, o.max_memory_bytes);
  if (!params.ok()) {
    return MakeError(params.error().code(), "a stage of ", d.stage_capacity, " keys at error rate ", d.stage_fp_rate,
                     ": ", params.error().message());
  }
  d.stage_bytes = params->bytes;
  std::uint64_t total = 0;
  if (!internal::CheckedMul(d.stage_bytes, max_stages + 1, &total) || total > o.max_memory_bytes) {
    return MakeError(ErrorCode::kTooLarge, "a windowed filter of capacity ", o.capacity, " needs up to ",
                     max_stages + 1, " stages of ", d.stage_bytes, " bytes, over the memory limit of ",
                     o.max_memory_bytes, " bytes");
  }
  return d;
}

}  // namespace

std::uint64_t WindowedBloomFilter::HashOf(std::string_view key) noexcept {
  return internal::HashKeyShort64Inline(key);
}

Result<WindowedBloomFilter> WindowedBloomFilter::Create(const WindowedOptions& options) {
  auto d = Derive(options);
  if (!d.ok()) return std::move(d).error();
  WindowedBloomFilter f;
  f.capacity_ = options.capacity;
  f.fp_rate_ = options.fp_rate;
  f.window_ = options.window;
  f.generations_ = options.generations;
  f.span_ = options.window / options.generations;
  f.now_ = options.start_time;
  f.stage_capacity_ = d->stage_capacity;
  f.stage_fp_rate_ = d->stage_fp_rate;
  f.stage_bytes_ = d->stage_bytes;
  f.max_stages_ = d->max_stages;
  f.max_memory_bytes_ = options.max_memory_bytes;
  f.sizing_ = options.sizing;
  try {
    f.ring_.resize(std::size_t{options.generations} + 1);
  } catch (const std::bad_alloc&) {
    return MakeError(ErrorCode::kTooLarge, "out of memory for ", options.generations + 1, " generations");
  }
  return f;
}

WindowedOptions WindowedBloomFilter::options() const noexcept {
  return {.capacity = capacity_,
          .fp_rate = fp_rate_,
          .window = window_,
          .generations = generations_,
          .sizing = sizing_,
          .max_stages = max_stages_,
          .start_time = now_,
          .max_memory_bytes = max_memory_bytes_};
}

void WindowedBloomFilter::Advance(std::uint64_t time) noexcept {
  if (time <= now_) return;
  const std::uint64_t old_epoch = epoch_now();
  now_ = time;
  const std::uint64_t e = epoch_now();
  if (e == old_epoch) return;
  // At most G + 1 slots to look at, whatever the gap: a jump past W + S frees them all.
  for (Generation& g : ring_) {
    if (!g.stages.empty() && e - g.epoch > generations_) {
      g.stages.clear();
      g.stages.shrink_to_fit();
      g.epoch = 0;
    }
  }
}

Result<bool> WindowedBloomFilter::Record(std::uint64_t hash) {
  const std::uint64_t e = epoch_now();
  Generation& g = ring_[RingSlot(e, ring_.size())];
  if (!g.stages.empty() && g.epoch != e) {
    // Only reachable for a slot Advance did not free: it is older than the window.
    g.stages.clear();
    g.epoch = 0;
  }
  // Stages are blocked filters of 512-bit blocks, whatever the default layout for their
  // rate, since a key is hashed once for all of them: AddHash(h) and MayContainHash(h) are
  // AddHashPair and MayContainHashPair of ExpandHash(h), computed once here.
  const HashPair pair = ExpandHash(hash);
  for (const BlockedBloomFilter& s : g.stages) {
    if (s.MayContainHashPair(pair)) return false;
  }
  if (g.stages.empty() || (g.stages.back().count() >= stage_capacity_ && num_stages() < max_stages_)) {
    auto stage = BlockedBloomFilter::Create({.capacity = stage_capacity_,
                                             .fp_rate = stage_fp_rate_,
                                             .max_memory_bytes = max_memory_bytes_,
                                             .blocked_layout = BlockedLayout::kLines512});
    if (!stage.ok()) return std::move(stage).error();
    try {
      g.stages.push_back(std::move(stage).value());
    } catch (const std::bad_alloc&) {
      return MakeError(ErrorCode::kTooLarge, "out of memory for a generation of ", g.stages.size() + 1, " stages");
    }
  }
  // The epoch is set only now, with a stage to hold it: an add refused above leaves an
  // empty slot at epoch 0, as the file format writes empty slots.
  g.epoch = e;
  static_cast<void>(g.stages.back().AddHashPair(pair));
  return true;
}

Status WindowedBloomFilter::AddAt(std::string_view key, std::uint64_t time) {
  Advance(time);
  return Add(key);
}

Result<bool> WindowedBloomFilter::AddIfAbsentAt(std::string_view key, std::uint64_t time) {
  Advance(time);
  return AddIfAbsent(key);
}

bool WindowedBloomFilter::MayContainAt(std::string_view key, std::uint64_t time) const noexcept {
  return MayContainHashAt(HashOf(key), time);
}

Status WindowedBloomFilter::Add(std::string_view key) {
  return AddHash(HashOf(key));
}

Status WindowedBloomFilter::AddHash(std::uint64_t hash) {
  auto recorded = Record(hash);
  if (!recorded.ok()) return std::move(recorded).error();
  return {};
}

Result<bool> WindowedBloomFilter::AddIfAbsent(std::string_view key) {
  return AddHashIfAbsent(HashOf(key));
}

Result<bool> WindowedBloomFilter::AddHashIfAbsent(std::uint64_t hash) {
  const bool present = MayContainHash(hash);
  auto recorded = Record(hash);
  if (!recorded.ok()) return std::move(recorded).error();
  return !present;
}

bool WindowedBloomFilter::MayContain(std::string_view key) const noexcept {
  return MayContainHashAt(HashOf(key), now_);
}

bool WindowedBloomFilter::MayContainHash(std::uint64_t hash) const noexcept {
  return MayContainHashAt(hash, now_);
}

bool WindowedBloomFilter::MayContainHashAt(std::uint64_t hash, std::uint64_t time) const noexcept {
  const std::uint64_t e = std::max(time, now_) / span_;
  const HashPair pair = ExpandHash(hash);  // as each stage's MayContainHash would
  // Newest first: a key seen recently is found after one generation.
  const std::size_t slots = ring_.size();
  for (std::size_t back = 0; back < slots; ++back) {
    if (back > e) break;
    const Generation& g = ring_[RingSlot(e - back, slots)];
    if (!Live(g, e)) continue;
    for (const BlockedBloomFilter& s : g.stages) {
      if (s.MayContainHashPair(pair)) return true;
    }
  }
  return false;
}

Status WindowedBloomFilter::AddBatch(std::span<const std::string_view> keys) {
  for (std::string_view key : keys) {
    if (Status st = Add(key); !st.ok()) return st;
  }
  return {};
}

Status WindowedBloomFilter::AddHashBatch(std::span<const std::uint64_t> hashes) {
  for (std::uint64_t h : hashes) {
    if (Status st = AddHash(h); !st.ok()) return st;
  }
  return {};
}

std::size_t WindowedBloomFilter::MayContainBatch(std::span<const std::string_view> keys,
                                                 std::span<bool> out) const noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out[i] = MayContain(keys[i]);
    found += out[i] ? 1U : 0U;
  }
  return found;
}

std::size_t WindowedBloomFilter::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                                     std::span<bool> out) const noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    out[i] = MayContainHash(hashes[i]);
    found += out[i] ? 1U : 0U;
  }
  return found;
}

void WindowedBloomFilter::Clear() noexcept {
  for (Generation& g : ring_) {
    g.stages.clear();
    g.stages.shrink_to_fit();
    g.epoch = 0;
  }
}

std::uint64_t WindowedBloomFilter::CountAt(std::uint64_t time) const noexcept {
  std::uint64_t total = 0;
  const std::uint64_t e = std::max(time, now_) / span_;
  for (const Generation& g : ring_) {
    if (!Live(g, e)) continue;
    for (const BlockedBloomFilter& s : g.stages) total = internal::SaturatedCount(total, s.count());
  }
  return total;
}

std::uint64_t WindowedBloomFilter::EstimatedCount() const noexcept {
  std::uint64_t total = 0;
  const std::uint64_t e = epoch_now();
  for (const Generation& g : ring_) {
    if (!Live(g, e)) continue;
    for (const BlockedBloomFilter& s : g.stages) total = internal::SaturatedCount(total, s.EstimatedCount());
  }
  return total;
}

double WindowedBloomFilter::ExpectedFpRate() const noexcept {
  if (sizing_ == WindowedSizing::kSteadyStream) {
    return std::min(1.0, stage_fp_rate_ * static_cast<double>(ring_.size()));
  }
  return std::min(1.0, stage_fp_rate_ * 2.0 * static_cast<double>(capacity_) / static_cast<double>(stage_capacity_));
}

double WindowedBloomFilter::EstimatedFpRate() const noexcept {
  double pass = 1.0;
  const std::uint64_t e = epoch_now();
  for (const Generation& g : ring_) {
    if (!Live(g, e)) continue;
    for (const BlockedBloomFilter& s : g.stages) pass *= 1.0 - s.EstimatedFpRate();
  }
  return 1.0 - pass;
}

std::uint64_t WindowedBloomFilter::num_bits() const noexcept {
  std::uint64_t total = 0;
  for (const Generation& g : ring_) {
    for (const BlockedBloomFilter& s : g.stages) total += s.num_bits();
  }
  return total;
}

double WindowedBloomFilter::FillRatio() const noexcept {
  std::uint64_t set = 0;
  for (const Generation& g : ring_) {
    for (const BlockedBloomFilter& s : g.stages) set += s.CountSetBits();
  }
  const std::uint64_t bits = num_bits();
  return bits == 0 ? 0.0 : static_cast<double>(set) / static_cast<double>(bits);
}

std::uint64_t WindowedBloomFilter::memory_bytes() const noexcept {
  std::uint64_t total = 0;
  for (const Generation& g : ring_) {
    for (const BlockedBloomFilter& s : g.stages) total += s.memory_bytes();
  }
  return total;
}

std::uint64_t WindowedBloomFilter::bytes_held() const noexcept {
  std::uint64_t total = ring_.capacity() * sizeof(Generation);
  for (const Generation& g : ring_) {
    total += g.stages.capacity() * sizeof(BlockedBloomFilter);
    for (const BlockedBloomFilter& s : g.stages) total += s.bytes_held();
  }
  return total;
}

std::size_t WindowedBloomFilter::num_stages() const noexcept {
  std::size_t total = 0;
  for (const Generation& g : ring_) total += g.stages.size();
  return total;
}

bool WindowedBloomFilter::over_capacity() const noexcept {
  const std::uint64_t e = epoch_now();
  for (const Generation& g : ring_) {
    if (!Live(g, e)) continue;
    for (const BlockedBloomFilter& s : g.stages) {
      if (s.count() > stage_capacity_) return true;
    }
  }
  return false;
}

std::vector<GenerationInfo> WindowedBloomFilter::Generations() const {
  std::vector<GenerationInfo> out;
  const std::uint64_t e = epoch_now();
  for (const Generation& g : ring_) {
    if (!Live(g, e)) continue;
    GenerationInfo info{.epoch = g.epoch, .num_stages = static_cast<std::uint32_t>(g.stages.size())};
    for (const BlockedBloomFilter& s : g.stages) {
      info.count += s.count();
      info.memory_bytes += s.memory_bytes();
    }
    out.push_back(info);
  }
  std::ranges::sort(out, {}, &GenerationInfo::epoch);
  return out;
}

bool operator==(const WindowedBloomFilter& a, const WindowedBloomFilter& b) noexcept {
  return a.capacity_ == b.capacity_ && a.fp_rate_ == b.fp_rate_ && a.window_ == b.window_ &&
         a.generations_ == b.generations_ && a.sizing_ == b.sizing_ && a.max_stages_ == b.max_stages_ &&
         a.now_ == b.now_ && a.ring_ == b.ring_;
}

// Header: kind 8, hash id 4, capacity n, count = sum of stage counts, fp_rate p.
// params[0] = window W, [1] = generations G, [2] = max_stages, [3] = now, [4] = stages
// in the file, [5] = sizing (0 any schedule, 1 steady stream). Payload: G + 1 slot records in slot order, each 64 bytes
// (epoch, number of stages, 48 zero bytes; an empty slot is all zero) followed by its
// stages, each a complete uncompressed blocked-filter file padded with zeros to 64.
std::vector<std::byte> WindowedBloomFilter::Serialize(const SaveOptions& options) const {
  return internal::CollectFile([this](ByteSink sink) { return SerializeTo(sink); }, options);
}

bool WindowedBloomFilter::SerializeTo(ByteSink sink) const noexcept {
  std::uint64_t payload = 0;
  std::uint64_t total_count = 0;
  std::uint64_t stages = 0;
  for (const Generation& g : ring_) {
    payload += kSlotRecordBytes;
    for (const BlockedBloomFilter& s : g.stages) {
      payload += AlignUp64(kHeaderBytes + s.memory_bytes() + kChecksumBytes);
      total_count = internal::SaturatedCount(total_count, s.count());
      ++stages;
    }
  }
  FileHeader header;
  header.kind = kKind;
  header.hash_id = kHashIdShort64;
  header.hash_seed = kHashSeed;
  header.capacity = capacity_;
  header.count = total_count;
  header.fp_rate = fp_rate_;
  header.payload_bytes = payload;
  header.params[0] = window_;
  header.params[1] = generations_;
  header.params[2] = max_stages_;
  header.params[3] = now_;
  header.params[4] = stages;
  header.params[5] = static_cast<std::uint64_t>(sizing_);
  internal::FileStream out(sink);
  if (!out.Begin(header)) return false;
  auto into_outer = [&out](std::span<const std::byte> piece) noexcept { return out.Put(piece); };
  for (const Generation& g : ring_) {
    std::array<std::byte, kSlotRecordBytes> record{};
    internal::StoreLE<std::uint64_t>(record.data(), g.stages.empty() ? 0 : g.epoch);
    internal::StoreLE<std::uint64_t>(record.data() + 8, g.stages.size());
    if (!out.Put(record)) return false;
    for (const BlockedBloomFilter& s : g.stages) {
      const std::uint64_t bytes = kHeaderBytes + s.memory_bytes() + kChecksumBytes;
      if (!s.SerializeTo(ByteSink(into_outer)) || !out.PutZeros(AlignUp64(bytes) - bytes)) return false;
    }
  }
  return out.Finish();
}

Result<WindowedBloomFilter> WindowedBloomFilter::Deserialize(std::span<const std::byte> bytes,
                                                             const LoadOptions& options) {
  auto reader = FilterReader::OpenBytes(bytes, kKind, options.max_memory_bytes);
  if (!reader.ok()) return std::move(reader).error();
  return reader->Load<WindowedBloomFilter>(options);
}

Result<WindowedBloomFilter> WindowedBloomFilter::Deserialize(const FileHeader& h, ByteSource payload,
                                                             const LoadOptions& options) {
  if (h.hash_id != kHashIdShort64) {
    return MakeError(ErrorCode::kUnknownHash, "hash id ", h.hash_id, " is not 4, the hash of windowed filters");
  }
  if (h.params[1] > kMaxWindowedGenerations || h.params[2] > std::numeric_limits<std::uint32_t>::max()) {
    return MakeError(ErrorCode::kParameterMismatch, "generations ", h.params[1], " or max_stages ", h.params[2],
                     " out of range");
  }
  if (h.params[5] > static_cast<std::uint64_t>(WindowedSizing::kSteadyStream)) {
    return MakeError(ErrorCode::kParameterMismatch, "sizing ", h.params[5],
                     " is not 0 (any schedule) or 1 (steady stream)");
  }
  WindowedOptions o{.capacity = h.capacity,
                    .fp_rate = h.fp_rate,
                    .window = h.params[0],
                    .generations = static_cast<std::uint32_t>(h.params[1]),
                    .sizing = static_cast<WindowedSizing>(h.params[5]),
                    .max_stages = static_cast<std::uint32_t>(h.params[2]),
                    .start_time = h.params[3],
                    .max_memory_bytes = std::numeric_limits<std::uint64_t>::max()};
  // The options are checked without the memory limit (which this load's limit replaces):
  // a file holds what it holds, and each stage is checked against the limit below.
  if (o.max_stages == 0) return MakeError(ErrorCode::kParameterMismatch, "max_stages is 0");
  auto made = Create(o);
  if (!made.ok()) return Error(ErrorCode::kParameterMismatch, made.error().message());
  WindowedBloomFilter filter = std::move(made).value();
  filter.max_memory_bytes_ = options.max_memory_bytes;
  const std::uint64_t file_stages = h.params[4];
  if (file_stages > std::uint64_t{filter.max_stages_} + 1) {
    return MakeError(ErrorCode::kParameterMismatch, "stages ", file_stages,
                     " is more than max_stages + 1 = ", std::uint64_t{filter.max_stages_} + 1);
  }
  const std::uint64_t e = filter.epoch_now();
  const std::uint64_t slots = filter.ring_.size();
  std::uint64_t rest = h.payload_bytes;
  std::uint64_t memory_left = options.max_memory_bytes;
  std::uint64_t seen_stages = 0;
  std::uint64_t total_count = 0;
  for (std::uint64_t slot = 0; slot < slots; ++slot) {
    if (rest < kSlotRecordBytes) return MakeError(ErrorCode::kParameterMismatch, "payload ends before slot ", slot);
    std::array<std::byte, kSlotRecordBytes> record{};
    if (Status st = payload(record); !st.ok()) return std::move(st).error();
    rest -= kSlotRecordBytes;
    const auto epoch = internal::LoadLE<std::uint64_t>(record.data());
    const auto num = internal::LoadLE<std::uint64_t>(record.data() + 8);
    for (std::size_t i = 16; i < kSlotRecordBytes; ++i) {
      if (record[i] != std::byte{0}) return MakeError(ErrorCode::kReservedNonZero, "slot ", slot, " reserved bytes");
    }
    if (num > file_stages - seen_stages) {
      return MakeError(ErrorCode::kParameterMismatch, "slot ", slot, " announces ", num, " stages, the header ",
                       file_stages - seen_stages, " more");
    }
    if (num == 0 && epoch != 0) {
      return MakeError(ErrorCode::kParameterMismatch, "empty slot ", slot, " has epoch ", epoch);
    }
    if (num != 0 && (RingSlot(epoch, slots) != slot || epoch > e || e - epoch > filter.generations_)) {
      return MakeError(ErrorCode::kParameterMismatch, "slot ", slot, " holds epoch ", epoch,
                       ", not a live epoch of that slot at time ", filter.now_, " (epochs ",
                       e > filter.generations_ ? e - filter.generations_ : 0, "..", e, ")");
    }
    Generation& g = filter.ring_[slot];
    g.epoch = epoch;
    try {
      g.stages.reserve(static_cast<std::size_t>(num));
    } catch (const std::bad_alloc&) {
      return MakeError(ErrorCode::kTooLarge, "out of memory for ", num, " stages");
    }
    for (std::uint64_t i = 0; i < num; ++i) {
      auto nested = [&](const Error& err) {
        return MakeError(err.code() == ErrorCode::kTooLarge ? ErrorCode::kTooLarge : ErrorCode::kParameterMismatch,
                         "slot ", slot, " stage ", i, ": ", err.message());
      };
      if (rest < kHeaderBytes + kChecksumBytes) {
        return MakeError(ErrorCode::kParameterMismatch, "payload ends before slot ", slot, " stage ", i);
      }
      std::array<std::byte, kHeaderBytes> head{};
      if (Status st = payload(head); !st.ok()) return std::move(st).error();
      auto stage_header = internal::DecodeHeader(head);
      if (!stage_header.ok()) return nested(stage_header.error());
      const FileHeader& sh = stage_header.value();
      if (sh.kind != FilterKind::kBlocked || (sh.flags & kFlagZstdPayload) != 0 || sh.params[2] != 0) {
        return nested(MakeError(ErrorCode::kParameterMismatch, "not an uncompressed blocked filter of 512-bit blocks"));
      }
      if (sh.capacity != filter.stage_capacity_ || sh.fp_rate != filter.stage_fp_rate_ ||
          sh.payload_bytes != filter.stage_bytes_ || sh.count > kMaxFileCount) {
        return nested(MakeError(ErrorCode::kParameterMismatch, "capacity ", sh.capacity, ", error rate ", sh.fp_rate,
                                ", ", sh.payload_bytes, " bytes; the options give ", filter.stage_capacity_, ", ",
                                filter.stage_fp_rate_, ", ", filter.stage_bytes_));
      }
      const std::uint64_t stage_bytes = kHeaderBytes + sh.stored_payload_bytes + kChecksumBytes;
      if (sh.stored_payload_bytes != sh.payload_bytes || AlignUp64(stage_bytes) > rest) {
        return nested(MakeError(ErrorCode::kParameterMismatch, "announces ", stage_bytes, " bytes, only ", rest,
                                " left in the payload"));
      }
      if (sh.payload_bytes > memory_left) {
        return nested(MakeError(ErrorCode::kTooLarge, "needs ", sh.payload_bytes, " bytes, over the memory limit of ",
                                memory_left));
      }
      XXH3_state_t state;
      (void)XXH3_64bits_reset(&state);
      (void)XXH3_64bits_update(&state, head.data(), head.size());
      auto hashed = [&](std::span<std::byte> out) -> Status {
        Status st = payload(out);
        if (st.ok()) (void)XXH3_64bits_update(&state, out.data(), out.size());
        return st;
      };
      auto stage = BlockedBloomFilter::Deserialize(sh, ByteSource(hashed));
      if (!stage.ok()) return nested(stage.error());
      std::array<std::byte, kChecksumBytes> sum{};
      if (Status st = payload(sum); !st.ok()) return std::move(st).error();
      if (internal::LoadLE<std::uint64_t>(sum.data()) != XXH3_64bits_digest(&state)) {
        return nested(MakeError(ErrorCode::kChecksumMismatch, "checksum mismatch (file is corrupt or truncated)"));
      }
      const std::uint64_t padded = AlignUp64(stage_bytes);
      std::array<std::byte, 64> padding{};
      const auto padding_bytes = static_cast<std::size_t>(padded - stage_bytes);
      if (Status st = payload(std::span(padding.data(), padding_bytes)); !st.ok()) return std::move(st).error();
      if (std::ranges::any_of(padding, [](std::byte b) { return b != std::byte{0}; })) {
        return MakeError(ErrorCode::kReservedNonZero, "padding after slot ", slot, " stage ", i, " is not zero");
      }
      rest -= padded;
      memory_left -= sh.payload_bytes;
      total_count = internal::SaturatedCount(total_count, stage->count());
      g.stages.push_back(std::move(stage).value());  // cannot throw: reserved
    }
    seen_stages += num;
  }
  if (seen_stages != file_stages) {
    return MakeError(ErrorCode::kParameterMismatch, "header announces ", file_stages, " stages, the slots hold ",
                     seen_stages);
  }
  if (rest != 0) return MakeError(ErrorCode::kParameterMismatch, rest, " bytes after the last slot");
  if (total_count != h.count) {
    return MakeError(ErrorCode::kParameterMismatch, "header count ", h.count, " differs from the stages' ",
                     total_count);
  }
  return filter;
}

}  // namespace bloomkit
