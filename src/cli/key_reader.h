// SPDX-License-Identifier: Apache-2.0
// Reads keys from files or stdin, fast: 1 MiB read(2) calls split with memchr, keys
// handed out in batches of string_views into the buffer (no copy, no iostream).
//
// Compressed input is read transparently, recognized by its first bytes (not its name):
// gzip (1f 8b, zlib's inflate; concatenated members too) and zstd (28 b5 2f fd,
// concatenated frames too). Both decode through fixed buffers, so no size a stream
// claims is ever allocated. Input that is binary in line mode (a NUL byte; also xz and
// bzip2 files, named as such) is refused with an error: it is never added as keys.
//
// Record rules (docs/CLI.md, "Keys"):
//  - one key per line, lines end with '\n'; with --null, records end with '\0'.
//  - a final record without its terminator is a key like any other.
//  - line mode only: one trailing '\r' is dropped, so CRLF files give the same keys
//    as LF files (--keep-cr keeps it).
//  - empty records are skipped (a blank line is not a key).
//  - a key may hold any other byte; a key of up to kMaxKeyBytes bytes (after the '\r'
//    is dropped) is read, a longer one is an error, wherever it is in the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace bloomkit::cli {

struct KeyFormat {
  char separator = '\n';
  bool keep_cr = false;
};

// The options every key-reading subcommand shares: INPUT..., --null, --keep-cr,
// --no-progress.
struct KeyInputOptions {
  std::vector<std::string> inputs;
  bool null = false;
  bool keep_cr = false;
  bool no_progress = false;
  [[nodiscard]] KeyFormat format() const { return KeyFormat{null ? '\0' : '\n', keep_cr}; }
};
void AddKeyInputOptions(CLI::App& app, KeyInputOptions& options);

// The inputs of add/query/dedup/remove: file names, "-" meaning stdin. All files are
// opened (and their sizes summed) up front, so a missing file fails before any key is
// processed.
class KeyReader {
 public:
  static constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
  static constexpr std::size_t kMaxKeyBytes = std::size_t{64} << 20;
  static constexpr std::size_t kMaxBatchKeys = 4096;

  // Throws CliError (exit 3) naming the file that cannot be opened. `max_key_bytes`
  // (kMaxKeyBytes unless a test gives a smaller one) is the longest key accepted.
  KeyReader(const std::vector<std::string>& inputs, KeyFormat format, std::size_t max_key_bytes = kMaxKeyBytes);
  ~KeyReader();
  KeyReader(const KeyReader&) = delete;
  KeyReader& operator=(const KeyReader&) = delete;

  // Fills `keys` with the next keys (at most kMaxBatchKeys); they stay valid until the
  // next call. Returns false at the end of the last input. Throws CliError on a read
  // error or an over-long key.
  bool NextBatch(std::vector<std::string_view>& keys);

  // Bytes consumed so far and the total when every input is a regular file (else 0).
  [[nodiscard]] std::uint64_t bytes_read() const noexcept { return bytes_read_; }
  [[nodiscard]] std::uint64_t total_bytes() const noexcept { return total_bytes_; }
  [[nodiscard]] std::uint64_t keys_read() const noexcept { return keys_read_; }

 private:
  enum class Codec { kUnknown, kPlain, kGzip, kZstd };
  struct Input {
    std::string name;
    int fd = -1;
    bool owned = false;
  };
  // Reads more bytes of the current input into the buffer; false at its end.
  bool Fill();
  // Up to `capacity` decoded bytes of the current input into `out`; 0 at its end.
  std::size_t ReadDecoded(char* out, std::size_t capacity);
  // Refills raw_ from the current input's file; false at end of file.
  bool ReadRaw();
  // Looks at the current input's first bytes and sets codec_.
  void Sniff();
  // Throws if [from, end_) holds a NUL byte in line mode.
  void CheckText(std::size_t from) const;
  void ResetDecoder();
  // Appends [start, start + length) as a key (dropping a trailing '\r' in line mode,
  // skipping empty records); throws if the key is longer than max_key_bytes_.
  void Emit(std::vector<std::string_view>& keys, const char* start, std::size_t length);
  [[noreturn]] void KeyTooLong() const;
  // Cuts the records whose separator lies in the whole 8-byte words of [begin_, end_).
  void SplitWords(std::vector<std::string_view>& keys);

  KeyFormat format_;
  std::size_t max_key_bytes_;
  // The largest the buffer grows: a longest key, a '\r' and the separator, so that a
  // buffer full of one unterminated record holds a key over the limit.
  std::size_t max_buffer_bytes_;
  std::vector<Input> inputs_;
  std::size_t current_ = 0;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;    // first unconsumed byte
  std::size_t end_ = 0;      // one past the last valid byte
  std::size_t scanned_ = 0;  // [begin_, scanned_) holds no separator (searched already)
  bool eof_ = false;         // the current input is exhausted
  std::uint64_t bytes_read_ = 0;
  std::uint64_t total_bytes_ = 0;
  std::uint64_t keys_read_ = 0;
  std::uint64_t decoded_bytes_ = 0;  // of the current input, for error offsets

  // Raw bytes of the current input not yet decoded (compressed inputs, and the first
  // bytes of any input while its format is sniffed).
  Codec codec_ = Codec::kUnknown;
  std::vector<char> raw_;
  std::size_t raw_begin_ = 0;
  std::size_t raw_end_ = 0;
  bool raw_eof_ = false;
  bool stream_done_ = true;  // the decoder ended a member/frame and needs no more input
  struct Decoders;
  std::unique_ptr<Decoders> decoders_;  // zlib and zstd state, created on first use
};

}  // namespace bloomkit::cli
