// Library side of `faultline rules list|test|lint`.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <hs/hs.h>
#include <pcre2.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "engine_internal.hpp"
#include "faultline/tag/tag.hpp"

namespace faultline::tag {

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

std::string show_captures(const std::vector<std::pair<std::string, std::string>>& c) {
  std::string out = "{";
  for (size_t i = 0; i < c.size(); ++i) {
    if (i) out += ", ";
    out += c[i].first + ": '" + c[i].second + "'";
  }
  return out + "}";
}

// Parses "<file>:<line>: <id>: <message>" (RuleSet errors/warnings) back into a Problem.
Problem from_message(Problem::Level level, const std::string& m) {
  Problem p;
  p.level = level;
  p.message = m;
  const auto c1 = m.find(": ");
  if (c1 == std::string::npos) return p;
  const std::string loc = m.substr(0, c1);
  const auto colon = loc.rfind(':');
  if (colon == std::string::npos) return p;
  p.file = loc.substr(0, colon);
  try {
    p.line = std::stoi(loc.substr(colon + 1));
  } catch (...) {
    p.line = 0;
  }
  std::string rest = m.substr(c1 + 2);
  const auto c2 = rest.find(": ");
  if (c2 != std::string::npos && rest.find(' ') == c2 + 1 &&
      rest.substr(0, c2).find('.') != std::string::npos &&
      rest.substr(0, c2).find(' ') == std::string::npos) {
    p.id = rest.substr(0, c2);
    rest = rest.substr(c2 + 2);
  }
  p.message = rest;
  return p;
}

struct HsDb {
  hs_database_t* db = nullptr;
  hs_scratch_t* scratch = nullptr;
  ~HsDb() {
    if (scratch) hs_free_scratch(scratch);
    if (db) hs_free_database(db);
  }
};

}  // namespace

std::string Problem::to_string() const {
  std::string out = level == Level::error ? "error: " : "warning: ";
  if (!file.empty()) out += file + ":" + std::to_string(line) + ": ";
  if (!id.empty()) out += id + ": ";
  return out + message;
}

std::string list_text(const RuleSet& rules) {
  std::ostringstream out;
  for (const auto& s : rules.signatures) {
    out << s.id << '\t' << to_string(s.severity) << '\t' << s.status << '\t'
        << (s.kinds.empty() ? std::string("*") : join(s.kinds, ",")) << '\t' << s.title << '\t'
        << s.file << ':' << s.file_line << '\n';
  }
  return out.str();
}

ExampleReport run_examples(const RuleSet& rules, const Engine& engine) {
  ExampleReport r;
  std::ostringstream out;
  auto fail = [&](const Signature& s, int line, const std::string& what) {
    ++r.failures;
    out << "FAIL " << s.file << ':' << line << ": " << s.id << ": " << what << '\n';
  };
  for (const auto& s : rules.signatures) {
    if (!s.active()) continue;
    const int64_t idx = engine.find(s.id);
    if (idx < 0) {
      fail(s, s.file_line, "not in the engine");
      ++r.checked;
      continue;
    }
    const auto sig = static_cast<uint32_t>(idx);
    const std::string kind = s.kinds.empty() ? std::string() : s.kinds.front();
    auto hits = [&](const std::string& line) {
      bool hit = false;
      engine.scan(line, kind, [&](const Hit& h) {
        if (h.signature == sig) hit = true;
      });
      return hit;
    };
    for (const auto& ex : s.match) {
      ++r.checked;
      if (!hits(ex.line)) {
        fail(s, ex.file_line, "match example did not match: '" + ex.line + "'");
        continue;
      }
      if (ex.check_captures) {
        auto got = engine.captures(sig, ex.line);
        if (got != ex.captures)
          fail(s, ex.file_line,
               "captures " + show_captures(got) + " != expected " + show_captures(ex.captures) +
                   " on '" + ex.line + "'");
      }
    }
    for (size_t i = 0; i < s.no_match.size(); ++i) {
      ++r.checked;
      if (hits(s.no_match[i]))
        fail(s, i < s.no_match_lines.size() ? s.no_match_lines[i] : s.file_line,
             "no_match example matched: '" + s.no_match[i] + "'");
    }
  }
  out << r.checked << " examples, " << r.failures << " failures\n";
  r.text = out.str();
  return r;
}

namespace {
// The `{word}` placeholders of a fault text (`{{` and `}}` are literal braces; braces around
// anything but a word stay text), as correlate fills them.
std::vector<std::string> fault_placeholders(const std::string& t) {
  std::vector<std::string> out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.compare(i, 2, "{{") == 0 || t.compare(i, 2, "}}") == 0) {
      ++i;
      continue;
    }
    if (t[i] != '{') continue;
    const size_t e = t.find('}', i);
    if (e == std::string::npos) break;
    const std::string name = t.substr(i + 1, e - i - 1);
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
        }))
      out.push_back(name);
    i = e;
  }
  return out;
}
}  // namespace

