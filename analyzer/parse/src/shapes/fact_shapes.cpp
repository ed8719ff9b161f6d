// Fact shapes: rules/facts/*.yaml run as parsers (docs/facts.md "Fact shapes").
#include "faultline/parse/fact_shapes.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>

#include "faultline/core/binio.hpp"
#include "faultline/core/pcre2_hot.hpp"
#include "faultline/core/text.hpp"
#include "outputs/common.hpp"
#include "shapes/records.hpp"

namespace faultline::parse {

namespace {

using shapes::Record;
using Vars = std::map<std::string, std::string>;

constexpr size_t kMaxFacts = 250000;
constexpr size_t kMaxName = 512;
constexpr size_t kMaxLine = 64 * 1024;  // a shape sees at most this much of a (joined) line
constexpr size_t kMaxEach = 4096;       // repeats of an `each` pattern on one line

// ---- regex ---------------------------------------------------------------------------------
class Rx {
 public:
  static std::shared_ptr<const Rx> compile(const std::string& pat, std::string* err) {
    int e = 0;
    PCRE2_SIZE off = 0;
    pcre2_code* c = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pat.data()), pat.size(),
                                  PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &e, &off, nullptr);
    if (c == nullptr) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(e, msg, sizeof msg);
      if (err)
        *err = "bad pattern '" + pat + "' at offset " + std::to_string(off) + ": " +
               reinterpret_cast<const char*>(msg);
      return nullptr;
    }
    auto r = std::make_shared<Rx>();
    r->code_ = std::make_shared<const HotCode>(c);  // JIT-compiled once hot (core/pcre2_hot.hpp)
    uint32_t count = 0, size = 0;
    PCRE2_SPTR table = nullptr;
    pcre2_pattern_info(c, PCRE2_INFO_NAMECOUNT, &count);
    pcre2_pattern_info(c, PCRE2_INFO_NAMEENTRYSIZE, &size);
    pcre2_pattern_info(c, PCRE2_INFO_NAMETABLE, &table);
    for (uint32_t i = 0; i < count; ++i) {
      const PCRE2_SPTR ent = table + static_cast<size_t>(i) * size;
      const int n = (ent[0] << 8) | ent[1];
      r->names_.emplace_back(reinterpret_cast<const char*>(ent + 2), n);
    }
    return r;
  }
  // Matches at or after `start`; named groups that took part are added to `g`; `end` gets the
  // end of the whole match, `begin` its start.
  bool match(std::string_view s, Vars* g, size_t start = 0, size_t* begin = nullptr,
             size_t* end = nullptr) const {
    thread_local std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> md(
        pcre2_match_data_create(64, nullptr), pcre2_match_data_free);
    thread_local std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)> mc(
        [] {
          auto* c = pcre2_match_context_create(nullptr);
          if (c) {
            pcre2_set_match_limit(c, 100000);
            pcre2_set_depth_limit(c, 1000);
          }
          return c;
        }(),
        pcre2_match_context_free);
    if (!md || !mc) return false;
    s = s.substr(0, kMaxLine);
    const int rc = pcre2_match(code_->get(), reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(),
                               start, 0, md.get(), mc.get());
    if (rc <= 0) return false;
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    if (begin) *begin = ov[0];
    if (end) *end = ov[1];
    if (g)
      for (const auto& [name, n] : names_) {
        if (n >= rc || ov[2 * n] == PCRE2_UNSET) continue;
        (*g)[name] = std::string(s.substr(ov[2 * n], ov[2 * n + 1] - ov[2 * n]));
      }
    return true;
  }
  [[nodiscard]] const std::vector<std::pair<std::string, int>>& names() const { return names_; }

 private:
  std::shared_ptr<const HotCode> code_;
  std::vector<std::pair<std::string, int>> names_;
};

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// ---- the table -----------------------------------------------------------------------------
struct FactT {
  std::string name, value, expand, from;
};
struct Example {
  std::string text, path;
  std::vector<std::pair<std::string, std::string>> facts;
};
enum class Mode { line, record, object, member };
struct Shape {
  std::string id, file;
  std::vector<std::string> kinds;
  Mode mode = Mode::line;
  std::shared_ptr<const Rx> rx, each, path_rx;
  std::string each_from;
  std::vector<std::pair<std::string, std::string>> fields;  // var -> field name
  std::vector<std::string> require;
  std::vector<std::string> when;  // pattern templates: each must match a record of the document
  std::string scope;              // pattern template: (?<scope>) of the first record matching
  std::vector<FactT> facts;
  std::vector<Example> match, no_match;
};
struct Table {
  std::vector<Shape> shapes;
  std::map<std::string, std::vector<size_t>> by_kind;
  std::map<std::string, shapes::DocKind> docs;
  std::set<std::string> continued;
  std::vector<std::string> errors;
};

