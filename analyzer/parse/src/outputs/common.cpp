#include "outputs/common.hpp"

#include <algorithm>
#include <array>

#include "faultline/core/text.hpp"

namespace faultline::parse::outputs {

using text::trim;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool starts_with_digit(std::string_view s) {
  return !s.empty() && is_digit(s.front());
}
bool is_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c) && !((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return true;
}

namespace {

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

bool ends_with(std::string_view s, std::string_view suf) {
  return s.size() >= suf.size() && s.substr(s.size() - suf.size()) == suf;
}

// Programs whose echoed command line (without prompt) is taken as a banner. The second word
// must look like an argument of the command, so that output rows such as `pip   23.0.1` (pip
// list) are not mistaken for commands.
struct KnownCmd {
  std::string_view prog;
  bool any_args;  // every second word is fine (the program never starts an output line)
};
constexpr std::array<KnownCmd, 38> kKnown{{
    {"npu-smi", true},     {"modinfo", true}, {"modprobe", true},     {"lsmod", true},
    {"ls", false},         {"uname", false},  {"uptime", false},      {"date", false},
    {"timedatectl", true}, {"ulimit", true},  {"sysctl", true},       {"lspci", true},
    {"printenv", true},    {"env", false},    {"cat", true},          {"readlink", true},
    {"realpath", true},    {"pip", false},    {"pip3", false},        {"python", false},
    {"python3", false},    {"dpkg", false},   {"rpm", false},         {"hostname", false},
    {"journalctl", true},  {"rg", true},      {"grep", true},         {"head", true},
    {"tail", true},        {"dmesg", false},  {"upgrade-tool", true}, {"mount", false},
    {"findmnt", true},     {"export", false}, {"declare", false},     {"tr", true},
    {"strings", true},     {"xargs", true},
}};

bool arg_like(std::string_view w) {
  if (w.empty()) return true;
  const char c = w.front();
  return c == '-' || c == '/' || c == '|' || c == '$' || c == '\'' || c == '"' || c == '>' ||
         c == '.' || c == '~' || c == '<' || c == '&' || c == ';';
}

bool known_second_word(std::string_view prog, std::string_view w) {
  if (arg_like(w)) return true;
  if (prog == "pip" || prog == "pip3")
    return w == "list" || w == "show" || w == "freeze" || w == "install";
  if (prog == "python" || prog == "python3") return ends_with(w, ".py");
  return false;
}

// "sudo", "timeout 10s", "command", "nice -n 5", "env -i", "VAR=x" prefixes.
size_t skip_prefixes(const std::vector<std::string>& a) {
  size_t i = 0;
  while (i < a.size()) {
    const std::string& w = a[i];
    if (w == "sudo" || w == "command" || w == "exec" || w == "time" || w == "stdbuf") {
      ++i;
      while (i < a.size() && !a[i].empty() && a[i][0] == '-') ++i;
    } else if (w == "timeout") {
      ++i;
      while (i < a.size() && !a[i].empty() && a[i][0] == '-') ++i;
      if (i < a.size()) ++i;  // duration
    } else if (w.find('=') != std::string::npos && w.front() != '-' && w.front() != '/' &&
               i + 1 < a.size()) {
      ++i;  // VAR=value cmd
    } else {
      break;
    }
  }
  return i;
}

std::optional<int> int_after(std::string_view s, std::string_view key) {
  // "npu id 0", "NPU ID: 3", "-i 2"
  const std::string l = text::to_lower(s);
  size_t p = 0;
  while ((p = l.find(key, p)) != std::string::npos) {
    size_t q = p + key.size();
    while (q < l.size() && (is_space(l[q]) || l[q] == ':' || l[q] == '=' || l[q] == '_')) ++q;
    size_t e = q;
    while (e < l.size() && is_digit(l[e]) && e - q < 6) ++e;
    if (e > q && (e == l.size() || !is_digit(l[e]))) return text::to_int<int>(l.substr(q, e - q));
    p += key.size();
  }
  return std::nullopt;
}

void fill_from_argv(Banner& b) {
  for (size_t i = 1; i < b.argv.size(); ++i) {
    const std::string& a = b.argv[i];
    if ((a == "-i" || a == "-c") && i + 1 < b.argv.size()) {
      if (auto v = text::to_int<int>(b.argv[i + 1])) (a == "-i" ? b.npu : b.chip) = *v;
    }
    if (b.path.empty() && !a.empty() && a.front() == '/') b.path = a;
  }
}

// A title that is itself a command ("uname -a", "npu-smi info -t board -i 0").
void title_command(Banner& b) {
  auto words = split_command(b.title);
  const size_t k0 = skip_prefixes(words);
  if (k0 >= words.size()) return;
  for (const auto& k : kKnown)
    if (words[k0] == k.prog) {
      b.argv.assign(words.begin() + static_cast<std::ptrdiff_t>(k0), words.end());
      const int npu = b.npu, chip = b.chip;
      fill_from_argv(b);
      if (b.npu < 0) b.npu = npu;
      if (b.chip < 0) b.chip = chip;
      return;
    }
}

// The command part of a prompt line, or npos.
size_t prompt_end(std::string_view s) {
  if (s.size() >= 2 && (s[0] == '$' || s[0] == '%') && s[1] == ' ') return 2;
  if (s.front() == '[') {
    const size_t rb = s.find(']');
    if (rb != std::string_view::npos && rb + 1 < s.size() &&
        (s[rb + 1] == '#' || s[rb + 1] == '$') &&
        s.substr(1, rb).find('@') != std::string_view::npos)
      return rb + 2;
    return std::string_view::npos;
  }
  // user@host:path# cmd | user@host:path$ cmd | host:~ # cmd
  const size_t at = s.find('@');
  const size_t sp = s.find(' ');
  if (at == std::string_view::npos || at == 0 || (sp != std::string_view::npos && sp < at))
    return std::string_view::npos;
  for (size_t i = at + 1; i < s.size(); ++i) {
    const char c = s[i];
    if ((c == '#' || c == '$') && (i + 1 == s.size() || s[i + 1] == ' ')) {
      const std::string_view host = s.substr(at + 1, i - at - 1);
      if (host.empty()) return std::string_view::npos;
      return i + 1;
    }
    if (c == ' ') return std::string_view::npos;
  }
  return std::string_view::npos;
}

}  // namespace

bool is_blank(std::string_view line) {
  const auto t = trim(line);
  return t.empty() || t.substr(0, 3) == "```";
}

std::vector<std::string> split_command(std::string_view cmd) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (size_t i = 0; i < cmd.size(); ++i) {
    const char c = cmd[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < cmd.size()) {
        cur.push_back(cmd[++i]);
      } else {
        cur.push_back(c);
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      have = true;
      continue;
    }
    if (c == '\\' && i + 1 < cmd.size()) {
      cur.push_back(cmd[++i]);
      have = true;
      continue;
    }
    if (is_space(c)) {
      if (have) out.push_back(std::move(cur));
      cur.clear();
      have = false;
      continue;
    }
    if (c == '|' || c == ';' || c == '&' || c == '>' || c == '<') {
      // "2>&1" / "2>/dev/null": drop the fd digit collected so far
      if (c == '>' && have && cur.size() == 1 && is_digit(cur[0])) {
        cur.clear();
        have = false;
      }
      break;
    }
    cur.push_back(c);
    have = true;
    if (out.size() > 256) break;
  }
  if (have) out.push_back(std::move(cur));
  return out;
}

