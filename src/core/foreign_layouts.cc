// SPDX-License-Identifier: Apache-2.0
// ReadForeign and WriteForeign of the foreign kinds (foreign_bloom.h): each library's own
// layout. bits-and-blooms/bloom v3 and Guava, every integer big-endian:
//
//   bits-and-blooms WriteTo           Guava writeTo
//   +----------------------------+    +-------------------------------+
//   | m            uint64        |    | strategy ordinal   int8       |
//   | k            uint64        |    | k                  uint8      |
//   | bitset bits  uint64 (L)    |    | words              int32 (W)  |
//   | ceil(L/64) words uint64    |    | W words            int64      |
//   +----------------------------+    +-------------------------------+
//
// Bit i is bit i mod 64 of word i / 64 in both (Go's bitset, Guava's LockFreeBitArray).
//
// Parquet (parquet-format BloomFilter.md): a Thrift compact BloomFilterHeader, then
// numBytes bytes of bitset, 32-bit lanes little-endian (ReadParquet below).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <istream>
#include <ostream>
#include <span>
#include <sstream>
#include <streambuf>
#include <string>
#include <string_view>

#include "bloomkit/foreign_bloom.h"
#include "internal/endian.h"
#include "internal/foreign_scheme.h"
#include "internal/message.h"

namespace bloomkit {
namespace {

using internal::kIsGuava;
using internal::kIsParquet;
using internal::kLibrary;
using internal::kMaxHashes;
using internal::MakeError;

// Bytes of the Thrift compact BloomFilterHeader Parquet writers put before the bitset:
// field 1 numBytes (i32, zigzag varint), then algorithm BLOCK, hash XXHASH, compression
// UNCOMPRESSED (each a union whose member 1 is an empty struct), then stop.
std::size_t ParquetHeaderBytes(std::uint64_t num_bytes) noexcept {
  std::uint64_t zigzag = num_bytes << 1;
  std::size_t varint = 1;
  while (zigzag >= 0x80) {
    zigzag >>= 7;
    ++varint;
  }
  return 1 + varint + 13;
}

std::uint64_t LoadBE64(const unsigned char* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

void StoreBE64(unsigned char* p, std::uint64_t v) noexcept {
  for (int i = 7; i >= 0; --i) {
    p[i] = static_cast<unsigned char>(v);
    v >>= 8;
  }
}

// Bytes left in a seekable stream, or -1 when it cannot tell.
std::int64_t BytesLeft(std::istream& in) {
  const std::istream::pos_type here = in.tellg();
  if (here == std::istream::pos_type(-1)) {
    in.clear();
    return -1;
  }
  in.seekg(0, std::ios::end);
  const std::istream::pos_type end = in.tellg();
  in.seekg(here);
  if (end == std::istream::pos_type(-1) || !in) {
    in.clear();
    in.seekg(here);
    return -1;
  }
  return static_cast<std::int64_t>(end - here);
}

// Reads `count` big-endian words into `out` (host order), `skip` more words after them
// are read and dropped. A short read is kTruncated naming what was expected.
Status ReadWordsBE(std::istream& in, std::span<std::uint64_t> out, std::uint64_t skip, std::string_view library) {
  constexpr std::size_t kPieceWords = 8192;
  std::array<unsigned char, kPieceWords * 8> piece;
  const std::uint64_t total = out.size() + skip;
  for (std::uint64_t done = 0; done < total;) {
    const std::uint64_t n = std::min<std::uint64_t>(kPieceWords, total - done);
    in.read(reinterpret_cast<char*>(piece.data()), static_cast<std::streamsize>(n * 8));
    if (static_cast<std::uint64_t>(in.gcount()) != n * 8) {
      return MakeError(ErrorCode::kTruncated, "truncated ", library, " filter: its bit array needs ", total * 8,
                       " bytes, the input ends after ", done * 8 + static_cast<std::uint64_t>(in.gcount()));
    }
    for (std::uint64_t i = 0; i < n; ++i) {
      if (done + i < out.size()) out[done + i] = LoadBE64(piece.data() + 8 * i);
    }
    done += n;
  }
  return {};
}

// A std::streambuf over bytes in memory, for ReadForeign(span).
struct SpanBuf : std::streambuf {
  explicit SpanBuf(std::span<const std::byte> bytes) {
    char* p = const_cast<char*>(reinterpret_cast<const char*>(bytes.data()));
    setg(p, p, p + bytes.size());
  }
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode /*which*/) override {
    char* target = dir == std::ios_base::beg ? eback() + off : dir == std::ios_base::cur ? gptr() + off : egptr() + off;
    if (target < eback() || target > egptr()) return pos_type(off_type(-1));
    setg(eback(), target, egptr());
    return pos_type(target - eback());
  }
  pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
    return seekoff(off_type(pos), std::ios_base::beg, which);
  }
};

}  // namespace

