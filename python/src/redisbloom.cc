// SPDX-License-Identifier: Apache-2.0
// RedisBloom's kinds (redisbloom.h) and their way in and out of Redis: DUMP payloads and
// SCANDUMP chunks.
#include "binding.h"

namespace bloomkit::python {
namespace {

// ---------------------------------------------------------------------------------------
// RedisBloom's kinds in and out of Redis: DUMP payloads and SCANDUMP chunks
// (redisbloom_codec.h), the bytes `bloomkit import redisbloom` and `export` move.

// The bytes of a filter's arrays, which its SCANDUMP data chunks cover end to end.
std::uint64_t ScanDumpDataBytes(const RedisBloomScalableFilter& f) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < f.num_stages(); ++i) total += f.link_data(i).size();
  return total;
}

std::uint64_t ScanDumpDataBytes(const RedisCuckooFilter& f) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < f.num_stages(); ++i) total += f.filter_data(i).size();
  return total;
}

// A filter from SCANDUMP chunks in order: each item an (iterator, bytes) pair as
// BF/CF.SCANDUMP answers (what *.LOADCHUNK takes), or the bytes alone. The first is the
// header chunk (iterator 1); each later chunk's iterator is 1 + the data bytes up to its
// end. SCANDUMP's chunks carry no checksum, so the chunks must be contiguous and cover
// every array: a missing chunk is an error, not a filter with a hole of zero bits.
template <typename F, typename FromHeader, typename LoadChunk>
F FromScanDump(const py::object& chunks, std::uint64_t max_memory, FromHeader from_header, LoadChunk load_chunk) {
  if (PyUnicode_Check(chunks.ptr()) || PyObject_CheckBuffer(chunks.ptr())) {
    throw py::type_error("chunks must be an iterable of SCANDUMP chunks (bytes or (iterator, bytes) pairs)");
  }
  std::optional<F> filter;
  std::int64_t expected = 1;
  std::size_t index = 0;
  const py::iterator chunk_iterator = py::iter(chunks);
  while (PyObject* next = NextItem(chunk_iterator.ptr())) {
    const py::object item = py::reinterpret_steal<py::object>(next);
    py::object data = py::reinterpret_borrow<py::object>(item);
    std::optional<std::int64_t> given;
    if (PyTuple_Check(item.ptr()) || PyList_Check(item.ptr())) {
      const auto pair = py::reinterpret_borrow<py::sequence>(item);
      if (pair.size() != 2) throw py::type_error("a SCANDUMP chunk pair is (iterator, bytes)");
      given = pair[0].cast<std::int64_t>();
      data = pair[1];
    }
    if (!PyObject_CheckBuffer(data.ptr())) {
      throw py::type_error(std::string("a SCANDUMP chunk is bytes or an (iterator, bytes) pair, not ") +
                           Py_TYPE(data.ptr())->tp_name);
    }
    const py::buffer_info info = py::reinterpret_borrow<py::buffer>(data).request();
    const std::span<const std::byte> bytes = BufferBytes(info);
    const std::string where = "chunk " + std::to_string(index);
    if (!filter) {
      if (given && *given != 1) {
        Throw(Error(ErrorCode::kInvalidArgument,
                    where + ": the first chunk is SCANDUMP's header chunk, iterator 1, got " + std::to_string(*given)));
      }
      Result<F> made = from_header(bytes, LoadOptions{.max_memory_bytes = max_memory});
      if (!made.ok()) Throw(Error(made.error().code(), where + " (header): " + made.error().message()));
      filter.emplace(std::move(made).value());
    } else {
      expected += static_cast<std::int64_t>(bytes.size());
      if (given && *given != expected) {
        Throw(Error(ErrorCode::kInvalidArgument, where + ": iterator " + std::to_string(*given) + ", expected " +
                                                     std::to_string(expected) +
                                                     " (1 + the data bytes up to its end): a chunk is missing or "
                                                     "out of order"));
      }
      Status loaded = load_chunk(*filter, expected, bytes);
      if (!loaded.ok()) Throw(Error(loaded.error().code(), where + ": " + loaded.error().message()));
    }
    ++index;
  }
  if (PyErr_Occurred() != nullptr) throw py::error_already_set();
  if (!filter) {
    Throw(Error(ErrorCode::kInvalidArgument,
                "no SCANDUMP chunks (an empty RedisBloom cuckoo filter has none: create an empty filter instead)"));
  }
  const std::uint64_t total = ScanDumpDataBytes(*filter);
  if (static_cast<std::uint64_t>(expected - 1) != total) {
    Throw(Error(ErrorCode::kTruncated, "the chunks hold " + std::to_string(expected - 1) + " of the filter's " +
                                           std::to_string(total) + " data bytes: a chunk is missing"));
  }
  if constexpr (std::is_same_v<F, RedisCuckooFilter>) {
    if (filter->CountOccupiedSlots() != filter->count()) {
      Throw(Error(ErrorCode::kParameterMismatch, "the chunks hold " + std::to_string(filter->CountOccupiedSlots()) +
                                                     " fingerprints, the header says " +
                                                     std::to_string(filter->count()) +
                                                     " (a chunk from another filter?)"));
    }
  }
  return std::move(*filter);
}

