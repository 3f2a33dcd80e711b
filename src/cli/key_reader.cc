// SPDX-License-Identifier: Apache-2.0
// KeyReader (key_reader.h).
#include "key_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "cli.h"

namespace bloomkit::cli {

namespace {

constexpr std::size_t kRawBytes = std::size_t{1} << 20;

bool StartsWith(const char* data, std::size_t size, std::initializer_list<unsigned char> magic) {
  if (size < magic.size()) return false;
  std::size_t i = 0;
  for (unsigned char byte : magic) {
    if (static_cast<unsigned char>(data[i++]) != byte) return false;
  }
  return true;
}

}  // namespace

struct KeyReader::Decoders {
  z_stream gzip{};
  bool gzip_ready = false;
  ZSTD_DStream* zstd = nullptr;

  Decoders() = default;
  Decoders(const Decoders&) = delete;
  Decoders& operator=(const Decoders&) = delete;
  Decoders(Decoders&&) = delete;
  Decoders& operator=(Decoders&&) = delete;
  ~Decoders() {
    if (gzip_ready) inflateEnd(&gzip);
    ZSTD_freeDStream(zstd);
  }
};

void AddKeyInputOptions(CLI::App& app, KeyInputOptions& options) {
  app.add_option("INPUT", options.inputs, "files of keys, one per line (gzip or zstd too); - or none = stdin");
  app.add_flag("--null,-0", options.null, "keys end with NUL bytes instead of newlines (find -print0)");
  app.add_flag("--keep-cr", options.keep_cr, "keep a trailing \\r as part of the key (it is dropped by default)");
  app.add_flag("--no-progress", options.no_progress, "never draw the progress line on stderr");
}

KeyReader::KeyReader(const std::vector<std::string>& inputs, KeyFormat format, std::size_t max_key_bytes)
    : format_(format), max_key_bytes_(max_key_bytes), max_buffer_bytes_(max_key_bytes + 2) {
  std::vector<std::string> names = inputs;
  if (names.empty()) names.emplace_back("-");
  bool all_regular = true;
  std::uint64_t total = 0;
  for (const std::string& name : names) {
    Input in;
    in.name = name == "-" ? "(stdin)" : name;
    const auto fail = [this](const std::string& message) {
      for (Input& opened : inputs_) {
        if (opened.owned) ::close(opened.fd);
      }
      Fail(kExitData, message);
    };
    if (name == "-") {
      // Closed, or write-only: what main puts on a descriptor 0 it found closed.
      const int mode = ::fcntl(STDIN_FILENO, F_GETFL);
      if (mode < 0 || (mode & O_ACCMODE) == O_WRONLY) {
        fail("(stdin): standard input is closed; give the keys as INPUT files, or redirect stdin (< FILE)");
      }
      in.fd = STDIN_FILENO;
    } else {
      in.fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
      if (in.fd < 0) fail(fmt::format("{}: cannot open: {}", name, std::strerror(errno)));
      in.owned = true;
    }
    struct stat st {};
    if (::fstat(in.fd, &st) == 0 && S_ISREG(st.st_mode)) {
      total += static_cast<std::uint64_t>(st.st_size);
    } else {
      all_regular = false;
    }
    inputs_.push_back(std::move(in));
  }
  total_bytes_ = all_regular ? total : 0;
  buffer_.resize(std::min(kBufferBytes, max_buffer_bytes_));
}

KeyReader::~KeyReader() {
  for (Input& in : inputs_) {
    if (in.owned) ::close(in.fd);
  }
}

void KeyReader::ResetDecoder() {
  codec_ = Codec::kUnknown;
  raw_begin_ = raw_end_ = 0;
  raw_eof_ = false;
  stream_done_ = true;
  decoded_bytes_ = 0;
}

bool KeyReader::ReadRaw() {
  if (raw_begin_ > 0) {
    std::memmove(raw_.data(), raw_.data() + raw_begin_, raw_end_ - raw_begin_);
    raw_end_ -= raw_begin_;
    raw_begin_ = 0;
  }
  for (;;) {
    const ssize_t got = ::read(inputs_[current_].fd, raw_.data() + raw_end_, raw_.size() - raw_end_);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      Fail(kExitData, fmt::format("{}: read failed: {}", inputs_[current_].name, std::strerror(errno)));
    }
    if (got == 0) {
      raw_eof_ = true;
      return false;
    }
    raw_end_ += static_cast<std::size_t>(got);
    bytes_read_ += static_cast<std::uint64_t>(got);
    return true;
  }
}