template <typename Scheme>
std::uint64_t ForeignBloomFilter<Scheme>::foreign_bytes() const noexcept {
  if constexpr (kIsParquet<Scheme>) return ParquetHeaderBytes(words_.bytes()) + words_.bytes();
  return (kIsGuava<Scheme> ? 6 : 24) + words_.bytes();
}

// Parquet's BloomFilterHeader (Thrift compact protocol) as its writers put it, then
// numBytes bytes of bitset (little-endian 32-bit lanes). Only what the format defines is
// accepted: algorithm BLOCK, hash XXHASH, compression UNCOMPRESSED.
template <typename Scheme>
Result<ForeignBloomFilter<Scheme>> ForeignBloomFilter<Scheme>::ReadParquet(std::istream& in, std::int64_t left,
                                                                           const LoadOptions& options) {
  std::uint64_t consumed = 0;
  auto next = [&in, &consumed]() -> int {
    const int c = in.get();
    if (c != std::char_traits<char>::eof()) ++consumed;
    return c == std::char_traits<char>::eof() ? -1 : c;
  };
  const auto truncated = [&consumed]() {
    return MakeError(ErrorCode::kTruncated, "truncated Parquet filter: its header ends after ", consumed, " bytes");
  };
  int c = next();
  if (c < 0) return truncated();
  if (c != 0x15) {
    return MakeError(ErrorCode::kParameterMismatch, "not a Parquet BloomFilterHeader: byte 0 is 0x", std::hex, c,
                     ", not 0x15 (field 1, numBytes, an i32)");
  }
  std::uint64_t zigzag = 0;
  for (int shift = 0;; shift += 7) {
    c = next();
    if (c < 0) return truncated();
    if (shift > 28) {
      return MakeError(ErrorCode::kParameterMismatch, "Parquet numBytes is not a 32-bit varint");
    }
    zigzag |= static_cast<std::uint64_t>(c & 0x7f) << shift;
    if ((c & 0x80) == 0) break;
  }
  const std::int64_t num_bytes = static_cast<std::int64_t>(zigzag >> 1) ^ -static_cast<std::int64_t>(zigzag & 1);
  if (num_bytes <= 0 || num_bytes % 32 != 0 || num_bytes > static_cast<std::int64_t>(kMaxParquetBytes)) {
    return MakeError(ErrorCode::kParameterMismatch, "Parquet filter of numBytes ", num_bytes,
                     ": must be a positive multiple of 32 (whole 256-bit blocks) of at most ", kMaxParquetBytes);
  }
  constexpr std::array<std::string_view, 3> kFields = {"algorithm BLOCK", "hash XXHASH", "compression UNCOMPRESSED"};
  for (std::size_t field = 0; field < kFields.size(); ++field) {
    std::array<int, 4> got{};
    for (int& b : got) {
      b = next();
      if (b < 0) return truncated();
    }
    if (got != std::array<int, 4>{0x1c, 0x1c, 0x00, 0x00}) {
      return MakeError(field == 1 ? ErrorCode::kUnknownHash : ErrorCode::kParameterMismatch,
                       "Parquet BloomFilterHeader field ", field + 2, " is not ", kFields[field],
                       " (the only one the format defines): bytes ", got[0], " ", got[1], " ", got[2], " ", got[3]);
    }
  }
  c = next();
  if (c < 0) return truncated();
  if (c != 0) return MakeError(ErrorCode::kParameterMismatch, "Parquet BloomFilterHeader has fields past field 4");
  const auto bytes = static_cast<std::uint64_t>(num_bytes);
  if (bytes > options.max_memory_bytes) {
    return MakeError(ErrorCode::kTooLarge, "Parquet filter of ", bytes, " bytes is over the memory limit of ",
                     options.max_memory_bytes, " bytes");
  }
  if (left >= 0 && static_cast<std::uint64_t>(left) < consumed + bytes) {
    return MakeError(ErrorCode::kTruncated, "truncated Parquet filter: ", left, " bytes, its header announces ",
                     consumed + bytes);
  }
  auto f = Make(bytes * 8, kParquetNumHashes, GuavaStrategy::kMurmur128Mitz32, 1, 0, options.max_memory_bytes);
  if (!f.ok()) return f;
  in.read(reinterpret_cast<char*>(f->words_.data()), static_cast<std::streamsize>(bytes));
  if (static_cast<std::uint64_t>(in.gcount()) != bytes) {
    return MakeError(ErrorCode::kTruncated, "truncated Parquet filter: its bitset needs ", bytes,
                     " bytes, the input ends after ", in.gcount());
  }
  if constexpr (std::endian::native != std::endian::little) {
    for (std::uint64_t& w : f->words_.span())
      w = internal::LoadLE<std::uint64_t>(reinterpret_cast<const std::byte*>(&w));
  }
  f->SetImportedStatistics();
  return f;
}

