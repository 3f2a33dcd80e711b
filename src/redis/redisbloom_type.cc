// SPDX-License-Identifier: Apache-2.0
// The data type callbacks of RedisBloom's types (redisbloom_type.h).
#include "redisbloom_type.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dump.h"
#include "format.h"

namespace bloomkit::redis {
namespace {

bool IoFailed(RedisModuleIO* io) noexcept {
  return rm.IsIOError != nullptr && rm.IsIOError(io) != 0;
}

Error ReadError(const char* what) {
  return Error(ErrorCode::kTruncated, std::string("RDB read error at ") + what);
}

// RdbReader over RedisModuleIO: every read checks RedisModule_IsIOError (the module sets
// REDISMODULE_OPTIONS_HANDLE_IO_ERRORS, so a short or bad read comes back here instead
// of stopping Redis).
class ModuleIoReader final : public RdbReader {
 public:
  explicit ModuleIoReader(RedisModuleIO* io) noexcept : io_(io) {}
  ~ModuleIoReader() override { Release(); }
  ModuleIoReader(const ModuleIoReader&) = delete;
  ModuleIoReader& operator=(const ModuleIoReader&) = delete;
  ModuleIoReader(ModuleIoReader&&) = delete;
  ModuleIoReader& operator=(ModuleIoReader&&) = delete;

  Result<std::uint64_t> LoadUnsigned() override {
    const std::uint64_t v = rm.LoadUnsigned(io_);
    if (IoFailed(io_)) return ReadError("an unsigned integer");
    return v;
  }
  Result<std::int64_t> LoadSigned() override {
    const std::int64_t v = rm.LoadSigned(io_);
    if (IoFailed(io_)) return ReadError("a signed integer");
    return v;
  }
  Result<double> LoadDouble() override {
    const double v = rm.LoadDouble(io_);
    if (IoFailed(io_)) return ReadError("a double");
    return v;
  }
  Result<float> LoadFloat() override {
    const float v = rm.LoadFloat(io_);
    if (IoFailed(io_)) return ReadError("a float");
    return v;
  }
  Result<std::span<const std::byte>> LoadStringBuffer() override {
    Release();
    last_ = rm.LoadStringBuffer(io_, &last_size_);
    if (IoFailed(io_) || last_ == nullptr) return ReadError("a string");
    return std::span<const std::byte>(reinterpret_cast<const std::byte*>(last_), last_size_);
  }

 private:
  void Release() noexcept {
    if (last_ != nullptr) rm.Free(last_);
    last_ = nullptr;
    last_size_ = 0;
  }