const std::set<std::string>& builtin_vars() {
  static const std::set<std::string> s = {"file", "path",  "pid", "scope",
                                          "flag", "value", "env", "env_value"};
  return s;
}

// `{name...}` or `{=...}`: a placeholder; other braces (`\d{3}`, `{2,5}`) are literal text
bool placeholder(std::string_view inner) {
  return !inner.empty() && (inner.front() == '=' || inner.front() == '_' ||
                            std::isalpha(static_cast<unsigned char>(inner.front())));
}

// `{a:filter|b|=literal}`: names a template uses (for lint)
std::vector<std::string> template_names(const std::string& t) {
  std::vector<std::string> out;
  size_t i = 0;
  while ((i = t.find('{', i)) != std::string::npos) {
    const size_t j = t.find('}', i);
    if (j == std::string::npos) break;
    if (!placeholder(std::string_view(t).substr(i + 1, j - i - 1))) {
      ++i;
      continue;
    }
    for (auto alt : text::split(std::string_view(t).substr(i + 1, j - i - 1), '|')) {
      if (alt.empty() || alt.front() == '=') continue;
      out.emplace_back(alt.substr(0, alt.find(':')));
    }
    i = j + 1;
  }
  return out;
}

// ---- reading -------------------------------------------------------------------------------
// The table as the files write it, patterns not compiled (the rule cache keeps this form).
struct ShapeSpec {
  std::string id, file;
  std::vector<std::string> kinds;
  Mode mode = Mode::line;
  std::string pattern;
  bool has_path = false, has_each = false;
  std::string path, each, each_from;
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<std::string> require, when;
  std::string scope;
  std::vector<FactT> facts;
  std::vector<Example> match, no_match;
};
struct Specs {
  std::vector<ShapeSpec> shapes;
  std::vector<std::pair<std::string, std::string>> docs;  // kind -> reader name
  std::vector<std::string> continued;
  std::vector<std::string> errors;
};

Specs read_specs(const std::vector<RuleFile>& files) {
  Specs t;
  for (const auto& f : files) {
    const std::string where = "facts: " + f.path;
    try {
      const YAML::Node doc = YAML::Load(std::string(f.text));
      if (const auto d = doc["documents"])
        for (const auto& kv : d)
          t.docs.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
      if (const auto c = doc["continued"])
        for (const auto& k : c) t.continued.push_back(k.as<std::string>());
      for (const auto& n : doc["shapes"]) {
        ShapeSpec s;
        s.file = f.path;
        s.id = n["id"].as<std::string>("");
        const std::string at = where + ": " + (s.id.empty() ? std::string("(no id)") : s.id);
        if (s.id.empty()) t.errors.push_back(at + ": no id");
        for (const auto& k : n["kinds"]) s.kinds.push_back(k.as<std::string>());
        if (s.kinds.empty()) t.errors.push_back(at + ": no kinds");
        int modes = 0;
        static const std::pair<const char*, Mode> kModes[] = {{"line", Mode::line},
                                                              {"record", Mode::record},
                                                              {"object", Mode::object},
                                                              {"member", Mode::member}};
        for (const auto& [key, m] : kModes)
          if (n[key]) {
            s.mode = m;
            s.pattern = n[key].as<std::string>();
            ++modes;
          }
        if (modes != 1) {
          t.errors.push_back(at + ": needs exactly one of line, record, object, member");
          continue;
        }
        if (const auto p = n["path"]) {
          s.has_path = true;
          s.path = p.as<std::string>();
        }
        if (const auto e = n["each"]) {
          s.has_each = true;
          s.each_from = e["from"].as<std::string>("");
          s.each = e["pattern"].as<std::string>("");
        }
        if (const auto fl = n["fields"])
          for (const auto& kv : fl)
            s.fields.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
        for (const auto& r : n["require"]) s.require.push_back(r.as<std::string>());
        if (const auto w = n["when"]) {
          if (w.IsSequence())
            for (const auto& x : w) s.when.push_back(x.as<std::string>());
          else
            s.when.push_back(w.as<std::string>());
        }
        s.scope = n["scope"].as<std::string>("");
        for (const auto& fn : n["facts"])
          s.facts.push_back({fn["name"].as<std::string>(""), fn["value"].as<std::string>(""),
                             fn["expand"].as<std::string>(""), fn["from"].as<std::string>("")});
        if (const auto ex = n["examples"]) {
          const auto read = [](const YAML::Node& e) {
            Example x;
            if (e.IsScalar()) {
              x.text = e.as<std::string>();
              return x;
            }
            x.text = e["text"].as<std::string>("");
            x.path = e["path"].as<std::string>("");
            if (const auto fs = e["facts"])
              for (const auto& kv : fs)
                x.facts.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
            return x;
          };
          for (const auto& e : ex["match"]) s.match.push_back(read(e));
          for (const auto& e : ex["no_match"]) s.no_match.push_back(read(e));
        }
        t.shapes.push_back(std::move(s));
      }
    } catch (const std::exception& e) {
      t.errors.push_back(where + ": " + e.what());
    }
  }
  return t;
}

