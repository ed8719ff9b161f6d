// Code tables: rules/codes/<family>.yaml (docs/codes.md).
#include "faultline/correlate/codes.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>
#include <set>

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
      root = YAML::Load(file.text);
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

constexpr int kCodesFormat = 2;  // bump when CodeBook's fields change (2: CodeEntry::signature)
// A field added to these structs must be written below too (a cached table without it would
// silently lose it: a code's own signature did once): the sizes make the build say so.
static_assert(sizeof(CodeEntry) == 12 * sizeof(std::string) + alignof(std::string),
              "CodeEntry changed: update serialize_codes/deserialize_codes and kCodesFormat");
static_assert(sizeof(CodeRange) == 9 * sizeof(std::string),
              "CodeRange changed: update serialize_codes/deserialize_codes and kCodesFormat");

using J = nlohmann::json;

J entry_json(const CodeEntry& e) {
  return J::array({e.family, e.code, e.name, e.cls, e.component, e.role, e.severity, e.title,
                   e.cause, e.suggestion, e.source, e.signature, e.known});
}

J range_json(const CodeRange& r) {
  return J::array(
      {r.first, r.last, r.cls, r.component, r.role, r.severity, r.title, r.cause, r.suggestion});
}

}  // namespace

std::string serialize_codes(const CodeBook& book) {
  J fams = J::array();
  for (const auto& f : book.families) {
    J codes = J::array(), ranges = J::array();
    for (const auto& e : f.codes) codes.push_back(entry_json(e));
    for (const auto& r : f.ranges) ranges.push_back(range_json(r));
    J by_code = J::object(), by_name = J::object();
    for (const auto& [k, i] : f.by_code) by_code[k] = i;
    for (const auto& [k, i] : f.by_name) by_name[k] = i;
    fams.push_back({{"name", f.name},
                    {"title", f.title},
                    {"file", f.file},
                    {"kind", f.kind},
                    {"sources", f.sources},
                    {"codes", std::move(codes)},
                    {"ranges", std::move(ranges)},
                    {"by_code", std::move(by_code)},
                    {"by_name", std::move(by_name)}});
  }
  const J j = {{"format", kCodesFormat}, {"families", std::move(fams)}, {"errors", book.errors}};
  return j.dump(-1, ' ', false, J::error_handler_t::replace);
}

std::optional<CodeBook> deserialize_codes(std::string_view text) {
  try {
    const J j = J::parse(text);
    if (j.at("format").get<int>() != kCodesFormat) return std::nullopt;
    CodeBook book;
    book.errors = j.at("errors").get<std::vector<std::string>>();
    for (const auto& fj : j.at("families")) {
      CodeFamily f;
      f.name = fj.at("name").get<std::string>();
      f.title = fj.at("title").get<std::string>();
      f.file = fj.at("file").get<std::string>();
      f.kind = fj.at("kind").get<std::string>();
      f.sources = fj.at("sources").get<std::vector<std::string>>();
      for (const auto& c : fj.at("codes")) {
        if (c.size() != 13) return std::nullopt;
        CodeEntry e;
        std::string* fields[] = {&e.family,    &e.code,       &e.name,     &e.cls,
                                 &e.component, &e.role,       &e.severity, &e.title,
                                 &e.cause,     &e.suggestion, &e.source,   &e.signature};
        for (size_t i = 0; i < 12; ++i) *fields[i] = c.at(i).get<std::string>();
        e.known = c.at(12).get<bool>();
        f.codes.push_back(std::move(e));
      }
      for (const auto& c : fj.at("ranges")) {
        if (c.size() != 9) return std::nullopt;
        CodeRange r;
        std::string* fields[] = {&r.first,    &r.last,  &r.cls,   &r.component, &r.role,
                                 &r.severity, &r.title, &r.cause, &r.suggestion};
        for (size_t i = 0; i < 9; ++i) *fields[i] = c.at(i).get<std::string>();
        f.ranges.push_back(std::move(r));
      }
      for (const auto& [k, v] : fj.at("by_code").items()) {
        const auto i = v.get<size_t>();
        if (i >= f.codes.size()) return std::nullopt;
        f.by_code.emplace(k, i);
      }
      for (const auto& [k, v] : fj.at("by_name").items()) {
        const auto i = v.get<size_t>();
        if (i >= f.codes.size()) return std::nullopt;
        f.by_name.emplace(k, i);
      }
      book.families.push_back(std::move(f));
    }
    return book;
  } catch (const J::exception&) {
    return std::nullopt;
  }
}

}  // namespace faultline::correlate