  RedisModuleIO* io_;
  char* last_ = nullptr;
  std::size_t last_size_ = 0;
};

class ModuleIoWriter final : public RdbWriter {
 public:
  explicit ModuleIoWriter(RedisModuleIO* io) noexcept : io_(io) {}
  void SaveUnsigned(std::uint64_t value) override { rm.SaveUnsigned(io_, value); }
  void SaveSigned(std::int64_t value) override { rm.SaveSigned(io_, value); }
  void SaveDouble(double value) override { rm.SaveDouble(io_, value); }
  void SaveFloat(float value) override { rm.SaveFloat(io_, value); }
  void SaveStringBuffer(std::span<const std::byte> bytes) override {
    rm.SaveStringBuffer(io_, reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }

 private:
  RedisModuleIO* io_;
};

Result<RedisBloomScalableFilter> LoadFilter(RbBloomType /*tag*/, RdbReader& in, int encver) {
  return LoadRedisBloomRdb(in, encver, RbLoadOptions());
}
Result<RedisCuckooFilter> LoadFilter(RbCuckooType /*tag*/, RdbReader& in, int encver) {
  return LoadRedisCuckooRdb(in, encver, RbLoadOptions());
}
void SaveFilter(RdbWriter& out, const RedisBloomScalableFilter& f) {
  SaveRedisBloomRdb(out, f);
}
void SaveFilter(RdbWriter& out, const RedisCuckooFilter& f) {
  SaveRedisCuckooRdb(out, f);
}
std::vector<std::byte> HeaderChunk(const RedisBloomScalableFilter& f) {
  return EncodeRedisBloomHeaderChunk(f);
}
std::vector<std::byte> HeaderChunk(const RedisCuckooFilter& f) {
  return EncodeRedisCuckooHeaderChunk(f);
}
RedisBloomChunk NextChunk(const RedisBloomScalableFilter& f, std::int64_t iterator, std::size_t max_bytes) noexcept {
  return NextRedisBloomChunk(f, iterator, max_bytes);
}
RedisBloomChunk NextChunk(const RedisCuckooFilter& f, std::int64_t iterator, std::size_t max_bytes) noexcept {
  return NextRedisCuckooChunk(f, iterator, max_bytes);
}

template <typename Type>
void* RdbLoad(RedisModuleIO* io, int encver) noexcept {
  try {
    ModuleIoReader reader(io);
    auto filter = LoadFilter(Type{}, reader, encver);
    if (!filter.ok()) {
      rm.LogIOError(io, "warning", "bloomkit: rejected a %s value (encoding version %d): %s", Type::kTypeName, encver,
                    filter.error().message().c_str());
      return nullptr;
    }
    return RbNew(std::move(filter).value());
  } catch (...) {
    rm.LogIOError(io, "warning", "bloomkit: out of memory loading a %s value", Type::kTypeName);
    return nullptr;
  }
}

template <typename Type>
void RdbSave(RedisModuleIO* io, void* opaque) noexcept {
  const auto& filter = *static_cast<const typename Type::Filter*>(opaque);
  ModuleIoWriter writer(io);
  try {
    SaveFilter(writer, filter);
  } catch (...) {
    // The encoders write field by field from the filter; nothing they call allocates
    // more than a few bytes. Should that fail, the RDB error makes the save fail.
    rm.LogIOError(io, "warning", "bloomkit: out of memory saving a %s value", Type::kTypeName);
  }
}

// Redis copies each argument of an emitted command into a string of its own (in the
// rewriting child), so AOF chunks are 1 MiB instead of SCANDUMP's 16 MiB: a rewrite needs
// 1 MiB beside the filter. RedisBloom's LOADCHUNK takes a chunk of any size that stays
// inside one link or sub-filter, so its servers replay these too.
constexpr std::size_t kAofChunkBytes = std::size_t{1} << 20;

// AOF rewrite as RedisBloom does it: LOADCHUNK of the header at iterator 1, then of every
// chunk with the iterator that follows it.

template <typename Type>
void AofRewrite(RedisModuleIO* aof, RedisModuleString* key, void* opaque) noexcept {
  const auto& filter = *static_cast<const typename Type::Filter*>(opaque);
  try {
    const std::vector<std::byte> header = HeaderChunk(filter);
    rm.EmitAOF(aof, Type::kLoadChunk, "slb", key, 1LL, reinterpret_cast<const char*>(header.data()), header.size());
    std::int64_t iterator = 1;
    while (true) {
      const RedisBloomChunk chunk = NextChunk(filter, iterator, kAofChunkBytes);
      if (chunk.next_iterator == 0) break;
      rm.EmitAOF(aof, Type::kLoadChunk, "slb", key, static_cast<long long>(chunk.next_iterator),
                 reinterpret_cast<const char*>(chunk.bytes.data()), chunk.bytes.size());
      iterator = chunk.next_iterator;
    }
  } catch (...) {
    rm.LogIOError(aof, "warning", "bloomkit: out of memory rewriting a %s value", Type::kTypeName);
  }
}

template <typename Type>
std::size_t MemUsage(const void* opaque) noexcept {
  const auto& filter = *static_cast<const typename Type::Filter*>(opaque);
  return static_cast<std::size_t>(BlockBytes(&filter, sizeof(filter)) + filter.bytes_held());
}

template <typename Type>
void Free(void* opaque) noexcept {
  RbDelete(static_cast<typename Type::Filter*>(opaque));
}

// DEBUG DIGEST-VALUE: the filter's bloomkit serialization, streamed from its own memory
// in 64 KiB blocks as native filters are (a DUMP payload built for it was a copy of the
// whole filter outside Redis' accounting). The value only has to be the same for equal
// filters, on every server running this module.
template <typename Type>
void Digest(RedisModuleDigest* digest, void* opaque) noexcept {
  const auto& filter = *static_cast<const typename Type::Filter*>(opaque);
  auto add = [digest](std::uint64_t /*offset*/, std::span<const std::byte> bytes) noexcept {
    rm.DigestAddStringBuffer(digest, reinterpret_cast<const char*>(bytes.data()), bytes.size());
  };
  StreamBlocks(filter, add);
  rm.DigestEndSequence(digest);
}

template <typename Type>
void* Copy(RedisModuleString* /*from*/, RedisModuleString* /*to*/, const void* opaque) noexcept {
  using Filter = typename Type::Filter;
  try {
    return RbNew(*static_cast<const Filter*>(opaque));
  } catch (...) {
    return nullptr;  // COPY then fails with an error reply
  }
}

template <typename Type>
bool Create(RedisModuleCtx* ctx) {
  RedisModuleTypeMethods methods{};
  methods.version = kTypeMethodVersion;
  methods.rdb_load = &RdbLoad<Type>;
  methods.rdb_save = &RdbSave<Type>;
  methods.aof_rewrite = &AofRewrite<Type>;
  methods.mem_usage = &MemUsage<Type>;
  methods.digest = &Digest<Type>;
  methods.free = &Free<Type>;
  methods.copy = &Copy<Type>;
  Type::type = rm.CreateDataType(ctx, Type::kTypeName, Type::kEncodingVersion, &methods);
  if (Type::type == nullptr) {
    rm.Log(ctx, "warning", "bloomkit: could not create data type %s", Type::kTypeName);
    return false;
  }
  return true;
}

}  // namespace

LoadOptions RbLoadOptions() noexcept {
  LoadOptions options;
  options.max_memory_bytes = RedisBloomFilterLimit(Config());
  return options;
}

bool CreateRedisBloomTypes(RedisModuleCtx* ctx) {
  return Create<RbBloomType>(ctx) && Create<RbCuckooType>(ctx);
}

std::string Printable(std::string_view text) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f && c != '\'') ? static_cast<char>(c) : '?';
  }
  if (text.size() > 40) out += "...";
  return out + "'";
}