// Compiles the patterns and checks each shape (templates, examples, modes).
Table build(const Specs& specs) {
  Table t;
  t.errors = specs.errors;
  for (const auto& [kind, reader] : specs.docs) {
    const auto k = shapes::doc_kind(reader);
    if (k == shapes::DocKind::none)
      t.errors.push_back("facts: documents: unknown reader '" + reader + "'");
    t.docs[kind] = k;
  }
  t.continued.insert(specs.continued.begin(), specs.continued.end());
  for (const auto& spec : specs.shapes) {
    const std::string at =
        "facts: " + spec.file + ": " + (spec.id.empty() ? std::string("(no id)") : spec.id);
    Shape s;
    s.id = spec.id;
    s.file = spec.file;
    s.kinds = spec.kinds;
    s.mode = spec.mode;
    std::string err;
    s.rx = Rx::compile(spec.pattern, &err);
    if (!s.rx) {
      t.errors.push_back(at + ": " + err);
      continue;
    }
    if (spec.has_path) {
      s.path_rx = Rx::compile(spec.path, &err);
      if (!s.path_rx) t.errors.push_back(at + ": path: " + err);
    }
    if (spec.has_each) {
      s.each_from = spec.each_from;
      s.each = Rx::compile(spec.each, &err);
      if (!s.each) t.errors.push_back(at + ": each: " + err);
    }
    s.fields = spec.fields;
    if (s.mode == Mode::object && s.fields.empty())
      t.errors.push_back(at + ": an object shape needs fields");
    s.require = spec.require;
    if (s.require.empty())
      for (const auto& [v, fname] : s.fields) s.require.push_back(v);
    s.when = spec.when;
    s.scope = spec.scope;
    s.facts = spec.facts;
    if (s.facts.empty()) t.errors.push_back(at + ": no facts");
    // every name a template uses is a group, a field or a built-in
    std::set<std::string> known = builtin_vars();
    for (const auto* r : {s.rx.get(), s.each.get(), s.path_rx.get()})
      if (r)
        for (const auto& [name, num] : r->names()) known.insert(name);
    for (const auto& [v, fname] : s.fields) known.insert(v);
    for (const auto& fct : s.facts) {
      for (const auto* tpl : {&fct.name, &fct.value})
        for (const auto& nm : template_names(*tpl))
          if (!known.count(nm)) t.errors.push_back(at + ": template names unknown '" + nm + "'");
      if (!fct.expand.empty() && fct.expand != "argv_flags" && fct.expand != "env_words")
        t.errors.push_back(at + ": unknown expand '" + fct.expand + "'");
      if (!fct.expand.empty() && !known.count(fct.from))
        t.errors.push_back(at + ": expand from unknown '" + fct.from + "'");
    }
    if (s.each && !known.count(s.each_from))
      t.errors.push_back(at + ": each from unknown '" + s.each_from + "'");
    s.match = spec.match;
    s.no_match = spec.no_match;
    if (s.match.empty() || s.no_match.empty())
      t.errors.push_back(at + ": needs match and no_match examples");
    for (const auto& e : s.match)
      if (e.facts.empty()) t.errors.push_back(at + ": a match example lists no facts");
    const size_t idx = t.shapes.size();
    for (const auto& k : s.kinds) t.by_kind[k].push_back(idx);
    t.shapes.push_back(std::move(s));
  }
  return t;
}

Table load(const std::vector<RuleFile>& files) {
  return build(read_specs(files));
}

// ---- the rule cache's form of the specs (core/binio.hpp) -------------------------------------
constexpr uint32_t kSpecsFormat = 1;
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(ShapeSpec) == 7 * sizeof(std::string) + 7 * 24 + 16,
              "ShapeSpec changed: update the fact shapes' cached form (kSpecsFormat)");
static_assert(sizeof(FactT) == 4 * sizeof(std::string) && sizeof(Example) == 2 * 32 + 24,
              "FactT / Example changed: update the fact shapes' cached form (kSpecsFormat)");
#endif

