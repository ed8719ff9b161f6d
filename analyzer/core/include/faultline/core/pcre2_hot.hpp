// A compiled PCRE2 pattern that is JIT-compiled once it is used often (issue 38 item 2).
//
// JIT-compiling the ~170 patterns of the classify table and the fact shapes cost ~35 M
// instructions on every run, more than a small bundle's whole classification: most patterns
// match a handful of paths or lines there. A pattern is matched by the interpreter until it has
// been asked for kJitAfter times; then a copy of it is JIT-compiled and used from then on.
//
// Thread safety: several threads may match with one HotCode (the classifier's and the shapes'
// copies share it). pcre2_jit_compile may not run on a code that another thread matches with,
// so the JIT compiles a private copy (pcre2_code_copy) and publishes it with a release store;
// exactly one caller (the one that takes the use count to kJitAfter) compiles. A pattern the JIT
// cannot compile stays interpreted. Results are the same either way except at the match and depth
// limits of a hostile line (the interpreter counts the depth limit, the JIT does not), where both
// give up as bounded work.
//
// Header only: its users (classify, parse) link PCRE2 themselves; define PCRE2_CODE_UNIT_WIDTH 8
// before including it, as for pcre2.h.
#pragma once

#include <pcre2.h>

#include <atomic>
#include <cstdint>

namespace faultline {

class HotCode {
 public:
  static constexpr uint32_t kJitAfter = 8;

  explicit HotCode(pcre2_code* code) : code_(code) {}  // takes ownership
  ~HotCode() {
    pcre2_code_free(jit_.load(std::memory_order_acquire));
    pcre2_code_free(code_);
  }
  HotCode(const HotCode&) = delete;
  HotCode& operator=(const HotCode&) = delete;

  // The interpreted code: for pattern information and match data.
  [[nodiscard]] const pcre2_code* base() const { return code_; }

  // The code to match with now.
  [[nodiscard]] const pcre2_code* get() const {
    if (const pcre2_code* j = jit_.load(std::memory_order_acquire)) return j;
    if (uses_.fetch_add(1, std::memory_order_relaxed) + 1 == kJitAfter) compile_jit();
    const pcre2_code* j = jit_.load(std::memory_order_acquire);
    return j != nullptr ? j : code_;
  }

  // JIT-compile now (tests; a caller that knows the pattern is hot).
  void jit_now() const {
    if (jit_.load(std::memory_order_acquire) == nullptr &&
        uses_.exchange(kJitAfter, std::memory_order_relaxed) < kJitAfter)
      compile_jit();
  }
  [[nodiscard]] bool jitted() const { return jit_.load(std::memory_order_acquire) != nullptr; }

 private:
  void compile_jit() const {
    pcre2_code* c = pcre2_code_copy(code_);
    if (c == nullptr) return;
    if (pcre2_jit_compile(c, PCRE2_JIT_COMPLETE) != 0) {
      pcre2_code_free(c);
      return;
    }
    jit_.store(c, std::memory_order_release);
  }

  pcre2_code* code_;
  mutable std::atomic<pcre2_code*> jit_{nullptr};
  mutable std::atomic<uint32_t> uses_{0};
};

}  // namespace faultline
