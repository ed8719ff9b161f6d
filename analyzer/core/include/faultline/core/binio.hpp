// A compact binary form for the rule cache (app/src/rule_cache.hpp): little-endian u32 counts and
// integers, length-prefixed strings. The rule cache keeps parsed rule sets (signatures, code
// tables, diagnoses, fact shapes) in this form because reading it back costs a small fraction of
// parsing their YAML (docs/performance.md "Per node"). Reader never reads past its input: a short
// or foreign payload turns ok() false and every later read returns an empty value, and every count
// is bounded by the bytes left, so a damaged cache file cannot make it allocate without limit.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace faultline::binio {

class Writer {
 public:
  void u32(uint32_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void u64(uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void f64(double v) {
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    u64(b);
  }
  void flag(bool b) { u32(b ? 1 : 0); }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void strs(const std::vector<std::string>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (const auto& s : v) str(s);
  }
  void ints(const std::vector<int>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (const int i : v) i32(i);
  }
  void pairs(const std::vector<std::pair<std::string, std::string>>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (const auto& [a, b] : v) {
      str(a);
      str(b);
    }
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view d) : d_(d) {}
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] bool done() const { return pos_ == d_.size(); }
  void fail() { ok_ = false; }
  uint32_t u32() { return fixed<uint32_t>(); }
  int32_t i32() { return static_cast<int32_t>(u32()); }
  uint64_t u64() { return fixed<uint64_t>(); }
  double f64() {
    const uint64_t b = u64();
    double v = 0;
    std::memcpy(&v, &b, sizeof v);
    return v;
  }
  bool flag() { return u32() != 0; }
  std::string_view view() {
    const uint32_t n = u32();
    if (!ok_ || d_.size() - pos_ < n) {
      ok_ = false;
      return {};
    }
    const std::string_view s = d_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::string str() { return std::string(view()); }
  // a count, bounded by what is left (each element takes at least 4 bytes)
  uint32_t count() {
    const uint32_t n = u32();
    if (ok_ && n > (d_.size() - pos_) / 4) ok_ = false;
    return ok_ ? n : 0;
  }
  std::vector<std::string> strs() {
    std::vector<std::string> v(count());
    for (auto& s : v) s = str();
    return v;
  }
  std::vector<int> ints() {
    std::vector<int> v(count());
    for (auto& i : v) i = i32();
    return v;
  }
  std::vector<std::pair<std::string, std::string>> pairs() {
    std::vector<std::pair<std::string, std::string>> v(count());
    for (auto& [a, b] : v) {
      a = str();
      b = str();
    }
    return v;
  }

 private:
  template <class T>
  T fixed() {
    T v = 0;
    if (!ok_ || d_.size() - pos_ < sizeof v) {
      ok_ = false;
      return 0;
    }
    std::memcpy(&v, d_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }

  std::string_view d_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace faultline::binio
