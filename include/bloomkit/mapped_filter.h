// SPDX-License-Identifier: Apache-2.0
// bloomkit::MappedFilter: a filter file opened as a read-only, memory-mapped view.
//
// Opening reads the 128-byte header and the kind's parameters, checks the file's size
// against them and maps the file; it does not read the payload. A query touches only the
// pages of its probes (one for a blocked filter, k for a classic one), which come from
// the page cache: every process that maps the same file shares one copy, and a one-key
// query of a 571 MiB filter reads a few pages instead of loading 571 MiB
// (docs/BENCHMARKS.md, "Memory-mapped queries").
//
//   auto view = bloomkit::MappedFilter::Open("blocklist.bf");
//   if (view.ok() && view->MayContain("203.0.113.7")) { ... }
//
// Contract:
//  - Answers are those of the same file loaded with LoadFile (the view runs the kinds'
//    own query code over the mapped words): no false negatives.
//  - Kinds: classic and blocked (both block layouts), with an uncompressed payload, on a
//    little-endian host (the file's words are used in place). Anything else is
//    ErrorCode::kUnsupported with a message saying why; LoadFile reads those.
//  - Integrity: the checksum covers the whole file, so Open does not check it (that
//    would read every page). Header, parameters and file size are checked; corruption
//    inside the payload gives wrong bits, not a crash. MapOptions::verify_checksum reads
//    the file once through the mapping and checks it; `bloomkit verify FILE` does the
//    same with bounded memory (docs/FORMAT.md, "Mapped files").
//  - A save (SaveFile, every bloomkit command) writes a new file and renames it over the
//    name: the view keeps the old inode, whose pages stay valid and unchanged until the
//    view is closed, so it keeps answering from the version it opened. Reopen to see the
//    new one.
//  - A file truncated in place by another program (`truncate -s 0`) would raise SIGBUS
//    on the next access to a lost page. With MapOptions::guard_truncation (the default),
//    a process-wide SIGBUS handler installed on the first Open replaces the lost mapping
//    with zero pages and marks the view truncated(); from then on every query of the
//    view answers true ("may be present": never a false negative). Faults outside views
//    go to the handler installed before. Up to kMaxGuardedViews views are guarded at once;
//    Open fails with kUnsupported past that, rather than leave one unguarded. A read
//    that fails within the file (a hole of a sparse file on a full tmpfs, an I/O error)
//    raises the same SIGBUS and is handled the same way; FaultStatus() tells the two
//    apart. The view keeps the file open for that (one descriptor per view).
//  - Thread safety: every method is const and may run concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <variant>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/format.h"
#include "bloomkit/result.h"

namespace bloomkit {

struct MapOptions {
  // Read the whole file once through the mapping and check its checksum before
  // returning (kChecksumMismatch otherwise). Costs a read of the file; the pages it
  // reads stay in the page cache, not in the process.
  bool verify_checksum = false;
  // Turn SIGBUS on a file truncated under the view into truncated() (see above).
  bool guard_truncation = true;
};

class MappedFilter {
 public:
  // Views guarded against truncation at the same time (MapOptions::guard_truncation).
  static constexpr std::size_t kMaxGuardedViews = 256;

  // Maps `path` read-only. Errors: those of the format's header checks (kBadMagic,
  // kTruncated, kParameterMismatch, ...), kUnsupported for a compressed payload or a kind
  // without a mapped form, kIoError for open/mmap failures.
  static Result<MappedFilter> Open(const std::filesystem::path& path, const MapOptions& options = {});

  MappedFilter(MappedFilter&&) noexcept;
  MappedFilter& operator=(MappedFilter&&) noexcept;
  MappedFilter(const MappedFilter&) = delete;
  MappedFilter& operator=(const MappedFilter&) = delete;
  ~MappedFilter();

  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept;
  // out[i] = MayContain(keys[i]); returns how many may be present. out.size() >= keys.size().
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;

  // The header as read at Open.
  [[nodiscard]] const FileHeader& header() const noexcept;
  [[nodiscard]] FilterKind kind() const noexcept { return header().kind; }
  // Bytes of the file mapped (the whole file).
  [[nodiscard]] std::uint64_t file_bytes() const noexcept;
  // True once the view lost the file's pages: the file shrank under it (see the contract
  // above), or a page of it could not be read (SIGBUS alike; see FaultStatus).
  [[nodiscard]] bool truncated() const noexcept;
  // OK while !truncated(); then why: kTruncated "the file shrank while it was mapped
  // (from N to M bytes)" when the file is now shorter than the view, else kIoError "a
  // page of the file could not be read through the mapping ...": a read fault while the
  // file kept its size, e.g. a hole of a sparse file on a full tmpfs, which cannot
  // back the page (ENOSPC), or a disk's I/O error. Reading such a file with read()
  // (LoadFile) may still work: holes read as zeros without taking space.
  [[nodiscard]] Status FaultStatus() const;

  // The filter over the mapped words, for its accessors (num_bits, FillRatio, ...): a
  // const filter whose words are the file's. Copying it makes an ordinary owned filter.
  //   if (const auto* classic = view->get_if<bloomkit::BloomFilter>()) classic->num_bits();
  template <typename Filter>
  [[nodiscard]] const Filter* get_if() const noexcept {
    return std::get_if<Filter>(&filter());
  }

 private:
  struct State;
  using Variant = std::variant<BloomFilter, BlockedBloomFilter>;
  explicit MappedFilter(std::unique_ptr<State> state) noexcept;
  [[nodiscard]] const Variant& filter() const noexcept;

  std::unique_ptr<State> state_;
};

// Reads a filter file once with a bounded buffer (1 MiB) and checks it: the header, the
// file's size and the checksum over every byte, without building the filter or
// decompressing. What `bloomkit verify` runs, and the check to make after copying a file
// that will be mapped.
//   if (auto st = bloomkit::VerifyFile("blocklist.bf"); !st.ok()) { ... st.error().message() ... }
Result<FileHeader> VerifyFile(const std::filesystem::path& path);

}  // namespace bloomkit
