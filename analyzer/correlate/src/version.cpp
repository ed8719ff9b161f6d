#include "faultline/correlate/version.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "faultline/core/text.hpp"

namespace faultline::correlate {
namespace {

struct Token {
  bool number = false;
  std::string text;  // digits without leading zeros for numbers, lower-case word otherwise
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (is_digit(c)) {
      size_t j = i;
      while (j < s.size() && is_digit(s[j])) ++j;
      std::string_view d = s.substr(i, j - i);
      while (d.size() > 1 && d.front() == '0') d.remove_prefix(1);
      out.push_back({true, std::string(d)});
      i = j;
    } else if (is_alpha(c)) {
      size_t j = i;
      while (j < s.size() && is_alpha(s[j])) ++j;
      out.push_back({false, text::to_lower(s.substr(i, j - i))});
      i = j;
    } else {
      ++i;  // separator
    }
  }
  return out;
}

// -1: pre-release word (rc, alpha, dev, unknown words), +1: post-release word.
int word_class(const std::string& w) {
  return (w == "post" || w == "p" || w == "patch" || w == "spc") ? 1 : -1;
}

int word_rank(const std::string& w) {
  if (w == "dev") return 0;
  if (w == "a" || w == "alpha") return 1;
  if (w == "b" || w == "beta") return 2;
  if (w == "t") return 3;
  if (w == "rc" || w == "c") return 4;
  return 5;
}

int sign(int c) {
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

int cmp_numbers(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return sign(a.compare(b));
}

// Compares token a (or nothing) with token b (or nothing).
int cmp_token(const Token* a, const Token* b) {
  if (a == nullptr && b == nullptr) return 0;
  if (a == nullptr) return -cmp_token(b, nullptr);
  if (b == nullptr) {
    if (a->number) return a->text == "0" ? 0 : 1;
    return word_class(a->text) < 0 ? -1 : 1;
  }
  if (a->number && b->number) return cmp_numbers(a->text, b->text);
  if (a->number != b->number) return a->number ? 1 : -1;  // any word sorts below a number
  const int ca = word_class(a->text), cb = word_class(b->text);
  if (ca != cb) return ca < cb ? -1 : 1;
  const int ra = word_rank(a->text), rb = word_rank(b->text);
  if (ra != rb) return ra < rb ? -1 : 1;
  return sign(a->text.compare(b->text));
}

std::pair<std::string_view, std::string_view> split_local(std::string_view v) {
  const size_t p = v.find('+');
  if (p == std::string_view::npos) return {v, {}};
  return {v.substr(0, p), v.substr(p + 1)};
}

std::string_view strip_v(std::string_view v) {
  v = text::trim(v);
  if (v.size() > 1 && (v[0] == 'v' || v[0] == 'V') && is_digit(v[1])) v.remove_prefix(1);
  return v;
}

}  // namespace

std::string normalize_version(std::string_view v) {
  return text::to_lower(strip_v(v));
}

int compare_versions(std::string_view a, std::string_view b) {
  const auto [ma, la] = split_local(strip_v(a));
  const auto [mb, lb] = split_local(strip_v(b));
  const auto ta = tokenize(ma);
  const auto tb = tokenize(mb);
  const size_t n = std::max(ta.size(), tb.size());
  for (size_t i = 0; i < n; ++i) {
    const int c = cmp_token(i < ta.size() ? &ta[i] : nullptr, i < tb.size() ? &tb[i] : nullptr);
    if (c != 0) return c;
  }
  return sign(text::to_lower(la).compare(text::to_lower(lb)));
}

}  // namespace faultline::correlate