Error RbError(const Command& cmd, std::string_view text, std::string_view detail) {
  const std::string_view name = cmd.argc() > 0 ? cmd.arg(0) : std::string_view();
  rm.Log(cmd.ctx(), "verbose", "bloomkit: %s: %.*s: %.*s", Printable(name).c_str(), static_cast<int>(text.size()),
         text.data(), static_cast<int>(detail.size()), detail.data());
  return ReplyError(text);
}

Error CreateError(const Command& cmd, const Error& error, std::string_view cannot_create) {
  if (!AllocationRefusal().empty()) return ReplyError(AllocationRefusal());
  if (error.code() == ErrorCode::kTooLarge && Config().max_filter_bytes_given) return CoreError(error);
  if (error.code() == ErrorCode::kInvalidArgument) return RbError(cmd, cannot_create, error.message());
  return RbError(cmd, reply::kCannotAllocateFilter, error.message());
}

double CappedErrorRate(const Command& cmd, double rate) {
  if (rate <= kRedisBloomErrorRateCap) return rate;
  rm.Log(cmd.ctx(), "verbose", "bloomkit: error rate %g is capped at %g", rate, kRedisBloomErrorRateCap);
  return kRedisBloomErrorRateCap;
}

Status RbKeyError(Held held) {
  switch (held) {
    case Held::kEmpty: return ReplyError(reply::kNotFound);
    case Held::kRedisBloom: return ReplyError(reply::kItemExists);
    default: return ReplyError(reply::kWrongType);
  }
}

bool LoadsAsNative(const Command& cmd, Held held, bool (*is_redisbloom_header)(std::span<const std::byte>)) {
  if (held != Held::kEmpty) return held == Held::kNative;
  // A bloomkit dump starts with the file magic (dump.h); RedisBloom's header chunks
  // start with an item count.
  constexpr std::string_view kMagic(
      "\x89"
      "BLK\r\n\x1a\n",
      8);
  const std::string_view data = cmd.arg(3);
  if (data.substr(0, kMagic.size()) == kMagic) return true;
  if (Config().format == FilterFormat::kNative) return cmd.arg(2) != "1" || !is_redisbloom_header(AsBytes(data));
  return false;
}

}  // namespace bloomkit::redis
