// SPDX-License-Identifier: Apache-2.0
// The unlinked temporary file a compressed WriteStreamed (format.h) writes before it
// copies the file to the stream: the header holds the compressed payload's size, which
// a stream cannot seek back to write.
//
// The file has no name from the start where the kernel and the file system support
// O_TMPFILE (Linux 3.11; ext4, xfs, btrfs, tmpfs). Where they refuse it (EOPNOTSUPP
// from a file system without a tmpfile operation, e.g. NFS; EISDIR from a kernel older
// than 3.11, which reads the flag as O_DIRECTORY; EINVAL), the file is created with
// mkostemp in the same directory and unlinked at once: it has a name only
// between those two calls, so a process killed in that window leaves one empty
// "bloomkit-stream.XXXXXX" in the directory. Either way nothing is left once the
// descriptor is closed.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

#include "bloomkit/byte_sink.h"
#include "bloomkit/format.h"
#include "bloomkit/result.h"
#include "internal/unique_fd.h"

namespace bloomkit::internal {

// Name prefix of the fallback's temporary file (six random letters follow).
inline constexpr char kStreamTempPrefix[] = "bloomkit-stream.";

struct TempFileOptions {
  // The directory; empty: std::filesystem::temp_directory_path() ($TMPDIR, else /tmp).
  std::filesystem::path dir;
  // Try O_TMPFILE first. false goes straight to the mkostemp fallback (for tests, which
  // run the fallback on file systems that support O_TMPFILE).
  bool try_o_tmpfile = true;
};

// Opens a temporary file for reading and writing that has no name in the file system
// (its descriptor is close-on-exec). Errors: kIoError naming the directory and errno's
// text for each way tried, e.g.
//   cannot create a temporary file in /proc: O_TMPFILE: Operation not supported;
//   mkostemp: No such file or directory
Result<UniqueFd> OpenUnlinkedTempFile(const TempFileOptions& options = {});

// WriteStreamed with its temporary file made as `temp` says.
Status WriteStreamed(std::ostream& out, const std::function<bool(ByteSink)>& serialize_to, const SaveOptions& options,
                     const TempFileOptions& temp);

}  // namespace bloomkit::internal
