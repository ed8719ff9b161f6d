// `faultline rules import-faultdiag`: MindCluster FaultDiag knowledge base -> signature pack.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "faultline/tag/tag.hpp"

namespace faultline::tag {

namespace {

using json = nlohmann::json;

// source_file of a knowledge-base entry -> member kinds.
std::vector<std::string> kinds_of(const std::string& source, bool* known) {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"CANN_Plog", {"plog"}},
      {"CANN_Device", {"device_app_log"}},
      {"NPU_OS", {"device_os_log", "device_syslog"}},
      {"NPU_Host", {"host_kernel_log"}},
      {"OS", {"dmesg", "dmesg_t", "syslog", "journal"}},
      {"OS-dmesg", {"dmesg", "dmesg_t", "syslog", "journal"}},
      {"TrainLog", {"train_log"}},
      {"NPU_History", {"bbox_history"}},
  };
  auto it = m.find(source);
  *known = it != m.end();
  return *known ? it->second : std::vector<std::string>{};
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

bool any_matches(std::string_view line, const std::vector<std::vector<std::string>>& lists) {
  return std::any_of(lists.begin(), lists.end(),
                     [&](const auto& l) { return ordered_contains(line, l); });
}

// Control characters (other than TAB) can be neither in one log line nor in the YAML text of
// the pack (a NUL cut the written pack short).
bool has_control(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c < 0x20 && c != '\t') || c == 0x7f;
  });
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

// A line that none of the lists matches, or "" when none of the candidates works.
std::string synth_no_match(const std::vector<std::vector<std::string>>& lists) {
  std::vector<std::string> candidates;
  for (const auto& l : lists)
    if (l.size() > 1) candidates.push_back(joined(l, true));  // substrings in reverse order
  for (const auto& l : lists) {
    std::vector<std::string> cut;  // each substring without its last character
    for (const auto& s : l) cut.push_back(s.substr(0, s.size() - 1));
    candidates.push_back(joined(cut, false));
  }
  for (const auto& l : lists) candidates.push_back(swap_case(joined(l, false)));
  candidates.emplace_back("faultline: line without the signature text");
  for (const auto& c : candidates) {
    if (c.empty() || c.find_first_not_of(' ') == std::string::npos) continue;
    if (!any_matches(c, lists)) return c;
  }
  return {};
}