std::vector<Problem> lint(const RuleSet& rules, const std::vector<std::string>& kinds) {
  auto kind_known = [&](const std::string& k) {
    if (!kinds.empty()) return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
    return std::find(known_kinds().begin(), known_kinds().end(), k) != known_kinds().end();
  };
  std::vector<Problem> out;
  for (const auto& e : rules.errors) out.push_back(from_message(Problem::Level::error, e));
  for (const auto& w : rules.warnings) out.push_back(from_message(Problem::Level::warning, w));

  std::set<std::string> ids;
  for (const auto& s : rules.signatures) ids.insert(s.id);

  for (const auto& s : rules.signatures) {
    auto add = [&](Problem::Level lv, int line, const std::string& msg) {
      out.push_back(Problem{lv, s.file, line ? line : s.file_line, s.id, msg});
    };
    for (const auto& k : s.kinds)
      if (!kind_known(k)) add(Problem::Level::error, s.file_line, "unknown kind `" + k + "`");
    for (const auto& c : s.causes)
      if (!ids.count(c)) add(Problem::Level::warning, s.file_line, "causes unknown id `" + c + "`");
    for (const auto& c : s.fault.caused_by)
      if (!ids.count(c))
        add(Problem::Level::warning, s.file_line, "fault.caused_by unknown id `" + c + "`");
    for (const auto& c : s.fault.cleared_by)
      if (!ids.count(c))
        add(Problem::Level::warning, s.file_line, "fault.cleared_by unknown id `" + c + "`");
    if (s.fault.present && !s.fault.clear_key.empty() &&
        s.capture.find("<" + s.fault.clear_key + ">") == std::string::npos)
      add(Problem::Level::error, s.file_line,
          "fault.clear_key `" + s.fault.clear_key + "` is not a group of `capture`");
    if (s.fault.present && !s.fault.code_capture.empty() &&
        s.capture.find("<" + s.fault.code_capture + ">") == std::string::npos)
      add(Problem::Level::error, s.file_line,
          "fault.code_capture `" + s.fault.code_capture + "` is not a group of `capture`");

    // `{name}` in a fault text is filled from the capture group of that name: a name that is
    // no group of `capture` can never resolve and prints "?" in every report. `{device}` and
    // `{npu}` fall back to the device the line's parser attributed it to (docs/faults.md).
    if (s.fault.present)
      for (const auto& [field, text] :
           {std::pair<const char*, const std::string*>{"cause", &s.fault.cause},
            {"suggestion", &s.fault.suggestion},
            {"code", &s.fault.code}})
        for (const auto& name : fault_placeholders(*text))
          if (name != "device" && name != "npu" &&
              s.capture.find("<" + name + ">") == std::string::npos)
            add(Problem::Level::error, s.file_line,
                std::string("fault.") + field + ": placeholder `{" + name +
                    "}` is not a group of `capture`");

    // Hyperscan: each pattern alone, then all of them against the match examples.
    const unsigned flags = detail::hs_flags(s);
    bool compiled_all = true;
    for (size_t i = 0; i < s.patterns.size(); ++i) {
      const int line = i < s.pattern_lines.size() ? s.pattern_lines[i] : s.file_line;
      const std::string& p = s.patterns[i];
      hs_expr_info_t* info = nullptr;
      hs_compile_error_t* err = nullptr;
      if (hs_expression_info(p.c_str(), flags | HS_FLAG_ALLOWEMPTY, &info, &err) != HS_SUCCESS) {
        add(Problem::Level::error, line,
            "pattern `" + p + "`: " + (err && err->message ? err->message : "rejected"));
        if (err) hs_free_compile_error(err);
        compiled_all = false;
        continue;
      }
      if (info->min_width == 0) {
        add(Problem::Level::error, line, "pattern `" + p + "` can match the empty string");
        compiled_all = false;
      }
      std::free(info);
      if (p.size() >= 2 && p.compare(0, 2, ".*") == 0)
        add(Problem::Level::warning, line, "pattern `" + p + "`: leading `.*` is redundant");
      if (p.size() >= 2 && p.compare(p.size() - 2, 2, ".*") == 0 &&
          (p.size() < 3 || p[p.size() - 3] != '\\'))
        add(Problem::Level::warning, line, "pattern `" + p + "`: trailing `.*` is redundant");
    }
    if (compiled_all && !s.patterns.empty()) {
      std::vector<const char*> exprs;
      std::vector<unsigned> fl, idv;
      for (size_t i = 0; i < s.patterns.size(); ++i) {
        exprs.push_back(s.patterns[i].c_str());
        fl.push_back(flags);
        idv.push_back(static_cast<unsigned>(i));
      }
      HsDb h;
      hs_compile_error_t* err = nullptr;
      if (hs_compile_multi(exprs.data(), fl.data(), idv.data(), static_cast<unsigned>(exprs.size()),
                           HS_MODE_BLOCK, nullptr, &h.db, &err) != HS_SUCCESS) {
        const size_t bad = err && err->expression >= 0 ? static_cast<size_t>(err->expression) : 0;
        add(Problem::Level::error, bad < s.pattern_lines.size() ? s.pattern_lines[bad] : 0,
            std::string("Hyperscan: ") + (err && err->message ? err->message : "compile failed"));
        if (err) hs_free_compile_error(err);
      } else if (hs_alloc_scratch(h.db, &h.scratch) == HS_SUCCESS) {
        std::vector<uint8_t> used(s.patterns.size(), 0);
        for (const auto& ex : s.match) {
          hs_scan(
              h.db, ex.line.data(), static_cast<unsigned>(ex.line.size()), 0, h.scratch,
              [](unsigned id, unsigned long long, unsigned long long, unsigned, void* ctx) {
                static_cast<std::vector<uint8_t>*>(ctx)->at(id) = 1;
                return 0;
              },
              &used);
        }
        for (size_t i = 0; i < used.size(); ++i)
          if (!used[i])
            add(Problem::Level::error, i < s.pattern_lines.size() ? s.pattern_lines[i] : 0,
                "pattern `" + s.patterns[i] + "` matches none of the match examples");
      }
    }

    // PCRE2 capture pattern.
    if (!s.capture.empty()) {
      int errcode = 0;
      PCRE2_SIZE erroff = 0;
      pcre2_code* code =
          pcre2_compile(reinterpret_cast<PCRE2_SPTR>(s.capture.data()), s.capture.size(),
                        s.caseless ? PCRE2_CASELESS : 0U, &errcode, &erroff, nullptr);
      if (!code) {
        PCRE2_UCHAR buf[256];
        pcre2_get_error_message(errcode, buf, sizeof buf);
        add(Problem::Level::error, s.capture_line,
            std::string("capture pattern: ") + reinterpret_cast<const char*>(buf) + " at offset " +
                std::to_string(erroff));
      } else {
        uint32_t count = 0, entry = 0;
        PCRE2_SPTR table = nullptr;
        pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
        pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &entry);
        pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
        std::set<std::string> names;
        for (uint32_t j = 0; j < count; ++j)
          names.insert(reinterpret_cast<const char*>(table + static_cast<size_t>(j) * entry + 2));
        pcre2_code_free(code);
        if (names.empty())
          add(Problem::Level::warning, s.capture_line, "capture pattern has no named group");
        bool any_checked = false;
        for (const auto& ex : s.match) {
          any_checked |= ex.check_captures;
          for (const auto& [name, value] : ex.captures)
            if (!names.count(name))
              add(Problem::Level::error, ex.file_line,
                  "example expects capture `" + name + "` that the capture pattern lacks");
        }
        if (!any_checked)
          add(Problem::Level::warning, s.capture_line,
              "no match example states `captures:`, so the capture pattern is untested");
      }
    }
    if (s.references.empty())
      add(Problem::Level::warning, s.file_line, "no `references` (where the line was seen)");
  }
  std::stable_sort(out.begin(), out.end(), [](const Problem& a, const Problem& b) {
    if (a.file != b.file) return a.file < b.file;
    return a.line < b.line;
  });
  return out;
}

