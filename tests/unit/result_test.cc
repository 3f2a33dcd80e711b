// SPDX-License-Identifier: Apache-2.0
// bloomkit/result.h: Result<T>, Status and the stable error codes.
#include "bloomkit/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace bloomkit {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Error(ErrorCode::kInvalidArgument, "x must be even, got " + std::to_string(x));
  return x / 2;
}

TEST(ResultTest, HoldsAValueOrAnError) {
  auto ok = Half(8);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(static_cast<bool>(ok));
  EXPECT_EQ(ok.value(), 4);
  EXPECT_EQ(*ok, 4);

  auto bad = Half(7);
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.error().message(), "x must be even, got 7");
}

TEST(ResultTest, MovesMoveOnlyValuesAndErrorsOut) {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(5));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r.value(), 5);
  std::unique_ptr<int> taken = std::move(r).value();
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(*taken, 5);

  Result<std::unique_ptr<int>> failed(Error(ErrorCode::kTooLarge, "too big"));
  Error e = std::move(failed).error();
  EXPECT_EQ(e.code(), ErrorCode::kTooLarge);
  EXPECT_EQ(e.message(), "too big");
}

TEST(ResultTest, ArrowReachesTheValue) {
  Result<std::string> r(std::string("bloom"));
  EXPECT_EQ(r->size(), 5U);
  r->append("kit");
  EXPECT_EQ(r.value(), "bloomkit");
  const Result<std::string>& cr = r;
  EXPECT_EQ(cr->front(), 'b');
}

TEST(StatusTest, DefaultIsOkAndAnErrorIsNot) {
  const Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_TRUE(static_cast<bool>(ok));
  const Status bad = Error(ErrorCode::kIoError, "disk on fire");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kIoError);
  EXPECT_EQ(bad.error().message(), "disk on fire");
}

// The numeric values are API: the CLI's exit codes and the module's replies map them.
TEST(ErrorCodeTest, NumericValuesAreFrozen) {
  EXPECT_EQ(static_cast<int>(ErrorCode::kOk), 0);
  EXPECT_EQ(static_cast<int>(ErrorCode::kInvalidArgument), 1);
  EXPECT_EQ(static_cast<int>(ErrorCode::kTooLarge), 2);
  EXPECT_EQ(static_cast<int>(ErrorCode::kIncompatible), 3);
  EXPECT_EQ(static_cast<int>(ErrorCode::kBadMagic), 4);
  EXPECT_EQ(static_cast<int>(ErrorCode::kUnsupportedVersion), 5);
  EXPECT_EQ(static_cast<int>(ErrorCode::kUnknownKind), 6);
  EXPECT_EQ(static_cast<int>(ErrorCode::kUnknownHash), 7);
  EXPECT_EQ(static_cast<int>(ErrorCode::kTruncated), 8);
  EXPECT_EQ(static_cast<int>(ErrorCode::kChecksumMismatch), 9);
  EXPECT_EQ(static_cast<int>(ErrorCode::kParameterMismatch), 10);
  EXPECT_EQ(static_cast<int>(ErrorCode::kReservedNonZero), 11);
  EXPECT_EQ(static_cast<int>(ErrorCode::kWrongKind), 12);
  EXPECT_EQ(static_cast<int>(ErrorCode::kDecompressFailed), 13);
  EXPECT_EQ(static_cast<int>(ErrorCode::kIoError), 14);
  EXPECT_EQ(static_cast<int>(ErrorCode::kFull), 15);
  EXPECT_EQ(static_cast<int>(ErrorCode::kUnsupported), 16);
  EXPECT_EQ(static_cast<int>(ErrorCode::kLocked), 17);
}

TEST(ErrorCodeTest, EveryCodeHasItsOwnName) {
  std::set<std::string_view> names;
  for (int c = 0; c <= static_cast<int>(ErrorCode::kLocked); ++c) {
    const std::string_view name = ErrorCodeName(static_cast<ErrorCode>(c));
    EXPECT_NE(name, "unknown") << "code " << c;
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
  }
  EXPECT_EQ(ErrorCodeName(ErrorCode::kChecksumMismatch), "checksum_mismatch");
  EXPECT_EQ(ErrorCodeName(ErrorCode::kOk), "ok");
  EXPECT_EQ(ErrorCodeName(static_cast<ErrorCode>(999)), "unknown");
}

}  // namespace
}  // namespace bloomkit
