// Kernel modules and file listings: modinfo (full, -n, -F field), modprobe -n -v /
// --show-depends, lsmod (and /proc/modules), ls -l / ls -lR / readlink -f.
// Seed 002 section 5: the module a tool resolves (updates/dkms/...) vs what the listing shows.
#include <set>

#include "faultline/core/text.hpp"
#include "outputs/common.hpp"
#include "outputs/outputs.hpp"

namespace faultline::parse::outputs {
namespace {

using text::trim;

bool ends_with(std::string_view s, std::string_view suf) {
  return s.size() >= suf.size() && s.substr(s.size() - suf.size()) == suf;
}

// "/lib/modules/5.15.0/updates/dkms/drv_pcie_host.ko.xz" -> "drv_pcie_host"
std::string module_from_file(std::string_view path) {
  std::string_view b = basename(path);
  for (std::string_view ext : {".xz", ".gz", ".zst"})
    if (ends_with(b, ext)) b.remove_suffix(ext.size());
  if (ends_with(b, ".ko")) b.remove_suffix(3);
  std::string out(b);
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

std::string module_name(std::string_view n) {
  std::string out(trim(n));
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

bool is_ko_path(std::string_view s) {
  if (s.empty() || s.front() != '/' || s.find(' ') != std::string_view::npos) return false;
  for (std::string_view ext : {".ko", ".ko.xz", ".ko.gz", ".ko.zst"})
    if (ends_with(s, ext)) return true;
  return false;
}

bool kernel_release_like(std::string_view w) {
  // 5.15.0-91-generic, 4.19.90-52.22.v2207.ky10.aarch64
  return w.size() >= 3 && is_digit(w[0]) && w.find('.') != std::string_view::npos;
}

// Module name and requested field from a member path: modinfo_drv_pcie_host.txt,
// modinfo-n_drv_pcie_host.log, modinfo_F_vermagic_drv_pcie_host.txt, modinfo/drv_pcie_host,
// drv_pcie_host.modinfo.
struct PathHint {
  std::string module;
  std::string field;  // "filename" for -n, "vermagic", "depends", or ""
};
PathHint modinfo_hint(std::string_view path) {
  PathHint h;
  std::string base = text::to_lower(basename(path));
  for (std::string_view ext : {".txt", ".log", ".out"})
    if (ends_with(base, ext)) base.resize(base.size() - ext.size());
  const std::string parent = text::to_lower(basename(dirname(path)));
  std::string rest;
  if (ends_with(base, ".modinfo")) {
    rest = base.substr(0, base.size() - 8);
  } else if (base.rfind("modinfo", 0) == 0) {
    rest = base.substr(7);
  } else if (parent == "modinfo") {
    rest = base;
  } else {
    return h;
  }
  auto strip_sep = [&] {
    while (!rest.empty() && (rest[0] == '_' || rest[0] == '-' || rest[0] == '.')) rest.erase(0, 1);
  };
  strip_sep();
  for (std::string_view opt : {"n_", "n-"})
    if (rest.rfind(opt, 0) == 0) {
      rest.erase(0, 2);
      h.field = "filename";
    }
  for (std::string_view f : {"vermagic", "depends", "filename"}) {
    for (std::string_view pre : {"f_", "f-", "f", ""}) {
      const std::string key = std::string(pre) + std::string(f);
      if (rest.rfind(key, 0) == 0 && rest.size() > key.size() &&
          (rest[key.size()] == '_' || rest[key.size()] == '-')) {
        rest.erase(0, key.size());
        h.field = std::string(f);
        break;
      }
    }
    if (!h.field.empty() && h.field == f) break;
  }
  strip_sep();
  h.module = module_name(rest);
  return h;
}

// ---------------------------------------------------------------------------------------------
// modinfo

class ModinfoParser final : public OutputParser {
 public:
  explicit ModinfoParser(std::string_view path) : path_hint_(modinfo_hint(path)) {
    hint_ = path_hint_;
  }

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    if (is_blank(raw)) return;
    if (raw.front() == ' ' || raw.front() == '\t') {
      // signature continuation lines ("\t\tAB:CD:...")
      if (!fields_.empty()) return;
    }
    const std::string_view s = trim(raw);
    if (text::istarts_with(s, "modinfo: ERROR:") || text::istarts_with(s, "modinfo: error")) {
      flush(sink);
      event(sink, Ev{ctx.line, 1, ctx.offset, Severity::error, true, "modinfo", s, s, -1, -1});
      return;
    }
    // "field:   value"
    const size_t colon = s.find(':');
    if (colon != std::string_view::npos && colon > 0 && colon < 24) {
      const std::string_view f = s.substr(0, colon);
      bool ident = true;
      for (char c : f) ident = ident && ((c >= 'a' && c <= 'z') || c == '_' || is_digit(c));
      if (ident) {
        const std::string_view v = trim(s.substr(colon + 1));
        if (f == "filename") flush(sink);
        if (fields_.size() < 512) fields_.push_back({std::string(f), std::string(v), ctx.line});
        return;
      }
    }
    if (auto b = parse_banner(s)) {
      flush(sink);
      hint_ = path_hint_;
      if (b->is_command("modinfo")) {
        hint_.field.clear();
        for (size_t i = 1; i < b->argv.size(); ++i) {
          if (b->argv[i] == "-n") hint_.field = "filename";
          if ((b->argv[i] == "-F" || b->argv[i] == "--field") && i + 1 < b->argv.size())
            hint_.field = b->argv[i + 1];
          if (b->argv[i].rfind("--field=", 0) == 0) hint_.field = b->argv[i].substr(8);
        }
        const auto ops = b->operands();
        if (!ops.empty()) hint_.module = module_name(ops.back());
      }
      return;
    }
    // bare outputs of -n / -F <field>
    if (is_ko_path(s) || s == "(builtin)") {
      flush(sink);
      std::string mod = hint_.module;
      if (mod.empty() || (is_ko_path(s) && !hint_.field.empty() && hint_.field != "filename"))
        mod = module_from_file(s);
      if (mod.empty() || mod == "(builtin)") {
        sink.malformed(ctx, "modinfo path without a module name");
        return;
      }
      fact(sink, "module." + mod + ".resolved_path", s, ctx.line);
      return;
    }
    const auto w = text::split_ws(s);
    if (!hint_.module.empty() && !hint_.field.empty() && hint_.field != "filename") {
      if (hint_.field == "vermagic" || hint_.field == "depends" || hint_.field == "version") {
        fact(sink, "module." + hint_.module + "." + hint_.field, s, ctx.line);
        return;
      }
    }
    if (!w.empty() && kernel_release_like(w[0]) &&
        (s.find("SMP") != std::string_view::npos ||
         s.find("mod_unload") != std::string_view::npos)) {
      if (!hint_.module.empty()) {
        fact(sink, "module." + hint_.module + ".vermagic", s, ctx.line);
        return;
      }
      sink.malformed(ctx, "vermagic without a module name");
      return;
    }
    sink.malformed(ctx, "not a modinfo line");
  }

  void finish(Sink& sink) override { flush(sink); }

 private:
  struct Field {
    std::string name, value;
    uint32_t line;
  };

  void flush(Sink& sink) {
    if (fields_.empty()) return;
    std::string mod;
    const Field* file = nullptr;
    for (const auto& f : fields_) {
      if (f.name == "name" && !f.value.empty()) mod = module_name(f.value);
      if (f.name == "filename") file = &f;
    }
    if (mod.empty() && file && file->value != "(builtin)") mod = module_from_file(file->value);
    if (mod.empty()) mod = hint_.module;
    if (mod.empty()) {
      sink.malformed(LineCtx{fields_.front().line, 0}, "modinfo block without a module name");
      fields_.clear();
      return;
    }
    const std::string p = "module." + mod;
    for (const auto& f : fields_) {
      if (f.name == "filename")
        fact(sink, p + ".resolved_path", f.value, f.line);
      else if (f.name == "vermagic")
        fact(sink, p + ".vermagic", f.value, f.line);
      else if (f.name == "depends")
        fact(sink, p + ".depends", f.value, f.line);
      else if (f.name == "version")
        fact(sink, p + ".version", f.value, f.line);
      else if (f.name == "srcversion")
        fact(sink, p + ".srcversion", f.value, f.line);
    }
    fields_.clear();
  }

  PathHint path_hint_;
  PathHint hint_;
  std::vector<Field> fields_;
};

// ---------------------------------------------------------------------------------------------
// modprobe -n -v / --show-depends

class ModprobeParser final : public OutputParser {
 public:
  explicit ModprobeParser(std::string_view path) {
    // modprobe_drv_pcie_host.txt, modprobe-n-v_drv_pcie_host.log, show_depends_drv_pcie_host.txt
    std::string b = text::to_lower(basename(path));
    for (std::string_view ext : {".txt", ".log", ".out"})
      if (ends_with(b, ext)) b.resize(b.size() - ext.size());
    for (std::string_view pre : {"modprobe", "show_depends", "show-depends"}) {
      const size_t p = b.find(pre);
      if (p == std::string::npos) continue;
      std::string rest = b.substr(p + pre.size());
      for (std::string_view opt :
           {"_n_v_", "-n-v-", "_n_v", "-n-v", "_show_depends_", "-show-depends-", "_", "-"})
        if (rest.rfind(opt, 0) == 0) {
          rest.erase(0, opt.size());
          break;
        }
      if (!rest.empty()) path_target_ = module_name(rest);
      break;
    }
    target_ = path_target_;
  }

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    const auto w = text::split_ws(s);
    if (w[0] == "insmod" && w.size() >= 2) {
      const std::string mod = module_from_file(w[1]);
      fact(sink, "module." + mod + ".resolved_path", w[1], ctx.line);
      if (chain_.size() < 1024) chain_.push_back({mod, ctx.line});
      return;
    }
    if (w[0] == "builtin" && w.size() >= 2) {
      const std::string mod = module_name(w[1]);
      fact(sink, "module." + mod + ".resolved_path", "(builtin)", ctx.line);
      if (chain_.size() < 1024) chain_.push_back({mod, ctx.line});
      return;
    }
    if (w[0] == "rmmod" || w[0] == "install" || w[0] == "remove" || w[0] == "softdep") return;
    if (text::istarts_with(s, "modprobe:")) {
      const bool warn = text::icontains(s, "WARNING");
      event(sink, Ev{ctx.line, 1, ctx.offset, warn ? Severity::warning : Severity::error, true,
                     "modprobe", s, s, -1, -1});
      return;
    }
    if (auto b = parse_banner(s)) {
      flush(sink);
      target_ = path_target_;
      if (b->is_command("modprobe")) {
        const auto ops = b->operands();
        if (!ops.empty()) target_ = module_name(ops.front());
      }
      return;
    }
    sink.malformed(ctx, "not a modprobe line");
  }

  void finish(Sink& sink) override { flush(sink); }

 private:
  struct Step {
    std::string mod;
    uint32_t line;
  };

  void flush(Sink& sink) {
    if (chain_.empty()) return;
    std::string target = target_.empty() ? chain_.back().mod : target_;
    uint32_t line = chain_.back().line;
    std::string deps;
    std::set<std::string> seen;
    for (const auto& st : chain_) {
      if (st.mod == target) {
        line = st.line;
        continue;
      }
      if (!seen.insert(st.mod).second) continue;
      if (!deps.empty()) deps.push_back(',');
      deps += st.mod;
    }
    fact(sink, "module." + target + ".depends", deps, line);
    chain_.clear();
  }

  std::string path_target_;
  std::string target_;
  std::vector<Step> chain_;
};

// ---------------------------------------------------------------------------------------------
// lsmod, /proc/modules

class LsmodParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    const auto w = text::split_ws(s);
    if (w.size() >= 3 && w[0] == "Module" && w[1] == "Size") return;
    if (w.size() >= 3 && text::to_int<uint64_t>(w[1]) && text::to_int<int64_t>(w[2])) {
      std::string used;
      if (w.size() >= 4) {
        std::string_view u = w[3];
        if (u == "-") u = {};
        while (!u.empty() && u.back() == ',') u.remove_suffix(1);
        used = std::string(u);
      }
      fact(sink, "module." + module_name(w[0]) + ".loaded",
           "size=" + std::string(w[1]) + " used_by=" + used, ctx.line);
      return;
    }
    if (parse_banner(s)) return;
    sink.malformed(ctx, "not an lsmod line");
  }
};

