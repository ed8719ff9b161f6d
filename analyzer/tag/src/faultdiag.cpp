// `faultline rules import-faultdiag` and the run-time ascend-fd knowledge base: a MindCluster
// FaultDiag (ascend-fd) kg-config.json -> a signature pack whose every code is a fault event
// carrying the knowledge base's own cause and suggestion (read from the user's file at run time;
// nothing of the knowledge base ships with faultline). docs/faults.md, "The ascend-fd knowledge
// base as a pack".
#define PCRE2_CODE_UNIT_WIDTH 8
#include <hs/hs.h>
#include <pcre2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "faultline/tag/tag.hpp"

namespace faultline::tag {

namespace {

using json = nlohmann::json;

// One source_file name of the knowledge base -> member kinds. Sources without a faultline kind
// of their own go to the closest kind: a file faultline does not classify is "text", and text
// members are scanned with every signature, whatever its kinds (docs/faults.md lists the table).
const std::vector<std::pair<std::string, std::vector<std::string>>>& source_map() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> m = {
      {"CANN_Plog", {"plog"}},
      {"CANN_Device", {"device_app_log"}},
      {"NPU_OS", {"device_os_log", "device_syslog"}},
      {"NPU_Device",
       {"device_os_log", "device_event_log", "device_syslog", "device_fw_log", "slogd_log"}},
      {"NPU_Host", {"host_kernel_log"}},
      {"NPU_History", {"bbox_history"}},
      {"OS", {"dmesg", "dmesg_t", "syslog", "journal"}},
      {"OS-dmesg", {"dmesg", "dmesg_t", "syslog", "journal"}},
      {"OS-vmcore-dmesg", {"dmesg"}},        // kdump vmcore-dmesg.txt is classified dmesg
      {"OS-sysmon", {"syslog", "journal"}},  // EulerOS sysmonitor (also forwarded to messages)
      {"TrainLog", {"train_log"}},
      {"MindIE", {"train_log"}},            // MindIE server/worker logs: serving stdout kind
      {"PyMotor_vLLM_Log", {"train_log"}},  // vLLM(-ascend) worker logs
      {"CANN_Amct", {"train_log"}},         // AMCT quantization tool output
      {"MindIO", {"train_log"}},            // MindIO checkpoint/TTP messages in the job log
      {"BMCLogDumpLog", {"text", "syslog"}},
      {"NodeDLog", {"text"}},  // MindX DL NodeD
      {"LCNE_LOG", {"text", "syslog"}},
      {"LCNELog", {"text", "syslog"}},  // switch (LCNE) logs
      {"DL_DevicePlugin", {"text"}},    // MindX DL components: /var/log/mindx-dl/...
      {"DL_Volcano_Scheduler", {"text"}},
      {"DL_Volcano_Controller", {"text"}},
      {"DL_Npu_Exporter", {"text"}},
      {"DL_Docker_Runtime", {"text"}},
  };
  return m;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::string normalize_code(const std::string& code) {
  std::string out;
  for (const char ch : code) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    out.push_back((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_');
  }
  return out;
}

// True when the substrings occur in this order, without overlapping, in line: what the pattern
// made of the escaped substrings joined by `.*` matches on a line without '\n'.
bool ordered_contains(std::string_view line, const std::vector<std::string>& subs) {
  size_t pos = 0;
  for (const auto& s : subs) {
    const size_t f = line.find(s, pos);
    if (f == std::string_view::npos) return false;
    pos = f + s.size();
  }
  return true;
}

// Control characters (other than TAB) can be neither in one log line nor in the YAML text of
// the pack (a NUL cut the written pack short).
bool has_control(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c < 0x20 && c != '\t') || c == 0x7f;
  });
}

std::string clean_text(std::string s) {
  for (char& ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) ch = ' ';
  }
  return trim(s);
}

std::string joined(const std::vector<std::string>& subs, bool reverse) {
  std::string out;
  std::vector<std::string> v = subs;
  if (reverse) std::reverse(v.begin(), v.end());
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out.push_back(' ');
    out += v[i];
  }
  return out;
}