bool Banner::has_arg(std::string_view a) const {
  for (size_t i = 1; i < argv.size(); ++i)
    if (argv[i] == a) return true;
  return false;
}

std::vector<std::string> Banner::operands() const {
  // options that take a separate value, per program
  std::string_view with_value;
  if (is_command("npu-smi"))
    with_value = " -t -i -c -m ";
  else if (is_command("modinfo"))
    with_value = " -F -k -b --field --basedir ";
  else if (is_command("modprobe"))
    with_value = " -C -d -S --config --dirname --set-version ";
  else if (is_command("timeout"))
    with_value = " -s -k ";
  std::vector<std::string> out;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (!a.empty() && a.front() == '-') {
      if (a.find('=') == std::string::npos && i + 1 < argv.size() &&
          with_value.find(" " + a + " ") != std::string_view::npos)
        ++i;
      continue;
    }
    out.push_back(a);
  }
  return out;
}

std::optional<Banner> parse_banner(std::string_view raw) {
  std::string_view s = trim(raw);
  if (s.size() < 2 || s.size() > 4096) return std::nullopt;
  Banner b;
  // ==> path <==   (also "==> uname -a <==" written by collectors)
  if (s.size() >= 6 && s.substr(0, 3) == "==>" && ends_with(s, "<==")) {
    b.title = std::string(trim(s.substr(3, s.size() - 6)));
    if (!b.title.empty() && b.title.front() == '/') b.path = b.title;
    title_command(b);
    return b;
  }
  // >>> title
  if (s.substr(0, 4) == ">>> ") {
    b.title = std::string(trim(s.substr(4)));
    b.npu = int_after(b.title, "npu id").value_or(-1);
    title_command(b);
    return b;
  }
  const char c0 = s.front();
  if (c0 == '#' || c0 == '=' || c0 == '-' || c0 == '*') {
    size_t n = 0;
    while (n < s.size() && s[n] == c0) ++n;
    const bool markdown = c0 == '#' && n >= 2 && n <= 6 && n < s.size() && s[n] == ' ';
    if (n >= 3 || markdown) {
      std::string_view rest = s.substr(n);
      while (!rest.empty() && (rest.back() == c0 || is_space(rest.back()))) rest.remove_suffix(1);
      rest = trim(rest);
      const bool closed = ends_with(s, std::string(3, c0));
      bool letters = false;
      for (char c : rest) letters = letters || is_alpha(c);
      if (letters && (closed || markdown || c0 == '#')) {
        b.title = std::string(rest);
        b.npu = int_after(rest, "npu id").value_or(-1);
        b.chip = int_after(rest, "chip id").value_or(-1);
        title_command(b);  // "## npu-smi info -t board -i 0"
        return b;
      }
      if (c0 != '#') return std::nullopt;
    }
  }
  // Prompts.
  std::string_view cmd;
  bool prompted = false;
  if (const size_t pe = prompt_end(s); pe != std::string_view::npos) {
    cmd = trim(s.substr(pe));
    prompted = true;
  } else {
    cmd = s;
  }
  std::vector<std::string> words = split_command(cmd);
  const size_t k0 = skip_prefixes(words);
  if (k0 >= words.size()) {
    if (prompted) {
      b.title = std::string(cmd);
      return b;
    }
    return std::nullopt;
  }
  std::string prog = words[k0];
  if (prompted) {
    if (const size_t sl = prog.rfind('/'); sl != std::string::npos) prog = prog.substr(sl + 1);
  }
  if (!prompted) {
    bool ok = false;
    for (const auto& k : kKnown) {
      if (k.prog != prog) continue;
      if (k0 + 1 == words.size()) {
        ok = true;
      } else {
        // look at the raw second word (before quote removal) for arg-likeness
        const auto rawwords = text::split_ws(cmd);
        const std::string_view second = rawwords.size() > k0 + 1 ? rawwords[k0 + 1] : "";
        ok = k.any_args || known_second_word(prog, second);
      }
      break;
    }
    if (!ok) return std::nullopt;
  }
  b.title = std::string(cmd);
  b.argv.assign(words.begin() + static_cast<std::ptrdiff_t>(k0), words.end());
  b.argv[0] = prog;
  fill_from_argv(b);
  if (b.npu < 0) b.npu = int_after(cmd, "npu id").value_or(-1);
  return b;
}