template <typename Scheme>
Result<ForeignBloomFilter<Scheme>> ForeignBloomFilter<Scheme>::ReadForeign(std::istream& in,
                                                                           const LoadOptions& options) {
  const std::string_view library = kLibrary<Scheme>;
  const std::int64_t left = BytesLeft(in);
  if constexpr (kIsParquet<Scheme>) return ReadParquet(in, left, options);
  constexpr std::size_t kHead = kIsGuava<Scheme> ? 6 : 24;
  std::array<unsigned char, 24> head{};
  in.read(reinterpret_cast<char*>(head.data()), kHead);
  if (static_cast<std::size_t>(in.gcount()) != kHead) {
    return MakeError(ErrorCode::kTruncated, "truncated ", library, " filter: ", in.gcount(),
                     " bytes, its header alone needs ", kHead);
  }
  std::uint64_t num_bits = 0;
  std::uint64_t num_hashes = 0;
  std::uint64_t stored_words = 0;  // words in the input
  GuavaStrategy strategy = GuavaStrategy::kMurmur128Mitz32;
  if constexpr (kIsGuava<Scheme>) {
    const auto ordinal = static_cast<std::int8_t>(head[0]);
    if (ordinal != 0 && ordinal != 1) {
      return MakeError(ErrorCode::kUnknownHash, "Guava strategy ordinal ", static_cast<int>(ordinal),
                       " is not 0 (MURMUR128_MITZ_32) or 1 (MURMUR128_MITZ_64)");
    }
    strategy = static_cast<GuavaStrategy>(ordinal);
    num_hashes = head[1];
    const auto words = static_cast<std::int32_t>((std::uint32_t{head[2]} << 24) | (std::uint32_t{head[3]} << 16) |
                                                 (std::uint32_t{head[4]} << 8) | std::uint32_t{head[5]});
    if (words <= 0) {
      return MakeError(ErrorCode::kParameterMismatch, "Guava filter of ", words,
                       " words: the word count must be in [1, 2^31 - 1]");
    }
    stored_words = static_cast<std::uint64_t>(words);
    num_bits = stored_words * 64;
  } else {
    num_bits = LoadBE64(head.data());
    num_hashes = LoadBE64(head.data() + 8);
    const std::uint64_t length = LoadBE64(head.data() + 16);
    if (num_bits == 0) return MakeError(ErrorCode::kParameterMismatch, "bits-and-blooms filter of m = 0 bits");
    if (length < num_bits) {
      return MakeError(ErrorCode::kParameterMismatch, "bits-and-blooms bitset of ", length,
                       " bits is shorter than the filter's m = ", num_bits);
    }
    stored_words = length / 64 + (length % 64 != 0 ? 1 : 0);
  }
  const std::uint32_t max_hashes = kMaxHashes<Scheme>;
  if (num_hashes == 0 || num_hashes > max_hashes) {
    return MakeError(ErrorCode::kParameterMismatch, library, " filter of k = ", num_hashes,
                     " hashes: k must be in [1, ", max_hashes, "]");
  }
  if (stored_words > options.max_memory_bytes / 8) {
    return MakeError(ErrorCode::kTooLarge, library, " filter of ", stored_words, " words (", num_bits,
                     " bits) is over the memory limit of ", options.max_memory_bytes, " bytes");
  }
  if (left >= 0 && static_cast<std::uint64_t>(left) < kHead + stored_words * 8) {
    return MakeError(ErrorCode::kTruncated, "truncated ", library, " filter: ", left, " bytes, its header announces ",
                     kHead + stored_words * 8);
  }
  auto f = Make(num_bits, static_cast<std::uint32_t>(num_hashes), strategy, 1, 0, options.max_memory_bytes);
  if (!f.ok()) return f;
  if (Status st = ReadWordsBE(in, f->words_.span(), stored_words - f->words_.num_words(), library); !st.ok()) {
    return std::move(st).error();
  }
  // Bits at and past m are never probed by the library; bloomkit keeps them zero.
  if (num_bits % 64 != 0) f->words_.span().back() &= (std::uint64_t{1} << (num_bits % 64)) - 1;
  f->SetImportedStatistics();
  return f;
}

