// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the CLI's key reader (src/cli/key_reader.h), fed through pipes in
// pieces so that records straddle read(2) calls.
//
// Input: a flags byte (bit 0: --null, bit 1: --keep-cr, bits 2-3: number of inputs - 1,
// bits 4-7: n, the longest key is n * n bytes, or KeyReader::kMaxKeyBytes when n is 0),
// a piece-size byte, then the bytes of the inputs separated by 0xff 0xfe.
// Properties: no crash, hang or sanitizer report; the keys are exactly those of a plain
// reference split by the record rules of key_reader.h (per input: split at the
// separator, a final unterminated record counts, one trailing '\r' dropped in line
// mode unless keep-cr, empty records skipped), in order; no batch exceeds its limit.
// Input is refused (CliError) exactly when the reference says so: a NUL byte in line
// mode, an input that starts as an xz or bzip2 file, or a key (after its '\r' is
// dropped) longer than the limit, a key of exactly the limit being accepted. An input that starts with
// gzip or zstd magic bytes is decoded: it may give keys or an error, never a crash.
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cli.h"
#include "fuzz_input.h"
#include "key_reader.h"

namespace {

bool StartsWith(std::string_view input, std::string_view magic) {
  return input.substr(0, magic.size()) == magic;
}

bool Compressed(std::string_view input) {
  return StartsWith(input, "\x1f\x8b") || StartsWith(input, "\x28\xb5\x2f\xfd");
}

// True if the reader must refuse the input as binary.
bool Refused(const std::vector<std::string_view>& inputs, bloomkit::cli::KeyFormat format) {
  for (const std::string_view input : inputs) {
    if (StartsWith(input, std::string_view("\xfd"
                                           "7zXZ\0",
                                           6)))
      return true;
    if (input.size() >= 10 && StartsWith(input, "BZh") && input.substr(4, 6) == "1AY&SY") return true;
    if (Compressed(input)) return false;  // what follows is decoded first
    if (format.separator == '\n' && input.find('\0') != std::string_view::npos) return true;
  }
  return false;
}

std::vector<std::string> Reference(const std::vector<std::string_view>& inputs, bloomkit::cli::KeyFormat format,
                                   std::size_t max_key_bytes, bool* too_long) {
  *too_long = false;
  std::vector<std::string> keys;
  for (const std::string_view input : inputs) {
    std::size_t begin = 0;
    while (begin < input.size()) {
      std::size_t end = input.find(format.separator, begin);
      const bool terminated = end != std::string_view::npos;
      if (!terminated) end = input.size();
      std::string_view key = input.substr(begin, end - begin);
      if (!format.keep_cr && format.separator == '\n' && key.ends_with('\r')) key.remove_suffix(1);
      if (key.size() > max_key_bytes) *too_long = true;
      if (!key.empty()) keys.emplace_back(key);
      begin = terminated ? end + 1 : end;
    }
  }
  return keys;
}

// Writes `bytes` into a pipe `piece` bytes at a time from another thread; the reader
// opens the read end through /proc/self/fd like any file name.
class PipeInput {
 public:
  PipeInput(std::string_view bytes, std::size_t piece) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) __builtin_trap();
    read_fd_ = fds[0];
    writer_ = std::thread([write_fd = fds[1], bytes, piece] {
      for (std::size_t at = 0; at < bytes.size();) {
        const std::size_t n = std::min(piece, bytes.size() - at);
        const ssize_t wrote = ::write(write_fd, bytes.data() + at, n);
        if (wrote <= 0) break;  // the reader gave up (it failed the check anyway)
        at += static_cast<std::size_t>(wrote);
      }
      ::close(write_fd);
    });
  }
  ~PipeInput() {
    ::close(read_fd_);  // first, so that a writer the reader gave up on gets EPIPE
    writer_.join();
  }
  PipeInput(const PipeInput&) = delete;
  PipeInput& operator=(const PipeInput&) = delete;
  [[nodiscard]] std::string path() const { return "/proc/self/fd/" + std::to_string(read_fd_); }

 private:
  int read_fd_ = -1;
  std::thread writer_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bloomkit_fuzz::FuzzInput in(data, size);
  const std::uint8_t flags = in.Byte();
  const std::size_t piece = std::size_t{in.Byte()} + 1;
  const bloomkit::cli::KeyFormat format{(flags & 1U) != 0 ? '\0' : '\n', (flags & 2U) != 0};
  const std::size_t max_inputs = ((flags >> 2) & 3U) + 1;
  const std::size_t root = flags >> 4;
  const std::size_t max_key_bytes = root == 0 ? bloomkit::cli::KeyReader::kMaxKeyBytes : root * root;
  const std::string_view rest = in.Rest();
  std::vector<std::string_view> inputs;
  std::size_t begin = 0;
  while (inputs.size() + 1 < max_inputs) {
    const std::size_t cut = rest.find("\xff\xfe", begin);
    if (cut == std::string_view::npos) break;
    inputs.push_back(rest.substr(begin, cut - begin));
    begin = cut + 2;
  }
  inputs.push_back(rest.substr(begin));

  std::vector<std::string> names;
  std::vector<std::unique_ptr<PipeInput>> pipes;
  for (const std::string_view input : inputs) {
    pipes.push_back(std::make_unique<PipeInput>(input, piece));
    names.push_back(pipes.back()->path());
  }
  static const bool kSigpipeIgnored = std::signal(SIGPIPE, SIG_IGN) != SIG_ERR;
  static_cast<void>(kSigpipeIgnored);
  bool any_compressed = false;
  for (const std::string_view input : inputs) any_compressed = any_compressed || Compressed(input);
  bool too_long = false;
  const std::vector<std::string> expected = Reference(inputs, format, max_key_bytes, &too_long);
  const bool refused = Refused(inputs, format) || too_long;
  std::vector<std::string> got;
  bool failed = false;
  try {
    bloomkit::cli::KeyReader reader(names, format, max_key_bytes);
    std::vector<std::string_view> batch;
    while (reader.NextBatch(batch)) {
      BLOOMKIT_FUZZ_CHECK(!batch.empty() && batch.size() <= bloomkit::cli::KeyReader::kMaxBatchKeys);
      for (const std::string_view key : batch) got.emplace_back(key);
    }
    BLOOMKIT_FUZZ_CHECK(reader.keys_read() == got.size());
    if (!any_compressed) BLOOMKIT_FUZZ_CHECK(reader.bytes_read() == rest.size() - 2 * (inputs.size() - 1));
  } catch (const bloomkit::cli::CliError&) {
    failed = true;
  }
  if (any_compressed) return 0;
  BLOOMKIT_FUZZ_CHECK(failed == refused);
  if (!failed) BLOOMKIT_FUZZ_CHECK(got == expected);
  return 0;
}
