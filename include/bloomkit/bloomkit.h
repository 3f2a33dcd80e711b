// SPDX-License-Identifier: Apache-2.0
// bloomkit: Bloom, blocked, counting, scalable and cuckoo filters in one header.
#pragma once

#include "bloomkit/allocator.h"                // IWYU pragma: export
#include "bloomkit/blocked_bloom_filter.h"     // IWYU pragma: export
#include "bloomkit/bloom_filter.h"             // IWYU pragma: export
#include "bloomkit/concurrent_bloom_filter.h"  // IWYU pragma: export
#include "bloomkit/counting_bloom_filter.h"    // IWYU pragma: export
#include "bloomkit/cuckoo_filter.h"            // IWYU pragma: export
#include "bloomkit/file_io.h"                  // IWYU pragma: export
#include "bloomkit/filter.h"                   // IWYU pragma: export
#include "bloomkit/foreign_bloom.h"            // IWYU pragma: export
#include "bloomkit/format.h"                   // IWYU pragma: export
#include "bloomkit/hash.h"                     // IWYU pragma: export
#include "bloomkit/mapped_filter.h"            // IWYU pragma: export
#include "bloomkit/options.h"                  // IWYU pragma: export
#include "bloomkit/redisbloom.h"               // IWYU pragma: export
#include "bloomkit/redisbloom_codec.h"         // IWYU pragma: export
#include "bloomkit/result.h"                   // IWYU pragma: export
#include "bloomkit/scalable_bloom_filter.h"    // IWYU pragma: export
#include "bloomkit/sizing.h"                   // IWYU pragma: export
#include "bloomkit/synchronized.h"             // IWYU pragma: export
#include "bloomkit/windowed_bloom_filter.h"    // IWYU pragma: export
