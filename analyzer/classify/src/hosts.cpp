#include <algorithm>
#include <array>
#include <cctype>

#include "faultline/classify/classify.hpp"
#include "faultline/core/text.hpp"

namespace faultline::classify {

namespace {

std::string_view strip_archive_ext(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kExt = {
      ".tar.gz", ".tar.zst", ".tar.xz", ".tar.bz2", ".tgz", ".tzst",
      ".txz",    ".tar",     ".zip",    ".gz",      ".zst", ".xz"};
  for (auto e : kExt)
    if (name.size() > e.size() && name.substr(name.size() - e.size()) == e)
      return name.substr(0, name.size() - e.size());
  return name;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool valid_hostname(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  const std::string l = text::to_lower(s);
  return l != "localhost" && l != "(none)" && l != "none" && l != "localhost.localdomain";
}

// Collector output folders: their own names carry no host (asys_output_<ts>, ascend_log_<ts>, ...).
bool is_collector_dir(std::string_view c) {
  static constexpr std::array<std::string_view, 6> kPrefixes = {
      "asys_output_",      "ascend_log_",        "npu_log_collect_",
      "ascend_bug_report", "network_info_data_", "log_collect_"};
  for (auto p : kPrefixes)
    if (c.substr(0, p.size()) == p) return true;
  // msnpureport: YYYY-MM-DD-HH-MM-SS
  return c.size() == 19 && c[4] == '-' && c[7] == '-' && all_digits(c.substr(0, 4));
}

// faultline_<host>_<YYYYmmddHHMMSS>
std::string faultline_dir_host(std::string_view c) {
  if (c.substr(0, 10) != "faultline_") return {};
  const size_t us = c.rfind('_');
  if (us == std::string_view::npos || us <= 10) return {};
  if (!all_digits(c.substr(us + 1)) || c.size() - us - 1 < 8) return {};
  return std::string(c.substr(10, us - 10));
}

// A folder name that names a node: node07, worker-3, host12, 10.0.0.7, gpu-a12 ...
bool looks_like_node(std::string_view c) {
  if (!valid_hostname(c)) return false;
  const std::string l = text::to_lower(c);
  static constexpr std::array<std::string_view, 12> kPrefixes = {
      "node", "host", "worker", "server", "compute", "npu",
      "pod",  "rank", "master", "slave",  "gpu",     "ascend"};
  const bool has_digit =
      std::any_of(l.begin(), l.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  if (!has_digit) return false;
  for (auto p : kPrefixes)
    if (l.substr(0, p.size()) == p) return true;
  // dotted IPv4
  int dots = 0;
  for (char ch : l) dots += ch == '.';
  if (dots == 3 && std::all_of(l.begin(), l.end(),
                               [](char ch) { return ch == '.' || (ch >= '0' && ch <= '9'); }))
    return true;
  return false;
}

bool has_letter(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

bool month_ok(std::string_view s) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  return std::find(kMonths.begin(), kMonths.end(), s) != kMonths.end();
}

}  // namespace

std::string name_shape(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] >= '0' && name[i] <= '9') {
      if (out.empty() || out.back() != '#') out.push_back('#');
    } else {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(name[i]))));
    }
  }
  return out;
}

