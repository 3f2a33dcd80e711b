// SPDX-License-Identifier: Apache-2.0
// UserService against a real redis-server and a real SQLite file: what each mode
// sends where, the TTLs it sets, and that an insert is visible at once (the filter and
// the cache stay in sync). Plus the load generator's histogram and argument parsing.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

#include "load_generator.h"
#include "redis_connection.h"
#include "user_service.h"
#include "user_store.h"

extern char** environ;

namespace cache_guard {
namespace {

std::uint16_t FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// A private redis-server on a free loopback port, stopped by the destructor.
class RedisServer {
 public:
  explicit RedisServer(const std::string& module)
      : dir_(std::filesystem::temp_directory_path() / ("cache_guard_test_redis_" + std::to_string(getpid()))) {
    std::filesystem::create_directories(dir_);
    endpoint_.port = FreePort();
    std::vector<std::string> args = {CACHE_GUARD_REDIS_SERVER,
                                     "--bind",
                                     "127.0.0.1",
                                     "--port",
                                     std::to_string(endpoint_.port),
                                     "--save",
                                     "",
                                     "--appendonly",
                                     "no",
                                     "--dir",
                                     dir_.string(),
                                     "--logfile",
                                     (dir_ / "redis.log").string()};
    if (!module.empty()) args.insert(args.end(), {"--loadmodule", module});
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) pid_ = -1;
  }
  ~RedisServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  Result<RedisConnection> Connect() const {
    for (int attempt = 0; attempt < 100; ++attempt) {
      auto connection = RedisConnection::Connect(endpoint_);
      if (connection.ok()) return connection;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return RedisConnection::Connect(endpoint_);
  }

 private:
  std::filesystem::path dir_;
  RedisEndpoint endpoint_;
  pid_t pid_ = -1;
};

class UserServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("cache_guard_test_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".sqlite");
    std::filesystem::remove(path_);
    auto db = OpenSqliteDatabase(path_.string());
    ASSERT_TRUE(db.ok()) << db.error().message();
    database_ = std::move(db).value();
    auto prepared = database_->Prepare(kUsers, {});
    ASSERT_TRUE(prepared.ok()) << prepared.error().message();
    auto store = database_->Connect({.read_only = false});
    ASSERT_TRUE(store.ok()) << store.error().message();
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    database_.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix);
  }

  static long long Ttl(RedisConnection& redis, const std::string& key) {
    auto reply = redis.Command({"TTL", key});
    return reply.ok() ? reply.value()->integer : -100;
  }
  static bool Exists(RedisConnection& redis, const std::string& key) {
    auto reply = redis.Command({"EXISTS", key});
    return reply.ok() && reply.value()->integer == 1;
  }

  static constexpr std::uint64_t kUsers = 2000;
  std::filesystem::path path_;
  std::unique_ptr<UserDatabase> database_;
  std::unique_ptr<UserStore> store_;
};

TEST_F(UserServiceTest, NoneModeQueriesTheDatabaseForEveryMissingIdAndCachesRowsWithTtl) {
  RedisServer server("");
  auto redis = server.Connect();
  ASSERT_TRUE(redis.ok()) << redis.error().message();
  UserService service(GuardMode::kNone, redis.value(), *store_, {.cache_ttl_s = 300});

  for (int round = 0; round < 3; ++round) {
    auto missing = service.Get(kMissingIdBase + 7);
    ASSERT_TRUE(missing.ok()) << missing.error().message();
    EXPECT_FALSE(missing->user.has_value());
    EXPECT_TRUE(missing->db_queried) << "round " << round;
    EXPECT_FALSE(missing->cache_hit);
  }
  EXPECT_FALSE(Exists(redis.value(), "user:" + std::to_string(kMissingIdBase + 7)));

  auto first = service.Get(42);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->user, MakeUser(42));
  EXPECT_TRUE(first->db_queried);
  const long long ttl = Ttl(redis.value(), "user:42");
  EXPECT_GT(ttl, 290);
  EXPECT_LE(ttl, 300);
  auto second = service.Get(42);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->user, MakeUser(42));
  EXPECT_TRUE(second->cache_hit);
  EXPECT_FALSE(second->db_queried);
}

TEST_F(UserServiceTest, EmptyCacheModeCachesATombstoneThatAnInsertRemoves) {
  RedisServer server("");
  auto redis = server.Connect();
  ASSERT_TRUE(redis.ok()) << redis.error().message();
  UserService service(GuardMode::kEmptyCache, redis.value(), *store_, {.tombstone_ttl_s = 60});

  const std::uint64_t id = kUsers + 1;  // not in the database yet
  auto first = service.Get(id);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->user.has_value());
  EXPECT_TRUE(first->db_queried);
  const long long ttl = Ttl(redis.value(), "user:" + std::to_string(id));
  EXPECT_GT(ttl, 50);
  EXPECT_LE(ttl, 60);
  auto second = service.Get(id);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->user.has_value());
  EXPECT_TRUE(second->cache_hit);
  EXPECT_FALSE(second->db_queried) << "the tombstone must answer the repeat";

  ASSERT_TRUE(service.Insert(MakeUser(id)).ok());
  auto after = service.Get(id);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->user, MakeUser(id)) << "the insert must remove the tombstone";
}