std::string swap_case(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
    else if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

struct Pcre {
  pcre2_code* code = nullptr;
  explicit Pcre(const std::string& p) {
    int err = 0;
    PCRE2_SIZE off = 0;
    code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(p.data()), p.size(), 0, &err, &off, nullptr);
  }
  ~Pcre() { pcre2_code_free(code); }
  Pcre(const Pcre&) = delete;
  Pcre& operator=(const Pcre&) = delete;
  [[nodiscard]] bool matches(std::string_view s) const {
    if (!code) return false;
    pcre2_match_data* md = pcre2_match_data_create_from_pattern(code, nullptr);
    const int rc =
        pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), 0, 0, md, nullptr);
    pcre2_match_data_free(md);
    return rc >= 0;
  }
  // names of the capture groups in number order
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    if (!code) return out;
    uint32_t count = 0, size = 0;
    PCRE2_SPTR table = nullptr;
    pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
    pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &size);
    pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
    std::vector<std::pair<int, std::string>> v;
    for (uint32_t i = 0; i < count; ++i) {
      const PCRE2_SPTR e = table + static_cast<size_t>(i) * size;
      const int n = (e[0] << 8) | e[1];
      v.emplace_back(n, reinterpret_cast<const char*>(e + 2));
    }
    std::sort(v.begin(), v.end());
    for (auto& [n, s] : v) out.push_back(std::move(s));
    return out;
  }
};

bool hs_ok(const std::string& pattern) {
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  const hs_error_t rc =
      hs_compile(pattern.c_str(), HS_FLAG_MULTILINE, HS_MODE_BLOCK, nullptr, &db, &err);
  if (err) hs_free_compile_error(err);
  if (db) hs_free_database(db);
  return rc == HS_SUCCESS;
}

// Python `re` names groups `(?P<name>...)`; PCRE2 reads that too, Hyperscan wants `(?<name>`.
std::string hs_syntax(std::string p) {
  for (size_t at; (at = p.find("(?P<")) != std::string::npos;) p.erase(at + 2, 1);
  return p;
}

