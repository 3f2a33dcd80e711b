// Reads keys from files or stdin, fast: 1 MiB read(2) calls split with memchr, keys
// handed out in batches of string_views into the buffer (no copy, no iostream).
//
// Record rules (docs/CLI.md, "Keys"):
//  - one key per line, lines end with '\n'; with --null, records end with '\0'.
//  - a final record without its terminator is a key like any other.
//  - line mode only: one trailing '\r' is dropped, so CRLF files give the same keys
//    as LF files (--keep-cr keeps it).
//  - empty records are skipped (a blank line is not a key).
//  - a key may hold any other byte; keys longer than kMaxKeyBytes are an error.
#pragma once

#include <cstddef>
#include <cstdint>
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

  // Throws CliError (exit 3) naming the file that cannot be opened.
  KeyReader(const std::vector<std::string>& inputs, KeyFormat format);
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
  struct Input {
    std::string name;
    int fd = -1;
    bool owned = false;
  };
  // Reads more bytes of the current input into the buffer; false at its end.
  bool Fill();

  KeyFormat format_;
  std::vector<Input> inputs_;
  std::size_t current_ = 0;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;  // first unconsumed byte
  std::size_t end_ = 0;    // one past the last valid byte
  bool eof_ = false;       // the current input is exhausted
  std::uint64_t bytes_read_ = 0;
  std::uint64_t total_bytes_ = 0;
  std::uint64_t keys_read_ = 0;
};

}  // namespace bloomkit::cli