bool pcre2_ok(const std::string& pattern) {
  int err = 0;
  PCRE2_SIZE off = 0;
  pcre2_code* c = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), 0,
                                &err, &off, nullptr);
  if (!c) return false;
  pcre2_code_free(c);
  return true;
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
  return it != attr.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string import_faultdiag(std::string_view json_text, std::string_view family,
                             ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  st = ImportStats{};
  const std::string fam(family);
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

  struct Entry {
    std::string code, id, title, capture, no_match;
    std::vector<std::string> kinds, causes_codes;
    std::vector<std::vector<std::string>> lists;
  };
  std::vector<Entry> entries;
  std::map<std::string, std::string> id_of;  // code -> id, for imported entries
  std::set<std::string> used_ids;
  for (const auto& [code, e] : repo.items()) {
    if (!e.is_object()) {
      ++st.skipped;
      st.notes.push_back(code + ": not an object");
      continue;
    }
    Entry x;
    x.code = code;
    const json empty = json::object();
    const json& regex = e.contains("regex") ? e["regex"] : empty;
    if (regex.is_object() && regex.contains("in")) x.lists = substring_lists(regex["in"]);
    // A substring holding a line break (or another control character) can never match one line.
    x.lists.erase(std::remove_if(x.lists.begin(), x.lists.end(),
                                 [](const auto& l) {
                                   return std::any_of(l.begin(), l.end(),
                                                      [](const auto& s) { return has_control(s); });
                                 }),
                  x.lists.end());
    if (x.lists.empty()) {
      ++st.skipped;
      st.notes.push_back(code + ": no substrings in regex.in, skipped");
      continue;
    }
    x.no_match = synth_no_match(x.lists);
    if (x.no_match.empty()) {
      ++st.skipped;
      st.notes.push_back(code + ": no line found that does not match, skipped");
      continue;
    }
    if (regex.is_object())
      for (const auto& [k, v] : regex.items())
        if (k != "in") st.notes.push_back(code + ": regex." + k + " not supported, ignored");
    const json& attr = e.contains("attribute") ? e["attribute"] : empty;
    x.title = str_attr(attr, "cause_en");
    if (x.title.empty()) x.title = str_attr(attr, "cause_zh");
    if (x.title.empty()) x.title = code;
    for (char& ch : x.title) {
      const auto c = static_cast<unsigned char>(ch);
      if (c < 0x20 || c == 0x7f) ch = ' ';
    }
    const std::string source = e.contains("source_file") && e["source_file"].is_string()
                                   ? e["source_file"].get<std::string>()
                                   : std::string();
    bool known = false;
    x.kinds = kinds_of(source, &known);
    if (!known)
      st.notes.push_back(code + ": source_file `" + source +
                         "` has no kind mapping: applies to every text kind");
    if (e.contains("rule") && e["rule"].is_array())
      for (const auto& r : e["rule"])
        if (r.is_object() && r.contains("dst_code") && r["dst_code"].is_string())
          x.causes_codes.push_back(r["dst_code"].get<std::string>());
    if (e.contains("attr_regex") && e["attr_regex"].is_string()) {
      const std::string cap = e["attr_regex"].get<std::string>();
      if (!cap.empty() && !has_control(cap) && pcre2_ok(cap))
        x.capture = cap;
      else if (!cap.empty())
        st.notes.push_back(code + ": attr_regex rejected (PCRE2, or control characters), dropped");
    }
    std::string base = normalize_code(code);
    if (base.empty()) base = "entry";
    std::string id = fam + "." + base;
    for (int n = 2; used_ids.count(id); ++n) id = fam + "." + base + "_" + std::to_string(n);
    used_ids.insert(id);
    x.id = id;
    id_of[code] = id;
    entries.push_back(std::move(x));
  }

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
    out << YAML::Key << "patterns" << YAML::Value << YAML::BeginSeq;
    for (const auto& l : x.lists) {
      std::string p;
      for (size_t i = 0; i < l.size(); ++i) {
        if (i) p += ".*";
        p += escape_literal(l[i]);
      }
      out << YAML::SingleQuoted << p;
    }
    out << YAML::EndSeq;
    if (!x.capture.empty())
      out << YAML::Key << "capture" << YAML::Value << YAML::SingleQuoted << x.capture;
    std::vector<std::string> causes;
    for (const auto& c : x.causes_codes) {
      auto it = id_of.find(c);
      if (it != id_of.end()) {
        if (std::find(causes.begin(), causes.end(), it->second) == causes.end())
          causes.push_back(it->second);
      } else {
        st.notes.push_back(x.code + ": cause " + c + " is not in this pack, dropped");
      }
    }
    if (!causes.empty()) out << YAML::Key << "causes" << YAML::Value << YAML::Flow << causes;
    out << YAML::Key << "references" << YAML::Value << YAML::Flow
        << std::vector<std::string>{"MindCluster FaultDiag kg-config.json " + x.code};
    out << YAML::Key << "examples" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "match" << YAML::Value << YAML::BeginSeq;
    for (const auto& l : x.lists) out << YAML::SingleQuoted << joined(l, false);
    out << YAML::EndSeq;
    out << YAML::Key << "no_match" << YAML::Value << YAML::BeginSeq << YAML::SingleQuoted
        << x.no_match << YAML::EndSeq;
    out << YAML::EndMap;  // examples
    out << YAML::EndMap;  // signature
    ++st.imported;
  }
  out << YAML::EndSeq << YAML::EndMap;
  if (!out.good()) throw std::invalid_argument(std::string("YAML: ") + out.GetLastError());

  std::string text =
      "# Imported from a MindCluster FaultDiag knowledge base (kg-config.json) by\n"
      "# `faultline rules import-faultdiag`: " +
      std::to_string(st.imported) + " signatures, " + std::to_string(st.skipped) +
      " entries skipped.\n";
  text += out.c_str();
  text += "\n";
  return text;
}

}  // namespace faultline::tag
