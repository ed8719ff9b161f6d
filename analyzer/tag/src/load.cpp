// Signature pack loader: yaml-cpp parse of rules/signatures/<family>.yaml plus schema validation.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include "faultline/tag/tag.hpp"

namespace faultline::tag {

const std::vector<std::string_view>& known_kinds() {
  static const std::vector<std::string_view> kinds = {
      "plog", "device_app_log", "device_os_log", "device_fw_log", "device_event_log",
      "device_syslog", "slogd_log", "bbox_history", "host_kernel_log", "dmesg", "dmesg_t",
      "journal", "syslog", "install_log", "operation_log", "npu_smi_info", "npu_smi_kv",
      "version_info", "dpkg_list", "rpm_list", "pip_list", "proc_maps", "proc_cmdline", "environ",
      "mountinfo", "modinfo", "modprobe", "lsmod", "ls_listing", "uname", "uptime", "proc_stat",
      "date", "timedatectl", "ulimit", "sysctl", "lspci", "train_log", "probe_output", "manifest",
      "readlink", "proc_limits", "timezone", "hostname", "text", "binary", "mindx_dl_log",
      "volcano_log", "mindie_log", "mindio_log", "amct_log", "lcne_log", "hccn_link_stat",
      "composite", "boot_record", "launch_spec", "ldd", "modules_dep", "sys_module", "lsof",
      "dkms_status", "shell_history",
      // kinds read by fact shapes (rules/facts, docs/facts.md "Fact shapes")
      "dockerfile", "container_inspect", "ps_list", "dpkg_status", "pip_dist_info",
      "version_banner", "stat", "autofs_map", "env_file", "device_vmcore", "config_dump",
      "env_report", "model_config"};
  return kinds;
}

namespace {

bool is_lower_word(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// <family>.<name>: lowercase [a-z0-9_.], no empty dot-separated part.
bool valid_id(std::string_view id) {
  if (id.empty() || id.front() == '.' || id.back() == '.') return false;
  if (id.find('.') == std::string_view::npos) return false;
  if (id.find("..") != std::string_view::npos) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
}

bool valid_group_name(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string file_stem(const std::string& path) {
  auto slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  auto dot = base.find_last_of('.');
  return dot == std::string::npos ? base : base.substr(0, dot);
}

int line_of(const YAML::Node& n, int fallback) {
  const auto m = n.Mark();
  return m.line >= 0 ? m.line + 1 : fallback;
}

struct Ctx {
  const std::string& file;
  std::vector<std::string>& errors;
  std::vector<std::string>& warnings;
  void error(int line, const std::string& id, const std::string& msg) const {
    errors.push_back(file + ":" + std::to_string(line) + ": " + (id.empty() ? "" : id + ": ") +
                     msg);
  }
  void warn(int line, const std::string& id, const std::string& msg) const {
    warnings.push_back(file + ":" + std::to_string(line) + ": " + (id.empty() ? "" : id + ": ") +
                       msg);
  }
};

const std::set<std::string, std::less<>> kSigKeys = {
    "id",         "title",    "kinds",  "severity", "status",      "flags", "patterns", "capture",
    "references", "examples", "causes", "notes",    "description", "fault", "restart"};

const std::set<std::string, std::less<>> kRestartKeys = {"scope", "from", "margin_s", "kinds",
                                                         "notes"};

const std::set<std::string, std::less<>> kFaultKeys = {
    "class",        "component",  "role",      "cause",     "suggestion", "code",
    "code_capture", "severity",   "causes",    "caused_by", "notes",      "generic",
    "kb",           "cleared_by", "clear_key", "lookup"};

const std::set<std::string, std::less<>> kFaultClasses = {
    "hardware", "os", "network", "driver", "cann", "framework", "user_config"};

std::optional<Severity> parse_severity(std::string_view s) {
  if (s == "debug") return Severity::debug;
  if (s == "info") return Severity::info;
  if (s == "notice") return Severity::notice;
  if (s == "warning") return Severity::warning;
  if (s == "error") return Severity::error;
  if (s == "critical") return Severity::critical;
  return std::nullopt;
}

// A sequence of non-empty scalars. Returns false (after reporting) when the shape is wrong.
bool string_list(const YAML::Node& n, const char* key, const Ctx& cx, const std::string& id,
                 int line, std::vector<std::string>* out, std::vector<int>* lines = nullptr) {
  if (!n || n.IsNull()) return true;
  if (!n.IsSequence()) {
    cx.error(line_of(n, line), id, std::string("`") + key + "` must be a list");
    return false;
  }
  bool ok = true;
  for (const auto& e : n) {
    if (!e.IsScalar()) {
      cx.error(line_of(e, line), id, std::string("`") + key + "` entries must be strings");
      ok = false;
      continue;
    }
    out->push_back(e.Scalar());
    if (lines) lines->push_back(line_of(e, line));
  }
  return ok;
}

// The `fault:` block (docs/faults.md). Returns false when it has an error (already reported).
bool parse_fault(const YAML::Node& n, const Ctx& cx, const std::string& id, int line,
                 Signature* s) {
  if (!n.IsMap()) {
    cx.error(line_of(n, line), id, "`fault` must be a mapping (class, component, cause, ...)");
    return false;
  }
  bool ok = true;
  Fault& f = s->fault;
  f.present = true;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
    if (!kFaultKeys.count(key))
      cx.warn(line_of(it->first, line), id, "unknown fault key `" + key + "`");
  }
  auto scalar = [&](const char* key, std::string* out, bool required) {
    const auto v = n[key];
    if (!v || v.IsNull()) {
      if (required) {
        cx.error(line_of(n, line), id, std::string("fault: missing `") + key + "`");
        ok = false;
      }
      return;
    }
    if (!v.IsScalar() || v.Scalar().empty()) {
      cx.error(line_of(v, line), id,
               std::string("fault: `") + key + "` must be a non-empty string");
      ok = false;
      return;
    }
    *out = v.Scalar();
  };
  scalar("class", &f.cls, true);
  scalar("component", &f.component, true);
  scalar("cause", &f.cause, true);
  scalar("suggestion", &f.suggestion, true);
  scalar("code", &f.code, false);
  scalar("code_capture", &f.code_capture, false);
  scalar("kb", &f.kb, false);
  scalar("clear_key", &f.clear_key, false);
  std::string role;
  scalar("role", &role, false);
  if (!f.cls.empty() && !kFaultClasses.count(f.cls)) {
    cx.error(
        line_of(n["class"], line), id,
        "fault: bad class `" + f.cls + "` (hardware|os|network|driver|cann|framework|user_config)");
    ok = false;
  }
  if (!role.empty()) {
    if (role != "cause" && role != "symptom") {
      cx.error(line_of(n["role"], line), id, "fault: bad role `" + role + "` (cause|symptom)");
      ok = false;
    } else {
      f.role = role;
    }
  }
  if (!f.clear_key.empty() && !valid_group_name(f.clear_key)) {
    cx.error(line_of(n["clear_key"], line), id, "fault: bad `clear_key` name");
    ok = false;
  }
  if (!f.code_capture.empty() && !valid_group_name(f.code_capture)) {
    cx.error(line_of(n["code_capture"], line), id, "fault: bad `code_capture` name");
    ok = false;
  }
  if (const auto g = n["generic"]) {
    if (!g.IsScalar() || (g.Scalar() != "true" && g.Scalar() != "false" && g.Scalar() != "last" &&
                          g.Scalar() != "code")) {
      cx.error(line_of(g, line), id, "fault: `generic` must be true, false, code or last");
      ok = false;
    } else {
      f.generic = g.Scalar() != "false";
      f.generic_last = g.Scalar() == "last";
      f.generic_code = g.Scalar() == "code";
    }
  }
  if (!string_list(n["lookup"], "lookup", cx, id, line, &f.lookup)) ok = false;
  if (!f.lookup.empty() && f.code_capture.empty() && f.code.find('{') == std::string::npos) {
    cx.error(line_of(n["lookup"], line), id,
             "fault: `lookup` needs a code from the line (`code_capture` or `{capture}` in code)");
    ok = false;
  }
  if (const auto sev = n["severity"]) {
    auto v = sev.IsScalar() ? parse_severity(sev.Scalar()) : std::nullopt;
    if (!v) {
      cx.error(line_of(sev, line), id,
               "fault: bad severity (debug|info|notice|warning|error|critical)");
      ok = false;
    } else {
      f.has_severity = true;
      f.severity = *v;
    }
  }
  std::vector<std::string> causes;
  ok &= string_list(n["causes"], "fault.causes", cx, id, line, &causes);
  ok &= string_list(n["caused_by"], "fault.caused_by", cx, id, line, &f.caused_by);
  ok &= string_list(n["cleared_by"], "fault.cleared_by", cx, id, line, &f.cleared_by);
  for (const auto& c : causes)
    if (std::find(s->causes.begin(), s->causes.end(), c) == s->causes.end()) s->causes.push_back(c);
  for (const auto* v : {&causes, &f.caused_by})
    for (const auto& c : *v)
      if (!valid_id(c)) {
        cx.error(line_of(n, line), id, "fault: bad signature id `" + c + "`");
        ok = false;
      }
  return ok;
}

// A small non-negative integer scalar (at most `max`), or nullopt.
std::optional<int> small_int(const YAML::Node& n, int max) {
  if (!n || !n.IsScalar()) return std::nullopt;
  const std::string& v = n.Scalar();
  if (v.empty() || v.size() > 6 ||
      !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const int x = std::stoi(v);
  if (x > max) return std::nullopt;
  return x;
}

// The `restart:` block (docs/faults.md "Restarts"). Returns false when it has an error.
bool parse_restart(const YAML::Node& n, const Ctx& cx, const std::string& id, int line,
                   Restart* r) {
  if (!n.IsMap()) {
    cx.error(line_of(n, line), id, "`restart` must be a mapping (scope, from, margin_s, kinds)");
    return false;
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    if (kRestartKeys.find(key) == kRestartKeys.end())
      cx.warn(line_of(it->first, line), id, "unknown restart key `" + key + "`");
  }
  bool ok = true;
  r->present = true;
  if (const auto sc = n["scope"]) {
    if (!sc.IsScalar() || (sc.Scalar() != "host" && sc.Scalar() != "process")) {
      cx.error(line_of(sc, line), id, "restart: `scope` must be host or process");
      ok = false;
    } else {
      r->scope = sc.Scalar();
    }
  }
  if (const auto f = n["from"]) {
    const auto v = small_int(f, 1000);
    if (!v || *v < 1) {
      cx.error(line_of(f, line), id, "restart: `from` must be a whole number from 1 to 1000");
      ok = false;
    } else {
      r->from = *v;
    }
  }
  if (const auto m = n["margin_s"]) {
    const auto v = small_int(m, 86400);
    if (!v) {
      cx.error(line_of(m, line), id, "restart: `margin_s` must be whole seconds, 0 to 86400");
      ok = false;
    } else {
      r->margin_s = *v;
    }
  }
  if (const auto k = n["kinds"]) {
    std::vector<std::string> kinds;
    ok &= string_list(k, "restart.kinds", cx, id, line, &kinds);
    if (kinds.empty()) {
      cx.error(line_of(k, line), id, "restart: `kinds` must name at least one kind");
      ok = false;
    } else {
      r->kinds = std::move(kinds);
    }
  }
  return ok;
}

// Parses one signature mapping. Returns false when it has an error (already reported).
bool parse_signature(const YAML::Node& n, const std::string& family, const Ctx& cx, Signature* s) {
  const int line = line_of(n, 1);
  s->file = cx.file;
  s->file_line = line;
  s->family = family;
  if (!n.IsMap()) {
    cx.error(line, "", "a signature must be a mapping");
    return false;
  }
  const auto idn = n["id"];
  if (!idn || !idn.IsScalar() || idn.Scalar().empty()) {
    cx.error(line, "", "signature without `id`");
    return false;
  }
  s->id = idn.Scalar();
  const std::string& id = s->id;
  bool ok = true;
  if (!valid_id(id)) {
    cx.error(line_of(idn, line), id,
             "bad id: must be <family>.<name> in lowercase [a-z0-9_.] without empty parts");
    ok = false;
  } else if (id.substr(0, id.find('.')) != family) {
    cx.error(line_of(idn, line), id,
             "id family `" + id.substr(0, id.find('.')) + "` differs from the file's family `" +
                 family + "`");
    ok = false;
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
    if (!kSigKeys.count(key)) cx.warn(line_of(it->first, line), id, "unknown key `" + key + "`");
  }

  const auto title = n["title"];
  if (!title || !title.IsScalar() || title.Scalar().empty()) {
    cx.error(line, id, "missing `title`");
    ok = false;
  } else {
    s->title = title.Scalar();
  }

  ok &= string_list(n["kinds"], "kinds", cx, id, line, &s->kinds);
  for (const auto& k : s->kinds) {
    if (!is_lower_word(k)) {
      cx.error(line_of(n["kinds"], line), id, "bad kind `" + k + "`: must be [a-z0-9_]+");
      ok = false;
    } else if (std::find(known_kinds().begin(), known_kinds().end(), k) == known_kinds().end()) {
      cx.warn(line_of(n["kinds"], line), id, "unknown kind `" + k + "`");
    }
  }

  if (const auto sev = n["severity"]) {
    auto v = sev.IsScalar() ? parse_severity(sev.Scalar()) : std::nullopt;
    if (!v) {
      cx.error(line_of(sev, line), id, "bad severity (debug|info|notice|warning|error|critical)");
      ok = false;
    } else {
      s->severity = *v;
    }
  } else {
    cx.error(line, id, "missing `severity`");
    ok = false;
  }

  if (const auto st = n["status"]) {
    if (!st.IsScalar() ||
        (st.Scalar() != "experimental" && st.Scalar() != "stable" && st.Scalar() != "deprecated")) {
      cx.error(line_of(st, line), id, "bad status (experimental|stable|deprecated)");
      ok = false;
    } else {
      s->status = st.Scalar();
    }
  }

  std::vector<std::string> flags;
  ok &= string_list(n["flags"], "flags", cx, id, line, &flags);
  for (const auto& f : flags) {
    if (f == "caseless") {
      s->caseless = true;
    } else {
      cx.error(line_of(n["flags"], line), id, "unknown flag `" + f + "` (known: caseless)");
      ok = false;
    }
  }

  const auto pats = n["patterns"];
  if (!pats || !pats.IsSequence() || pats.size() == 0) {
    cx.error(pats ? line_of(pats, line) : line, id, "`patterns` must be a non-empty list");
    ok = false;
  } else {
    ok &= string_list(pats, "patterns", cx, id, line, &s->patterns, &s->pattern_lines);
    for (size_t i = 0; i < s->patterns.size(); ++i) {
      if (s->patterns[i].empty()) {
        cx.error(s->pattern_lines[i], id, "empty pattern");
        ok = false;
      }
    }
  }

  if (const auto cap = n["capture"]) {
    if (!cap.IsScalar()) {
      cx.error(line_of(cap, line), id, "`capture` must be a string");
      ok = false;
    } else {
      s->capture = cap.Scalar();
      s->capture_line = line_of(cap, line);
    }
  }

  ok &= string_list(n["references"], "references", cx, id, line, &s->references);
  ok &= string_list(n["causes"], "causes", cx, id, line, &s->causes);
  for (const auto& c : s->causes) {
    if (!valid_id(c)) {
      cx.error(line_of(n["causes"], line), id, "bad id `" + c + "` in `causes`");
      ok = false;
    }
  }

  if (const auto fb = n["fault"]) ok &= parse_fault(fb, cx, id, line, s);
  if (const auto rb = n["restart"]) ok &= parse_restart(rb, cx, id, line, &s->restart);

  const auto ex = n["examples"];
  if (!ex || !ex.IsMap()) {
    cx.error(ex ? line_of(ex, line) : line, id,
             "missing `examples` (needs at least one match and one no_match)");
    return false;
  }
  const auto m = ex["match"];
  if (!m || !m.IsSequence() || m.size() == 0) {
    cx.error(line_of(ex, line), id, "`examples.match` must list at least one line");
    ok = false;
  } else {
    for (const auto& e : m) {
      Example x;
      x.file_line = line_of(e, line);
      if (e.IsScalar()) {
        x.line = e.Scalar();
      } else if (e.IsMap() && e["line"] && e["line"].IsScalar()) {
        x.line = e["line"].Scalar();
        if (e["seen"] && e["seen"].IsScalar()) x.seen = e["seen"].Scalar();
        for (auto it = e.begin(); it != e.end(); ++it) {
          const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
          if (key != "line" && key != "captures" && key != "seen")
            cx.warn(line_of(it->first, x.file_line), id, "unknown example key `" + key + "`");
        }
        if (const auto c = e["captures"]) {
          x.check_captures = true;
          if (c.IsNull()) {
            // `captures:` with nothing: expects no captures.
          } else if (!c.IsMap()) {
            cx.error(line_of(c, x.file_line), id, "`captures` must be a mapping name: value");
            ok = false;
          } else {
            for (auto it = c.begin(); it != c.end(); ++it) {
              const std::string name = it->first.IsScalar() ? it->first.Scalar() : std::string();
              if (!valid_group_name(name) || !it->second.IsScalar()) {
                cx.error(line_of(it->first, x.file_line), id,
                         "bad capture `" + name + "`: expected name: value");
                ok = false;
                continue;
              }
              x.captures.emplace_back(name, it->second.Scalar());
            }
            std::sort(x.captures.begin(), x.captures.end());
          }
          if (s->capture.empty() && !x.captures.empty()) {
            cx.error(x.file_line, id,
                     "example expects captures but the signature has no `capture`");
            ok = false;
          }
        }
      } else {
        cx.error(x.file_line, id, "a match example is a line or {line: ..., captures: {...}}");
        ok = false;
        continue;
      }
      if (x.line.find('\n') != std::string::npos) {
        cx.error(x.file_line, id, "an example must be one line");
        ok = false;
      }
      s->match.push_back(std::move(x));
    }
  }
  const auto nm = ex["no_match"];
  if (!nm || !nm.IsSequence() || nm.size() == 0) {
    cx.error(line_of(ex, line), id, "`examples.no_match` must list at least one line");
    ok = false;
  } else {
    for (const auto& e : nm) {
      std::string text;
      if (e.IsScalar()) {
        text = e.Scalar();
      } else if (e.IsMap() && e["line"] && e["line"].IsScalar()) {
        text = e["line"].Scalar();
      } else {
        cx.error(line_of(e, line), id, "a no_match example is a line");
        ok = false;
        continue;
      }
      if (text.find('\n') != std::string::npos) {
        cx.error(line_of(e, line), id, "an example must be one line");
        ok = false;
      }
      s->no_match.push_back(std::move(text));
      s->no_match_lines.push_back(line_of(e, line));
    }
  }
  for (auto it = ex.begin(); it != ex.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
    if (key != "match" && key != "no_match")
      cx.warn(line_of(it->first, line), id, "unknown examples key `" + key + "`");
  }
  return ok;
}

// Loads one root into `out`, returning the signatures in file order. Ids defined twice within
// the root are errors.
std::vector<Signature> load_root(const std::vector<RuleFile>& files, RuleSet* out) {
  std::vector<Signature> sigs;
  std::unordered_map<std::string, std::string> where;  // id -> "file:line"
  for (const auto& f : files) {
    Ctx cx{f.path, out->errors, out->warnings};
    const std::string family = file_stem(f.path);
    YAML::Node doc;
    try {
      doc = YAML::Load(std::string(f.text));
    } catch (const YAML::Exception& e) {
      cx.error(e.mark.line >= 0 ? e.mark.line + 1 : 1, "", "YAML: " + e.msg);
      continue;
    }
    if (!doc.IsMap()) {
      cx.error(1, "", "a signature pack is a mapping with `family` and `signatures`");
      continue;
    }
    if (!is_lower_word(family)) {
      cx.error(1, "", "file name `" + family + "` is not a valid family ([a-z0-9_]+)");
      continue;
    }
    const auto fam = doc["family"];
    if (!fam || !fam.IsScalar() || fam.Scalar() != family) {
      cx.error(fam ? line_of(fam, 1) : 1, "", "`family` must equal the file stem `" + family + "`");
      continue;
    }
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
      if (key != "family" && key != "signatures")
        cx.warn(line_of(it->first, 1), "", "unknown key `" + key + "`");
    }
    const auto list = doc["signatures"];
    if (!list || list.IsNull()) {
      cx.warn(1, "", "no signatures");
      continue;
    }
    if (!list.IsSequence()) {
      cx.error(line_of(list, 1), "", "`signatures` must be a list");
      continue;
    }
    for (const auto& n : list) {
      Signature s;
      bool ok = false;
      try {
        ok = parse_signature(n, family, cx, &s);
      } catch (const YAML::Exception& e) {
        cx.error(e.mark.line >= 0 ? e.mark.line + 1 : line_of(n, 1), s.id, "YAML: " + e.msg);
      }
      if (s.id.empty()) continue;
      const std::string here = f.path + ":" + std::to_string(s.file_line);
      auto [it, fresh] = where.emplace(s.id, here);
      if (!fresh) {
        cx.error(s.file_line, s.id, "duplicate id (first defined at " + it->second + ")");
        continue;
      }
      if (ok) sigs.push_back(std::move(s));
    }
  }
  return sigs;
}

// Same rule, wherever it is written: every field that changes matching, captures, reporting
// or the examples; not the file and line numbers.
bool same_definition(const Signature& a, const Signature& b) {
  auto examples = [](const std::vector<Example>& v) {
    std::vector<std::tuple<std::string, std::vector<std::pair<std::string, std::string>>, bool>>
        out;
    for (const auto& e : v) out.emplace_back(e.line, e.captures, e.check_captures);
    return out;
  };
  return a.id == b.id && a.family == b.family && a.title == b.title && a.kinds == b.kinds &&
         a.severity == b.severity && a.patterns == b.patterns && a.capture == b.capture &&
         a.status == b.status && a.references == b.references && a.no_match == b.no_match &&
         a.caseless == b.caseless && a.causes == b.causes &&
         examples(a.match) == examples(b.match) && a.fault.present == b.fault.present &&
         a.fault.cls == b.fault.cls && a.fault.component == b.fault.component &&
         a.fault.role == b.fault.role && a.fault.cause == b.fault.cause &&
         a.fault.suggestion == b.fault.suggestion && a.fault.code == b.fault.code &&
         a.fault.code_capture == b.fault.code_capture &&
         a.fault.has_severity == b.fault.has_severity && a.fault.severity == b.fault.severity &&
         a.fault.caused_by == b.fault.caused_by && a.fault.generic == b.fault.generic &&
         a.fault.generic_last == b.fault.generic_last && a.fault.kb == b.fault.kb &&
         a.fault.cleared_by == b.fault.cleared_by && a.fault.clear_key == b.fault.clear_key &&
         a.restart.present == b.restart.present && a.restart.scope == b.restart.scope &&
         a.restart.from == b.restart.from && a.restart.margin_s == b.restart.margin_s &&
         a.restart.kinds == b.restart.kinds;
}

}  // namespace

RuleSet load_signatures(const std::vector<RuleFile>& files) {
  return load_signature_roots({files});
}

RuleSet load_signature_roots(const std::vector<std::vector<RuleFile>>& roots) {
  RuleSet out;
  std::unordered_map<std::string, size_t> index;  // id -> position in out.signatures
  for (const auto& root : roots) {
    for (auto& s : load_root(root, &out)) {
      auto it = index.find(s.id);
      if (it == index.end()) {
        index.emplace(s.id, out.signatures.size());
        out.signatures.push_back(std::move(s));
      } else {
        Signature& old = out.signatures[it->second];
        // A copy of the built-in rules (e.g. a site pack started from rules/) restates most ids
        // unchanged: only a definition that differs is worth a warning.
        if (!same_definition(old, s))
          out.warnings.push_back(s.file + ":" + std::to_string(s.file_line) + ": " + s.id +
                                 ": overrides the definition at " + old.file + ":" +
                                 std::to_string(old.file_line));
        old = std::move(s);
      }
    }
  }
  return out;
}

}  // namespace faultline::tag