void KeyReader::Sniff() {
  if (raw_.empty()) raw_.resize(kRawBytes);
  // Enough bytes to tell the formats apart (a pipe may deliver them one by one).
  while (raw_end_ < 10 && ReadRaw()) {
  }
  const char* data = raw_.data() + raw_begin_;
  const std::size_t size = raw_end_ - raw_begin_;
  const std::string& name = inputs_[current_].name;
  if (StartsWith(data, size, {0x1f, 0x8b})) {
    codec_ = Codec::kGzip;
  } else if (StartsWith(data, size, {0x28, 0xb5, 0x2f, 0xfd})) {
    codec_ = Codec::kZstd;
  } else if (StartsWith(data, size, {0xfd, '7', 'z', 'X', 'Z', 0x00})) {
    Fail(kExitData,
         fmt::format("{}: xz-compressed input is not supported (decompress it first: xz -dc FILE | bloomkit ...); "
                     "gzip and zstd are read directly",
                     name));
  } else if (StartsWith(data, size, {'B', 'Z', 'h'}) && size >= 10 && std::memcmp(data + 4, "1AY&SY", 6) == 0) {
    Fail(kExitData, fmt::format("{}: bzip2-compressed input is not supported (decompress it first: bzip2 -dc FILE | "
                                "bloomkit ...); gzip and zstd are read directly",
                                name));
  } else {
    codec_ = Codec::kPlain;
    return;
  }
  if (!decoders_) decoders_ = std::make_unique<Decoders>();
  if (codec_ == Codec::kGzip) {
    if (!decoders_->gzip_ready) {
      if (inflateInit2(&decoders_->gzip, 15 + 16) != Z_OK)
        Fail(kExitData, fmt::format("{}: zlib: out of memory", name));
      decoders_->gzip_ready = true;
    } else {
      inflateReset(&decoders_->gzip);
    }
  } else {
    if (decoders_->zstd == nullptr) decoders_->zstd = ZSTD_createDStream();
    if (decoders_->zstd == nullptr) Fail(kExitData, fmt::format("{}: zstd: out of memory", name));
    ZSTD_initDStream(decoders_->zstd);
  }
  stream_done_ = false;
}

std::size_t KeyReader::ReadDecoded(char* out, std::size_t capacity) {
  const std::string& name = inputs_[current_].name;
  if (codec_ == Codec::kUnknown) Sniff();
  if (codec_ == Codec::kPlain) {
    if (raw_end_ > raw_begin_) {  // the sniffed bytes come first
      const std::size_t n = std::min(capacity, raw_end_ - raw_begin_);
      std::memcpy(out, raw_.data() + raw_begin_, n);
      raw_begin_ += n;
      return n;
    }
    if (raw_eof_) return 0;
    for (;;) {
      const ssize_t got = ::read(inputs_[current_].fd, out, capacity);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) Fail(kExitData, fmt::format("{}: read failed: {}", name, std::strerror(errno)));
      bytes_read_ += static_cast<std::uint64_t>(got);
      if (got == 0) raw_eof_ = true;
      return static_cast<std::size_t>(got);
    }
  }
  // Compressed: decode until some output appears, the stream ends, or input runs out.
  for (;;) {
    if (raw_begin_ == raw_end_) {
      if (raw_eof_ || !ReadRaw()) {
        if (!stream_done_) {
          Fail(kExitData, fmt::format("{}: truncated {} input (the compressed stream ends early)", name,
                                      codec_ == Codec::kGzip ? "gzip" : "zstd"));
        }
        return 0;
      }
    }
    if (stream_done_) {
      // Another gzip member or zstd frame follows the one that ended.
      if (codec_ == Codec::kGzip) {
        if (!StartsWith(raw_.data() + raw_begin_, raw_end_ - raw_begin_, {0x1f}) && raw_end_ - raw_begin_ >= 1) {
          Fail(kExitData, fmt::format("{}: trailing bytes after the gzip data", name));
        }
        inflateReset(&decoders_->gzip);
      }
      stream_done_ = false;
    }
    std::size_t produced = 0;
    if (codec_ == Codec::kGzip) {
      z_stream& z = decoders_->gzip;
      z.next_in = reinterpret_cast<Bytef*>(raw_.data() + raw_begin_);
      z.avail_in = static_cast<uInt>(raw_end_ - raw_begin_);
      z.next_out = reinterpret_cast<Bytef*>(out);
      z.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, UINT32_MAX));
      const int rc = inflate(&z, Z_NO_FLUSH);
      raw_begin_ = raw_end_ - z.avail_in;
      produced = static_cast<std::size_t>(reinterpret_cast<char*>(z.next_out) - out);
      if (rc == Z_STREAM_END) {
        stream_done_ = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        Fail(kExitData, fmt::format("{}: corrupt gzip input: {}", name, z.msg != nullptr ? z.msg : "inflate failed"));
      }
    } else {
      ZSTD_inBuffer in{raw_.data() + raw_begin_, raw_end_ - raw_begin_, 0};
      ZSTD_outBuffer dst{out, capacity, 0};
      const std::size_t rc = ZSTD_decompressStream(decoders_->zstd, &dst, &in);
      if (ZSTD_isError(rc) != 0) {
        Fail(kExitData, fmt::format("{}: corrupt zstd input: {}", name, ZSTD_getErrorName(rc)));
      }
      raw_begin_ += in.pos;
      produced = dst.pos;
      stream_done_ = rc == 0;
    }
    if (produced > 0) return produced;
  }
}