// A line the regex matches, for the subset of syntax the knowledge base's full regexes use
// (literals, escapes, `.`, classes, groups with alternatives, ?, *, +, {m,n}, ^, $). The caller
// checks the result against the regex (PCRE2); "" when the syntax is outside the subset.
std::string sample_of_regex(std::string_view re) {
  std::string out;
  size_t i = 0;
  bool ok = re.size() <= 4096;  // the knowledge base's full regexes are under 100 bytes
  int nesting = 0;              // nested groups, bounded (untrusted input: no deep recursion)
  // one atom's sample at re[i..]; advances i
  std::function<std::string(int)> alt;  // alternatives up to ')' (depth > 0) or the end
  auto atom = [&]() -> std::string {
    const char c = re[i];
    if (c == '\\') {
      if (i + 1 >= re.size()) {
        ok = false;
        return {};
      }
      const char e = re[i + 1];
      i += 2;
      if (e == 'd') return "0";
      if (e == 'w') return "a";
      if (e == 's') return " ";
      if (e == 'D' || e == 'W' || e == 'S') return "-";
      if (std::isalnum(static_cast<unsigned char>(e))) {
        ok = false;  // \b, \x.., \p{..}: outside the subset
        return {};
      }
      return std::string(1, e);
    }
    if (c == '.') {
      ++i;
      return "x";
    }
    if (c == '[') {
      ++i;
      const bool neg = i < re.size() && re[i] == '^';
      if (neg) ++i;
      std::string first;
      std::set<char> members;
      bool any_digit = false;
      size_t n = 0;
      while (i < re.size() && (re[i] != ']' || n == 0)) {
        char m = re[i];
        if (m == '\\' && i + 1 < re.size()) {
          ++i;
          m = re[i];
          if (m == 'd') {
            any_digit = true;
            if (first.empty()) first = "0";
            ++i;
            ++n;
            continue;
          }
        }
        if (i + 2 < re.size() && re[i + 1] == '-' && re[i + 2] != ']') {
          for (char x = m; x <= re[i + 2]; ++x) members.insert(x);
          if (first.empty()) first = std::string(1, m);
          i += 3;
        } else {
          members.insert(m);
          if (first.empty()) first = std::string(1, m);
          ++i;
        }
        ++n;
      }
      if (i >= re.size()) {
        ok = false;
        return {};
      }
      ++i;  // ']'
      if (!neg) return first;
      for (const char x : std::string("xqZ_ 7")) {
        if (members.count(x) || (any_digit && x == '7')) continue;
        return std::string(1, x);
      }
      ok = false;
      return {};
    }
    if (c == '(') {
      ++i;
      if (i < re.size() && re[i] == '?') {
        if (re.substr(i, 2) == "?:") {
          i += 2;
        } else if (re.substr(i, 3) == "?P<" || re.substr(i, 2) == "?<") {
          const size_t close = re.find('>', i);
          if (close == std::string_view::npos) {
            ok = false;
            return {};
          }
          i = close + 1;
        } else {
          ok = false;
          return {};
        }
      }
      if (++nesting > 32) {
        ok = false;
        return {};
      }
      std::string s = alt(1);
      --nesting;
      if (i >= re.size() || re[i] != ')') {
        ok = false;
        return {};
      }
      ++i;
      return s;
    }
    ++i;
    return std::string(1, c);
  };
  alt = [&](int depth) -> std::string {
    std::string first_alt, cur;
    bool have_first = false;
    while (ok && i < re.size()) {
      const char c = re[i];
      if (c == ')' && depth > 0) break;
      if (c == '|') {
        if (!have_first) first_alt = cur;
        have_first = true;
        cur.clear();
        ++i;
        continue;
      }
      if (c == '^' || c == '$') {
        ++i;
        continue;
      }
      const std::string a = atom();
      int reps = 1;
      if (i < re.size()) {
        const char q = re[i];
        if (q == '?' || q == '*') {
          reps = 0;
          ++i;
        } else if (q == '+') {
          ++i;
        } else if (q == '{') {
          const size_t close = re.find('}', i);
          if (close == std::string_view::npos) {
            ok = false;
            break;
          }
          const std::string body(re.substr(i + 1, close - i - 1));
          try {
            reps = std::stoi(body);
          } catch (...) {
            ok = false;
            break;
          }
          i = close + 1;
        }
        if (i < re.size() && (re[i] == '?' || re[i] == '+')) ++i;  // lazy / possessive
      }
      for (int r = 0; r < reps && r < 64; ++r) cur += a;
      if (cur.size() > 4096) ok = false;  // a sample is one log line
    }
    return have_first ? first_alt : cur;
  };
  out = alt(0);
  return ok ? out : std::string();
}

struct Entry {
  std::string code, id, title, cause, suggestion, cls, component, capture, no_match, alias_of;
  std::vector<std::string> kinds, causes_codes, patterns, match, references, flags;
  std::vector<std::pair<std::string, std::string>> match_captures;  // of match[0], alias only
  std::vector<std::vector<std::string>> lists;  // substring lists (for the no_match search)
  bool full_regex = false;
  bool alias_captures = false;
};

// A line no pattern of x matches, or "" when none of the candidates works.
std::string synth_no_match(const Entry& x, const std::vector<std::unique_ptr<Pcre>>& res) {
  std::vector<std::string> candidates;
  for (const auto& l : x.lists)
    if (l.size() > 1) candidates.push_back(joined(l, true));  // substrings in reverse order
  for (const auto& l : x.lists) {
    std::vector<std::string> cut;  // each substring without its last character
    for (const auto& s : l) cut.push_back(s.substr(0, s.size() - 1));
    candidates.push_back(joined(cut, false));
  }
  for (const auto& l : x.lists) candidates.push_back(swap_case(joined(l, false)));
  for (const auto& m : x.match) candidates.push_back(swap_case(m));
  candidates.emplace_back("faultline: line without the signature text");
  for (const auto& c : candidates) {
    if (c.empty() || c.find_first_not_of(' ') == std::string::npos) continue;
    const bool hit =
        std::any_of(x.lists.begin(), x.lists.end(),
                    [&](const auto& l) { return ordered_contains(c, l); }) ||
        std::any_of(res.begin(), res.end(), [&](const auto& r) { return r->matches(c); });
    if (!hit) return c;
  }
  return {};
}