bool maybe_node_folder(std::string_view c) {
  if (!valid_hostname(c) || looks_like_node(c) || is_collector_dir(c)) return false;
  if (!has_letter(c) ||
      !std::any_of(c.begin(), c.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    return false;
  const std::string l = text::to_lower(c);
  if (l[0] >= '0' && l[0] <= '9') return false;  // 8.0.RC3, 2025-03-05, 20251118_log
  // collector-internal and file-system folders with a number
  static constexpr std::array<std::string_view, 14> kInternal = {
      "device", "dev-os", "dev_os", "dev-app", "lib", "x86", "aarch",
      "arm",    "python", "plog",   "slog",    "log", "run", "bak"};
  for (auto p : kInternal)
    if (l.substr(0, p.size()) == p) return false;
  return l.find('.') == std::string::npos;  // a dotted name with letters is a version or file
}

HostHint host_from_path(std::string_view path) {
  HostHint h;
  // nested archives: the innermost archive holding this member is the node's bundle
  const size_t bang = path.rfind("!/");
  std::string_view inner = path;
  if (bang != std::string_view::npos) {
    h.root = std::string(path.substr(0, bang));
    inner = path.substr(bang + 2);
    const size_t slash = h.root.rfind('/');
    const size_t prev_bang = h.root.rfind("!/");
    size_t start = 0;
    if (slash != std::string::npos) start = slash + 1;
    if (prev_bang != std::string::npos && prev_bang + 2 > start) start = prev_bang + 2;
    const std::string_view archive = strip_archive_ext(std::string_view(h.root).substr(start));
    if (auto fh = faultline_dir_host(archive); !fh.empty()) {
      h.host = fh;
      h.strength = 95;
      h.source = "collector-dir";
    } else if (!is_collector_dir(archive) && valid_hostname(archive)) {
      h.host = std::string(archive);
      h.strength = looks_like_node(archive) ? 70 : 40;
      h.source = "archive";
    }
    // an archive of no node name (`bundle.tar.gz`, `asys_output_<ts>.tar.gz`) in a per-node
    // folder (`job/a2-n03/bundle.tar.gz`): the folder names the node
    if (h.strength < 70 && start > 0) {
      const std::string_view outer = std::string_view(h.root).substr(0, start - 1);
      const size_t s2 = outer.find_last_of("/!");
      const std::string_view folder = s2 == std::string_view::npos ? outer : outer.substr(s2 + 1);
      if (looks_like_node(folder) || maybe_node_folder(folder)) {
        h.host = std::string(folder);
        h.strength = 60;
        h.source = "folder";
      }
    }
  }
  // folders inside the innermost archive (or the directory bundle)
  const auto comps = text::split(inner, '/');
  std::string prefix = h.root.empty() ? "" : h.root + "!/";
  bool node_folder = false;
  for (size_t i = 0; i + 1 < comps.size(); ++i) {
    const auto c = comps[i];
    if (auto fh = faultline_dir_host(c); !fh.empty()) {
      h.root = prefix + std::string(c);
      h.host = fh;
      h.strength = 95;
      h.source = "collector-dir";
      return h;
    }
    if (is_collector_dir(c)) {
      // the folder above a collector folder names the node, when there is one
      return h;
    }
    // a node folder first, or under one or two wrapper folders (`case_20260410/10.20.0.42/...`,
    // `incident-4711/nodes/node07/...`)
    if (i <= 2 && !node_folder && looks_like_node(c)) {
      node_folder = true;
      h.root = prefix + std::string(c);
      h.host = std::string(c);
      h.strength = 60;
      h.source = "folder";
      h.parent_root.clear();
      // keep looking: a faultline_<host>_<ts> folder inside is stronger
      prefix = h.root + "/";
      continue;
    }
    // a folder that may name a node (`cl4-a2-n07`): a candidate root, kept apart until the
    // pipeline knows its siblings (a deeper candidate's parent may itself be one: a ticket
    // folder `t4711/` holding `n01/ n02/`); a node-named folder inside it still wins
    if (i <= 2 && !node_folder && maybe_node_folder(c)) {
      h.parent_root = h.root;
      h.root = prefix + std::string(c);
      h.host = std::string(c);
      h.strength = 55;
      h.source = "folder-candidate";
      prefix = h.root + "/";
      continue;
    }
    if (i >= 3) break;
    prefix += std::string(c) + "/";
  }
  return h;
}

HostHint host_from_content(std::string_view kind, std::string_view path, std::string_view head) {
  HostHint h = host_from_path(path);
  h.host.clear();
  h.strength = 0;
  h.source.clear();
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);  // UTF-8 byte order mark
  auto first_line = [&]() {
    const size_t nl = head.find('\n');
    return text::trim(head.substr(0, nl));
  };
  if (kind == "uname") {
    const auto parts = text::split_ws(first_line());
    if (parts.size() >= 2 && parts[0] == "Linux" && valid_hostname(parts[1])) {
      h.host = std::string(parts[1]);
      h.strength = 90;
      h.source = "uname";
    } else if (parts.size() == 1 && valid_hostname(parts[0])) {
      // `uname -n` saved on its own (uname-n.txt, uname_n.log, uname_nodename): the node name
      const size_t slash = path.rfind('/');
      const std::string base =
          text::to_lower(path.substr(slash == std::string_view::npos ? 0 : slash + 1));
      const size_t u = base.find("uname");
      const std::string rest = u == std::string::npos ? "" : base.substr(u + 5);
      const bool n = rest.size() >= 2 && (rest[0] == '-' || rest[0] == '_') && rest[1] == 'n' &&
                     (rest.size() == 2 || rest[2] == '.' || rest[2] == '_' || rest[2] == '-');
      if (n || rest.find("nodename") != std::string::npos) {
        h.host = std::string(parts[0]);
        h.strength = 90;
        h.source = "uname";
      }
    }
  } else if (kind == "syslog" || kind == "journal") {
    // "May  8 02:28:01 ubuntu78 kernel: ..." / "2025-05-08T02:28:01+0800 ubuntu78 kernel: ..."
    size_t pos = 0;
    int seen = 0;
    while (pos < head.size() && seen < 20) {
      size_t nl = head.find('\n', pos);
      if (nl == std::string_view::npos) nl = head.size();
      const auto parts = text::split_ws(head.substr(pos, nl - pos));
      pos = nl + 1;
      ++seen;
      std::string_view cand;
      if (parts.size() >= 5 && month_ok(parts[0]))
        cand = parts[3];
      else if (parts.size() >= 3 && parts[0].size() >= 19 && parts[0][4] == '-' &&
               parts[0][10] == 'T')
        cand = parts[1];
      if (!cand.empty() && valid_hostname(cand)) {
        h.host = std::string(cand);
        h.strength = 80;
        h.source = "syslog";
        break;
      }
    }
  } else if (kind == "composite") {
    // a pasted shell session names its host in the prompt: `[root@node42 ~]# cmd`,
    // `root@node42:~# cmd`
    size_t pos = 0;
    for (int seen = 0; pos < head.size() && seen < 40; ++seen) {
      size_t nl = head.find('\n', pos);
      if (nl == std::string_view::npos) nl = head.size();
      std::string_view l = head.substr(pos, nl - pos);
      pos = nl + 1;
      const bool bracket = !l.empty() && l.front() == '[';
      if (bracket) l.remove_prefix(1);
      const size_t at = l.find('@');
      if (at == std::string_view::npos || at == 0 || at > 32 ||
          l.substr(0, at).find_first_of(" :[]") != std::string_view::npos)
        continue;
      const size_t end = l.find_first_of(bracket ? " ]" : ":", at + 1);
      if (end == std::string_view::npos) continue;
      const size_t prompt = l.find_first_of("#$", end);
      if (prompt == std::string_view::npos || prompt > end + 64 || prompt + 1 >= l.size() ||
          l[prompt + 1] != ' ')
        continue;
      const auto cand = l.substr(at + 1, end - at - 1);
      // a container's prompt names the container (docker's default hostname is the 12-hex
      // short id), not the node
      const bool container_id =
          cand.size() == 12 && std::all_of(cand.begin(), cand.end(), [](char ch) {
            return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
          });
      if (valid_hostname(cand) && !container_id) {
        h.host = std::string(cand);
        h.strength = 75;
        h.source = "prompt";
        break;
      }
    }
  } else if (kind == "manifest") {
    const auto key = head.find("\"host\"");
    if (key != std::string_view::npos) {
      const auto q1 = head.find('"', head.find(':', key) + 1);
      const auto q2 = q1 == std::string_view::npos ? q1 : head.find('"', q1 + 1);
      if (q2 != std::string_view::npos) {
        const auto v = head.substr(q1 + 1, q2 - q1 - 1);
        if (valid_hostname(v)) {
          h.host = std::string(v);
          h.strength = 100;
          h.source = "manifest";
        }
      }
    }
  } else {
    // a `hostname` command output: one line, a valid name, in a file called hostname*
    const size_t slash = path.rfind('/');
    const auto base = path.substr(slash == std::string_view::npos ? 0 : slash + 1);
    if (base.substr(0, 8) == "hostname") {
      const auto l = first_line();
      if (valid_hostname(l)) {
        h.host = std::string(l);
        h.strength = 90;
        h.source = "hostname";
      }
    }
  }
  return h;
}

}  // namespace faultline::classify