void KeyReader::CheckText(std::size_t from) const {
  if (format_.separator != '\n') return;
  const void* nul = std::memchr(buffer_.data() + from, '\0', end_ - from);
  if (nul == nullptr) return;
  const std::uint64_t offset =
      decoded_bytes_ - (end_ - static_cast<std::size_t>(static_cast<const char*>(nul) - buffer_.data()));
  Fail(kExitData, fmt::format("{}: binary input (a NUL byte at offset {}): keys are text lines; use --null for "
                              "NUL-terminated keys",
                              inputs_[current_].name, offset));
}

bool KeyReader::Fill() {
  // Keep the unconsumed tail (a partial record) at the front of the buffer.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    scanned_ = scanned_ > begin_ ? scanned_ - begin_ : 0;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) {
    // The buffer holds one record without its separator. At max_buffer_bytes_ that is
    // a key of at least max_key_bytes_ + 1 bytes, even if its last byte is a '\r'.
    if (buffer_.size() >= max_buffer_bytes_) KeyTooLong();
    buffer_.resize(std::min(buffer_.size() * 2, max_buffer_bytes_));
  }
  const std::size_t got = ReadDecoded(buffer_.data() + end_, buffer_.size() - end_);
  if (got == 0) return false;
  const std::size_t from = end_;
  end_ += got;
  decoded_bytes_ += got;
  CheckText(from);
  return true;
}

void KeyReader::KeyTooLong() const {
  Fail(kExitData, fmt::format("{}: a key is longer than the maximum of {} bytes (is this the right file?)",
                              inputs_[current_].name, max_key_bytes_));
}

void KeyReader::Emit(std::vector<std::string_view>& keys, const char* start, std::size_t length) {
  if (!format_.keep_cr && format_.separator == '\n' && length > 0 && start[length - 1] == '\r') --length;
  if (length == 0) return;
  if (length > max_key_bytes_) KeyTooLong();
  keys.emplace_back(start, length);
  ++keys_read_;
}

void KeyReader::SplitWords(std::vector<std::string_view>& keys) {
  // 8 bytes at a time: every separator of a word is found with one exact zero-byte test
  // of word ^ pattern (the 7-bit sums cannot carry into the next byte), instead of one
  // memchr call per key, which dominated the profile for short keys (34% of `add` of
  // 7-byte keys, docs/BENCHMARKS.md "Key input").
  constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
  const std::uint64_t pattern = 0x0101010101010101ULL * static_cast<unsigned char>(format_.separator);
  const char* base = buffer_.data();
  std::size_t record = begin_;
  // The words of a partial record searched before hold no separator: not again, or a
  // long key arriving in 64 KiB pipe reads would be searched once per read.
  const std::size_t start = scanned_ > begin_ ? begin_ + ((scanned_ - begin_) & ~std::size_t{7}) : begin_;
  for (std::size_t at = start; at + 8 <= end_ && keys.size() < kMaxBatchKeys; at += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, base + at, 8);
    const std::uint64_t x = word ^ pattern;
    std::uint64_t hits = ~(((x & kLow7) + kLow7) | x | kLow7);
    while (hits != 0) {
      std::size_t byte = 0;
      if constexpr (std::endian::native == std::endian::little) {
        byte = static_cast<std::size_t>(std::countr_zero(hits)) >> 3;
        hits &= hits - 1;
      } else {
        byte = static_cast<std::size_t>(std::countl_zero(hits)) >> 3;
        hits &= ~(std::uint64_t{0x80} << (56 - 8 * byte));
      }
      const std::size_t stop = at + byte;
      Emit(keys, base + record, stop - record);
      record = stop + 1;
      if (keys.size() == kMaxBatchKeys) break;
    }
  }
  begin_ = record;
}

bool KeyReader::NextBatch(std::vector<std::string_view>& keys) {
  keys.clear();
  while (current_ < inputs_.size()) {
    SplitWords(keys);
    // The rest of [begin_, end_): the last bytes, a final record without terminator.
    while (keys.size() < kMaxBatchKeys && begin_ < end_) {
      const char* start = buffer_.data() + begin_;
      const std::size_t from = std::max(begin_, scanned_);
      const auto* stop = static_cast<const char*>(std::memchr(buffer_.data() + from, format_.separator, end_ - from));
      std::size_t length = 0;
      if (stop != nullptr) {
        length = static_cast<std::size_t>(stop - start);
        begin_ += length + 1;
      } else if (eof_) {  // a final record without its terminator
        length = end_ - begin_;
        begin_ = end_;
      } else {
        scanned_ = end_;
        break;  // partial record: read more first
      }
      Emit(keys, start, length);
    }
    if (!keys.empty()) return true;  // views stay valid: the buffer moves only in Fill()
    if (eof_) {
      // Done with this input (everything consumed); move to the next.
      if (inputs_[current_].owned) ::close(inputs_[current_].fd);
      inputs_[current_].owned = false;
      ++current_;
      begin_ = end_ = scanned_ = 0;
      eof_ = false;
      ResetDecoder();
      continue;
    }
    if (!Fill()) eof_ = true;
  }
  return false;
}

}  // namespace bloomkit::cli