// regex.in -> lists of substrings (one list per pattern). Empty substrings are dropped.
std::vector<std::vector<std::string>> substring_lists(const json& in) {
  std::vector<std::vector<std::string>> lists;
  if (!in.is_array()) return lists;
  const bool flat = std::all_of(in.begin(), in.end(), [](const json& e) { return e.is_string(); });
  auto clean = [](const json& arr) {
    std::vector<std::string> v;
    for (const auto& e : arr)
      if (e.is_string() && !e.get<std::string>().empty()) v.push_back(e.get<std::string>());
    return v;
  };
  if (flat) {
    auto v = clean(in);
    if (!v.empty()) lists.push_back(std::move(v));
    return lists;
  }
  for (const auto& e : in) {
    std::vector<std::string> v;
    if (e.is_string()) {
      if (!e.get<std::string>().empty()) v.push_back(e.get<std::string>());
    } else if (e.is_array()) {
      v = clean(e);
    }
    if (!v.empty()) lists.push_back(std::move(v));
  }
  return lists;
}

std::string str_attr(const json& attr, const char* key) {
  if (!attr.is_object()) return {};
  auto it = attr.find(key);
  if (it == attr.end()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_array()) {  // suggestion_en: numbered steps
    std::string out;
    for (const auto& e : *it)
      if (e.is_string()) {
        const std::string t = clean_text(e.get<std::string>());
        if (t.empty()) continue;
        if (!out.empty()) out.push_back(' ');
        out += t;
      }
    return out;
  }
  return {};
}

// `{}` of the knowledge base's texts are positional: the i-th becomes the i-th named group of
// the capture (filled from the first hit), else `?`; other braces are literal (`{{`, `}}`).
std::string placeholders(const std::string& t, const std::vector<std::string>& groups) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.compare(i, 2, "{}") == 0) {
      out += next < groups.size() ? "{" + groups[next++] + "}" : std::string("?");
      ++i;
    } else if (t[i] == '{') {
      out += "{{";
    } else if (t[i] == '}') {
      out += "}}";
    } else {
      out += t[i];
    }
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The knowledge base's class/component/module -> a fault class of docs/faults.md.
std::string fault_class(const std::string& kb_class, const std::string& component,
                        const std::string& module) {
  const std::string cl = lower(kb_class), co = lower(component), mo = lower(module);
  if (cl == "network" || co == "network" || co == "switch" || co == "lcne") return "network";
  if (cl == "user") return "user_config";
  if (co == "hostos") return cl.rfind("hardware", 0) == 0 ? "hardware" : "os";
  if (cl.rfind("hardware", 0) == 0) return "hardware";
  if (co == "ai server" || co == "bmc" || co == "ub") return "hardware";
  if (co == "ai framework" || co == "mindie" || co == "vllm" || co == "vllm-ascend" ||
      co == "pymotor" || co == "mindx")
    return "framework";
  if (co == "npu") return mo.find("drv") != std::string::npos || mo == "os" ? "driver" : "hardware";
  if (mo.find("drv") != std::string::npos) return "driver";
  if (cl.find("user") != std::string::npos && cl.find("hardware") == std::string::npos)
    return co == "cann" ? "cann" : "user_config";
  return "cann";
}

}  // namespace