template <typename Scheme>
Result<ForeignBloomFilter<Scheme>> ForeignBloomFilter<Scheme>::ReadForeign(std::span<const std::byte> bytes,
                                                                           const LoadOptions& options) {
  SpanBuf buf(bytes);
  std::istream in(&buf);
  auto f = ReadForeign(in, options);
  if (!f.ok()) return f;
  if (in.peek() != std::char_traits<char>::eof()) {
    const auto used = static_cast<std::uint64_t>(in.tellg());
    return MakeError(ErrorCode::kParameterMismatch, kLibrary<Scheme>, " filter of ", used, " bytes is followed by ",
                     bytes.size() - used, " more bytes");
  }
  return f;
}

template <typename Scheme>
Status ForeignBloomFilter<Scheme>::WriteForeign(std::ostream& out) const {
  std::array<unsigned char, 24> head{};
  std::size_t head_bytes = 0;
  if constexpr (kIsParquet<Scheme>) {
    head[head_bytes++] = 0x15;  // field 1, i32
    for (std::uint64_t zigzag = words_.bytes() << 1;; zigzag >>= 7) {
      head[head_bytes++] = static_cast<unsigned char>((zigzag & 0x7f) | (zigzag >= 0x80 ? 0x80 : 0));
      if (zigzag < 0x80) break;
    }
    // algorithm {BLOCK {}}, hash {XXHASH {}}, compression {UNCOMPRESSED {}}, stop
    for (int i = 0; i < 3; ++i) {
      for (const unsigned char b : std::array<unsigned char, 4>{0x1c, 0x1c, 0x00, 0x00}) head[head_bytes++] = b;
    }
    head[head_bytes++] = 0x00;
    out.write(reinterpret_cast<const char*>(head.data()), static_cast<std::streamsize>(head_bytes));
    constexpr std::size_t kPieceWords = 8192;
    std::array<std::byte, kPieceWords * 8> piece;
    const std::span<const std::uint64_t> words = words_.span();
    for (std::size_t done = 0; done < words.size() && out;) {
      const std::size_t n = std::min(kPieceWords, words.size() - done);
      for (std::size_t i = 0; i < n; ++i) internal::StoreLE<std::uint64_t>(piece.data() + 8 * i, words[done + i]);
      out.write(reinterpret_cast<const char*>(piece.data()), static_cast<std::streamsize>(n * 8));
      done += n;
    }
    if (!out) return MakeError(ErrorCode::kIoError, "writing the Parquet filter failed");
    return {};
  } else if constexpr (kIsGuava<Scheme>) {
    head[0] = static_cast<unsigned char>(strategy_);
    head[1] = static_cast<unsigned char>(num_hashes_);
    const auto words = static_cast<std::uint32_t>(words_.num_words());
    head[2] = static_cast<unsigned char>(words >> 24);
    head[3] = static_cast<unsigned char>(words >> 16);
    head[4] = static_cast<unsigned char>(words >> 8);
    head[5] = static_cast<unsigned char>(words);
    head_bytes = 6;
  } else {
    StoreBE64(head.data(), num_bits_);
    StoreBE64(head.data() + 8, num_hashes_);
    StoreBE64(head.data() + 16, num_bits_);
    head_bytes = 24;
  }
  out.write(reinterpret_cast<const char*>(head.data()), static_cast<std::streamsize>(head_bytes));
  constexpr std::size_t kPieceWords = 8192;
  std::array<unsigned char, kPieceWords * 8> piece;
  const std::span<const std::uint64_t> words = words_.span();
  for (std::size_t done = 0; done < words.size() && out;) {
    const std::size_t n = std::min(kPieceWords, words.size() - done);
    for (std::size_t i = 0; i < n; ++i) StoreBE64(piece.data() + 8 * i, words[done + i]);
    out.write(reinterpret_cast<const char*>(piece.data()), static_cast<std::streamsize>(n * 8));
    done += n;
  }
  if (!out) return MakeError(ErrorCode::kIoError, "writing the ", kLibrary<Scheme>, " filter failed");
  return {};
}