// ---------------------------------------------------------------------------------------------
// ls -l / ls -lR / readlink -f

bool perms_like(std::string_view p) {
  if (p.size() < 10 || p.size() > 11) return false;
  if (std::string_view("-dlcbpsD").find(p[0]) == std::string_view::npos) return false;
  for (size_t i = 1; i < 10; ++i)
    if (std::string_view("rwxsStT-").find(p[i]) == std::string_view::npos) return false;
  return p.size() == 10 || p[10] == '.' || p[10] == '+' || p[10] == '@';
}

bool month_like(std::string_view w) {
  static constexpr std::string_view kMon[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                              "jul", "aug", "sep", "oct", "nov", "dec"};
  const std::string l = text::to_lower(w);
  for (auto m : kMon)
    if (l.size() >= 3 && l.substr(0, 3) == m) return true;
  return ends_with(w, "\xe6\x9c\x88");  // "3月" (zh_CN locale)
}

bool iso_date(std::string_view w) {
  return w.size() == 10 && w[4] == '-' && w[7] == '-' && is_digit(w[0]) && is_digit(w[9]);
}

bool zone_like(std::string_view w) {
  return w.size() == 5 && (w[0] == '+' || w[0] == '-') && is_digit(w[1]) && is_digit(w[4]);
}