py::list ChunkList(const std::vector<RedisBloomOwnedChunk>& chunks) {
  py::list out;
  for (const RedisBloomOwnedChunk& chunk : chunks) out.append(py::make_tuple(chunk.iterator, ToPyBytes(chunk.bytes)));
  return out;
}

// dump(), from_dump(), scandump(), from_scandump() of one RedisBloom kind.
template <typename F, typename Encode, typename Decode, typename ScanDump, typename FromHeader, typename LoadChunk>
void BindRedisTransfer(py::class_<Box<F>>& cls, Encode encode, Decode decode, ScanDump scandump, FromHeader from_header,
                       LoadChunk load_chunk, const char* command) {
  using B = Box<F>;
  const std::string type = std::is_same_v<F, RedisCuckooFilter> ? "CF" : "BF";
  cls.def(
      "dump",
      [encode](const B& self, std::uint16_t rdb_version) {
        const std::vector<std::byte> payload = Unlocked(self, false, [&] { return encode(self.filter, rdb_version); });
        return ToPyBytes(payload);
      },
      py::kw_only(), py::arg("rdb_version") = kDefaultDumpRdbVersion,
      "The key's DUMP payload, as Redis' DUMP answers for this filter: RESTORE it into a Redis with\n"
      "RedisBloom (or bloomkit's module). rdb_version is the payload's RDB version (10 = Redis 7.0;\n"
      "RESTORE refuses a version above the server's own).");
  cls.def_static(
      "from_dump",
      [decode](const py::buffer& payload, std::uint64_t max_memory) {
        const py::buffer_info info = payload.request();
        const std::span<const std::byte> bytes = BufferBytes(info);
        Result<F> filter = [&] {
          GilRelease nogil;
          return decode(bytes, LoadOptions{.max_memory_bytes = max_memory});
        }();
        return MakeBox(Take(std::move(filter)));
      },
      py::arg("payload"), py::kw_only(), py::arg("max_memory") = kDefaultMaxMemory,
      ("A filter from a DUMP payload of a RedisBloom " + type +
       " key (what redis-py's r.dump(key) returns);\nthe payload's CRC-64 and every length are checked.")
          .c_str());
  cls.def(
      "scandump",
      [scandump](const B& self) {
        const std::vector<RedisBloomOwnedChunk> chunks = Unlocked(self, false, [&] { return scandump(self.filter); });
        return ChunkList(chunks);
      },
      ("Every " + type + ".SCANDUMP step in order, header chunk first, as (iterator, bytes) pairs: what\n" + command +
       " key iterator bytes takes, pair by pair, to rebuild the filter in Redis.")
          .c_str());
  cls.def_static(
      "from_scandump",
      [from_header, load_chunk](const py::object& chunks, std::uint64_t max_memory) {
        return MakeBox(FromScanDump<F>(chunks, max_memory, from_header, load_chunk));
      },
      py::arg("chunks"), py::kw_only(), py::arg("max_memory") = kDefaultMaxMemory,
      ("A filter from the " + type +
       ".SCANDUMP chunks of a RedisBloom key, in order: (iterator, bytes) pairs as SCANDUMP\n"
       "answers them (or the bytes alone), header chunk first. The chunks must be contiguous and\n"
       "complete (they carry no checksum).")
          .c_str());
}

}  // namespace