std::string_view basename(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const size_t p = path.rfind('/');
  return p == std::string_view::npos ? path : path.substr(p + 1);
}

std::string_view dirname(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const size_t p = path.rfind('/');
  if (p == std::string_view::npos) return {};
  if (p == 0) return "/";
  return path.substr(0, p);
}

std::string join_path(std::string_view base, std::string_view rel) {
  std::string full;
  if (!rel.empty() && rel.front() == '/') {
    full = std::string(rel);
  } else {
    full = std::string(base);
    if (!full.empty() && full.back() != '/') full.push_back('/');
    full += rel;
  }
  const bool absolute = !full.empty() && full.front() == '/';
  std::vector<std::string_view> parts;
  for (auto seg : text::split(full, '/')) {
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (!parts.empty() && parts.back() != "..")
        parts.pop_back();
      else if (!absolute)
        parts.push_back(seg);
      continue;
    }
    parts.push_back(seg);
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out.push_back('/');
    out += parts[i];
  }
  if (out.empty()) out.push_back(absolute ? '/' : '.');
  return out;
}

namespace {
std::optional<int64_t> digits_at(std::string_view s, size_t pos, size_t* end = nullptr) {
  size_t e = pos;
  while (e < s.size() && is_digit(s[e]) && e - pos < 10) ++e;
  if (e == pos || (e < s.size() && is_digit(s[e]))) return std::nullopt;
  if (end) *end = e;
  return text::to_int<int64_t>(s.substr(pos, e - pos));
}
}  // namespace

