// SPDX-License-Identifier: Apache-2.0
// Output (output.h).
#include "output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli.h"

namespace bloomkit::cli {

Output::Output(int fd, std::string name) : fd_(fd), name_(std::move(name)) {
  buffer_.reserve(kBufferBytes);
}

namespace {
// errno of the first write a destructor could not report; 0 if none failed.
int g_deferred_errno = 0;
}  // namespace

Output::~Output() {
  const int error = WriteAll();
  if (error != 0 && g_deferred_errno == 0) g_deferred_errno = error;
}

// "stdout: write failed: Bad file descriptor (it is closed)"; EBADF is what a write to
// a closed descriptor gives (main keeps a closed 1 unusable).
std::string WriteFailed(const std::string& name, int error) {
  return fmt::format("{}: write failed: {}{}", name, std::strerror(error), error == EBADF ? " (it is closed)" : "");
}

std::string Output::DeferredError() {
  if (g_deferred_errno == 0) return "";
  return WriteFailed("stdout", g_deferred_errno);
}

int Output::WriteAll() noexcept {
  std::size_t done = 0;
  int error = 0;
  while (done < buffer_.size()) {
    const ssize_t put = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      error = put < 0 ? errno : EIO;
      break;
    }
    done += static_cast<std::size_t>(put);
  }
  buffer_.clear();
  return error;
}

void Output::Flush() {
  const int error = WriteAll();
  if (error != 0) Fail(kExitData, WriteFailed(name_, error));
}

}  // namespace bloomkit::cli