void put_examples(binio::Writer& w, const std::vector<Example>& v) {
  w.u32(static_cast<uint32_t>(v.size()));
  for (const auto& e : v) {
    w.str(e.text);
    w.str(e.path);
    w.pairs(e.facts);
  }
}
std::vector<Example> get_examples(binio::Reader& r) {
  std::vector<Example> v(r.count());
  for (auto& e : v) {
    e.text = r.str();
    e.path = r.str();
    e.facts = r.pairs();
  }
  return v;
}

std::string specs_form(const Specs& t) {
  binio::Writer w;
  w.u32(kSpecsFormat);
  w.u32(static_cast<uint32_t>(t.shapes.size()));
  for (const auto& s : t.shapes) {
    w.str(s.id);
    w.str(s.file);
    w.strs(s.kinds);
    w.u32(static_cast<uint32_t>(s.mode));
    w.str(s.pattern);
    w.flag(s.has_path);
    w.flag(s.has_each);
    w.str(s.path);
    w.str(s.each);
    w.str(s.each_from);
    w.pairs(s.fields);
    w.strs(s.require);
    w.strs(s.when);
    w.str(s.scope);
    w.u32(static_cast<uint32_t>(s.facts.size()));
    for (const auto& f : s.facts)
      for (const std::string* x : {&f.name, &f.value, &f.expand, &f.from}) w.str(*x);
    put_examples(w, s.match);
    put_examples(w, s.no_match);
  }
  w.pairs(t.docs);
  w.strs(t.continued);
  w.strs(t.errors);
  return w.take();
}

std::optional<Specs> specs_of_form(std::string_view form) {
  binio::Reader r(form);
  if (r.u32() != kSpecsFormat) return std::nullopt;
  Specs t;
  t.shapes.resize(r.count());
  for (auto& s : t.shapes) {
    s.id = r.str();
    s.file = r.str();
    s.kinds = r.strs();
    const uint32_t mode = r.u32();
    if (mode > static_cast<uint32_t>(Mode::member)) return std::nullopt;
    s.mode = static_cast<Mode>(mode);
    s.pattern = r.str();
    s.has_path = r.flag();
    s.has_each = r.flag();
    s.path = r.str();
    s.each = r.str();
    s.each_from = r.str();
    s.fields = r.pairs();
    s.require = r.strs();
    s.when = r.strs();
    s.scope = r.str();
    s.facts.resize(r.count());
    for (auto& f : s.facts)
      for (std::string* x : {&f.name, &f.value, &f.expand, &f.from}) *x = r.str();
    s.match = get_examples(r);
    s.no_match = get_examples(r);
    if (!r.ok()) return std::nullopt;
  }
  t.docs = r.pairs();
  t.continued = r.strs();
  t.errors = r.strs();
  if (!r.ok() || !r.done()) return std::nullopt;
  return t;
}

// The embedded table: installed from the rule cache's form (use_fact_shapes_form) or read from
// the embedded YAML at the first use. Never replaced once in use (parsers refer into it).
std::mutex g_table_mu;
std::shared_ptr<const Table> g_table;

const Table& embedded() {
  const std::lock_guard<std::mutex> lock(g_table_mu);
  if (!g_table) g_table = std::make_shared<const Table>(load(embedded_rules_under("facts/")));
  return *g_table;
}

// ---- templates -----------------------------------------------------------------------------
std::string unquote_value(std::string_view v) {
  v = text::trim(v);
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'')
    return std::string(v.substr(1, v.size() - 2));
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
    std::string out;
    for (size_t i = 1; i + 1 < v.size(); ++i) {
      if (v[i] == '\\' && i + 2 < v.size()) ++i;
      out.push_back(v[i]);
    }
    return out;
  }
  return std::string(v);
}

// systemd/ulimit sizes: `17179869184`, `16G`, `16T`, `infinity` -> KiB (1024-based suffixes)
std::optional<std::string> to_kib(std::string_view v) {
  v = text::trim(v);
  if (v == "infinity" || v == "unlimited") return std::string("unlimited");
  size_t i = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
  if (i == 0 || i > 19) return std::nullopt;
  auto n = text::to_int<uint64_t>(v.substr(0, i));
  if (!n) return std::nullopt;
  std::string_view suf = v.substr(i);
  if (!suf.empty() && (suf.back() == 'B' || suf.back() == 'b')) suf.remove_suffix(1);
  int shift = 0;
  if (suf.size() == 1) {
    const std::string_view units = "KMGTPE";
    const size_t u =
        units.find(static_cast<char>(std::toupper(static_cast<unsigned char>(suf[0]))));
    if (u == std::string_view::npos) return std::nullopt;
    shift = static_cast<int>(u + 1) * 10;
  } else if (!suf.empty()) {
    return std::nullopt;
  }
  const long double bytes = static_cast<long double>(*n) * static_cast<long double>(1ULL << shift);
  return std::to_string(static_cast<unsigned long long>(bytes / 1024.0L));
}

