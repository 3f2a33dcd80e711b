// KeyReader (key_reader.h).
#include "key_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>

#include "cli.h"

namespace bloomkit::cli {

void AddKeyInputOptions(CLI::App& app, KeyInputOptions& options) {
  app.add_option("INPUT", options.inputs, "files of keys, one per line; - or none = stdin");
  app.add_flag("--null,-0", options.null, "keys end with NUL bytes instead of newlines (find -print0)");
  app.add_flag("--keep-cr", options.keep_cr, "keep a trailing \\r as part of the key (it is dropped by default)");
  app.add_flag("--no-progress", options.no_progress, "never draw the progress line on stderr");
}

KeyReader::KeyReader(const std::vector<std::string>& inputs, KeyFormat format) : format_(format) {
  std::vector<std::string> names = inputs;
  if (names.empty()) names.emplace_back("-");
  bool all_regular = true;
  std::uint64_t total = 0;
  for (const std::string& name : names) {
    Input in;
    in.name = name == "-" ? "(stdin)" : name;
    if (name == "-") {
      in.fd = STDIN_FILENO;
    } else {
      in.fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
      if (in.fd < 0) {
        const std::string why = std::strerror(errno);
        for (Input& opened : inputs_) {
          if (opened.owned) ::close(opened.fd);
        }
        Fail(kExitData, fmt::format("{}: cannot open: {}", name, why));
      }
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
  buffer_.resize(kBufferBytes);
}

KeyReader::~KeyReader() {
  for (Input& in : inputs_) {
    if (in.owned) ::close(in.fd);
  }
}

bool KeyReader::Fill() {
  // Keep the unconsumed tail (a partial record) at the front of the buffer.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) {
    if (buffer_.size() >= kMaxKeyBytes) {
      Fail(kExitData, fmt::format("{}: a key is longer than the maximum of {} bytes (is this the right file?)",
                                  inputs_[current_].name, kMaxKeyBytes));
    }
    buffer_.resize(buffer_.size() * 2);
  }
  for (;;) {
    const ssize_t got = ::read(inputs_[current_].fd, buffer_.data() + end_, buffer_.size() - end_);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      Fail(kExitData, fmt::format("{}: read failed: {}", inputs_[current_].name, std::strerror(errno)));
    }
    if (got == 0) return false;
    end_ += static_cast<std::size_t>(got);
    bytes_read_ += static_cast<std::uint64_t>(got);
    return true;
  }
}

bool KeyReader::NextBatch(std::vector<std::string_view>& keys) {
  keys.clear();
  while (current_ < inputs_.size()) {
    // Cut whole records out of [begin_, end_).
    while (keys.size() < kMaxBatchKeys && begin_ < end_) {
      const char* start = buffer_.data() + begin_;
      const auto* stop = static_cast<const char*>(std::memchr(start, format_.separator, end_ - begin_));
      std::size_t length = 0;
      if (stop != nullptr) {
        length = static_cast<std::size_t>(stop - start);
        begin_ += length + 1;
      } else if (eof_) {  // a final record without its terminator
        length = end_ - begin_;
        begin_ = end_;
      } else {
        break;  // partial record: read more first
      }
      if (!format_.keep_cr && format_.separator == '\n' && length > 0 && start[length - 1] == '\r') --length;
      if (length == 0) continue;
      keys.emplace_back(start, length);
      ++keys_read_;
    }
    if (!keys.empty()) return true;  // views stay valid: the buffer moves only in Fill()
    if (eof_) {
      // Done with this input (everything consumed); move to the next.
      if (inputs_[current_].owned) ::close(inputs_[current_].fd);
      inputs_[current_].owned = false;
      ++current_;
      begin_ = end_ = 0;
      eof_ = false;
      continue;
    }
    if (!Fill()) eof_ = true;
  }
  return false;
}

}  // namespace bloomkit::cli