TEST_F(UserServiceTest, BloomModeWithoutTheModuleFailsWithAClearError) {
  RedisServer server("");
  auto redis = server.Connect();
  ASSERT_TRUE(redis.ok()) << redis.error().message();
  auto loaded = LoadFilter(redis.value(), *store_, {});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code(), ErrorCode::kUnsupported);
  EXPECT_NE(loaded.error().message().find("--loadmodule"), std::string::npos) << loaded.error().message();
}

#ifdef CACHE_GUARD_MODULE
TEST_F(UserServiceTest, BloomModeStopsMissingIdsAtTheFilterAndSeesInsertsAtOnce) {
  RedisServer server(CACHE_GUARD_MODULE);
  auto redis = server.Connect();
  ASSERT_TRUE(redis.ok()) << redis.error().message();
  auto loaded =
      LoadFilter(redis.value(), *store_, {.fp_rate = 0.01, .batch = 64, .scan_batch = 300, .progress = nullptr});
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  EXPECT_EQ(loaded->ids_loaded, kUsers);
  auto info = ReadFilterInfo(redis.value(), "users:filter");
  ASSERT_TRUE(info.ok()) << info.error().message();
  EXPECT_GE(info->capacity, kUsers);
  EXPECT_GT(info->bytes, 0u);

  UserService service(GuardMode::kBloom, redis.value(), *store_);
  for (std::uint64_t id = 1; id <= kUsers; ++id) {  // no false negatives end to end
    auto lookup = service.Get(id);
    ASSERT_TRUE(lookup.ok()) << lookup.error().message();
    ASSERT_EQ(lookup->user, MakeUser(id)) << "id " << id;
  }
  std::uint64_t passed = 0;
  constexpr std::uint64_t kProbes = 5000;
  for (std::uint64_t i = 0; i < kProbes; ++i) {
    auto lookup = service.Get(kMissingIdBase + i);
    ASSERT_TRUE(lookup.ok());
    EXPECT_FALSE(lookup->user.has_value());
    EXPECT_EQ(lookup->db_queried, !lookup->filter_rejected) << "only ids that pass the filter reach the database";
    passed += lookup->filter_rejected ? 0u : 1u;
  }
  // Target 1%: 50 expected at most; 5 sigma above that is 85.
  EXPECT_LE(passed, 85u);

  const std::uint64_t id = kMissingIdBase - 1;  // far from both ranges: surely rejected before the insert
  ASSERT_TRUE(service.Insert(MakeUser(id)).ok());
  auto inserted = service.Get(id);
  ASSERT_TRUE(inserted.ok());
  EXPECT_EQ(inserted->user, MakeUser(id)) << "BF.ADD must come with the insert";
}
#endif

TEST(LatencyHistogramTest, QuantilesAreWithinTheBucketResolution) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> latency(std::log(50'000.0), 1.0);  // ~50 us median
  std::vector<std::uint64_t> values(100'000);
  LatencyHistogram histogram;
  for (auto& v : values) {
    v = static_cast<std::uint64_t>(latency(rng));
    histogram.Record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const double exact = static_cast<double>(values[static_cast<std::size_t>(q * 100'000) - 1]);
    EXPECT_NEAR(histogram.QuantileNanos(q), exact, exact / 64.0) << "q " << q;
  }
  EXPECT_EQ(histogram.count(), values.size());
  LatencyHistogram empty;
  EXPECT_EQ(empty.QuantileNanos(0.5), 0.0);
  histogram.Merge(histogram);
  EXPECT_EQ(histogram.count(), 2 * values.size());
}

TEST(ParseEndpointTest, AcceptsHostPortAndNamesTheBadPart) {
  auto ok = ParseEndpoint("127.0.0.1:6380");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->host, "127.0.0.1");
  EXPECT_EQ(ok->port, 6380);
  for (const char* bad : {"127.0.0.1", ":6379", "localhost:0", "localhost:65536", "localhost:12ab"}) {
    auto parsed = ParseEndpoint(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error().code(), ErrorCode::kInvalidArgument);
  }
  EXPECT_NE(ParseEndpoint("h:70000").error().message().find("1..65535"), std::string::npos);
}

TEST(UserCodecTest, RoundTripsAndRejectsForeignValues) {
  const User user = MakeUser(123);
  auto decoded = DecodeUser(123, EncodeUser(user));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded.value(), user);
  EXPECT_FALSE(DecodeUser(1, "no tab here").ok());
  EXPECT_FALSE(DecodeUser(1, "\tonly-email").ok());
}

}  // namespace
}  // namespace cache_guard
