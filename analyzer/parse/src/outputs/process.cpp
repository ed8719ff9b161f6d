// Process views: /proc/<pid>/maps, /proc/<pid>/cmdline, environment (environ, printenv, env,
// export, declare -x), /proc/<pid>/mountinfo, /proc/mounts and `mount`.
#include <map>
#include <set>

#include "faultline/core/text.hpp"
#include "outputs/common.hpp"
#include "outputs/outputs.hpp"

namespace faultline::parse::outputs {
namespace {

using text::trim;

std::string pid_text(std::optional<int64_t> pid) {
  return pid ? std::to_string(*pid) : std::string("unknown");
}

bool valid_env_name(std::string_view n) {
  if (n.empty() || n.size() > 256) return false;
  if (!(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// `ASCEND_DIAG_PID=12345` (optionally `$ ` / `export ` prefixed) -> name, value
bool shell_assignment(std::string_view s, std::string& name, std::string& value) {
  if (s.substr(0, 2) == "$ ") s.remove_prefix(2);
  if (s.substr(0, 7) == "export ") s.remove_prefix(7);
  const size_t eq = s.find('=');
  if (eq == std::string_view::npos) return false;
  const std::string_view n = s.substr(0, eq);
  if (!valid_env_name(n)) return false;
  name = std::string(n);
  value = std::string(unquote(trim(s.substr(eq + 1))));
  return true;
}

// ---------------------------------------------------------------------------------------------
// /proc/<pid>/maps

struct MapsLine {
  std::string_view range, perms, path;
  bool deleted = false;
};

std::optional<MapsLine> parse_maps_line(std::string_view s) {
  // 7f1234560000-7f1234580000 r-xp 00000000 fd:01 1234567    /path (deleted)
  MapsLine m;
  size_t pos = 0;
  std::string_view tok[5];
  for (int i = 0; i < 5; ++i) {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t')) ++pos;
    const size_t st = pos;
    while (pos < s.size() && s[pos] != ' ' && s[pos] != '\t') ++pos;
    if (pos == st) return std::nullopt;
    tok[i] = s.substr(st, pos - st);
  }
  const size_t dash = tok[0].find('-');
  if (dash == std::string_view::npos || !is_hex(tok[0].substr(0, dash)) ||
      !is_hex(tok[0].substr(dash + 1)))
    return std::nullopt;
  if (tok[1].size() != 4 || (tok[1][0] != 'r' && tok[1][0] != '-') ||
      (tok[1][3] != 'p' && tok[1][3] != 's'))
    return std::nullopt;
  if (!is_hex(tok[2]) || tok[3].find(':') == std::string_view::npos) return std::nullopt;
  for (char c : tok[4])
    if (!is_digit(c)) return std::nullopt;
  m.range = tok[0];
  m.perms = tok[1];
  std::string_view path = trim(s.substr(pos));
  constexpr std::string_view kDel = " (deleted)";
  if (path.size() > kDel.size() && path.substr(path.size() - kDel.size()) == kDel) {
    m.deleted = true;
    path.remove_suffix(kDel.size());
  }
  m.path = path;
  return m;
}

// Deleted mappings that are not files someone replaced (shared memory, memfd, devices).
bool pseudo_file(std::string_view p) {
  return p.substr(0, 7) == "/memfd:" || p.substr(0, 5) == "/SYSV" || p.substr(0, 5) == "/dev/" ||
         p.substr(0, 15) == "/anon_hugepage" || p.substr(0, 2) == "/[" || p.front() != '/';
}

bool npu_stack_file(std::string_view p) {
  const std::string_view b = basename(p);
  return text::icontains(p, "/Ascend/") || text::icontains(p, "ascend") ||
         b.substr(0, 7) == "libhccl" || b.substr(0, 6) == "libge_" || b.substr(0, 6) == "libacl" ||
         b.substr(0, 10) == "libruntime" || b.substr(0, 8) == "libopapi" ||
         b.substr(0, 12) == "libtorch_npu" || b.substr(0, 9) == "libdrvdsmi" ||
         b.substr(0, 12) == "libascend_hal";
}

class MapsParser final : public OutputParser {
 public:
  explicit MapsParser(std::string_view path) : path_pid_(pid_from_path(path)) { pid_ = path_pid_; }

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    std::string_view s = trim(raw);
    if (is_blank(s)) return;
    // grep/rg with several files: "/proc/12345/maps:7f..-7f.. r-xp ..."
    std::optional<int64_t> line_pid;
    if (!std::isxdigit(static_cast<unsigned char>(s.front())) || s.find(':') < s.find('-')) {
      const size_t m = s.find("/maps:");
      if (m != std::string_view::npos) {
        line_pid = pid_from_path(s.substr(0, m + 5));
        s = s.substr(m + 6);
      }
    }
    if (auto m = parse_maps_line(s)) {
      on_mapping(*m, line_pid ? line_pid : pid_, raw, ctx, sink);
      return;
    }
    // "123:7f..." (grep -n)
    if (const size_t c = s.find(':'); c != std::string_view::npos && c < 10 && c > 0) {
      bool digits = true;
      for (size_t i = 0; i < c; ++i) digits = digits && is_digit(s[i]);
      if (digits)
        if (auto m = parse_maps_line(s.substr(c + 1))) {
          on_mapping(*m, pid_, raw, ctx, sink);
          return;
        }
    }
    std::string name, value;
    if (shell_assignment(s, name, value)) {
      if (vars_.size() < 256) vars_[name] = value;
      return;
    }
    if (auto b = parse_banner(s)) {
      pid_ = banner_pid(*b).value_or(path_pid_.value_or(-1));
      if (pid_ && *pid_ < 0) pid_.reset();
      return;
    }
    sink.malformed(ctx, "not a maps line");
  }

 private:
  std::optional<int64_t> banner_pid(const Banner& b) {
    std::string p = b.path.empty() ? b.title : b.path;
    // /proc/$ASCEND_DIAG_PID/maps, /proc/${PID}/maps
    const size_t d = p.find('$');
    if (d != std::string::npos) {
      size_t e = d + 1;
      const bool brace = e < p.size() && p[e] == '{';
      if (brace) ++e;
      size_t ne = e;
      while (ne < p.size() && (std::isalnum(static_cast<unsigned char>(p[ne])) || p[ne] == '_'))
        ++ne;
      const std::string var = p.substr(e, ne - e);
      if (brace && ne < p.size() && p[ne] == '}') ++ne;
      auto it = vars_.find(var);
      if (it != vars_.end()) p = p.substr(0, d) + it->second + p.substr(ne);
    }
    const size_t pr = p.find("/proc/");
    if (pr == std::string::npos) return std::nullopt;
    return pid_from_path(p.substr(pr + 1));
  }

  void on_mapping(const MapsLine& m, std::optional<int64_t> pid, std::string_view raw,
                  const LineCtx& ctx, Sink& sink) {
    const std::string pfx = "process." + pid_text(pid);
    std::string mapping(m.range);
    mapping += " ";
    mapping += m.perms;
    if (!m.path.empty()) {
      mapping += " ";
      mapping += m.path;
      if (m.deleted) mapping += " (deleted)";
    }
    fact(sink, pfx + ".mapping", mapping, ctx.line);
    // anonymous, [heap], [stack], [vdso]; memfd and SysV shared memory are not files
    if (m.path.empty() || m.path.front() != '/' || m.path.substr(0, 7) == "/memfd:" ||
        m.path.substr(0, 5) == "/SYSV")
      return;
    const std::string key = pfx + "\n" + std::string(m.path);
    if (libs_.size() < 100000 && libs_.insert(key).second)
      fact(sink, pfx + ".library", m.path, ctx.line);
    if (auto v = cann_version_in_path(m.path); v && cann_.size() < 64 && cann_.insert(*v).second)
      fact(sink, "cann.version.loaded", *v, ctx.line);
    if (m.deleted && !pseudo_file(m.path) && deleted_.size() >= kMaxDeleted) {
      if (deleted_.count(key) == 0) {
        ++unlisted_;
        last_line_ = ctx.line;
        last_offset_ = ctx.offset;
      }
    } else if (m.deleted && !pseudo_file(m.path) && deleted_.insert(key).second) {
      fact(sink, pfx + ".deleted", m.path, ctx.line);
      const bool npu = npu_stack_file(m.path);
      const std::string msg =
          "process " + pid_text(pid) + " maps deleted file " + std::string(m.path);
      event(sink, Ev{ctx.line, 1, ctx.offset, npu ? Severity::error : Severity::warning, true,
                     "maps", msg, trim(raw), -1, pid.value_or(-1)});
    }
  }

  // A maps file of a million deleted mappings (issue 18 item 9) must not hold a million paths
  // nor write a million events: the first kMaxDeleted are listed, the rest counted.
  static constexpr size_t kMaxDeleted = 4096;

 public:
  void finish(Sink& sink) override {
    if (unlisted_ == 0) return;
    const std::string msg = std::to_string(unlisted_) +
                            " more mappings of deleted files not listed (at most " +
                            std::to_string(kMaxDeleted) + " per maps file)";
    event(sink, Ev{last_line_, 1, last_offset_, Severity::warning, true, "maps", msg, msg, -1,
                   pid_.value_or(-1)});
  }

 private:
  std::optional<int64_t> path_pid_;
  std::optional<int64_t> pid_;
  std::map<std::string, std::string> vars_;
  std::set<std::string> libs_, deleted_, cann_;
  uint64_t unlisted_ = 0;
  uint32_t last_line_ = 0;
  uint64_t last_offset_ = 0;
};

// ---------------------------------------------------------------------------------------------
// /proc/<pid>/cmdline

class CmdlineParser final : public OutputParser {
 public:
  explicit CmdlineParser(std::string_view path) : pid_(pid_from_path(path)) {}

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    if (buf_.empty()) {
      if (is_blank(raw)) return;
      if (raw.find('\0') == std::string_view::npos) {
        if (auto b = parse_banner(raw); b && (b->path.find("/proc/") != std::string::npos)) {
          pid_ = pid_from_path(b->path.substr(b->path.find("/proc/") + 1));
          return;
        }
      }
      start_ = ctx.line;
    } else {
      buf_.push_back('\n');  // newline inside an argument
    }
    if (buf_.size() + raw.size() < kMaxAccumBytes) buf_.append(raw);
    // a cmdline record ends with NUL; a `tr '\0' ' '` copy is one line
    if (!buf_.empty() && (buf_.back() == '\0' || raw.find('\0') == std::string_view::npos))
      flush(sink);
  }

  void finish(Sink& sink) override { flush(sink); }

 private:
  void flush(Sink& sink) {
    if (buf_.empty()) return;
    std::vector<std::string> args;
    if (buf_.find('\0') != std::string::npos) {
      for (auto a : text::split(buf_, '\0')) args.emplace_back(a);
      while (!args.empty() && args.back().empty()) args.pop_back();
    } else {
      for (auto a : text::split_ws(buf_)) args.emplace_back(a);
    }
    std::string joined;
    for (const auto& a : args) {
      if (!joined.empty()) joined.push_back(' ');
      joined += a;
    }
    if (!joined.empty()) fact(sink, "process." + pid_text(pid_) + ".cmdline", joined, start_);
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a.size() < 3 || a[0] != '-' || a[1] != '-') continue;
      const size_t eq = a.find('=');
      if (eq != std::string::npos) {
        fact(sink, "args." + a.substr(2, eq - 2), std::string_view(a).substr(eq + 1), start_);
      } else if (i + 1 < args.size() &&
                 !(args[i + 1].size() > 1 && args[i + 1][0] == '-' && !is_digit(args[i + 1][1]))) {
        fact(sink, "args." + a.substr(2), args[i + 1], start_);
        ++i;
      } else {
        fact(sink, "args." + a.substr(2), "", start_);
      }
    }
    buf_.clear();
  }