std::optional<int64_t> pid_from_path(std::string_view path) {
  const auto segs = text::split(path, '/');
  // proc/<pid>/..., process/<pid>/..., pid_<pid>/..., pid-<pid>, <pid>/maps
  for (size_t i = 0; i < segs.size(); ++i) {
    const std::string_view seg = segs[i];
    const std::string l = text::to_lower(seg);
    if ((l == "proc" || l == "process" || l == "processes" || l == "pid") && i + 1 < segs.size()) {
      size_t e = 0;
      if (auto v = digits_at(segs[i + 1], 0, &e); v && e == segs[i + 1].size()) return v;
    }
    for (std::string_view pre : {"pid_", "pid-", "pid", "proc_", "proc-", "process_", "process-"}) {
      if (l.size() > pre.size() && l.substr(0, pre.size()) == pre && is_digit(l[pre.size()])) {
        size_t e = 0;
        if (auto v = digits_at(l, pre.size(), &e);
            v && (e == l.size() || l[e] == '_' || l[e] == '-' || l[e] == '.'))
          return v;
      }
    }
  }
  // basename forms: maps_12345.txt, maps-12345, maps.12345, 12345.maps, 12345_maps.txt
  std::string_view base = segs.empty() ? path : segs.back();
  for (std::string_view ext : {".txt", ".log", ".out"})
    if (ends_with(base, ext)) base.remove_suffix(ext.size());
  const size_t n = base.size();
  // trailing number after a separator
  size_t i = n;
  while (i > 0 && is_digit(base[i - 1])) --i;
  if (i < n && i > 0 && (base[i - 1] == '_' || base[i - 1] == '-' || base[i - 1] == '.'))
    return text::to_int<int64_t>(base.substr(i, std::min<size_t>(n - i, 10)));
  // leading number before a separator
  size_t j = 0;
  while (j < n && is_digit(base[j])) ++j;
  if (j > 0 && j < n && (base[j] == '_' || base[j] == '-' || base[j] == '.') && j <= 10)
    return text::to_int<int64_t>(base.substr(0, j));
  // <pid>/maps (a bare numeric parent folder)
  if (segs.size() >= 2) {
    const std::string_view parent = segs[segs.size() - 2];
    size_t e = 0;
    if (auto v = digits_at(parent, 0, &e); v && e == parent.size()) return v;
  }
  return std::nullopt;
}

std::optional<int> npu_from_path(std::string_view path) {
  const std::string l = text::to_lower(path);
  static constexpr std::array<std::string_view, 4> kKeys{"npu", "device", "card", "davinci"};
  for (size_t p = 0; p < l.size(); ++p) {
    if (p > 0 && is_alpha(l[p - 1])) continue;
    for (std::string_view key : kKeys) {
      if (l.compare(p, key.size(), key) != 0) continue;
      size_t q = p + key.size();
      if (q < l.size() && (l[q] == '-' || l[q] == '_')) ++q;
      if (l.compare(q, 4, "smi_") == 0 || l.compare(q, 4, "smi-") == 0) q += 4;
      size_t e = 0;
      if (auto v = digits_at(l, q, &e); v && *v < 100000 && (e == l.size() || !is_alpha(l[e])))
        return static_cast<int>(*v);
    }
  }
  return std::nullopt;
}

std::string snake(std::string_view s) {
  std::string out;
  bool sep = false;
  for (char c : s) {
    if (is_alpha(c) || is_digit(c)) {
      if (sep && !out.empty()) out.push_back('_');
      sep = false;
      out.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
    } else {
      sep = true;
    }
    if (out.size() > 200) break;
  }
  return out;
}

