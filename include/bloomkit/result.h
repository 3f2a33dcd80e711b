// SPDX-License-Identifier: Apache-2.0
// Result<T>: the return type of every fallible bloomkit call.
//
// Creating a filter from options, loading bytes or a file, merging two filters: each
// returns either a value or an Error with a stable ErrorCode and a message that names
// the bad value and the valid range. Queries never fail and are noexcept.
//
//   auto filter = bloomkit::BloomFilter::Create({.capacity = 1'000'000, .fp_rate = 0.01});
//   if (!filter.ok()) { std::cerr << filter.error().message() << '\n'; return 1; }
//   filter.value().Add("user:42");
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace bloomkit {

// Stable error codes: their numeric values are part of the API (the CLI and the Redis
// module map them to exit codes and replies). Append new codes; never renumber.
enum class ErrorCode : std::uint16_t {
  kOk = 0,
  kInvalidArgument = 1,     // an option out of its valid range
  kTooLarge = 2,            // the filter would exceed the memory limit
  kIncompatible = 3,        // merge/intersect of filters with different parameters
  kBadMagic = 4,            // not a bloomkit file
  kUnsupportedVersion = 5,  // format version this build does not read
  kUnknownKind = 6,         // filter kind this build does not know
  kUnknownHash = 7,         // hash id or seed this build does not implement
  kTruncated = 8,           // fewer bytes than the header announces
  kChecksumMismatch = 9,    // the checksum over header and payload does not match
  kParameterMismatch = 10,  // parameters inconsistent with each other or the payload
  kReservedNonZero = 11,    // a reserved header field is not zero
  kWrongKind = 12,          // a valid file of another filter kind
  kDecompressFailed = 13,   // the zstd payload does not decompress to its stated size
  kIoError = 14,            // open/read/write/fsync/rename failed
  kFull = 15,               // a filter that cannot grow reached its capacity
  kUnsupported = 16,        // the operation does not apply to this filter kind
  kLocked = 17,             // another writer held the file's lock past the wait
};

// Short, stable name of a code, e.g. "checksum_mismatch".
std::string_view ErrorCodeName(ErrorCode code) noexcept;

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  [[nodiscard]] ErrorCode code() const noexcept { return code_; }
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

 private:
  ErrorCode code_;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  // NOLINTNEXTLINE(google-explicit-constructor): a value converts to a successful result.
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  // NOLINTNEXTLINE(google-explicit-constructor): an Error converts to a failed result.
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  [[nodiscard]] bool ok() const noexcept { return state_.index() == 0; }
  // Not for Result<bool>, where `if (result)` would read as the value but test ok().
  explicit operator bool() const noexcept requires(!std::is_same_v<T, bool>) { return ok(); }

  // Precondition: ok(). Calling value() on an error is a programming bug.
  [[nodiscard]] T& value() & { return std::get<0>(state_); }
  [[nodiscard]] const T& value() const& { return std::get<0>(state_); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(state_)); }

  // Precondition: !ok().
  [[nodiscard]] const Error& error() const& { return std::get<1>(state_); }
  [[nodiscard]] Error&& error() && { return std::get<1>(std::move(state_)); }

  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Error> state_;
};

// Result<void>: success or an Error, what a fallible verb with no value returns.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() noexcept = default;
  // NOLINTNEXTLINE(google-explicit-constructor)
  Result(Error error) : error_(std::move(error)) {}

  [[nodiscard]] bool ok() const noexcept { return !error_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  // Precondition: !ok().
  [[nodiscard]] const Error& error() const& { return *error_; }

 private:
  std::optional<Error> error_;
};

using Status = Result<void>;

// Done: what a verb returns on a kind where it cannot fail, in place of the Status the
// same verb returns on the kinds where it can (filter.h: Add, AddHash, AddBatch and
// AddHashBatch of the classic, blocked, concurrent, counting and foreign filters, which
// set bits or saturate counters and never allocate). It is empty and trivially
// copyable, so it costs nothing to return, and it is not [[nodiscard]]: there is no
// error to miss, so a bare call is the whole call. It answers ok() like a Status and
// converts to an ok one, so code written for either compiles unchanged:
//
//   filter.Add("user:42");                        // nothing to check
//   bloomkit::Status st = filter.Add("user:43");  // ok
//   if (bloomkit::Status st = f.Add(key); !st.ok()) return st.error();  // any kind
//
// It has no error(): generic code that needs the error converts to Status first (as
// above) or tests `std::same_as<decltype(f.Add(key)), Done>` (filter.h's InfallibleAdd).
struct Done {
  [[nodiscard]] constexpr bool ok() const noexcept { return true; }
  constexpr explicit operator bool() const noexcept { return true; }
  // NOLINTNEXTLINE(google-explicit-constructor): a success converts to a successful Status.
  operator Status() const noexcept { return {}; }
};

// What a verb that returns no value returns: Status where it can fail, Done where it
// cannot. Both answer ok(); only Status carries an error().
template <typename T>
concept Outcome = std::same_as<T, Status> || std::same_as<T, Done>;

}  // namespace bloomkit
