#include "template.hpp"

#include <algorithm>
#include <cstdlib>

#include "faultline/core/text.hpp"
#include "regex.hpp"

namespace faultline::correlate::detail {
namespace {

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool name_char(char c) {
  return name_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '*' || c == '/' || c == '-';
}

// Calls fn(kind, text): kind 0 = literal text, 1 = placeholder name, 2 = problem.
template <typename Fn>
void scan(std::string_view s, Fn&& fn) {
  size_t i = 0;
  std::string lit;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '{' && i + 1 < s.size() && s[i + 1] == '{') {
      lit.push_back('{');
      i += 2;
    } else if (c == '}' && i + 1 < s.size() && s[i + 1] == '}') {
      lit.push_back('}');
      i += 2;
    } else if (c == '{' && i + 1 < s.size() && name_start(s[i + 1])) {
      size_t j = i + 1;
      while (j < s.size() && name_char(s[j])) ++j;
      if (j < s.size() && s[j] == '}') {
        if (!lit.empty()) fn(0, lit);
        lit.clear();
        fn(1, std::string(s.substr(i + 1, j - i - 1)));
        i = j + 1;
      } else {
        lit.push_back(c);  // a regex quantifier or literal brace: not a placeholder
        ++i;
      }
    } else {
      lit.push_back(c);
      ++i;
    }
  }
  if (!lit.empty()) fn(0, lit);
}

const char* const kFactRoots[] = {"driver", "firmware", "cann",  "torch",   "torch_npu", "torchvision",
                                  "package", "kernel",  "host",  "env",     "process",   "mount",
                                  "module",  "fs",      "install", "ulimit", "sysctl",   "npu",
                                  "probe",   "config",  "args"};

}  // namespace

std::vector<std::string> placeholders(std::string_view s) {
  std::vector<std::string> out;
  scan(s, [&](int kind, const std::string& t) {
    if (kind == 1) out.push_back(t);
  });
  return out;
}

bool has_placeholder(std::string_view s) { return !placeholders(s).empty(); }

std::string strip_placeholders(std::string_view s) {
  std::string out;
  scan(s, [&](int kind, const std::string& t) { out += kind == 1 ? std::string("x") : t; });
  return out;
}

std::vector<std::string> template_problems(std::string_view s, const std::set<std::string>& binds,
                                           const std::vector<std::string>& signatures) {
  std::vector<std::string> out;
  // Braces that are neither a placeholder nor doubled.
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '{' && i + 1 < s.size() && s[i + 1] == '{') {
      ++i;
      continue;
    }
    if (s[i] == '}' && i + 1 < s.size() && s[i + 1] == '}') {
      ++i;
      continue;
    }
    if (s[i] == '{') {
      if (depth > 0) out.push_back("nested '{'");
      ++depth;
      size_t j = i + 1;
      while (j < s.size() && name_char(s[j])) ++j;
      if (j == i + 1 || j >= s.size() || s[j] != '}' || !name_start(s[i + 1]))
        out.push_back("bad placeholder at offset " + std::to_string(i) +
                      " (expected {name} with letters, digits, _ . * / -)");
    } else if (s[i] == '}') {
      if (depth == 0) out.push_back("'}' without '{' at offset " + std::to_string(i));
      depth = std::max(0, depth - 1);
    }
  }
  if (depth > 0) out.push_back("unclosed '{'");
  for (const auto& name : placeholders(s)) {
    if (name == "host") continue;
    const std::string root = name.substr(0, name.find('.'));
    if (binds.count(root) != 0) continue;
    const size_t last = name.rfind('.');
    if (last != std::string::npos &&
        std::find(signatures.begin(), signatures.end(), name.substr(0, last)) != signatures.end())
      continue;
    if (std::find(std::begin(kFactRoots), std::end(kFactRoots), root) != std::end(kFactRoots) &&
        name.find('.') != std::string::npos)
      continue;
    out.push_back("placeholder {" + name +
                  "} is neither a bind name, a capture of a referenced signature, nor a fact");
  }
  return out;
}

std::string substitute(std::string_view s,
                       const std::function<std::optional<std::string>(const std::string&)>& lookup,
                       bool escape, std::string_view missing) {
  std::string out;
  scan(s, [&](int kind, const std::string& t) {
    if (kind == 0) {
      out += t;
      return;
    }
    auto v = lookup(t);
    const std::string val = v ? *v : std::string(missing);
    out += escape ? regex_escape(val) : val;
  });
  return out;
}

std::optional<long double> parse_number(std::string_view s) {
  s = text::trim(s);
  if (s.empty()) return std::nullopt;
  bool neg = false;
  std::string_view body = s;
  if (body[0] == '-' || body[0] == '+') {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    auto v = text::to_int<unsigned long long>(body.substr(2), 16);
    if (!v) return std::nullopt;
    const auto r = static_cast<long double>(*v);
    return neg ? -r : r;
  }
  if (auto v = text::to_int<unsigned long long>(body, 10)) {
    const auto r = static_cast<long double>(*v);
    return neg ? -r : r;
  }
  const std::string tmp(s);
  char* end = nullptr;
  const long double d = std::strtold(tmp.c_str(), &end);
  if (end == tmp.c_str() || *end != '\0') return std::nullopt;
  return d;
}

}  // namespace faultline::correlate::detail
