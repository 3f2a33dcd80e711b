// SPDX-License-Identifier: Apache-2.0
// The command table of bloomkit.so (commands.cc) and the handlers it names, one per
// command. Every command is one row: name, handler, arity, flags, ACL categories, key
// spec and tips. Redis enters every row through RunCommand, which checks the arity,
// opens the key (argv[1]) once in the row's mode, runs the handler, catches every
// exception and turns a returned Error into an error reply. BF.* (bf.cc) and CF.*
// (cf.cc) run on either filter format, as the key's type says (format.h); CBF.* (cbf.cc)
// is bloomkit's own family.
#pragma once

#include "args.h"
#include "command.h"

namespace bloomkit::redis {

// How a command uses its key: read it, write an existing or new one, or create it
// (the key specs: ACCESS, ACCESS|UPDATE, INSERT). BF.MERGE writes its first key and
// reads the others.
enum class Access { kReadOnly, kUpdate, kCreate, kMerge };

// Argument counts (the command's name included): [min, max] (max 0: no bound), and
// for some commands an odd or even count (options given as NAME value pairs).
struct Arity {
  std::size_t min = 0;
  std::size_t max = 0;
  enum Parity : char { kAny, kOdd, kEven } parity = kAny;

  [[nodiscard]] constexpr bool Allows(std::size_t argc) const noexcept {
    if (argc < min || (max != 0 && argc > max)) return false;
    if (parity == kOdd) return argc % 2 == 1;
    if (parity == kEven) return argc % 2 == 0;
    return true;
  }
};

// The ACL category of bloomkit's own family a command joins where the server can add
// categories (Redis >= 7.4): @bloom or @cuckoo.
enum class Family : char { kBloom, kCuckoo };

// One row of the command table. Fields in the order a row reads; the table is static, so
// the 8 bytes of padding per row are not worth a less readable table.
// NOLINTNEXTLINE(clang-analyzer-optin.performance.Padding)
struct CommandSpec {
  const char* name;
  Handler handler;
  Arity arity;
  // "write" / "readonly" for replication and replicas, "deny-oom" on anything that may
  // allocate, "fast" on O(1)-in-the-key commands (RedisBloom marks the same).
  const char* flags;
  Access access;
  // ACL categories on Redis >= 7.2 (SetCommandACLCategories), RedisBloom 8's for its
  // commands; "bloom" or "cuckoo" (`family`) is appended when the server can add them.
  const char* acl;
  Family family = Family::kBloom;
  // Command tips (COMMAND INFO / COMMAND DOCS, Redis >= 7.0): RedisBloom (v8.9.80) marks
  // the reads whose replies describe the filter rather than answer about items
  // "dont_cache", so that client-side caches do not keep them.
  const char* tips = nullptr;
};

// Registers every command of the table with its flags, key specs, tips and ACL
// categories. Returns false (after a log line) if Redis refuses one.
bool RegisterCommands(RedisModuleCtx* ctx);

// The options BF.ADD / BF.MADD / BF.INSERT create a missing key with: the module's
// ERROR_RATE, INITIAL_SIZE and EXPANSION (both filter formats).
BfCreateArgs BfDefaultCreateArgs();

Status BfReserve(Command& cmd);
Status BfAdd(Command& cmd);
Status BfMadd(Command& cmd);
Status BfInsert(Command& cmd);
Status BfExists(Command& cmd);
Status BfMexists(Command& cmd);
Status BfInfo(Command& cmd);
Status BfCard(Command& cmd);
Status BfDebug(Command& cmd);
Status BfScanDump(Command& cmd);
Status BfLoadChunk(Command& cmd);
Status BfMerge(Command& cmd);

Status CfReserve(Command& cmd);
Status CfAdd(Command& cmd);
Status CfAddNx(Command& cmd);
Status CfInsert(Command& cmd);
Status CfInsertNx(Command& cmd);
Status CfExists(Command& cmd);
Status CfMexists(Command& cmd);
Status CfDel(Command& cmd);
Status CfCount(Command& cmd);
Status CfCompact(Command& cmd);
Status CfInfo(Command& cmd);
Status CfDebug(Command& cmd);
Status CfScanDump(Command& cmd);
Status CfLoadChunk(Command& cmd);

Status CbfReserve(Command& cmd);
Status CbfAdd(Command& cmd);
Status CbfDel(Command& cmd);
Status CbfExists(Command& cmd);
Status CbfCount(Command& cmd);
Status CbfInfo(Command& cmd);
Status CbfScanDump(Command& cmd);
Status CbfLoadChunk(Command& cmd);

}  // namespace bloomkit::redis