template <typename Scheme>
std::vector<std::byte> ForeignBloomFilter<Scheme>::WriteForeign() const {
  std::ostringstream out(std::ios::binary);
  (void)WriteForeign(out);  // a string stream fails only when out of memory (bad_alloc)
  const std::string s = std::move(out).str();
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

// The members above for each kind; the rest of the class is instantiated in
// foreign_bloom.cc.
template Result<BitsAndBloomsFilter> BitsAndBloomsFilter::ReadForeign(std::istream&, const LoadOptions&);
template Result<BitsAndBloomsFilter> BitsAndBloomsFilter::ReadForeign(std::span<const std::byte>, const LoadOptions&);
template Status BitsAndBloomsFilter::WriteForeign(std::ostream&) const;
template std::vector<std::byte> BitsAndBloomsFilter::WriteForeign() const;
template std::uint64_t BitsAndBloomsFilter::foreign_bytes() const noexcept;
template Result<GuavaBloomFilter> GuavaBloomFilter::ReadForeign(std::istream&, const LoadOptions&);
template Result<GuavaBloomFilter> GuavaBloomFilter::ReadForeign(std::span<const std::byte>, const LoadOptions&);
template Status GuavaBloomFilter::WriteForeign(std::ostream&) const;
template std::vector<std::byte> GuavaBloomFilter::WriteForeign() const;
template std::uint64_t GuavaBloomFilter::foreign_bytes() const noexcept;
template Result<ParquetBloomFilter> ParquetBloomFilter::ReadParquet(std::istream&, std::int64_t, const LoadOptions&);
template Result<ParquetBloomFilter> ParquetBloomFilter::ReadForeign(std::istream&, const LoadOptions&);
template Result<ParquetBloomFilter> ParquetBloomFilter::ReadForeign(std::span<const std::byte>, const LoadOptions&);
template Status ParquetBloomFilter::WriteForeign(std::ostream&) const;
template std::vector<std::byte> ParquetBloomFilter::WriteForeign() const;
template std::uint64_t ParquetBloomFilter::foreign_bytes() const noexcept;

}  // namespace bloomkit