  std::optional<int64_t> pid_;
  std::string buf_;
  uint32_t start_ = 0;
};

// ---------------------------------------------------------------------------------------------
// environment

std::string unescape_double(std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '\\' && i + 1 < v.size() &&
        (v[i + 1] == '"' || v[i + 1] == '\\' || v[i + 1] == '$' || v[i + 1] == '`')) {
      out.push_back(v[++i]);
      continue;
    }
    out.push_back(v[i]);
  }
  return out;
}

class EnvironParser final : public OutputParser {
 public:
  // /proc/<pid>/environ (the member path names the process): every variable is also stated as
  // process.<pid>.env.<NAME>, the environment of that process, not of a shell.
  explicit EnvironParser(std::string_view path) {
    if (basename(path).find("environ") != std::string_view::npos) {
      if (auto p = pid_from_path(path)) scope_ = "process." + std::to_string(*p) + ".env.";
    }
  }
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    if (raw.find('\0') != std::string_view::npos) {
      for (auto item : text::split(raw, '\0')) {
        if (item.empty()) continue;
        const size_t eq = item.find('=');
        if (eq == std::string_view::npos || !valid_env_name(item.substr(0, eq))) continue;
        var(item.substr(0, eq), item.substr(eq + 1), ctx, sink);
      }
      return;
    }
    std::string_view s = text::rtrim(raw);
    if (is_blank(s)) return;
    std::string_view t = trim(s);
    bool shell = false;
    if (t.substr(0, 11) == "declare -x " || t.substr(0, 12) == "declare -rx " ||
        t.substr(0, 12) == "declare -xr ") {
      t = trim(t.substr(t.find(' ', 8) + 1));
      shell = true;
    } else if (t.substr(0, 7) == "export ") {
      t = trim(t.substr(7));
      shell = true;
    } else if (t.substr(0, 7) == "setenv ") {  // csh
      const auto w = text::split_ws(t);
      if (w.size() >= 2 && valid_env_name(w[1])) {
        const size_t vp = t.find(w[1]) + w[1].size();
        var(w[1], unquote(trim(t.substr(vp))), ctx, sink);
        return;
      }
    }
    const size_t eq = t.find('=');
    if (eq != std::string_view::npos && valid_env_name(t.substr(0, eq))) {
      std::string_view v = t.substr(eq + 1);
      if (shell) {
        if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
          var(t.substr(0, eq), unescape_double(v.substr(1, v.size() - 2)), ctx, sink);
          return;
        }
        v = unquote(v);
      } else {
        // printenv / env print the value verbatim, leading spaces included
        v = s.substr(static_cast<size_t>(t.data() - s.data()) + eq + 1);
        // an environment file (`KEY="/path"`, `KEY='/a:/b'`: systemd EnvironmentFile=, compose
        // env files) read under an environ name: the launcher strips the quotes, so does this for
        // paths and path lists (a value printenv shows quoted, like a PS1, stays verbatim)
        if (v.size() >= 3 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front() &&
            v[1] == '/' && v.substr(1, v.size() - 2).find(v.front()) == std::string_view::npos)
          v = v.substr(1, v.size() - 2);
      }
      var(t.substr(0, eq), v, ctx, sink);
      return;
    }
    if (shell) return;  // `declare -x FOO` without value
    if (parse_banner(t)) return;
    // continuation of a multi-line value (exported shell functions); nothing to state
  }

 private:
  void var(std::string_view name, std::string_view value, const LineCtx& ctx, Sink& sink) {
    fact(sink, "env." + std::string(name), value, ctx.line);
    if (!scope_.empty()) fact(sink, scope_ + std::string(name), value, ctx.line);
    // CANN versions the environment points at (…/ascend-toolkit/8.5.1/…): one fact per version
    for (auto part : text::split(value, ':')) {
      if (part.empty() || part.front() != '/') continue;
      if (auto v = cann_version_in_path(part);
          v && versions_.size() < 64 && versions_.insert(*v).second)
        fact(sink, "cann.version.env", *v, ctx.line);
    }
  }

  std::set<std::string> versions_;
  std::string scope_;
};