bool env_word(std::string_view w) {
  const size_t e = w.find('=');
  if (e == std::string_view::npos || e == 0) return false;
  if (!(std::isupper(static_cast<unsigned char>(w[0])) || w[0] == '_')) return false;
  for (char c : w.substr(0, e))
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// `ps e` rows: the environment follows the arguments as NAME=value words
std::vector<std::pair<std::string, std::string>> env_words(std::string_view cmd) {
  const auto w = text::split_ws(cmd);
  size_t i = w.size();
  while (i > 1 && env_word(w[i - 1])) --i;
  std::vector<std::pair<std::string, std::string>> out;
  for (; i < w.size(); ++i) {
    const size_t e = w[i].find('=');
    out.emplace_back(std::string(w[i].substr(0, e)), std::string(w[i].substr(e + 1)));
  }
  return out;
}

std::string without_env(std::string_view cmd) {
  const auto w = text::split_ws(cmd);
  size_t i = w.size();
  while (i > 1 && env_word(w[i - 1])) --i;
  std::string out;
  for (size_t k = 0; k < i; ++k) {
    if (k) out.push_back(' ');
    out += w[k];
  }
  return out;
}

// The flags after the script of a python/torchrun launch line (as /proc/<pid>/cmdline states
// them): `--amp False`, `--amp=False`, a bare `--flag` = "true".
std::vector<std::pair<std::string, std::string>> argv_flags(std::string_view cmd) {
  const auto w = outputs::split_command(without_env(cmd));
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = 0;
  const auto launcher = [](std::string_view a) {
    const std::string_view b = outputs::basename(a);
    return b.rfind("python", 0) == 0 || b == "torchrun" || b == "deepspeed" || b == "msrun" ||
           b == "accelerate";
  };
  while (i < w.size() && !launcher(w[i])) ++i;
  if (i >= w.size()) return out;
  bool script = false;
  for (++i; i < w.size() && out.size() < 512; ++i) {
    const std::string& a = w[i];
    if (!script) {
      if ((a.size() > 3 && a.substr(a.size() - 3) == ".py") || a == "-m") script = true;
      continue;
    }
    if (a.rfind("--", 0) != 0 || a.size() < 3) continue;
    std::string name = a.substr(2), val = "true";
    if (const size_t e = name.find('='); e != std::string::npos) {
      val = name.substr(e + 1);
      name.resize(e);
    } else if (i + 1 < w.size() &&
               (w[i + 1].rfind("-", 0) != 0 ||
                (w[i + 1].size() > 1 && std::isdigit(static_cast<unsigned char>(w[i + 1][1]))))) {
      val = w[++i];
    }
    if (!name.empty() && name.size() < 128) out.emplace_back(name, val);
  }
  return out;
}

std::optional<std::string> apply_filter(std::string_view f, std::string v) {
  if (f == "unquote") return unquote_value(v);
  if (f == "kib") return to_kib(v);
  if (f == "rw_ro") return std::string(v == "true" || v == "1" ? "rw" : "ro");
  if (f == "ro_rw") return std::string(v == "true" || v == "1" ? "ro" : "rw");
  if (f == "no_env") return without_env(v);
  if (f == "lower") return text::to_lower(v);
  if (f == "pep503") {  // pip's normalised name: lowercase, runs of `-_.` -> `-`
    std::string out;
    for (char c : text::to_lower(v)) {
      const bool sep = c == '-' || c == '_' || c == '.';
      if (sep && !out.empty() && out.back() == '-') continue;
      out.push_back(sep ? '-' : c);
    }
    return out;
  }
  if (f == "upstream") {  // a Debian version without epoch and revision: 1:24.1.rc3-2 -> 24.1.rc3
    std::string_view x = v;
    if (const size_t c = x.find(':'); c != std::string_view::npos && c < 4) x.remove_prefix(c + 1);
    if (const size_t d = x.rfind('-'); d != std::string_view::npos && d > 0) x = x.substr(0, d);
    return std::string(x);
  }
  if (f == "basename") return std::string(outputs::basename(v));
  if (f == "trim_slash") {
    while (v.size() > 1 && v.back() == '/') v.pop_back();
    return v;
  }
  return std::nullopt;
}

// `{a:filter|b|=literal}`; false when a placeholder resolves to nothing
bool render(const std::string& t, const Vars& vars, std::string& out, bool allow_empty = false) {
  out.clear();
  size_t i = 0;
  while (i < t.size()) {
    const size_t o = t.find('{', i);
    if (o == std::string::npos) {
      out.append(t, i, std::string::npos);
      break;
    }
    const size_t c = t.find('}', o);
    if (c == std::string::npos) {
      out.append(t, i, std::string::npos);
      break;
    }
    out.append(t, i, o - i);
    if (!placeholder(std::string_view(t).substr(o + 1, c - o - 1))) {
      out.push_back('{');
      i = o + 1;
      continue;
    }
    bool got = false;
    for (auto alt : text::split(std::string_view(t).substr(o + 1, c - o - 1), '|')) {
      if (!alt.empty() && alt.front() == '=') {
        out.append(alt.substr(1));
        got = true;
        break;
      }
      auto parts = text::split(alt, ':');
      const auto it = vars.find(std::string(parts[0]));
      if (it == vars.end() || it->second.empty()) {
        if (!allow_empty) continue;
        got = true;  // an optional group that did not take part: empty in a pattern
        break;
      }
      std::optional<std::string> v = it->second;
      for (size_t k = 1; k < parts.size() && v; ++k) v = apply_filter(parts[k], *v);
      if (!v || v->empty()) continue;
      out += *v;
      got = true;
      break;
    }
    if (!got) return false;
    i = c + 1;
  }
  return true;
}

// ---- the parser ----------------------------------------------------------------------------
class ShapeParser final : public Parser {
 public:
  ShapeParser(const Table& t, std::vector<size_t> shapes, std::string kind, std::string path,
              std::unique_ptr<Parser> inner)
      : t_(t), idx_(std::move(shapes)), path_(std::move(path)), inner_(std::move(inner)) {
    const auto dk = t_.docs.find(kind);
    if (dk != t_.docs.end()) flat_.emplace(dk->second);
    continued_ = t_.continued.count(kind) > 0;
    std::string_view b = outputs::basename(path_);
    while (!b.empty() && b.front() == '.') b.remove_prefix(1);  // `.env` -> env
    if (const size_t dot = b.find('.'); dot != std::string_view::npos && dot > 0)
      b = b.substr(0, dot);
    base_["file"] = b.empty() ? std::string("unknown") : std::string(b);
    base_["path"] = path_;
    if (const auto pid = outputs::pid_from_path(path_)) base_["pid"] = std::to_string(*pid);
    base_["scope"] = base_["file"];
    for (size_t i : idx_) {
      const Shape& s = t_.shapes[i];
      if (s.path_rx && !s.path_rx->match(path_, &path_vars_[i])) skip_.insert(i);
    }
  }

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    if (inner_) inner_->line(raw, ctx, sink);
    std::string_view s = text::rtrim(raw);
    if (flat_) {
      flat_->line(s, ctx.line);
      documents(sink);
    }
    if (continued_) {
      const bool more = !s.empty() && s.back() == '\\';
      if (!cont_.empty() || more) {
        if (cont_.empty()) cont_line_ = ctx.line;
        std::string_view part = more ? s.substr(0, s.size() - 1) : s;
        if (!cont_.empty()) {
          part = text::trim(part);
          if (!part.empty() && part.front() == '#') return;  // a comment inside the continuation
          cont_.push_back(' ');
        }
        if (cont_.size() < kMaxLine) cont_.append(part);
        if (more) return;
        const std::string joined = std::move(cont_);
        cont_.clear();
        lines(joined, cont_line_, sink);
        return;
      }
    }
    lines(s, ctx.line, sink);
  }

  void finish(Sink& sink) override {
    if (inner_) inner_->finish(sink);
    if (!cont_.empty()) {
      const std::string joined = std::move(cont_);
      cont_.clear();
      lines(joined, cont_line_, sink);
    }
    if (flat_) {
      flat_->finish();
      documents(sink);
    }
    for (size_t i : idx_) {
      const Shape& s = t_.shapes[i];
      if (s.mode != Mode::member || skip_.count(i)) continue;
      Vars v = vars_for(i);
      if (s.rx->match(path_, &v)) emit(s, v, 0, sink);
    }
  }

 private:
  Vars vars_for(size_t i) const {
    Vars v = base_;
    if (const auto p = path_vars_.find(i); p != path_vars_.end())
      for (const auto& [k, x] : p->second) v[k] = x;
    return v;
  }

  void lines(std::string_view s, uint32_t line, Sink& sink) {
    for (size_t i : idx_) {
      const Shape& sh = t_.shapes[i];
      if (sh.mode != Mode::line || skip_.count(i)) continue;
      // match first: most lines of a big member match no shape, and build nothing
      Vars v;
      if (!sh.rx->match(s, &v)) continue;
      for (auto& [k, x] : vars_for(i)) v.emplace(k, x);  // groups win over built-ins
      if (!sh.each) {
        emit(sh, v, line, sink);
        continue;
      }
      const auto from = v.find(sh.each_from);
      if (from == v.end()) continue;
      const std::string subject = from->second;
      size_t pos = 0;
      for (size_t n = 0; n < kMaxEach && pos <= subject.size(); ++n) {
        Vars e = v;
        size_t b = 0, end = 0;
        if (!sh.each->match(subject, &e, pos, &b, &end)) break;
        emit(sh, e, line, sink);
        pos = end > b ? end : end + 1;
      }
    }
  }

  const Rx* cached(const std::string& pattern) {
    auto it = rx_cache_.find(pattern);
    if (it != rx_cache_.end()) return it->second.get();
    if (rx_cache_.size() > 512) rx_cache_.clear();
    auto r = Rx::compile(pattern, nullptr);
    return (rx_cache_[pattern] = std::move(r)).get();
  }

  // `when` / `scope` of one item of a document: the pattern with the item's values escaped in
  bool doc_checks(const Shape& s, const std::vector<std::string>& subjects, Vars& v) {
    const auto expand = [&](const std::string& tpl) {
      Vars esc;
      for (const auto& [k, x] : v) esc[k] = escape(x);
      std::string out;
      return render(tpl, esc, out, true) ? std::optional<std::string>(out) : std::nullopt;
    };
    for (const auto& w : s.when) {
      const auto p = expand(w);
      if (!p) return false;
      const Rx* r = cached(*p);
      if (!r) return false;
      bool ok = false;
      for (const auto& sub : subjects)
        if ((ok = r->match(sub, nullptr))) break;
      if (!ok) return false;
    }
    if (!s.scope.empty()) {
      if (const auto p = expand(s.scope)) {
        if (const Rx* r = cached(*p))
          for (const auto& sub : subjects) {
            Vars g;
            if (r->match(sub, &g) && g.count("scope") && !g["scope"].empty()) {
              v["scope"] = g["scope"];
              break;
            }
          }
      }
    }
    return true;
  }

  void documents(Sink& sink) {
    for (const auto& doc : flat_->take()) document(doc, sink);
  }

  void document(const std::vector<Record>& doc, Sink& sink) {
    std::vector<std::string> subjects;
    subjects.reserve(doc.size());
    for (const auto& r : doc) subjects.push_back(r.path + "=" + r.value);
    for (size_t i : idx_) {
      const Shape& s = t_.shapes[i];
      if (skip_.count(i)) continue;
      if (s.mode == Mode::record) {
        for (size_t k = 0; k < doc.size(); ++k) {
          Vars v = vars_for(i);
          if (!s.rx->match(subjects[k], &v)) continue;
          if (!doc_checks(s, subjects, v)) continue;
          emit(s, v, doc[k].line, sink);
        }
      } else if (s.mode == Mode::object) {
        struct Obj {
          Vars vars;
          uint32_t line;
        };
        std::vector<Obj> objs;
        std::map<std::string, size_t> at;
        for (const auto& r : doc) {
          Vars g;
          size_t b = 0, e = 0;
          if (!s.rx->match(r.path, &g, 0, &b, &e) || b != 0) continue;
          const std::string key = r.path.substr(0, e);
          const std::string field = r.path.substr(e);
          auto [it, fresh] = at.emplace(key, objs.size());
          if (fresh) {
            Vars v = vars_for(i);
            for (auto& [k, x] : g) v[k] = x;
            objs.push_back({std::move(v), r.line});
          }
          for (const auto& [var, fname] : s.fields)
            if (fname == field) {
              objs[it->second].vars[var] = r.value;
              // the object is stated where its first required field is (`"Source": …`)
              if (!s.require.empty() && var == s.require.front()) objs[it->second].line = r.line;
            }
        }
        for (auto& o : objs) {
          bool ok = true;
          for (const auto& req : s.require)
            if (!o.vars.count(req) || o.vars[req].empty()) ok = false;
          if (!ok || !doc_checks(s, subjects, o.vars)) continue;
          emit(s, o.vars, o.line, sink);
        }
      }
    }
  }

  void emit(const Shape& s, const Vars& v, uint32_t line, Sink& sink) {
    std::string name, value;
    for (const auto& f : s.facts) {
      if (f.expand.empty()) {
        if (render(f.name, v, name) && render(f.value, v, value)) put(sink, name, value, line);
        continue;
      }
      const auto from = v.find(f.from);
      if (from == v.end()) continue;
      const auto pairs =
          f.expand == "argv_flags" ? argv_flags(from->second) : env_words(from->second);
      for (const auto& [k, x] : pairs) {
        Vars e = v;
        e[f.expand == "argv_flags" ? "flag" : "env"] = k;
        e[f.expand == "argv_flags" ? "value" : "env_value"] = x;
        if (render(f.name, e, name) && render(f.value, e, value)) put(sink, name, value, line);
      }
    }
  }

  void put(Sink& sink, const std::string& name, const std::string& value, uint32_t line) {
    if (facts_ >= kMaxFacts || name.empty() || name.size() > kMaxName) return;
    if (name.find_first_of(" \t\n") != std::string::npos) return;
    ++facts_;
    sink.fact(Fact{name, value.substr(0, shapes::kMaxValue), line});
  }

  const Table& t_;
  std::vector<size_t> idx_;
  std::string path_;
  std::unique_ptr<Parser> inner_;
  std::optional<shapes::Flattener> flat_;
  bool continued_ = false;
  std::string cont_;
  uint32_t cont_line_ = 0;
  Vars base_;
  std::map<size_t, Vars> path_vars_;
  std::set<size_t> skip_;
  std::map<std::string, std::shared_ptr<const Rx>> rx_cache_;
  size_t facts_ = 0;
};

