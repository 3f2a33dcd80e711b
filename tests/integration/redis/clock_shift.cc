// SPDX-License-Identifier: Apache-2.0
// A wall clock that a test can move: preloaded into redis-server (LD_PRELOAD), it adds
// to every CLOCK_REALTIME reading (clock_gettime, gettimeofday, time) the signed number
// of microseconds stored in the first 8 bytes of the file BLOOMKIT_CLOCK_SHIFT_FILE names.
// The file is mapped shared, so a test that rewrites it moves the server's clock at once:
// a jump back, a jump forward, or a server that was stopped for hours.
//
// Readings come from the system calls, never from the C library's versions, so that the
// library needs no symbol lookup while the allocator is starting (which may read the
// clock). CLOCK_MONOTONIC is left alone, as a real clock jump leaves it.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <ctime>

namespace {

const volatile std::int64_t* MapShift() {
  const char* path = std::getenv("BLOOMKIT_CLOCK_SHIFT_FILE");
  if (path == nullptr) return nullptr;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  void* p = mmap(nullptr, sizeof(std::int64_t), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  return p == MAP_FAILED ? nullptr : static_cast<const volatile std::int64_t*>(p);
}

std::int64_t ShiftMicros() {
  static const volatile std::int64_t* const shift = MapShift();
  return shift == nullptr ? 0 : *shift;
}

void Shift(std::int64_t& seconds, std::int64_t& fraction, std::int64_t per_second, std::int64_t per_micro) {
  const std::int64_t total = seconds * per_second + fraction + ShiftMicros() * per_micro;
  seconds = total / per_second;
  fraction = total % per_second;
  if (fraction < 0) {
    fraction += per_second;
    seconds -= 1;
  }
}

}  // namespace

extern "C" {

int clock_gettime(clockid_t clock, struct timespec* ts) {
  const long rc = syscall(SYS_clock_gettime, clock, ts);
  if (rc == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) {
    std::int64_t s = ts->tv_sec;
    std::int64_t ns = ts->tv_nsec;
    Shift(s, ns, 1'000'000'000, 1'000);
    ts->tv_sec = static_cast<time_t>(s);
    ts->tv_nsec = static_cast<long>(ns);
  }
  return static_cast<int>(rc);
}

int gettimeofday(struct timeval* tv, void* tz) {
  const long rc = syscall(SYS_gettimeofday, tv, tz);
  if (rc == 0) {  // tv is never null (glibc declares it nonnull)
    std::int64_t s = tv->tv_sec;
    std::int64_t us = tv->tv_usec;
    Shift(s, us, 1'000'000, 1);
    tv->tv_sec = static_cast<time_t>(s);
    tv->tv_usec = static_cast<suseconds_t>(us);
  }
  return static_cast<int>(rc);
}

time_t time(time_t* out) {
  struct timespec ts {};
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out != nullptr) *out = ts.tv_sec;
  return ts.tv_sec;
}

}  // extern "C"
