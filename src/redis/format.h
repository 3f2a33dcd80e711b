// SPDX-License-Identifier: Apache-2.0
// What BF.* and CF.* handlers share: the key as a format sees it, and the three ways a
// command looks for its filter. A format (bf.cc: NativeBloom, RedisBloomBloom; cf.cc:
// NativeCuckoo, RedisBloomCuckoo) is a struct of static members:
//
//   Filter             the filter type its keys hold
//   type()             the Redis data type of its keys
//   kHeld              Held::kNative or Held::kRedisBloom
//   kForeignIsEmpty    whether EXISTS-like commands read a key of another type as empty
//                      (RedisBloom's rule) rather than answer WRONGTYPE (bloomkit's)
//   Loading(key)       whether the key's value is a dump still being loaded (native only)
//   Get(key)           the filter of a key of this format
//   Create(cmd, key, args), ParseReserve, ParseInsert, ...: the format's own rules
//
// A command's handler is one function template over the format; the family's Route
// picks the format from the key's type (redisbloom_type.h: KeyHolds, UsesRedisBloom).
#pragma once

#include <cstddef>
#include <span>
#include <utility>

#include "command.h"
#include "redisbloom_type.h"

namespace bloomkit::redis {

template <typename F>
struct Key {
  using Format = F;
  const OpenKey& open;
  Held held;

  [[nodiscard]] bool mine() const noexcept { return held == F::kHeld; }
  [[nodiscard]] typename F::Filter& filter() const noexcept { return F::Get(open); }
};

// The filter a command needs (INFO, DEBUG, SCANDUMP, CF.DEL): the error reply when the
// key holds none (`not_found`, or WRONGTYPE for a key of another type unless
// `foreign_is_empty`), or one still loading.
template <typename F>
Result<typename F::Filter*> Need(const Key<F>& key, std::string_view not_found = reply::kNotFound,
                                 bool foreign_is_empty = false) {
  if (key.held == Held::kEmpty || (!key.mine() && foreign_is_empty)) return ReplyError(not_found);
  if (!key.mine()) return ReplyError(reply::kWrongType);
  if (F::Loading(key.open)) return ReplyError(reply::kFilterLoading);
  return &key.filter();
}

// The filter a command may read, nullptr for a key without one. A key of another type
// is WRONGTYPE unless `foreign_is_empty`.
template <typename F>
Result<typename F::Filter*> Maybe(const Key<F>& key, bool foreign_is_empty) {
  if (key.held == Held::kEmpty || (!key.mine() && foreign_is_empty)) return nullptr;
  if (!key.mine()) return ReplyError(reply::kWrongType);
  if (F::Loading(key.open)) return ReplyError(reply::kFilterLoading);
  return &key.filter();
}

// The filter a command adds to, created from `create` if the key is empty and
// `autocreate` (`*created` is then set).
template <typename F, typename CreateArgs>
Result<typename F::Filter*> ForAdd(const Command& cmd, const Key<F>& key, const CreateArgs& create, bool autocreate,
                                   bool* created) {
  if (key.held != Held::kEmpty && !key.mine()) return ReplyError(reply::kWrongType);
  if (key.held == Held::kEmpty) {
    if (!autocreate) return ReplyError(reply::kNotFound);
    *created = true;
    return F::Create(cmd, key.open, create);
  }
  if (F::Loading(key.open)) return ReplyError(reply::kFilterLoading);
  return &key.filter();
}

// *.RESERVE: the key must be empty.
template <typename F>
Status RequireEmpty(const Key<F>& key) {
  if (key.held == Held::kEmpty) return {};
  return ReplyError(key.mine() ? reply::kItemExists : reply::kWrongType);
}

// BF.RESERVE / CF.RESERVE in either format: the policy parses its arguments and creates
// the filter on the empty key.
template <typename F>
Status Reserve(Command& cmd, const Key<F>& key) {
  auto args = F::ParseReserve(cmd);
  if (!args.ok()) return std::move(args).error();
  if (auto empty = RequireEmpty(key); !empty.ok()) return empty;
  auto created = F::Create(cmd, key.open, args.value());
  if (!created.ok()) return std::move(created).error();
  cmd.Replicate();
  cmd.Ok();
  return {};
}

// Runs `native` or `redisbloom` on the command's key, as its type (or, for a new key or
// one of another type, the FORMAT module argument) says.
template <typename Native, typename RedisBloom>
Status Route(Command& cmd, Status (*native)(Command&, const Key<Native>&),
             Status (*redisbloom)(Command&, const Key<RedisBloom>&)) {
  const Held held = KeyHolds(cmd.key(), RedisBloom::type(), Native::type());
  if (UsesRedisBloom(held)) return redisbloom(cmd, {cmd.key(), held});
  return native(cmd, {cmd.key(), held});
}

// LOADCHUNK: whether the native format loads the chunk. A key being created from its
// header chunk takes the chunk's format: bloomkit's dump magic is native; under FORMAT
// native a chunk that is not a RedisBloom header (`is_redisbloom_header`) gets
// bloomkit's error, under the default RedisBloom's. An existing key keeps its format
// (a key of another type gets RedisBloom's reply).
bool LoadsAsNative(const Command& cmd, Held held, bool (*is_redisbloom_header)(std::span<const std::byte>));

template <typename Native, typename RedisBloom>
Status RouteLoadChunk(Command& cmd) {
  const Held held = KeyHolds(cmd.key(), RedisBloom::type(), Native::type());
  if (LoadsAsNative(cmd, held, RedisBloom::IsHeaderChunk)) return Native::LoadChunk(cmd, {cmd.key(), held});
  return RedisBloom::LoadChunk(cmd, {cmd.key(), held});
}

}  // namespace bloomkit::redis
