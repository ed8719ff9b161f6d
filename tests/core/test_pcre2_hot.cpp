// core/pcre2_hot.hpp: a pattern is interpreted until it is hot, then JIT-compiled once, with the
// same answers before and after, also while several threads match with it (issue 38 item 2).
#define PCRE2_CODE_UNIT_WIDTH 8
#include <atomic>
#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "faultline/core/pcre2_hot.hpp"

namespace {

using faultline::HotCode;

pcre2_code* compile(std::string_view pattern) {
  int err = 0;
  PCRE2_SIZE off = 0;
  return pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                       PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &err, &off, nullptr);
}

// the start of the first match, or -1
long first_match(const HotCode& code, std::string_view line) {
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(code.base(), nullptr);
  const int rc = pcre2_match(code.get(), reinterpret_cast<PCRE2_SPTR>(line.data()), line.size(), 0,
                             0, md, nullptr);
  const long at = rc > 0 ? static_cast<long>(pcre2_get_ovector_pointer(md)[0]) : -1;
  pcre2_match_data_free(md);
  return at;
}

bool jit_available() {
  uint32_t yes = 0;
  return pcre2_config(PCRE2_CONFIG_JIT, &yes) >= 0 && yes == 1;
}

// a plog line and a kernel line of the format reference (log-formats.md)
constexpr std::string_view kPlog =
    "[ERROR] RUNTIME(14163,python3):2025-12-13 12:15:25.025.554 [stream.cc:1402]14595 "
    "SynchronizeExecutedTask:Stream synchronize timeout, device_id=11, stream_id=103, "
    "timeout=10000, tryCount=10.";
constexpr std::string_view kDmesg =
    "Aug  1 08:38:31 localhost kernel: [ 1197.584409] [ascend] [ERROR] [drv_soft_fault] "
    "[heart_beat_judge 318] <kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; "
    "new_count=1104; lost_count=4; total_lost_count=4; total_10s_count=0; total_15s_count 0).";
constexpr std::string_view kPattern = R"(\b(?i:stream) synchronize timeout\b)";

}  // namespace

TEST_CASE("a pattern is JIT-compiled once hot and answers the same before and after") {
  HotCode code(compile(kPattern));
  REQUIRE(code.base() != nullptr);
  for (uint32_t i = 0; i + 1 < HotCode::kJitAfter; ++i) {
    CHECK(first_match(code, kPlog) == 105);
    CHECK_FALSE(code.jitted());
  }
  CHECK(first_match(code, kDmesg) == -1);  // the kJitAfter-th use compiles
  CHECK(code.jitted() == jit_available());
  for (int i = 0; i < 10; ++i) {
    CHECK(first_match(code, kPlog) == 105);
    CHECK(first_match(code, kDmesg) == -1);
  }
  CHECK(first_match(code, std::string_view("\xff\xfe stream synchronize timeout")) == 3);
}

TEST_CASE("threads sharing a pattern while it turns hot all get the right answers") {
  HotCode code(compile(kPattern));
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i)
        if (first_match(code, kPlog) != 105 || first_match(code, kDmesg) != -1) ++wrong;
    });
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
  CHECK(code.jitted() == jit_available());
}