void BindRedisBloomKinds(py::module_& m) {
  auto redis_bloom = BindFilter<RedisBloomScalableFilter>(
      m, "RedisBloomFilter",
      "RedisBloom's scalable Bloom filter (the BF.* commands, Redis type MBbloom--), bit for bit: the\n"
      "same hashes, links and growth, so every answer equals RedisBloom's, false positives included.\n"
      "Files of kind redisbloom-bf; dump()/from_dump() and scandump()/from_scandump() move it to and\n"
      "from a Redis key.\n\n"
      "RedisBloomFilter(capacity=100, error_rate=0.01, *, expansion=2, non_scaling=False,\n"
      "max_memory=4 GiB): BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING];\n"
      "the defaults are BF.ADD's. len() is BF.CARD: adds that were new (BF.ADD's 1).");
  redis_bloom.def(
      py::init([](std::uint64_t capacity, double error_rate, std::uint32_t expansion, bool non_scaling,
                  std::uint64_t max_memory) {
        return MakeBox(Take(RedisBloomScalableFilter::Create(RedisBloomOptions{.capacity = capacity,
                                                                               .fp_rate = error_rate,
                                                                               .expansion = expansion,
                                                                               .non_scaling = non_scaling,
                                                                               .max_memory_bytes = max_memory})));
      }),
      py::arg("capacity") = 100, py::arg("error_rate") = 0.01, py::kw_only(), py::arg("expansion") = 2,
      py::arg("non_scaling") = false, py::arg("max_memory") = kDefaultMaxMemory);
  BindRedisTransfer(
      redis_bloom, [](const RedisBloomScalableFilter& f, std::uint16_t v) { return EncodeRedisBloomDump(f, v); },
      [](std::span<const std::byte> b, const LoadOptions& l) { return DecodeRedisBloomDump(b, l); },
      [](const RedisBloomScalableFilter& f) { return RedisBloomScanDump(f); },
      [](std::span<const std::byte> b, const LoadOptions& l) { return RedisBloomFromHeaderChunk(b, l); },
      [](RedisBloomScalableFilter& f, std::int64_t i, std::span<const std::byte> b) {
        return LoadRedisBloomChunk(f, i, b);
      },
      "BF.LOADCHUNK");

  auto redis_cuckoo = BindFilter<RedisCuckooFilter>(
      m, "RedisCuckooFilter",
      "RedisBloom's cuckoo filter (the CF.* commands, Redis type MBbloomCF), byte for byte: the same\n"
      "fingerprints, buckets, evictions, growth and compaction, so every answer equals RedisBloom's.\n"
      "Files of kind redisbloom-cf; dump()/from_dump() and scandump()/from_scandump() move it to and\n"
      "from a Redis key.\n\n"
      "RedisCuckooFilter(capacity=1024, *, bucket_size=2, max_iterations=20, expansion=1,\n"
      "max_memory=4 GiB): CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS i] [EXPANSION e];\n"
      "the defaults are CF.ADD's. add() is CF.ADD (one more copy), add_if_absent() CF.ADDNX,\n"
      "discard() CF.DEL, key_count() CF.COUNT; len() counts copies (CF.INFO's items inserted).");
  redis_cuckoo.def(
      py::init([](std::uint64_t capacity, std::uint32_t bucket_size, std::uint32_t max_iterations,
                  std::uint32_t expansion, std::uint64_t max_memory) {
        return MakeBox(Take(RedisCuckooFilter::Create(RedisCuckooOptions{.capacity = capacity,
                                                                         .bucket_size = bucket_size,
                                                                         .max_iterations = max_iterations,
                                                                         .expansion = expansion,
                                                                         .max_memory_bytes = max_memory})));
      }),
      py::arg("capacity") = 1024, py::kw_only(), py::arg("bucket_size") = 2, py::arg("max_iterations") = 20,
      py::arg("expansion") = 1, py::arg("max_memory") = kDefaultMaxMemory);
  redis_cuckoo.def(
      "compact", [](Box<RedisCuckooFilter>& self) { WithGil(self, true, [&] { self.filter.Compact(true); }); },
      "CF.COMPACT: moves fingerprints of newer sub-filters into free slots of older ones and drops\n"
      "sub-filters left empty (the same happens by itself once deletes pass 10% of the items).");
  BindRedisTransfer(
      redis_cuckoo, [](const RedisCuckooFilter& f, std::uint16_t v) { return EncodeRedisCuckooDump(f, v); },
      [](std::span<const std::byte> b, const LoadOptions& l) { return DecodeRedisCuckooDump(b, l); },
      [](const RedisCuckooFilter& f) { return RedisCuckooScanDump(f); },
      [](std::span<const std::byte> b, const LoadOptions& l) { return RedisCuckooFromHeaderChunk(b, l); },
      [](RedisCuckooFilter& f, std::int64_t i, std::span<const std::byte> b) { return LoadRedisCuckooChunk(f, i, b); },
      "CF.LOADCHUNK");
  m.def(
      "from_redis_dump",
      [](const py::buffer& payload, std::uint64_t max_memory) -> py::object {
        const py::buffer_info info = payload.request();
        const std::span<const std::byte> bytes = BufferBytes(info);
        const FilterKind kind = Take(RedisBloomDumpKind(bytes));
        const LoadOptions load{.max_memory_bytes = max_memory};
        if (kind == FilterKind::kRedisBloomCuckoo) {
          Result<RedisCuckooFilter> filter = [&] {
            GilRelease nogil;
            return DecodeRedisCuckooDump(bytes, load);
          }();
          return py::cast(MakeBox(Take(std::move(filter))));
        }
        Result<RedisBloomScalableFilter> filter = [&] {
          GilRelease nogil;
          return DecodeRedisBloomDump(bytes, load);
        }();
        return py::cast(MakeBox(Take(std::move(filter))));
      },
      py::arg("payload"), py::kw_only(), py::arg("max_memory") = kDefaultMaxMemory,
      "A RedisBloomFilter or RedisCuckooFilter from the DUMP payload of a RedisBloom BF or CF key,\n"
      "whichever the payload holds.");
}

}  // namespace bloomkit::python