struct Tok {
  std::string_view text;
  size_t pos;
};
std::vector<Tok> tokens_with_pos(std::string_view s, size_t max) {
  std::vector<Tok> out;
  size_t i = 0;
  while (i < s.size() && out.size() < max) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const size_t st = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > st) out.push_back({s.substr(st, i - st), st});
  }
  return out;
}

class LsParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    if (s.substr(0, 6) == "total " || s == "total") return;
    const auto toks = tokens_with_pos(s, 12);
    if (!toks.empty() && perms_like(toks[0].text)) {
      entry(s, toks, ctx, sink);
      return;
    }
    if (text::istarts_with(s, "ls: ") || text::istarts_with(s, "readlink: ")) {
      missing(s, ctx, sink);
      return;
    }
    if (auto b = parse_banner(s)) {
      cmd_dir_.clear();
      cur_dir_.clear();
      readlink_.clear();
      if (b->is_command("ls")) {
        const auto ops = b->operands();
        if (ops.size() == 1) cmd_dir_ = ops[0];
        cur_dir_ = cmd_dir_;
      } else if (b->is_command("readlink") || b->is_command("realpath")) {
        const auto ops = b->operands();
        if (!ops.empty()) readlink_ = ops.back();
      } else if (!b->path.empty()) {
        cur_dir_ = b->path;
      }
      return;
    }
    // ls -lR directory header "/lib/modules/5.15.0-91-generic/updates/dkms:"
    if (s.back() == ':' && s.size() > 1 && s.find(": ") == std::string_view::npos) {
      const std::string_view d = unquote(s.substr(0, s.size() - 1));
      if (d.empty()) {
        sink.malformed(ctx, "empty ls -lR header");
        return;
      }
      if (d.front() == '/')
        cur_dir_ = join_path("", d);
      else if (!cmd_dir_.empty())
        cur_dir_ = join_path(cmd_dir_, d);
      else
        cur_dir_ = join_path("", d);  // relative: the listing did not say where it started
      return;
    }
    // readlink -f / realpath output
    if (s.front() == '/' && s.find(' ') == std::string_view::npos) {
      if (!readlink_.empty()) {
        if (s != readlink_) fact(sink, "fs." + readlink_, "symlink:" + std::string(s), ctx.line);
        latest(readlink_, s, ctx, sink);
        return;
      }
    }
    sink.malformed(ctx, "not an ls -l line");
  }

 private:
  void latest(std::string_view link, std::string_view target_abs, const LineCtx& ctx, Sink& sink) {
    if (ends_with(link, "/ascend-toolkit/latest") || ends_with(link, "/ascend-toolkit/latest/") ||
        ends_with(link, "/cann/latest"))
      fact(sink, "cann.latest_target", target_abs, ctx.line);
  }

  void entry(std::string_view s, const std::vector<Tok>& t, const LineCtx& ctx, Sink& sink) {
    // find the date: "Mar 29 04:11" | "Mar 29  2024" | "2025-03-29 04:11[:12.000000000 +0800]"
    size_t ds = 0, dl = 0;
    for (size_t i = 2; i + 1 < t.size() && i < 8; ++i) {
      if (!starts_with_digit(t[i - 1].text) && t[i - 1].text.back() != ',') continue;
      if (month_like(t[i].text) && i + 2 < t.size()) {
        ds = i;
        dl = 3;
        break;
      }
      if (iso_date(t[i].text)) {
        ds = i;
        dl = 2;
        if (i + 2 < t.size() && zone_like(t[i + 2].text)) dl = 3;
        break;
      }
    }
    if (dl == 0 || ds + dl >= t.size()) {
      sink.malformed(ctx, "ls -l entry without a date");
      return;
    }
    std::string_view name = s.substr(t[ds + dl].pos);
    std::string_view target;
    const char type = t[0].text[0];
    if (type == 'l') {
      const size_t arrow = name.find(" -> ");
      if (arrow != std::string_view::npos) {
        target = unquote(name.substr(arrow + 4));
        name = name.substr(0, arrow);
      }
    }
    name = unquote(name);
    if (name == "." || name == "..") return;
    const std::string abs =
        (!name.empty() && name.front() == '/') ? join_path("", name) : join_path(cur_dir_, name);
    std::string v;
    switch (type) {
      case 'l':
        v = "symlink:" + std::string(target);
        break;
      case 'd':
        v = "dir";
        break;
      case 'c':
        v = "chardev";
        break;
      case 'b':
        v = "blockdev";
        break;
      case 'p':
        v = "fifo";
        break;
      case 's':
        v = "socket";
        break;
      default:
        v = "file";
        break;
    }
    fact(sink, "fs." + abs, v, ctx.line);
    if (type == 'l' && !abs.empty() && abs.front() == '/')
      latest(abs, join_path(std::string(dirname(abs)), target), ctx, sink);
  }

  // ls: cannot access '/dev/davinci0': No such file or directory
  void missing(std::string_view s, const LineCtx& ctx, Sink& sink) {
    if (!text::icontains(s, "No such file")) {
      event(sink, Ev{ctx.line, 1, ctx.offset, Severity::notice, false, "ls", s, s, -1, -1});
      return;
    }
    std::string_view p;
    // GNU: 'path' (C locale) or ‘path’ (UTF-8 locales)
    for (auto [open, close] : {std::pair<std::string_view, std::string_view>{"'", "'"},
                               {"\xe2\x80\x98", "\xe2\x80\x99"}}) {
      const size_t q = s.find(open);
      if (q == std::string_view::npos) continue;
      const size_t e = s.find(close, q + open.size());
      if (e != std::string_view::npos) {
        p = s.substr(q + open.size(), e - q - open.size());
        break;
      }
    }
    if (p.empty()) {
      // busybox: "ls: /dev/davinci0: No such file or directory"
      const auto parts = text::split(s, ':');
      for (auto part : parts) {
        part = trim(part);
        if (!part.empty() && part.front() == '/') {
          p = part;
          break;
        }
      }
    }
    if (p.empty()) {
      sink.malformed(ctx, "ls error without a path");
      return;
    }
    const std::string abs = p.front() == '/' ? join_path("", p) : join_path(cur_dir_, p);
    fact(sink, "fs." + abs, "missing", ctx.line);
    const bool dev = abs.rfind("/dev/davinci", 0) == 0 || abs.rfind("/dev/devmm", 0) == 0 ||
                     abs.rfind("/dev/hisi_hdc", 0) == 0;
    event(sink, Ev{ctx.line, 1, ctx.offset, dev ? Severity::warning : Severity::notice, dev, "ls",
                   "missing: " + abs, s, -1, -1});
  }

  std::string cmd_dir_;
  std::string cur_dir_;
  std::string readlink_;
};

}  // namespace

std::unique_ptr<Parser> make_modinfo(std::string_view path) {
  return std::make_unique<ModinfoParser>(path);
}
std::unique_ptr<Parser> make_modprobe(std::string_view path) {
  return std::make_unique<ModprobeParser>(path);
}
std::unique_ptr<Parser> make_lsmod(std::string_view /*path*/) {
  return std::make_unique<LsmodParser>();
}
std::unique_ptr<Parser> make_ls_listing(std::string_view /*path*/) {
  return std::make_unique<LsParser>();
}

}  // namespace faultline::parse::outputs
