// Code tables: rules/codes/<family>.yaml (docs/codes.md).
#include "faultline/correlate/codes.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <set>

#include "faultline/core/binio.hpp"

namespace faultline::correlate {
namespace {

const std::set<std::string> kClasses = {"hardware", "os",        "network",    "driver",
                                        "cann",     "framework", "user_config"};
const std::set<std::string> kSeverities = {"critical", "error", "warning", "info"};

std::string stem_of(const std::string& path) {
  std::string s = path.substr(path.find_last_of('/') + 1);
  const size_t dot = s.rfind('.');
  return dot == std::string::npos ? s : s.substr(0, dot);
}

int line_of(const YAML::Node& n) {
  return n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
}

std::string str(const YAML::Node& n, const char* key) {
  const auto v = n[key];
  return v && v.IsScalar() ? v.Scalar() : std::string();
}

std::optional<int64_t> as_int(const std::string& s, int base) {
  if (s.empty()) return std::nullopt;
  std::string t = s;
  if (base == 16 && t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t = t.substr(2);
  int64_t v = 0;
  const auto* b = t.data();
  const auto* e = t.data() + t.size();
  if (base == 10 && *b == '+') ++b;
  const auto r = std::from_chars(b, e, v, base);
  if (r.ec != std::errc() || r.ptr != e) return std::nullopt;
  return v;
}

// a <= b in the family's order; nullopt when incomparable
std::optional<bool> not_after(const std::string& kind, const std::string& a, const std::string& b) {
  if (kind == "number" || kind == "hex") {
    const int base = kind == "hex" ? 16 : 10;
    const auto x = as_int(a, base), y = as_int(b, base);
    if (!x || !y) return std::nullopt;
    return *x <= *y;
  }
  if (a.size() != b.size()) return std::nullopt;
  return a <= b;
}

void fill_texts(CodeEntry& e, const std::string& code) {
  for (std::string* t : {&e.title, &e.cause, &e.suggestion}) {
    for (size_t at = t->find("{code}"); at != std::string::npos; at = t->find("{code}", at)) {
      t->replace(at, 6, code);
      at += code.size();
    }
  }
}

}  // namespace

std::string canonical_code(const std::string& kind, const std::string& token) {
  std::string t = token;
  if (kind == "hex") {
    std::string digits = t;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
      digits = digits.substr(2);
    for (auto& c : digits) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return "0x" + digits;
  }
  if (kind == "number") {
    if (!t.empty() && t[0] == '+') t = t.substr(1);
    return t;
  }
  for (auto& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return t;
}

const CodeFamily* CodeBook::family(const std::string& name) const {
  for (const auto& f : families)
    if (f.name == name) return &f;
  return nullptr;
}

std::optional<CodeEntry> CodeBook::lookup(const std::vector<std::string>& names,
                                          const std::string& token) const {
  if (token.empty()) return std::nullopt;
  for (const auto& n : names) {
    const CodeFamily* f = family(n);
    if (!f) continue;
    if (auto it = f->by_code.find(canonical_code(f->kind, token)); it != f->by_code.end())
      return f->codes[it->second];
    std::string up = token;
    for (auto& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (auto it = f->by_name.find(up); it != f->by_name.end()) return f->codes[it->second];
  }
  for (const auto& n : names) {
    const CodeFamily* f = family(n);
    if (!f) continue;
    const std::string code = canonical_code(f->kind, token);
    for (const auto& r : f->ranges) {
      const auto lo = not_after(f->kind, r.first, code), hi = not_after(f->kind, code, r.last);
      if (!lo || !hi || !*lo || !*hi) continue;
      CodeEntry e;
      e.family = f->name;
      e.code = code;
      e.cls = r.cls;
      e.component = r.component;
      e.role = r.role;
      e.severity = r.severity;
      e.title = r.title;
      e.cause = r.cause;
      e.suggestion = r.suggestion;
      e.source = f->file;
      e.known = false;
      fill_texts(e, code);
      return e;
    }
  }
  return std::nullopt;
}

CodeBook load_codes(const std::vector<RuleFile>& files) {
  CodeBook book;
  for (const auto& file : files) {
    if (file.path.rfind("codes/", 0) != 0) continue;
    const std::string fam = stem_of(file.path);
    auto err = [&](int line, const std::string& what) {
      book.errors.push_back(file.path + ":" + std::to_string(line) + ": " + fam + ": " + what);
    };
    YAML::Node root;
    try {
      root = YAML::Load(std::string(file.text));
    } catch (const YAML::Exception& e) {
      err(e.mark.line + 1, "YAML: " + e.msg);
      continue;
    }
    if (!root.IsMap()) {
      err(1, "expected a mapping at the top level");
      continue;
    }
    try {
      CodeFamily f;
      f.name = str(root, "family");
      f.title = str(root, "title");
      f.kind = str(root, "kind");
      f.file = file.path;
      if (f.name != fam) err(line_of(root), "`family` must be the file stem '" + fam + "'");
      if (f.kind != "number" && f.kind != "hex" && f.kind != "text")
        err(line_of(root), "`kind` must be number, hex or text");
      if (const auto s = root["sources"]; s && s.IsSequence())
        for (const auto& x : s)
          if (x.IsScalar()) f.sources.push_back(x.Scalar());
      if (f.sources.empty()) err(line_of(root), "`sources` must name where the codes come from");
      const YAML::Node defaults = root["defaults"];
      auto field = [&](const YAML::Node& n, const char* key) {
        std::string v = str(n, key);
        if (v.empty() && defaults && defaults.IsMap()) v = str(defaults, key);
        return v;
      };
      auto check = [&](const YAML::Node& n, const std::string& cls, const std::string& role,
                       const std::string& sev, const std::string& what) {
        if (!kClasses.count(cls)) err(line_of(n), what + ": bad class '" + cls + "'");
        if (role != "cause" && role != "symptom")
          err(line_of(n), what + ": bad role '" + role + "'");
        if (!kSeverities.count(sev)) err(line_of(n), what + ": bad severity '" + sev + "'");
      };
      if (const auto cs = root["codes"]; cs && cs.IsSequence()) {
        for (const auto& n : cs) {
          if (!n.IsMap()) {
            err(line_of(n), "a code entry must be a mapping");
            continue;
          }
          CodeEntry e;
          e.family = f.name;
          e.code = canonical_code(f.kind, str(n, "code"));
          e.name = str(n, "name");
          e.cls = field(n, "class");
          e.component = field(n, "component");
          e.role = field(n, "role");
          if (e.role.empty()) e.role = "cause";
          e.severity = field(n, "severity");
          if (e.severity.empty()) e.severity = "error";
          e.title = str(n, "title");
          e.cause = str(n, "cause");
          e.suggestion = field(n, "suggestion");
          e.source = field(n, "source");
          e.signature = str(n, "signature");
          const std::string what = "code " + (e.code.empty() ? e.name : e.code);
          if (e.code.empty() && e.name.empty()) err(line_of(n), "an entry needs `code` or `name`");
          if (e.title.empty() || e.cause.empty() || e.suggestion.empty())
            err(line_of(n), what + ": needs title, cause and suggestion");
          if (e.source.empty()) err(line_of(n), what + ": needs `source`");
          check(n, e.cls, e.role, e.severity, what);
          fill_texts(e, e.code);
          if (!e.code.empty() && !f.by_code.emplace(e.code, f.codes.size()).second)
            err(line_of(n), what + ": defined twice");
          if (!e.name.empty()) {
            std::string up = e.name;
            for (auto& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            f.by_name.emplace(up, f.codes.size());
          }
          f.codes.push_back(std::move(e));
        }
      }
      if (const auto rs = root["ranges"]; rs && rs.IsSequence()) {
        for (const auto& n : rs) {
          CodeRange r;
          r.first = canonical_code(f.kind, str(n, "from"));
          r.last = canonical_code(f.kind, str(n, "to"));
          r.cls = field(n, "class");
          r.component = field(n, "component");
          r.role = field(n, "role");
          if (r.role.empty()) r.role = "cause";
          r.severity = field(n, "severity");
          if (r.severity.empty()) r.severity = "error";
          r.title = str(n, "title");
          r.cause = str(n, "cause");
          r.suggestion = field(n, "suggestion");
          const auto ordered = not_after(f.kind, r.first, r.last);
          if (r.first.empty() || r.last.empty() || !ordered || !*ordered)
            err(line_of(n), "a range needs comparable `from` <= `to`");
          if (r.title.empty() || r.cause.empty() || r.suggestion.empty())
            err(line_of(n), "range " + r.first + ": needs title, cause and suggestion");
          check(n, r.cls, r.role, r.severity, "range " + r.first);
          f.ranges.push_back(std::move(r));
        }
      }
      book.families.push_back(std::move(f));
    } catch (const YAML::Exception& e) {
      err(e.mark.line + 1, e.msg);
    }
  }
  return book;
}

namespace {

constexpr uint32_t kCodesFormat = 3;  // bump when CodeBook's fields change (2:
                                      // CodeEntry::signature, 3: binary form instead of JSON)
// A field added to these structs must be written below too (a cached table without it would
// silently lose it: a code's own signature did once): the sizes make the build say so.
static_assert(sizeof(CodeEntry) == 12 * sizeof(std::string) + alignof(std::string),
              "CodeEntry changed: update serialize_codes/deserialize_codes and kCodesFormat");
static_assert(sizeof(CodeRange) == 9 * sizeof(std::string),
              "CodeRange changed: update serialize_codes/deserialize_codes and kCodesFormat");

// the string fields in their written order; E is CodeEntry or const CodeEntry
template <class E>
auto entry_fields(E& e) {
  return std::array{&e.family,   &e.code,  &e.name,  &e.cls,        &e.component, &e.role,
                    &e.severity, &e.title, &e.cause, &e.suggestion, &e.source,    &e.signature};
}

template <class R>
auto range_fields(R& r) {
  return std::array{&r.first,    &r.last,  &r.cls,   &r.component, &r.role,
                    &r.severity, &r.title, &r.cause, &r.suggestion};
}

}  // namespace

// Binary (core/binio.hpp): a JSON text of the same tables took ~100 M instructions to read back,
// a fifth of a small node's CPU (issue 38).
std::string serialize_codes(const CodeBook& book) {
  binio::Writer w;
  w.u32(kCodesFormat);
  w.u32(static_cast<uint32_t>(book.families.size()));
  for (const auto& f : book.families) {
    w.str(f.name);
    w.str(f.title);
    w.str(f.file);
    w.str(f.kind);
    w.strs(f.sources);
    w.u32(static_cast<uint32_t>(f.codes.size()));
    for (const auto& e : f.codes) {
      for (const std::string* s : entry_fields(e)) w.str(*s);
      w.flag(e.known);
    }
    w.u32(static_cast<uint32_t>(f.ranges.size()));
    for (const auto& r : f.ranges)
      for (const std::string* s : range_fields(r)) w.str(*s);
    for (const auto* index : {&f.by_code, &f.by_name}) {
      w.u32(static_cast<uint32_t>(index->size()));
      for (const auto& [k, i] : *index) {
        w.str(k);
        w.u32(static_cast<uint32_t>(i));
      }
    }
  }
  w.strs(book.errors);
  return w.take();
}

std::optional<CodeBook> deserialize_codes(std::string_view text) {
  binio::Reader r(text);
  if (r.u32() != kCodesFormat) return std::nullopt;
  CodeBook book;
  book.families.resize(r.count());
  for (auto& f : book.families) {
    f.name = r.str();
    f.title = r.str();
    f.file = r.str();
    f.kind = r.str();
    f.sources = r.strs();
    f.codes.resize(r.count());
    for (auto& e : f.codes) {
      for (std::string* s : entry_fields(e)) *s = r.str();
      e.known = r.flag();
    }
    f.ranges.resize(r.count());
    for (auto& g : f.ranges)
      for (std::string* s : range_fields(g)) *s = r.str();
    for (auto* index : {&f.by_code, &f.by_name}) {
      const uint32_t n = r.count();
      auto hint = index->end();
      for (uint32_t k = 0; k < n && r.ok(); ++k) {
        std::string key = r.str();
        const uint32_t i = r.u32();
        if (i >= f.codes.size()) return std::nullopt;
        // written in key order: each insert goes at the end
        hint = index->emplace_hint(hint, std::move(key), i);
        ++hint;
      }
    }
    if (!r.ok()) return std::nullopt;
  }
  book.errors = r.strs();
  if (!r.ok() || !r.done()) return std::nullopt;
  return book;
}

}  // namespace faultline::correlate