class CollectSink final : public Sink {
 public:
  void event(const Event&) override {}
  void fact(const Fact& f) override { facts.push_back(f); }
  std::vector<Fact> facts;
};

std::vector<Fact> run_one(const Table& t, size_t shape, const std::string& kind, const Example& e) {
  CollectSink sink;
  ShapeParser p(t, {shape}, kind, e.path.empty() ? std::string("example.txt") : e.path, nullptr);
  uint32_t n = 0;
  for (auto l : text::split(e.text, '\n')) p.line(l, LineCtx{++n, 0}, sink);
  p.finish(sink);
  return sink.facts;
}

}  // namespace

std::string fact_shapes_form() {
  return specs_form(read_specs(embedded_rules_under("facts/")));
}

bool use_fact_shapes_form(std::string_view form) {
  auto specs = specs_of_form(form);
  if (!specs || !specs->errors.empty()) return false;
  auto table = std::make_shared<const Table>(build(*specs));
  if (!table->errors.empty()) return false;
  const std::lock_guard<std::mutex> lock(g_table_mu);
  if (g_table) return false;  // in use: the parsers hold references into it
  g_table = std::move(table);
  return true;
}

bool fact_shapes_loaded() {
  const std::lock_guard<std::mutex> lock(g_table_mu);
  return static_cast<bool>(g_table);
}