// ---------------------------------------------------------------------------------------------
// mountinfo, /proc/mounts, mount

std::string unoctal(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string_view o = s.substr(i + 1, 3);
      if (o.size() == 3 && o[0] >= '0' && o[0] <= '3' && o[1] >= '0' && o[1] <= '7' &&
          o[2] >= '0' && o[2] <= '7') {
        out.push_back(static_cast<char>((o[0] - '0') * 64 + (o[1] - '0') * 8 + (o[2] - '0')));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// `bind` / `rbind` among comma-separated mount options
bool bind_opts(std::string_view opts) {
  for (auto o : text::split(opts, ','))
    if (o == "bind" || o == "rbind") return true;
  return false;
}

// findmnt's tree drawing before the target: "├─", "└─", "│ " (UTF-8) or "|-", "`-"
std::string_view findmnt_target_start(std::string_view s) {
  for (;;) {
    if (s.rfind("\xe2\x94\x9c\xe2\x94\x80", 0) == 0 || s.rfind("\xe2\x94\x94\xe2\x94\x80", 0) == 0)
      s.remove_prefix(6);
    else if (s.rfind("\xe2\x94\x82", 0) == 0)
      s.remove_prefix(3);
    else if (s.rfind("|-", 0) == 0 || s.rfind("`-", 0) == 0)
      s.remove_prefix(2);
    else if (!s.empty() && (s.front() == ' ' || s.front() == '|'))
      s.remove_prefix(1);
    else
      return s;
  }
}

class MountParser final : public OutputParser {
 public:
  explicit MountParser(std::string_view path) : fstab_(text::icontains(path, "fstab")) {}

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    ctx_text_ = s;
    const auto w = text::split_ws(s);
    // findmnt: "TARGET SOURCE FSTYPE OPTIONS" then rows; a bind's root is "SOURCE[/root]"
    if (w.size() >= 4 && w[0] == "TARGET" && w[1] == "SOURCE" && w[2] == "FSTYPE") {
      findmnt_ = true;
      return;
    }
    if (findmnt_) {
      const auto f = text::split_ws(findmnt_target_start(s));
      if (f.size() >= 4 && !f[0].empty() && f[0].front() == '/') {
        std::string src(f[1]);
        std::string root = "/";
        if (const size_t br = src.find('['); br != std::string::npos && src.back() == ']') {
          root = src.substr(br + 1, src.size() - br - 2);
          src.resize(br);
        }
        emit(std::string(f[0]), root, src, f[2], f[3], ctx, sink);
        return;
      }
      if (f.size() >= 3 && !f[0].empty() && f[0].front() == '/') return;  // a column missing
      findmnt_ = false;
    }
    // /etc/fstab: "src mountpoint fstype opts [dump [pass]]"; a bind's source is its root
    if (fstab_ && !s.empty() && s.front() == '#') return;
    if (fstab_ && w.size() >= 4 && w.size() <= 6 && !w[1].empty() &&
        (w[1].front() == '/' || w[1] == "none" || w[1] == "swap")) {
      const bool bind = bind_opts(w[3]);
      emit(unoctal(w[1]), bind ? unoctal(w[0]) : "?", unoctal(w[0]), w[2], w[3], ctx, sink,
           " scope=fstab");
      return;
    }
    // mountinfo: id parent maj:min root mountpoint opts [optional...] - fstype source superopts
    if (w.size() >= 10 && text::to_int<int64_t>(w[0]) && text::to_int<int64_t>(w[1]) &&
        w[2].find(':') != std::string_view::npos) {
      size_t sep = 6;
      while (sep < w.size() && w[sep] != "-") ++sep;
      if (sep + 2 < w.size()) {
        emit(unoctal(w[4]), unoctal(w[3]), unoctal(w[sep + 2]), w[sep + 1], w[5], ctx, sink);
        return;
      }
    }
    // mount: "src on mp type fstype (opts)"
    if (w.size() >= 6 && w[1] == "on" && w[3] == "type") {
      std::string_view opts = w[5];
      if (opts.size() >= 2 && opts.front() == '(' && opts.back() == ')')
        opts = opts.substr(1, opts.size() - 2);
      emit(std::string(w[2]), "?", std::string(w[0]), w[4], opts, ctx, sink);
      return;
    }
    // /proc/mounts: "src mp fstype opts 0 0"
    if (w.size() == 6 && text::to_int<int>(w[4]) && text::to_int<int>(w[5])) {
      emit(unoctal(w[1]), "?", unoctal(w[0]), w[2], w[3], ctx, sink);
      return;
    }
    if (parse_banner(s)) return;
    sink.malformed(ctx, "not a mount line");
  }

 private:
  void emit(const std::string& mp, const std::string& root, const std::string& src,
            std::string_view fstype, std::string_view opts, const LineCtx& ctx, Sink& sink,
            std::string_view scope = {}) {
    std::string v = "root=" + root + " source=" + src + " fstype=" + std::string(fstype) +
                    " opts=" + std::string(opts) + std::string(scope);
    fact(sink, "mount." + mp, v, ctx.line);
    if (root != "/" && root != "?" && text::icontains(mp, "ascend")) {
      const std::string msg = "bind mount of " + root + " (" + src + ") on " + mp;
      event(sink,
            Ev{ctx.line, 1, ctx.offset, Severity::notice, true, "mount", msg, ctx_text_, -1, -1});
    }
  }

  std::string_view ctx_text_;  // the line being parsed (valid during line())
  bool fstab_ = false;         // the member or section is /etc/fstab
  bool findmnt_ = false;       // inside a findmnt table
};

}  // namespace

