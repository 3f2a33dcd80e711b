// SPDX-License-Identifier: Apache-2.0
// Buffered output to a file descriptor with write(2): results of query/dedup go out in
// 256 KiB writes rather than one call per key.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::cli {

// "NAME: write failed: <errno text>", naming a closed descriptor as such (EBADF).
std::string WriteFailed(const std::string& name, int error);

class Output {
 public:
  static constexpr std::size_t kBufferBytes = std::size_t{256} << 10;

  explicit Output(int fd = 1, std::string name = "stdout");
  ~Output();  // flushes; a failure is kept for DeferredError() (call Flush() to see it)
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  void Append(std::string_view text) {
    if (buffer_.size() + text.size() > kBufferBytes) Flush();
    buffer_.append(text);
  }
  void Append(char c) {
    if (buffer_.size() + 1 > kBufferBytes) Flush();
    buffer_.push_back(c);
  }
  // Writes everything buffered; throws CliError (exit 3) when the write fails.
  void Flush();

  // "stdout: write failed: ..." if a destructor's flush failed (it cannot throw), else
  // empty; main turns it into exit status 3, so no failed write goes unreported.
  static std::string DeferredError();

 private:
  // Writes and empties the buffer; returns 0 or the errno of the failed write.
  int WriteAll() noexcept;

  int fd_;
  std::string name_;
  std::string buffer_;
};

}  // namespace bloomkit::cli