std::vector<std::string> fact_shape_kinds() {
  std::vector<std::string> out;
  for (const auto& [k, v] : embedded().by_kind) out.push_back(k);
  return out;
}

std::unique_ptr<Parser> with_fact_shapes(std::string_view kind, std::string_view path,
                                         std::unique_ptr<Parser> inner) {
  const Table& t = embedded();
  const auto it = t.by_kind.find(std::string(kind));
  if (it == t.by_kind.end()) return inner;
  return std::make_unique<ShapeParser>(t, it->second, std::string(kind), std::string(path),
                                       std::move(inner));
}

std::vector<std::string> check_fact_shapes(const std::vector<RuleFile>& files) {
  const Table t = load(rules_under(files, "facts/"));
  std::vector<std::string> out = t.errors;
  std::set<std::string> ids;
  for (size_t i = 0; i < t.shapes.size(); ++i) {
    const Shape& s = t.shapes[i];
    const std::string at = "facts: " + s.file + ": " + s.id;
    if (!ids.insert(s.id).second) out.push_back(at + ": duplicate id");
    for (const auto& e : s.match) {
      if (s.kinds.empty()) break;
      const auto got = run_one(t, i, s.kinds.front(), e);
      for (const auto& [name, value] : e.facts) {
        bool found = false;
        for (const auto& f : got) found = found || (f.name == name && f.value == value);
        if (!found) {
          std::string have;
          for (const auto& f : got) have += " " + f.name + "=" + f.value + ";";
          out.push_back(at + ": example does not state " + name + " = " + value +
                        " (got:" + (have.empty() ? std::string(" nothing") : have) + ")");
        }
      }
    }
    for (const auto& e : s.no_match) {
      if (s.kinds.empty()) break;
      const auto got = run_one(t, i, s.kinds.front(), e);
      if (!got.empty())
        out.push_back(at + ": no_match example states " + got.front().name + " = " +
                      got.front().value);
    }
  }
  return out;
}

}  // namespace faultline::parse