bool split_kv(std::string_view line, char sep, std::string_view& key, std::string_view& value) {
  const size_t p = line.find(sep);
  if (p == std::string_view::npos) return false;
  key = trim(line.substr(0, p));
  value = trim(line.substr(p + 1));
  return !key.empty();
}

std::string_view unquote(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    return v.substr(1, v.size() - 2);
  return v;
}

namespace {
struct CannHit {
  size_t root_end = 0;  // end of the install root in the path
  std::string version;
};

bool version_like(std::string_view seg) {
  if (seg == "latest") return true;
  if (!starts_with_digit(seg) || seg.find('.') == std::string_view::npos) return false;
  for (char c : seg)
    if (!(is_digit(c) || is_alpha(c) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

std::optional<CannHit> find_cann(std::string_view path) {
  // .../<component>/<version>/...  with component a CANN package folder
  static constexpr std::array<std::string_view, 6> kDirs{
      "/ascend-toolkit/", "/nnae/", "/nnrt/", "/ascend-runtime/", "/tfplugin/", "/cann/"};
  for (std::string_view d : kDirs) {
    size_t p = 0;
    while ((p = path.find(d, p)) != std::string_view::npos) {
      const size_t vs = p + d.size();
      size_t ve = path.find('/', vs);
      if (ve == std::string_view::npos) ve = path.size();
      const std::string_view seg = path.substr(vs, ve - vs);
      if (version_like(seg)) return CannHit{ve, std::string(seg)};
      p = vs;
    }
  }
  // .../cann-9.1.0/...  (CANN >= 8.5 default root)
  size_t p = 0;
  while ((p = path.find("/cann-", p)) != std::string_view::npos) {
    const size_t vs = p + 6;
    size_t ve = path.find('/', vs);
    if (ve == std::string_view::npos) ve = path.size();
    const std::string_view seg = path.substr(vs, ve - vs);
    if (version_like(seg) && seg != "latest") return CannHit{ve, std::string(seg)};
    p = vs;
  }
  return std::nullopt;
}
}  // namespace

std::optional<std::string> cann_version_in_path(std::string_view path) {
  if (auto h = find_cann(path)) return h->version;
  return std::nullopt;
}

std::optional<std::string> cann_root_in_path(std::string_view path) {
  if (auto h = find_cann(path)) return std::string(path.substr(0, h->root_end));
  return std::nullopt;
}

void OutputParser::fact(Sink& sink, std::string_view name, std::string_view value, uint32_t line) {
  if (capped_) return;
  if (facts_ >= kMaxFactsPerMember) {
    capped_ = true;
    sink.malformed(LineCtx{line, 0}, "fact limit reached; further facts of this member dropped");
    return;
  }
  ++facts_;
  Fact f;
  f.name = std::string(name.substr(0, kMaxNameBytes));
  f.value = std::string(value.substr(0, kMaxValueBytes));
  f.line = line;
  sink.fact(f);
}

void OutputParser::event(Sink& sink, const Ev& e) {
  Event ev;
  ev.line = e.line;
  ev.line_count = e.line_count;
  ev.offset = e.offset;
  ev.severity = e.severity;
  ev.keep = e.keep;
  ev.module = e.module;
  ev.message = e.message;
  ev.text = e.text.empty() ? e.message : e.text;
  ev.device = e.device;
  ev.pid = e.pid;
  sink.event(ev);
}

size_t yaml_key_colon(std::string_view rest) {
  if (rest.empty()) return std::string_view::npos;
  if (rest.front() == '"' || rest.front() == '\'') {
    const size_t close = rest.find(rest.front(), 1);
    if (close != std::string_view::npos && close + 1 < rest.size() && rest[close + 1] == ':')
      return close + 1;
    return std::string_view::npos;
  }
  const size_t c = rest.find(": ");
  const size_t colon = c != std::string_view::npos
                           ? c
                           : (rest.back() == ':' ? rest.size() - 1 : std::string_view::npos);
  if (colon != std::string_view::npos &&
      rest.substr(0, colon).find_first_of("{[") != std::string_view::npos)
    return std::string_view::npos;  // a flow collection or a URL-like scalar
  return colon;
}

}  // namespace faultline::parse::outputs
