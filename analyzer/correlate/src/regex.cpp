#include "regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <mutex>
#include <stdexcept>
#include <vector>

namespace faultline::correlate::detail {

struct Regex::Impl {
  pcre2_code* code = nullptr;
  pcre2_match_context* mctx = nullptr;
  std::vector<std::pair<std::string, uint32_t>> names;  // group name -> number
  ~Impl() {
    if (mctx != nullptr) pcre2_match_context_free(mctx);
    if (code != nullptr) pcre2_code_free(code);
  }
};

Regex::Regex(const std::string& pattern) : impl_(std::make_unique<Impl>()) {
  int err = 0;
  PCRE2_SIZE off = 0;
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                              PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &err, &off, nullptr);
  if (impl_->code == nullptr) {
    std::vector<PCRE2_UCHAR> buf(256);
    pcre2_get_error_message(err, buf.data(), buf.size());
    throw std::runtime_error("bad regex '" + pattern +
                             "': " + std::string(reinterpret_cast<const char*>(buf.data())) +
                             " at offset " + std::to_string(off));
  }
  impl_->mctx = pcre2_match_context_create(nullptr);
  pcre2_set_match_limit(impl_->mctx, 200000);
  pcre2_set_depth_limit(impl_->mctx, 5000);
  uint32_t count = 0, entry = 0;
  PCRE2_SPTR table = nullptr;
  pcre2_pattern_info(impl_->code, PCRE2_INFO_NAMECOUNT, &count);
  pcre2_pattern_info(impl_->code, PCRE2_INFO_NAMEENTRYSIZE, &entry);
  pcre2_pattern_info(impl_->code, PCRE2_INFO_NAMETABLE, &table);
  for (uint32_t i = 0; i < count; ++i) {
    const PCRE2_SPTR e = table + static_cast<size_t>(i) * entry;
    const uint32_t num = (static_cast<uint32_t>(e[0]) << 8) | e[1];
    impl_->names.emplace_back(std::string(reinterpret_cast<const char*>(e + 2)), num);
  }
}

Regex::~Regex() = default;

bool Regex::search(std::string_view subject) const {
  return groups(subject).has_value();
}

std::optional<std::map<std::string, std::string>> Regex::groups(std::string_view subject) const {
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
  const int rc = pcre2_match(impl_->code, reinterpret_cast<PCRE2_SPTR>(subject.data()),
                             subject.size(), 0, 0, md, impl_->mctx);
  if (rc < 0) {
    pcre2_match_data_free(md);
    return std::nullopt;
  }
  const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
  const uint32_t pairs = pcre2_get_ovector_count(md);
  std::map<std::string, std::string> out;
  auto grab = [&](uint32_t n) -> std::optional<std::string> {
    if (n >= pairs || n >= static_cast<uint32_t>(rc)) return std::nullopt;
    if (ov[2 * n] == PCRE2_UNSET) return std::nullopt;
    return std::string(subject.substr(ov[2 * n], ov[2 * n + 1] - ov[2 * n]));
  };
  if (auto w = grab(0)) out[""] = *w;
  for (const auto& [name, num] : impl_->names)
    if (auto g = grab(num)) out[name] = *g;
  pcre2_match_data_free(md);
  return out;
}

std::shared_ptr<const Regex> regex_cached(const std::string& pattern) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const Regex>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(pattern);
  if (it != cache.end()) return it->second;
  auto r = std::make_shared<const Regex>(pattern);
  if (cache.size() > 4096) cache.clear();  // bound: patterns built from bound values
  cache.emplace(pattern, r);
  return r;
}

std::string regex_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() * 2);
  for (char c : s) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

}  // namespace faultline::correlate::detail