// lsof(8): "COMMAND PID [TID [TASKCMD]] USER FD TYPE DEVICE SIZE/OFF NODE NAME". A file a
// process still maps after it was removed is an FD `DEL` row (its SIZE/OFF column is empty) or a
// NAME ending in ` (deleted)` (`txt`/`mem` rows): the same statement as a maps ` (deleted)` line.
// `lsof | grep deleted`, `lsof -p PID`, `lsof +L1` print the same rows.
class LsofParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    const auto w = text::split_ws(s);
    if (w.size() >= 2 && w[0] == "COMMAND" && w[1] == "PID") return;  // header
    if (w.size() < 6 || !text::to_int<int64_t>(w[1])) {
      if (!parse_banner(s)) sink.malformed(ctx, "not an lsof row");
      return;
    }
    // NAME: from the first token that starts with '/' after COMMAND PID USER FD TYPE
    const size_t at = s.find(" /");
    if (at == std::string_view::npos) return;  // sockets, pipes, anon inodes
    std::string_view name = trim(s.substr(at + 1));
    bool del = false;
    for (size_t i = 2; i < std::min<size_t>(w.size(), 6); ++i)
      if (w[i] == "DEL") del = true;
    constexpr std::string_view kDel = " (deleted)";
    if (name.size() > kDel.size() && name.substr(name.size() - kDel.size()) == kDel) {
      name.remove_suffix(kDel.size());
      del = true;
    }
    // lsof may print "(path inode=N)" for a changed file: not a removal
    if (!del || name.empty() || pseudo_file(name)) return;
    const std::string pid(w[1]);
    const std::string key = pid + "\n" + std::string(name);
    if (seen_.size() >= 4096 || !seen_.insert(key).second) return;
    fact(sink, "process." + pid + ".deleted", name, ctx.line);
    const bool npu = npu_stack_file(name);
    event(sink, Ev{ctx.line, 1, ctx.offset, npu ? Severity::error : Severity::warning, true, "maps",
                   "process " + pid + " maps deleted file " + std::string(name) + " (lsof)", s, -1,
                   *text::to_int<int64_t>(w[1])});
  }

 private:
  std::set<std::string> seen_;
};

std::unique_ptr<Parser> make_lsof(std::string_view /*path*/) {
  return std::make_unique<LsofParser>();
}
std::unique_ptr<Parser> make_proc_maps(std::string_view path) {
  return std::make_unique<MapsParser>(path);
}
std::unique_ptr<Parser> make_proc_cmdline(std::string_view path) {
  return std::make_unique<CmdlineParser>(path);
}
std::unique_ptr<Parser> make_environ(std::string_view path) {
  return std::make_unique<EnvironParser>(path);
}
std::unique_ptr<Parser> make_mountinfo(std::string_view path) {
  return std::make_unique<MountParser>(path);
}

}  // namespace faultline::parse::outputs
