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

Output::~Output() {
  try {
    Flush();
  } catch (const CliError&) {  // NOLINT(bugprone-empty-catch): a destructor cannot report it
  }
}

void Output::Flush() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t put = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      const std::string why = std::strerror(errno);
      buffer_.clear();
      Fail(kExitData, fmt::format("{}: write failed: {}", name_, why));
    }
    done += static_cast<std::size_t>(put);
  }
  buffer_.clear();
}

}  // namespace bloomkit::cli
