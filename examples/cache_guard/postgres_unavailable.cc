// SPDX-License-Identifier: Apache-2.0
// OpenPostgresDatabase when bloomkit was configured without libpq.
#include "user_store.h"
#include "util.h"

namespace cache_guard {

Result<std::unique_ptr<UserDatabase>> OpenPostgresDatabase(std::string url) {
  return MakeError(ErrorCode::kUnsupported,
                   "postgres: this build has no libpq (install libpq-dev and reconfigure); "
                   "cannot use ",
                   url.empty() ? "an empty URL" : "the given URL");
}

}  // namespace cache_guard
