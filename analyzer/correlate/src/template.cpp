#include "template.hpp"

#include <algorithm>
#include <cstdlib>

#include "faultline/core/text.hpp"
#include "regex.hpp"

namespace faultline::correlate::detail {
namespace {

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool name_char(char c) {
  return name_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '*' || c == '/' || c == '-';
}

// Placeholder body: alternatives separated by '|', each a name or "=literal"; the first is a name.
bool valid_body(std::string_view b) {
  if (b.empty() || !name_start(b[0])) return false;
  size_t i = 0;
  while (i <= b.size()) {
    size_t j = b.find('|', i);
    if (j == std::string_view::npos) j = b.size();
    const std::string_view alt = b.substr(i, j - i);
    if (!alt.empty() && alt[0] == '=') {
      if (alt.find_first_of("{}") != std::string_view::npos) return false;
    } else {
      if (alt.empty() || !name_start(alt[0])) return false;
      for (char c : alt)
        if (!name_char(c)) return false;
    }
    i = j + 1;
  }
  return true;
}

// Calls fn(kind, text): kind 0 = literal text, 1 = placeholder body.
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
    } else if (c == '{') {
      const size_t j = s.find_first_of("{}", i + 1);
      if (j != std::string_view::npos && s[j] == '}' && valid_body(s.substr(i + 1, j - i - 1))) {
        if (!lit.empty()) fn(0, lit);
        lit.clear();
        fn(1, std::string(s.substr(i + 1, j - i - 1)));
        i = j + 1;
      } else {
        lit.push_back(c);  // a regex quantifier or a literal brace: not a placeholder
        ++i;
      }
    } else {
      lit.push_back(c);
      ++i;
    }
  }
  if (!lit.empty()) fn(0, lit);
}

// Alternatives of a placeholder body.
std::vector<std::string> alternatives(const std::string& body) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= body.size()) {
    size_t j = body.find('|', i);
    if (j == std::string::npos) j = body.size();
    out.push_back(body.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// Conditional sections: "{?name}text{/?}" keeps text when name resolves, "{!name}text{/!}" when it
// does not (not nested). Calls fn(kind, name, body, begin, end) per section (kind '?' or '!'),
// end = one past the closing tag; returns false on an unclosed section.
template <typename Fn>
bool sections(std::string_view s, Fn&& fn) {
  size_t i = 0;
  while ((i = s.find('{', i)) != std::string_view::npos) {
    if (i + 1 < s.size() && (s[i + 1] == '?' || s[i + 1] == '!')) {
      const char kind = s[i + 1];
      const size_t close = s.find('}', i + 2);
      if (close == std::string_view::npos) return false;
      const std::string name(s.substr(i + 2, close - i - 2));
      const std::string end_tag = std::string("{/") + kind + "}";
      const size_t e = s.find(end_tag, close + 1);
      if (e == std::string_view::npos) return false;
      fn(kind, name, s.substr(close + 1, e - close - 1), i, e + end_tag.size());
      i = e + end_tag.size();
    } else {
      i += (i + 1 < s.size() && s[i + 1] == '{') ? 2 : 1;
    }
  }
  return true;
}

// The template with its sections resolved by lookup (kept body or nothing).
std::string resolve_sections(
    std::string_view s,
    const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  std::string out;
  size_t at = 0;
  sections(s, [&](char kind, const std::string& name, std::string_view body, size_t b, size_t e) {
    out.append(s.substr(at, b - at));
    const bool has = lookup(name).has_value();
    if (has == (kind == '?')) out.append(body);
    at = e;
  });
  out.append(s.substr(at));
  return out;
}

// The template with the section tags removed and every body kept (for the checks).
std::string unsectioned(std::string_view s, std::vector<std::string>* names = nullptr) {
  std::string out;
  size_t at = 0;
  sections(s, [&](char, const std::string& name, std::string_view body, size_t b, size_t e) {
    out.append(s.substr(at, b - at));
    out.append(body);
    if (names) names->push_back(name);
    at = e;
  });
  out.append(s.substr(at));
  return out;
}

const char* const kFactRoots[] = {
    "driver", "firmware", "cann",    "torch",  "torch_npu", "torchvision", "package", "kernel",
    "host",   "env",      "process", "mount",  "module",    "fs",          "install", "ulimit",
    "sysctl", "npu",      "probe",   "config", "args",      "npu_smi",     "pci",     "collector"};

}  // namespace

std::vector<std::string> placeholders(std::string_view s) {
  std::vector<std::string> out;
  const std::string flat = unsectioned(s, &out);
  scan(flat, [&](int kind, const std::string& t) {
    if (kind != 1) return;
    for (const auto& a : alternatives(t))
      if (!a.empty() && a[0] != '=') out.push_back(a);
  });
  return out;
}

bool has_placeholder(std::string_view s) {
  return !placeholders(s).empty();
}

std::string strip_placeholders(std::string_view s) {
  std::string out;
  scan(unsectioned(s),
       [&](int kind, const std::string& t) { out += kind == 1 ? std::string("x") : t; });
  return out;
}

std::vector<std::string> template_problems(std::string_view sectioned,
                                           const std::set<std::string>& binds,
                                           const std::vector<std::string>& signatures) {
  std::vector<std::string> out;
  if (!sections(sectioned, [](char, const std::string&, std::string_view, size_t, size_t) {}))
    out.emplace_back("unclosed section (expected {?name}...{/?} or {!name}...{/!})");
  std::vector<std::string> section_names;
  const std::string flat = unsectioned(sectioned, &section_names);
  for (const auto& n : section_names)
    if (!valid_body(n) || n.find('|') != std::string::npos)
      out.push_back("bad section name {?" + n + "}");
  const std::string_view s = flat;
  // Every single brace must open or close a valid placeholder.
  for (size_t i = 0; i < s.size(); ++i) {
    if ((s[i] == '{' || s[i] == '}') && i + 1 < s.size() && s[i + 1] == s[i]) {
      ++i;
      continue;
    }
    if (s[i] == '}') {
      out.push_back("'}' without '{' at offset " + std::to_string(i));
    } else if (s[i] == '{') {
      const size_t j = s.find_first_of("{}", i + 1);
      if (j == std::string_view::npos || s[j] != '}' || !valid_body(s.substr(i + 1, j - i - 1))) {
        out.push_back("bad placeholder at offset " + std::to_string(i) +
                      " (expected {name}, {name|other}, {name|=text})");
        continue;
      }
      i = j;
    }
  }
  for (const auto& name : placeholders(sectioned)) {
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
  const std::string resolved = resolve_sections(s, lookup);
  scan(resolved, [&](int kind, const std::string& t) {
    if (kind == 0) {
      out += t;
      return;
    }
    std::optional<std::string> v;
    for (const auto& a : alternatives(t)) {
      if (!a.empty() && a[0] == '=') {
        v = a.substr(1);
        break;
      }
      v = lookup(a);
      if (v) break;
    }
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