std::string escape_literal(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 8);
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    } else if (std::string_view("\\^$.|?*+()[]{}").find(ch) != std::string_view::npos) {
      out.push_back('\\');
      out.push_back(ch);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

std::string coverage_text(const RuleSet& rules) {
  // real: a match example cites where it was seen (`seen:`), or the signature has references
  // and none of them says its examples were synthesized
  struct Row {
    int faults = 0, real = 0, cited = 0, synthesized = 0;
  };
  std::map<std::string, Row> by_class, by_pack, by_kind;
  Row total;
  int active = 0;
  for (const auto& s : rules.signatures) {
    if (!s.active()) continue;
    ++active;
    if (!s.fault.present) continue;
    const bool cited = std::any_of(s.match.begin(), s.match.end(),
                                   [](const Example& e) { return !e.seen.empty(); });
    const bool synth = std::any_of(s.references.begin(), s.references.end(), [](std::string r) {
      for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return r.find("synthesi") != std::string::npos;
    });
    const bool real = cited || (!s.references.empty() && !synth);
    auto add = [&](Row& r) {
      ++r.faults;
      r.real += real ? 1 : 0;
      r.cited += cited ? 1 : 0;
      r.synthesized += synth ? 1 : 0;
    };
    add(total);
    add(by_class[s.fault.cls]);
    add(by_pack[s.family]);
    if (s.kinds.empty()) add(by_kind["(any)"]);
    for (const auto& k : s.kinds) add(by_kind[k]);
  }
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%d fault signatures of %d active; %d with real example lines (%d cite them with "
                "seen:), %d with synthesized examples\n",
                total.faults, active, total.real, total.cited, total.synthesized);
  out += buf;
  auto table = [&](const char* head, const std::map<std::string, Row>& m) {
    std::snprintf(buf, sizeof buf, "\n%-22s %7s %7s %7s %12s\n", head, "faults", "real", "seen",
                  "synthesized");
    out += buf;
    for (const auto& [k, r] : m) {
      std::snprintf(buf, sizeof buf, "%-22s %7d %7d %7d %12d\n", k.c_str(), r.faults, r.real,
                    r.cited, r.synthesized);
      out += buf;
    }
  };
  table("CLASS", by_class);
  table("PACK", by_pack);
  table("KIND", by_kind);
  return out;
}

}  // namespace faultline::tag
