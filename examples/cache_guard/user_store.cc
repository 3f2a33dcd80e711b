// SPDX-License-Identifier: Apache-2.0
#include "user_store.h"

#include "util.h"

namespace cache_guard {

User MakeUser(std::uint64_t id) {
  return User{id, Message("user-", id), Message("user", id, "@example.com")};
}

std::string EncodeUser(const User& user) {
  return user.name + '\t' + user.email;
}

Result<User> DecodeUser(std::uint64_t id, std::string_view value) {
  const auto tab = value.find('\t');
  if (tab == std::string_view::npos || tab == 0) {
    return MakeError(ErrorCode::kParameterMismatch, "cached value of user ", id, " is not name<TAB>email: \"", value,
                     "\"");
  }
  return User{id, std::string(value.substr(0, tab)), std::string(value.substr(tab + 1))};
}

}  // namespace cache_guard
