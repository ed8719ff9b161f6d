// Shared helpers of the libFuzzer harnesses (fuzz/harness/*.cpp). Each harness defines
// LLVMFuzzerTestOneInput; it is linked with libFuzzer (fuzz/, FAULTLINE_FUZZ=ON, clang) or with
// the replay driver (tests/regress/replay_main.cpp, every build) that feeds it the regression
// inputs of tests/regress/<harness>/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

// A property of the code under test that the input broke: report and abort, so that libFuzzer
// saves the input and the replay test fails.
#define FUZZ_CHECK(cond, what)                                                                    \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      std::fprintf(stderr, "%s:%d: property broken: %s (%s)\n", __FILE__, __LINE__, what, #cond); \
      std::abort();                                                                               \
    }                                                                                             \
  } while (0)

namespace faultline::fuzz {

// Reads every byte of a view so that ASan reports a view into freed or foreign memory.
inline unsigned touch(std::string_view s) {
  unsigned h = 0;
  for (const char c : s) h = h * 31U + static_cast<unsigned char>(c);
  return h;
}

// Sink for computed values, so that the compiler keeps the reads.
inline volatile unsigned g_sink = 0;

inline std::string_view as_view(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace faultline::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
