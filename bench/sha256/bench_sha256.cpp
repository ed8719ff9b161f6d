// bench_sha256: faultline's SHA-256 (OpenSSL libcrypto EVP) against the hand-written one it
// replaced (handwritten.cpp), A/B in one run, interleaved rounds, medians.
//
//   bench_sha256 [--rounds N] [--mib M] [--messages K] [--no-sha-ni]
//
// (a) stream: an M MiB buffer (default 256) hashed in 1 MiB update() calls;
// (b) small:  K messages of 120 bytes (default 1,000,000), each hashed one-shot (a fresh object,
//     update, digest), the shape of the rule and cache keys.
// Prints CPU ns/byte of each (thread CPU time), per round and the median.
//
// --no-sha-ni runs the code paths a CPU without SHA extensions takes (the closest this x86
// machine gets to an ARMv8 core without the crypto extensions): the hand-written one is forced
// to its portable C, and OpenSSL is told through OPENSSL_ia32cap=:~0x20000000 (bit 64+29, the
// SHA extension bit of CPUID.7.EBX). libcrypto reads that variable when it is loaded, so the
// program sets it and re-executes itself.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "faultline/core/sha256.hpp"
#include "handwritten.hpp"

namespace {

constexpr size_t kMiB = 1 << 20;
constexpr size_t kMsg = 120;
volatile uint8_t g_sink = 0;  // keeps the digests live

struct Rng {  // xorshift64*: deterministic input
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ULL;
  }
};

// CPU time of this thread, not wall time: on the shared 2-vCPU machines other jobs take the CPU
// away for seconds at a time (PERFORMANCE.md), which wall time would count against whichever
// side was running then.
double now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

template <class H>
double stream(const std::vector<uint8_t>& buf, uint8_t* sink) {
  const double t0 = now_ns();
  H h;
  for (size_t off = 0; off < buf.size(); off += kMiB)
    h.update(buf.data() + off, std::min(kMiB, buf.size() - off));
  const auto d = h.digest();
  const double t1 = now_ns();
  *sink ^= d[0];
  return (t1 - t0) / static_cast<double>(buf.size());
}

template <class H>
double small(const std::vector<uint8_t>& msgs, uint8_t* sink) {
  const size_t n = msgs.size() / kMsg;
  const double t0 = now_ns();
  uint8_t x = 0;
  for (size_t i = 0; i < n; ++i) {
    H h;
    h.update(msgs.data() + i * kMsg, kMsg);
    x ^= h.digest()[31];
  }
  const double t1 = now_ns();
  *sink ^= x;
  return (t1 - t0) / static_cast<double>(n * kMsg);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5;
  size_t mib = 256, messages = 1'000'000;
  bool no_sha_ni = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--mib" && i + 1 < argc) {
      mib = static_cast<size_t>(std::max(1, std::atoi(argv[++i])));
    } else if (a == "--messages" && i + 1 < argc) {
      messages = static_cast<size_t>(std::max(1, std::atoi(argv[++i])));
    } else if (a == "--no-sha-ni") {
      no_sha_ni = true;
    } else {
      std::fprintf(stderr,
                   "usage: bench_sha256 [--rounds N] [--mib M] [--messages K] [--no-sha-ni]\n");
      return 2;
    }
  }
  if (no_sha_ni) {
    const char* cap = std::getenv("OPENSSL_ia32cap");
    if (cap == nullptr || std::strcmp(cap, ":~0x20000000") != 0) {
      setenv("OPENSSL_ia32cap", ":~0x20000000", 1);
      execv("/proc/self/exe", argv);
      std::perror("bench_sha256: re-exec");
      return 1;
    }
    bench::hand_portable_only = true;
  }

  Rng rng{0x9e3779b97f4a7c15ULL};
  std::vector<uint8_t> buf(mib * kMiB), msgs(messages * kMsg);
  for (auto& b : buf) b = static_cast<uint8_t>(rng.next() >> 56);
  for (auto& b : msgs) b = static_cast<uint8_t>(rng.next() >> 56);

  // same digests first, or the numbers mean nothing
  {
    bench::HandSha256 a;
    faultline::Sha256 b;
    a.update(buf.data(), buf.size());
    b.update(buf.data(), buf.size());
    if (a.hex() != b.hex()) {
      std::fprintf(stderr, "bench_sha256: digests differ\n");
      return 1;
    }
  }

  const char* cap = std::getenv("OPENSSL_ia32cap");
  std::printf("bench_sha256: %zu MiB stream in 1 MiB updates, %zu x %zu-byte messages, %d rounds\n",
              mib, messages, kMsg, rounds);
  std::printf("hand-written path: %s; OPENSSL_ia32cap=%s\n",
              bench::hand_sha_ni() ? "SHA-NI" : "portable C", cap ? cap : "(unset)");
  uint8_t sink = 0;
  std::vector<double> hs, os, hm, om;
  for (int r = 0; r < rounds; ++r) {
    // alternate which goes first, so that neither always runs on a warmer machine
    if (r % 2 == 0) {
      hs.push_back(stream<bench::HandSha256>(buf, &sink));
      os.push_back(stream<faultline::Sha256>(buf, &sink));
      hm.push_back(small<bench::HandSha256>(msgs, &sink));
      om.push_back(small<faultline::Sha256>(msgs, &sink));
    } else {
      os.push_back(stream<faultline::Sha256>(buf, &sink));
      hs.push_back(stream<bench::HandSha256>(buf, &sink));
      om.push_back(small<faultline::Sha256>(msgs, &sink));
      hm.push_back(small<bench::HandSha256>(msgs, &sink));
    }
    std::printf("round %d: stream hand %.3f openssl %.3f | 120 B hand %.3f openssl %.3f ns/byte\n",
                r + 1, hs.back(), os.back(), hm.back(), om.back());
  }
  const double a = median(hs), b = median(os), c = median(hm), d = median(om);
  std::printf("median CPU ns/byte  stream (1 MiB updates)   120-byte one-shot\n");
  std::printf("hand-written       %8.3f (%6.0f MB/s)   %8.3f (%5.0f ns/msg)\n", a, 1e3 / a, c,
              c * kMsg);
  std::printf("openssl EVP        %8.3f (%6.0f MB/s)   %8.3f (%5.0f ns/msg)\n", b, 1e3 / b, d,
              d * kMsg);
  std::printf("openssl / hand     %8.2fx faster           %8.2fx faster\n", a / b, c / d);
  g_sink = sink;
  return 0;
}