std::vector<std::string> faultdiag_kinds(const std::string& source_file, bool* known) {
  std::vector<std::string> out;
  bool all = true;
  size_t start = 0;
  const std::string s = source_file;
  while (start <= s.size()) {
    const size_t bar = s.find('|', start);
    const std::string part =
        trim(s.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    start = bar == std::string::npos ? s.size() + 1 : bar + 1;
    if (part.empty()) continue;
    const auto& m = source_map();
    auto it = std::find_if(m.begin(), m.end(), [&](const auto& p) { return p.first == part; });
    if (it == m.end()) {
      all = false;
      continue;
    }
    for (const auto& k : it->second)
      if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  if (known) *known = all && !out.empty();
  return out;
}

const std::vector<std::pair<std::string, std::vector<std::string>>>& faultdiag_source_map() {
  return source_map();
}

std::map<std::string, std::string> parse_kb_aliases(std::string_view yaml_text) {
  std::map<std::string, std::string> out;
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception&) {
    return out;
  }
  const auto a = doc.IsMap() ? doc["aliases"] : YAML::Node();
  if (!a || !a.IsMap()) return out;
  for (auto it = a.begin(); it != a.end(); ++it)
    if (it->first.IsScalar() && it->second.IsScalar())
      out[it->first.Scalar()] = it->second.Scalar();
  return out;
}

std::vector<KbCode> read_faultdiag(std::string_view json_text) {
  json doc;
  try {
    doc = json::parse(json_text.begin(), json_text.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number too large
    throw std::invalid_argument(std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("knowledge-repository") ||
      !doc["knowledge-repository"].is_object())
    throw std::invalid_argument("no \"knowledge-repository\" object");
  std::vector<KbCode> out;
  for (const auto& [code, e] : doc["knowledge-repository"].items()) {
    KbCode k;
    k.code = code;
    if (e.is_object()) {
      const std::string source = e.contains("source_file") && e["source_file"].is_string()
                                     ? e["source_file"].get<std::string>()
                                     : std::string();
      k.source = source;
      k.kinds = faultdiag_kinds(source, nullptr);
      const json& regex = e.contains("regex") ? e["regex"] : json();
      if (regex.is_object() && regex.contains("in"))
        for (auto& l : substring_lists(regex["in"])) {
          if (std::any_of(l.begin(), l.end(), [](const auto& s) { return has_control(s); }))
            continue;
          k.lines.push_back(joined(l, false));
        }
      if (regex.is_object() && regex.contains("regex") && regex["regex"].is_string()) {
        const std::string s = sample_of_regex(regex["regex"].get<std::string>());
        if (!s.empty() && !has_control(s)) k.lines.push_back(s);
      }
      if (regex.is_object() && regex.contains("opt") && regex["opt"].is_array())
        for (const auto& o : regex["opt"])
          if (o.is_object() && o.contains("all"))
            for (auto& l : substring_lists(o["all"])) k.lines.push_back(joined(l, false));
    }
    out.push_back(std::move(k));
  }
  return out;
}

std::string import_faultdiag(std::string_view json_text, std::string_view family,
                             ImportStats* stats) {
  ImportOptions o;
  o.family = std::string(family);
  return import_faultdiag(json_text, o, stats);
}

std::string import_faultdiag(std::string_view json_text, const ImportOptions& opt,
                             ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  st = ImportStats{};
  const std::string& fam = opt.family;
  if (fam.empty() || !std::all_of(fam.begin(), fam.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      }))
    throw std::invalid_argument("family `" + fam + "` is not [a-z0-9_]+");

  json doc;
  try {
    doc = json::parse(json_text.begin(), json_text.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number too large
    throw std::invalid_argument(std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("knowledge-repository") ||
      !doc["knowledge-repository"].is_object())
    throw std::invalid_argument("no \"knowledge-repository\" object");
  const json& repo = doc["knowledge-repository"];

  std::vector<Entry> entries;
  std::map<std::string, std::string> id_of;  // code -> id, for imported entries
  std::set<std::string> used_ids;
  std::set<std::string> targets;  // codes some `rule` edge points to
  for (const auto& [code, e] : repo.items())
    if (e.is_object() && e.contains("rule") && e["rule"].is_array())
      for (const auto& r : e["rule"])
        if (r.is_object() && r.contains("dst_code") && r["dst_code"].is_string())
          targets.insert(r["dst_code"].get<std::string>());
  auto skip = [&](const std::string& code, const std::string& why) {
    ++st.skipped;
    st.skipped_codes.push_back(code + ": " + why);
  };
  for (const auto& [code, e] : repo.items()) {
    ++st.codes;
    if (!e.is_object()) {
      skip(code, "not an object");
      continue;
    }
    if (has_control(code) || code.empty()) {
      skip(code, "the code holds control characters");
      continue;
    }
    Entry x;
    x.code = code;
    const json empty = json::object();
    const json& regex = e.contains("regex") && e["regex"].is_object() ? e["regex"] : empty;
    const json& attr = e.contains("attribute") ? e["attribute"] : empty;
    const std::string source = e.contains("source_file") && e["source_file"].is_string()
                                   ? e["source_file"].get<std::string>()
                                   : std::string();
    std::vector<std::unique_ptr<Pcre>> res;  // full regexes, for the no_match search
    if (regex.contains("in")) x.lists = substring_lists(regex["in"]);
    // A substring holding a line break (or another control character) can never match one line.
    const size_t before = x.lists.size();
    x.lists.erase(std::remove_if(x.lists.begin(), x.lists.end(),
                                 [](const auto& l) {
                                   return std::any_of(l.begin(), l.end(),
                                                      [](const auto& s) { return has_control(s); });
                                 }),
                  x.lists.end());
    if (x.lists.size() < before)
      st.notes.push_back(code + ": " + std::to_string(before - x.lists.size()) +
                         " substring list(s) with control characters dropped");
    if (regex.contains("opt") && regex["opt"].is_array()) {
      // `opt: [{all: [[...], [...]], max_lines: N}]`: every list within N lines. One line is what
      // a signature sees: the most specific list (most text) stands for the group.
      for (const auto& o : regex["opt"]) {
        if (!o.is_object() || !o.contains("all")) continue;
        auto group = substring_lists(o["all"]);
        std::vector<std::string> best;
        size_t best_len = 0;
        for (auto& l : group) {
          if (std::any_of(l.begin(), l.end(), [](const auto& s) { return has_control(s); }))
            continue;
          size_t len = 0;
          for (const auto& s : l) len += s.size();
          if (len > best_len) {
            best_len = len;
            best = l;
          }
        }
        if (!best.empty()) {
          x.lists.push_back(best);
          if (group.size() > 1)
            st.notes.push_back(code + ": regex.opt needs " + std::to_string(group.size()) +
                               " line groups together; imported as its most specific line");
        }
      }
    }
    for (const auto& l : x.lists) {
      std::string p;
      for (size_t i = 0; i < l.size(); ++i) {
        if (i) p += ".*";
        p += escape_literal(l[i]);
      }
      x.patterns.push_back(p);
      x.match.push_back(joined(l, false));
    }
    if (regex.contains("regex") && regex["regex"].is_string()) {
      const std::string r = regex["regex"].get<std::string>();
      const std::string hs = hs_syntax(r);
      auto pc = std::make_unique<Pcre>(r);
      const std::string sample = sample_of_regex(r);
      if (r.empty() || has_control(r)) {
        st.notes.push_back(code + ": regex.regex empty or with control characters, dropped");
      } else if (!pc->code || !hs_ok(hs)) {
        st.notes.push_back(code + ": regex.regex rejected by PCRE2 or Hyperscan, dropped");
      } else if (sample.empty() || has_control(sample) || !pc->matches(sample)) {
        st.notes.push_back(code + ": regex.regex: no example line could be built, dropped");
      } else {
        x.patterns.push_back(hs);
        x.match.push_back(sample);
        x.full_regex = true;
        res.push_back(std::move(pc));
      }
    }
    for (const auto& [k, v] : regex.items())
      if (k != "in" && k != "regex" && k != "opt")
        st.notes.push_back(code + ": regex." + k + " not supported, ignored");
    std::vector<std::string> groups;
    if (e.contains("attr_regex") && e["attr_regex"].is_string()) {
      const std::string cap = e["attr_regex"].get<std::string>();
      const Pcre pc(cap);
      if (!cap.empty() && !has_control(cap) && pc.code) {
        x.capture = cap;
        groups = pc.names();
        ++st.captures;
      } else if (!cap.empty()) {
        st.notes.push_back(code + ": attr_regex rejected (PCRE2, or control characters), dropped");
      }
    }
    if (x.patterns.empty()) {
      // No line pattern: ascend-fd derives the code from command outputs or values. A native
      // signature that recognises the same condition stands for it (rules/kb/ascend-fd.yaml).
      auto al = opt.aliases.find(code);
      const Signature* native = nullptr;
      if (al != opt.aliases.end() && opt.native)
        for (const auto& s : opt.native->signatures)
          if (s.id == al->second && s.active()) native = &s;
      if (!native) {
        skip(code, regex.empty() ? "no line pattern in the knowledge base (ascend-fd derives it "
                                   "from command outputs or values) and no native counterpart"
                                 : "no usable line pattern");
        continue;
      }
      x.alias_of = native->id;
      x.patterns = native->patterns;
      x.kinds = native->kinds;
      if (native->caseless) x.flags.emplace_back("caseless");
      x.capture = native->capture;
      for (const auto& m : native->match) x.match.push_back(m.line);
      if (!native->match.empty() && native->match.front().check_captures) {
        x.match_captures = native->match.front().captures;
        x.alias_captures = true;
      }
      x.no_match = native->no_match.empty() ? std::string() : native->no_match.front();
      ++st.aliased;
    } else {
      bool known = false;
      x.kinds = faultdiag_kinds(source, &known);
      if (!known) {
        st.notes.push_back(code + ": source_file `" + source + "` has no kind mapping" +
                           (x.kinds.empty() ? ": applies to every kind" : ""));
      }
      x.no_match = synth_no_match(x, res);
    }
    if (x.full_regex) ++st.full_regex;
    if (x.no_match.empty()) {
      skip(code, "no line found that the patterns do not match");
      continue;
    }
    x.title = clean_text(str_attr(attr, "cause_en"));
    if (x.title.empty()) x.title = clean_text(str_attr(attr, "cause_zh"));
    if (x.title.empty()) x.title = code;
    std::string cause = clean_text(str_attr(attr, "description_en"));
    if (cause.empty()) cause = clean_text(str_attr(attr, "description_zh"));
    if (cause.empty()) cause = x.title;
    x.cause = placeholders(cause, groups);
    std::string sugg = str_attr(attr, "suggestion_en");
    if (sugg.empty()) sugg = str_attr(attr, "suggestion_zh");
    if (sugg.empty()) sugg = "See the ascend-fd knowledge base entry " + code + ".";
    x.suggestion = placeholders(clean_text(sugg), {});
    x.cls =
        fault_class(str_attr(attr, "class"), str_attr(attr, "component"), str_attr(attr, "module"));
    x.component = normalize_code(clean_text(str_attr(attr, "component")));
    while (x.component.find("__") != std::string::npos)
      x.component.erase(x.component.find("__"), 1);
    if (x.component.empty()) x.component = "unknown";
    if (e.contains("rule") && e["rule"].is_array())
      for (const auto& r : e["rule"])
        if (r.is_object() && r.contains("dst_code") && r["dst_code"].is_string())
          x.causes_codes.push_back(r["dst_code"].get<std::string>());
    std::string base = normalize_code(code);
    if (base.empty()) base = "entry";
    std::string id = fam + "." + base;
    for (int n = 2; used_ids.count(id); ++n) id = fam + "." + base + "_" + std::to_string(n);
    used_ids.insert(id);
    x.id = id;
    id_of[code] = id;
    entries.push_back(std::move(x));
  }

  // codes some edge points to and that point nowhere themselves are consequences (symptoms)
  std::set<std::string> has_edges;
  for (const auto& x : entries)
    if (!x.causes_codes.empty()) has_edges.insert(x.code);

  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "family" << YAML::Value << fam;
  out << YAML::Key << "signatures" << YAML::Value << YAML::BeginSeq;
  for (const auto& x : entries) {
    out << YAML::BeginMap;
    out << YAML::Key << "id" << YAML::Value << x.id;
    out << YAML::Key << "title" << YAML::Value << x.title;
    out << YAML::Key << "kinds" << YAML::Value << YAML::Flow << x.kinds;
    out << YAML::Key << "severity" << YAML::Value << "error";
    out << YAML::Key << "status" << YAML::Value << "experimental";
    if (!x.flags.empty()) out << YAML::Key << "flags" << YAML::Value << YAML::Flow << x.flags;
    // edges: a dst code that is not itself in the pack is one of the codes ascend-fd derives from
    // a generic entry and a capture (AISW_CANN_ERRCODE_Custom_EZ9999 = AISW_CANN_ERRCODE_Custom
    // + EZ9999): it points at that entry
    std::vector<std::string> causes;
    for (const auto& c : x.causes_codes) {
      std::string target = c;
      while (!id_of.count(target) && target.find('_') != std::string::npos)
        target.erase(target.rfind('_'));
      auto it = id_of.find(target);
      if (it != id_of.end()) {
        if (it->second != x.id &&
            std::find(causes.begin(), causes.end(), it->second) == causes.end())
          causes.push_back(it->second);
      } else {
        st.notes.push_back(x.code + ": cause " + c + " is not in this pack, dropped");
      }
    }
    out << YAML::Key << "fault" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "kb" << YAML::Value << "ascend-fd";
    out << YAML::Key << "class" << YAML::Value << x.cls;
    out << YAML::Key << "component" << YAML::Value << x.component;
    const bool symptom = targets.count(x.code) != 0 && has_edges.count(x.code) == 0;
    out << YAML::Key << "role" << YAML::Value << (symptom ? "symptom" : "cause");
    out << YAML::Key << "code" << YAML::Value << YAML::SingleQuoted << x.code;
    out << YAML::Key << "cause" << YAML::Value << YAML::SingleQuoted << x.cause;
    out << YAML::Key << "suggestion" << YAML::Value << YAML::SingleQuoted << x.suggestion;
    if (!causes.empty()) out << YAML::Key << "causes" << YAML::Value << YAML::Flow << causes;
    out << YAML::EndMap;
    out << YAML::Key << "patterns" << YAML::Value << YAML::BeginSeq;
    for (const auto& p : x.patterns) out << YAML::SingleQuoted << p;
    out << YAML::EndSeq;
    if (!x.capture.empty())
      out << YAML::Key << "capture" << YAML::Value << YAML::SingleQuoted << x.capture;
    std::vector<std::string> refs{"ascend-fd (MindCluster FaultDiag) kg-config.json " + x.code};
    if (!x.alias_of.empty())
      refs.push_back(
          "no line pattern in the knowledge base: the patterns and examples are those "
          "of the native signature " +
          x.alias_of);
    else
      refs.emplace_back("examples synthesized from the knowledge base's substrings");
    out << YAML::Key << "references" << YAML::Value << YAML::BeginSeq;
    for (const auto& r : refs) out << YAML::SingleQuoted << r;
    out << YAML::EndSeq;
    out << YAML::Key << "examples" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "match" << YAML::Value << YAML::BeginSeq;
    for (size_t i = 0; i < x.match.size(); ++i) {
      if (i == 0 && x.alias_captures) {
        out << YAML::BeginMap << YAML::Key << "line" << YAML::Value << YAML::SingleQuoted
            << x.match[i] << YAML::Key << "captures" << YAML::Value << YAML::Flow << YAML::BeginMap;
        for (const auto& [k, v] : x.match_captures)
          out << YAML::Key << k << YAML::Value << YAML::SingleQuoted << v;
        out << YAML::EndMap << YAML::EndMap;
      } else {
        out << YAML::SingleQuoted << x.match[i];
      }
    }
    out << YAML::EndSeq;
    out << YAML::Key << "no_match" << YAML::Value << YAML::BeginSeq << YAML::SingleQuoted
        << x.no_match << YAML::EndSeq;
    out << YAML::EndMap;  // examples
    out << YAML::EndMap;  // signature
    ++st.imported;
  }
  out << YAML::EndSeq << YAML::EndMap;
  if (!out.good()) throw std::invalid_argument(std::string("YAML: ") + out.GetLastError());

  std::string text = std::string(kFaultdiagHeader) +
                     " (kg-config.json) by\n"
                     "# `faultline rules import-faultdiag`: " +
                     std::to_string(st.imported) + " signatures, " + std::to_string(st.skipped) +
                     " entries skipped. Its texts are the knowledge base's: do not redistribute.\n";
  text += out.c_str();
  text += "\n";
  return text;
}

}  // namespace faultline::tag
