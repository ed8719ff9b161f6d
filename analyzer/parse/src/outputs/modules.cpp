// Kernel modules and file listings: modinfo (full, -n, -F field), modprobe -n -v /
// --show-depends, lsmod (and /proc/modules), ls -l / ls -lR / readlink -f.
// Seed 002 section 5: the module a tool resolves (updates/dkms/...) vs what the listing shows.
#include <algorithm>
#include <map>
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
      // "modinfo: ERROR: Module x not found." is the answer of a probe (the collector asks for
      // every module it knows; a driver version without x answers so): what is installed, not
      // an error of the node (issue 36). Other modinfo errors stay errors.
      const bool answer = text::icontains(s, "not found");
      event(sink, Ev{ctx.line, 1, ctx.offset, answer ? Severity::info : Severity::error, true,
                     "modinfo", s, s, -1, -1});
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
      // "modprobe: FATAL: Module x not found in directory ..." of a dry run (-n -v,
      // --show-depends) is the probe's answer, what is installed, not a failed load of the node
      // (issue 36; a load that failed is in the journal or syslog)
      const bool answer = text::icontains(s, "not found");
      const bool warn = text::icontains(s, "WARNING");
      event(sink, Ev{ctx.line, 1, ctx.offset,
                     answer ? Severity::info
                     : warn ? Severity::warning
                            : Severity::error,
                     true, "modprobe", s, s, -1, -1});
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

// `lsmod | grep PATTERN` (grep, egrep, grep -E, rg): the alternatives of PATTERN that no printed
// line contains are modules that are not loaded ("lsmod | grep" printing nothing).
std::vector<std::string> grep_alternatives(std::string_view title) {
  std::vector<std::string> out;
  const size_t bar = title.find('|');
  if (bar == std::string_view::npos) return out;
  const auto w = split_command(title.substr(bar + 1));
  if (w.empty() || !(w[0] == "grep" || w[0] == "egrep" || w[0] == "rg")) return out;
  std::string pat;
  bool ext = w[0] != "grep";
  for (size_t i = 1; i < w.size(); ++i) {
    const std::string& a = w[i];
    if (a == "-v" || a == "--invert-match" || a == "-c" || a == "--count") return {};
    if (a == "-e" && i + 1 < w.size()) {
      if (!pat.empty()) pat += '|';
      pat += w[++i];
      continue;
    }
    if (!a.empty() && a[0] == '-') {
      if (a.find('E') != std::string::npos) ext = true;
      continue;
    }
    if (pat.empty()) pat = a;
    break;
  }
  if (pat.empty() || pat.size() > 512) return out;
  // basic grep spells alternation `\|`; ERE and rg `|`
  std::string norm;
  for (size_t i = 0; i < pat.size(); ++i) {
    if (pat[i] == '\\' && i + 1 < pat.size() && pat[i + 1] == '|') {
      norm += '|';
      ++i;
    } else {
      norm += pat[i];
    }
  }
  if (!ext && norm.find('|') != std::string::npos && pat.find("\\|") == std::string::npos)
    return {};  // a literal '|' in a basic pattern
  for (auto alt : text::split(norm, '|')) {
    alt = trim(alt);
    if (!alt.empty() && alt.front() == '^') alt.remove_prefix(1);
    if (alt.empty() || alt.size() > 64) return {};
    for (char c : alt)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return {};
    out.emplace_back(alt);
  }
  return out;
}

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
      if (!alts_.empty() && printed_.size() < 4096) printed_.emplace_back(s);
      return;
    }
    if (auto b = parse_banner(s)) {
      close(sink);
      if (b->is_command("lsmod") || (b->is_command("cat") && b->has_arg("/proc/modules"))) {
        alts_ = grep_alternatives(b->title);
        cmd_ = b->title;
        cmd_line_ = ctx.line;
      }
      return;
    }
    sink.malformed(ctx, "not an lsmod line");
  }

  void finish(Sink& sink) override { close(sink); }

 private:
  void close(Sink& sink) {
    for (const auto& a : alts_) {
      bool seen = false;
      for (const auto& l : printed_)
        if (l.find(a) != std::string::npos) seen = true;
      if (!seen) fact(sink, "module." + module_name(a) + ".not_loaded", cmd_, cmd_line_);
    }
    alts_.clear();
    printed_.clear();
  }

  std::vector<std::string> alts_;
  std::vector<std::string> printed_;  // module lines after a `lsmod | grep` command (bounded)
  std::string cmd_;
  uint32_t cmd_line_ = 0;
};

// ---------------------------------------------------------------------------------------------
// modules.dep (depmod's index, text form): "updates/dkms/drv_pcie_host.ko: kernel/x.ko ...".
// Which file modprobe loads for a module name is the one this index lists, so an out-of-tree
// line is module resolution evidence like `modinfo -n`. In-tree modules (kernel/…) are skipped:
// thousands of lines that never concern the NPU stack.

class ModulesDepParser final : public OutputParser {
 public:
  explicit ModulesDepParser(std::string_view path) {
    // …/lib/modules/<release>/modules.dep -> /lib/modules/<release>
    const std::string p(path);
    const size_t m = p.rfind("lib/modules/");
    if (m != std::string::npos) {
      const size_t rel = m + 12;
      const size_t slash = p.find('/', rel);
      if (slash != std::string::npos && slash > rel && p.find('!', rel) == std::string::npos)
        base_ = "/lib/modules/" + p.substr(rel, slash - rel);
    }
  }
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    const size_t colon = s.find(':');
    const std::string_view file = colon == std::string_view::npos ? s : s.substr(0, colon);
    if (colon == std::string_view::npos || colon == 0 || file.find(' ') != std::string_view::npos ||
        file.find(".ko") == std::string_view::npos) {
      if (auto b = parse_banner(s)) {
        // `cat /lib/modules/5.15.0/modules.dep`, `grep drv_ /lib/modules/$(uname -r)/modules.dep`
        for (size_t i = 1; i < b->argv.size(); ++i) {
          const std::string& a = b->argv[i];
          if (a.rfind("/lib/modules/") == std::string::npos || !ends_with(a, "/modules.dep"))
            continue;
          const std::string d = a.substr(0, a.size() - 12);
          if (d.find_first_of("$`") == std::string::npos) base_ = d;
        }
        return;
      }
      sink.malformed(ctx, "not a modules.dep line");
      return;
    }
    if (file.substr(0, 7) == "kernel/") return;
    const std::string name = module_from_file(file);
    const std::string abs =
        file.front() == '/' ? std::string(file)
                            : (base_.empty() ? std::string(file) : base_ + "/" + std::string(file));
    fact(sink, "module." + name + ".resolved_path", abs, ctx.line);
    std::string deps;
    for (auto d : text::split_ws(s.substr(colon + 1))) {
      if (!deps.empty()) deps.push_back(',');
      deps += module_from_file(d);
    }
    fact(sink, "module." + name + ".depends", deps, ctx.line);
  }

 private:
  std::string base_;
};

// ---------------------------------------------------------------------------------------------
// ldd: "libascend_hal.so => not found", "libc.so.6 => /lib/aarch64-linux-gnu/libc.so.6 (0x…)".

class LddParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    const size_t arrow = s.find(" => ");
    if (arrow != std::string_view::npos) {
      const std::string lib(trim(s.substr(0, arrow)));
      std::string_view to = trim(s.substr(arrow + 4));
      if (lib.empty() || lib.find(' ') != std::string::npos) {
        sink.malformed(ctx, "not an ldd line");
        return;
      }
      if (to == "not found") {
        fact(sink, "library." + lib + ".missing", binary_, ctx.line);
        event(sink, Ev{ctx.line, 1, ctx.offset, Severity::warning, true, "ldd", "not found: " + lib,
                       s, -1, -1});
        return;
      }
      const size_t paren = to.find(" (0x");
      if (paren != std::string_view::npos) to = trim(to.substr(0, paren));
      if (!to.empty() && to.front() == '/')
        fact(sink, "library." + lib + ".resolved_path", to, ctx.line);
      return;
    }
    // "linux-vdso.so.1 (0x0000ffff…)", "/lib/ld-linux-aarch64.so.1 (0x…)", "statically linked"
    if (s.find(" (0x") != std::string_view::npos || s == "statically linked" ||
        s == "not a dynamic executable")
      return;
    if (auto b = parse_banner(s)) {
      binary_.clear();
      if (b->is_command("ldd")) {
        const auto ops = b->operands();
        if (!ops.empty()) binary_ = ops.back();
      }
      return;
    }
    // `ldd a b` prints "a:" before each list
    if (s.back() == ':' && s.find(' ') == std::string_view::npos) {
      binary_ = std::string(s.substr(0, s.size() - 1));
      return;
    }
    sink.malformed(ctx, "not an ldd line");
  }

 private:
  std::string binary_;
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

// What a listing command says about completeness (docs/facts.md "Complete listings"): `ls -l DIR`
// (a `total N` line), `ls -lR`, plain `ls DIR`, `tree DIR`, `ls DIR | wc -l`, `find DIR ... | wc
// -l` printing 0, `find DIR ...` printing nothing. A listing piped through grep/head/tail (or
// given a glob) is not complete and counts nothing.
struct ListCmd {
  bool ls = false, find = false, tree = false;
  bool long_format = false;   // ls -l / -g / -n / -o
  bool all = false;           // ls -a / -A (dot entries counted by wc -l)
  bool filtered = false;      // | grep, | head, ..., or a glob operand
  bool wc = false;            // | wc -l
  bool tree_partial = false;  // tree -d / -P / -I / -L
  bool find_files = false;    // find … -type f: what it prints is files only
  // `| head -N` (the only filter): every section but the last is whole (head cuts the tail
  // only), and the last too when fewer than N lines came out
  size_t head = 0;
  std::string dir;  // the single operand
  // the fact a complete empty result states: dir.entries (nothing there) or, for
  // `find DIR -type f`, dir.files (no regular file anywhere below)
  [[nodiscard]] std::string count_fact() const {
    return find_files ? "dir.files." : "dir.entries.";
  }
};

// `head`, `head -40`, `head -n 40`, `head -n40`, `head --lines=40`: the line limit (lines, not
// bytes; `-c`, negative counts and several files are not a plain cut)
bool head_count(const std::vector<std::string_view>& w, size_t& n) {
  n = 10;
  for (size_t i = 1; i < w.size(); ++i) {
    std::string_view a = w[i];
    if (a == "|" || a == "&&" || a == ";") break;
    std::string_view num;
    if (a == "-n" && i + 1 < w.size())
      num = w[++i];
    else if (a.rfind("--lines=", 0) == 0)
      num = a.substr(8);
    else if (a.rfind("-n", 0) == 0)
      num = a.substr(2);
    else if (a.size() > 1 && a[0] == '-')
      num = a.substr(1);
    else
      return false;  // a file operand: not the listing's output
    const auto v = text::to_int<uint64_t>(num);
    if (!v || *v == 0 || *v > 1000000) return false;
    n = static_cast<size_t>(*v);
  }
  return true;
}

ListCmd list_cmd(const Banner& b) {
  ListCmd c;
  c.ls = b.is_command("ls") || b.is_command("ll");
  c.find = b.is_command("find");
  c.tree = b.is_command("tree");
  if (!c.ls && !c.find && !c.tree) return c;
  if (b.is_command("ll")) c.long_format = true;
  for (size_t i = 1; i < b.argv.size(); ++i) {
    const std::string& a = b.argv[i];
    if (c.ls && a.size() > 1 && a[0] == '-' && a[1] != '-') {
      if (a.find_first_of("lgno") != std::string::npos) c.long_format = true;
      if (a.find_first_of("aA") != std::string::npos) c.all = true;
      if (a.find('d') != std::string::npos) c.filtered = true;  // -d lists the operand itself
    }
    if (c.ls && a == "--format=long") c.long_format = true;
    if (c.tree &&
        (a == "-d" || a == "-P" || a == "-I" || a == "-L" || a.rfind("--filelimit", 0) == 0))
      c.tree_partial = true;
  }
  if (c.find) {
    // find's starting point: the first argument that is not an expression; its tests: only
    // depth limits and `-type f|d` keep the result a statement about the whole directory
    size_t i = 1;
    for (; i < b.argv.size(); ++i) {
      const std::string& a = b.argv[i];
      if (a == "-L" || a == "-H" || a == "-P") continue;
      if (a.empty() || a[0] == '-' || a[0] == '(' || a[0] == '!') break;
      if (!c.dir.empty()) c.filtered = true;  // several starting points
      c.dir = a;
    }
    for (; i < b.argv.size(); ++i) {
      const std::string& a = b.argv[i];
      if ((a == "-maxdepth" || a == "-mindepth") && i + 1 < b.argv.size()) {
        if (a == "-mindepth" && b.argv[i + 1] != "0" && b.argv[i + 1] != "1") c.filtered = true;
        ++i;
      } else if (a == "-type" && i + 1 < b.argv.size()) {
        if (b.argv[i + 1] == "f")
          c.find_files = true;
        else
          c.filtered = true;
        ++i;
      } else if (a != "-print" && a != "-xdev" && a != "-mount") {
        c.filtered = true;  // -name, -path, -newer, ...: a selection, not the directory
      }
    }
  } else {
    const auto ops = b.operands();
    if (ops.size() == 1) c.dir = ops[0];
  }
  if (c.dir.find_first_of("*?[$`~") != std::string::npos) c.filtered = true;
  // pipes: the banner title holds the whole command line
  size_t p = b.title.find('|');
  while (p != std::string::npos) {
    const auto w = text::split_ws(std::string_view(b.title).substr(p + 1));
    if (!w.empty() && w[0] == "wc" && w.size() >= 2 && w[1] == "-l")
      c.wc = true;
    else if (!w.empty() && w[0] == "head" && c.head == 0 && head_count(w, c.head))
      ;
    else if (!w.empty())
      c.filtered = true;
    p = b.title.find('|', p + 1);
  }
  if (c.head && (c.wc || c.find || c.tree)) c.filtered = true;  // only ls sections are cut whole
  if (!c.dir.empty() && c.dir.size() > 1 && c.dir.back() == '/') c.dir.pop_back();
  return c;
}

// tree's drawing: "├── name", "└── name", indented by "│   " or "    " per level.
bool tree_entry(std::string_view s, size_t& depth, std::string_view& name) {
  static constexpr std::string_view kBar = "\xe2\x94\x82";               // │
  static constexpr std::string_view kTee = "\xe2\x94\x9c";               // ├
  static constexpr std::string_view kEll = "\xe2\x94\x94";               // └
  static constexpr std::string_view kDash = "\xe2\x94\x80\xe2\x94\x80";  // ──
  depth = 0;
  size_t i = 0;
  while (i < s.size()) {
    if (s.substr(i, kBar.size()) == kBar) {
      i += kBar.size();
      // "│   " (the bar and three spaces; some fonts/copies use a non-breaking space)
      size_t sp = 0;
      while (i < s.size() && sp < 3 && (s[i] == ' ' || s[i] == '\t')) ++i, ++sp;
      if (i + 1 < s.size() && s.substr(i, 2) == "\xc2\xa0") i += 2;
      ++depth;
      continue;
    }
    if (s.substr(i, 4) == "    ") {
      i += 4;
      ++depth;
      continue;
    }
    break;
  }
  if (s.substr(i, kTee.size()) != kTee && s.substr(i, kEll.size()) != kEll) return false;
  i += kTee.size();
  if (s.substr(i, kDash.size()) != kDash) return false;
  i += kDash.size();
  while (i < s.size() && (s[i] == ' ' || s.substr(i, 2) == "\xc2\xa0")) i += s[i] == ' ' ? 1 : 2;
  name = s.substr(i);
  return !name.empty();
}

class LsParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    ++out_lines_;  // head counts blank lines too
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    if (s.substr(0, 6) == "total " || s == "total") {
      // `ls -l DIR` prints `total N` only for a directory it lists: a complete listing starts
      if (!cmd_.filtered && !cur_dir_.empty()) open(cur_dir_, ctx);
      return;
    }
    const auto toks = tokens_with_pos(s, 12);
    if (!toks.empty() && perms_like(toks[0].text)) {
      entry(s, toks, ctx, sink);
      return;
    }
    if (text::istarts_with(s, "ls: ") || text::istarts_with(s, "readlink: ") ||
        text::istarts_with(s, "find: ") || text::istarts_with(s, "tree: ")) {
      missing(s, ctx, sink);
      return;
    }
    if (auto b = parse_banner(s)) {
      close(sink);
      cmd_dir_.clear();
      cur_dir_.clear();
      readlink_.clear();
      cmd_ = ListCmd{};
      printed_ = false;
      out_lines_ = 0;
      if (b->is_command("ls") || b->is_command("ll") || b->is_command("find") ||
          b->is_command("tree")) {
        cmd_ = list_cmd(*b);
        cmd_line_ = ctx.line;
        cmd_dir_ = cmd_.dir;  // names entries even when the listing is filtered
        cur_dir_ = cmd_dir_;
        tree_root_ = cmd_.tree ? cmd_dir_ : std::string();
        tree_stack_.clear();
        // plain `ls DIR`, `tree DIR`, `find DIR`: every name printed counts from here on
        if (!cmd_dir_.empty() && !cmd_.wc && !cmd_.filtered &&
            (cmd_.tree || cmd_.find || !cmd_.long_format))
          open(cmd_dir_, ctx);
      } else if (b->is_command("readlink") || b->is_command("realpath")) {
        const auto ops = b->operands();
        if (!ops.empty()) readlink_ = ops.back();
      } else if (!b->path.empty()) {
        cur_dir_ = b->path;
      }
      return;
    }
    // `… | wc -l`: the count
    if (cmd_.wc && std::all_of(s.begin(), s.end(), is_digit) && s.size() < 10) {
      const auto n = cmd_dir_.empty() || cmd_.filtered ? std::nullopt : text::to_int<uint64_t>(s);
      // `find` counts its starting point and what its tests select: only 0 is unambiguous;
      // plain `ls DIR | wc -l` counts the entries (without . and .. unless -a)
      if (n && (*n == 0 || (cmd_.ls && !cmd_.long_format && !cmd_.all)))
        fact(sink, cmd_.count_fact() + join_path("", cmd_dir_), std::to_string(*n), ctx.line);
      cmd_.wc = false;
      return;
    }
    // tree output: "DIR" (the root as given) then drawn entries, then "N directories, M files"
    if (size_t depth = 0; !cmd_.find) {
      std::string_view name;
      if (tree_entry(text::rtrim(raw), depth, name)) {
        tree_line(name, depth, ctx, sink);
        return;
      }
      if (tree_summary(s, ctx)) return;
    }
    // ls -lR directory header "/lib/modules/5.15.0-91-generic/updates/dkms:"
    if (s.back() == ':' && s.size() > 1 && s.find(": ") == std::string_view::npos &&
        !(cmd_.find || cmd_.tree)) {
      const std::string_view d = unquote(s.substr(0, s.size() - 1));
      if (d.empty()) {
        sink.malformed(ctx, "empty ls -lR header");
        return;
      }
      close(sink, /*last=*/false);  // a section followed by another one was not cut by head
      if (d.front() == '/')
        cur_dir_ = join_path("", d);
      else if (!cmd_dir_.empty())
        cur_dir_ = join_path(cmd_dir_, d);
      else
        cur_dir_ = join_path("", d);  // relative: the listing did not say where it started
      // plain `ls -R`: the names below the header are that directory's
      if (cmd_.ls && !cmd_.long_format && !cmd_.filtered) open(cur_dir_, ctx);
      return;
    }
    // readlink -f / realpath output
    if (s.front() == '/' && s.find(' ') == std::string_view::npos && !readlink_.empty()) {
      if (s != readlink_) fact(sink, "fs." + readlink_, "symlink:" + std::string(s), ctx.line);
      latest(readlink_, s, ctx, sink);
      return;
    }
    // find output: one path per line
    if (cmd_.find && !cmd_.wc) {
      if (s.front() == '/' || s.substr(0, 2) == "./") {
        printed_ = true;
        const std::string abs = join_path("", s.front() == '/' ? s : s.substr(1));
        if (abs != join_path("", cmd_dir_)) fact(sink, "fs." + abs, "present", ctx.line);
        listing_ = false;  // find's count is not the directory's entry count
        return;
      }
    }
    // tree's first line: the root as given
    if (cmd_.tree && tree_root_.empty() && tree_stack_.empty()) {
      tree_root_ = std::string(s);
      return;
    }
    if (cmd_.tree && !tree_root_.empty() && join_path("", s) == join_path("", tree_root_)) return;
    // plain `ls DIR` names (one or several per line)
    if (cmd_.ls && !cmd_.long_format && !cur_dir_.empty()) {
      const auto names = text::split_ws(s);
      if (names.size() == 1 && !cmd_dir_.empty() && s == cmd_dir_) {
        // `ls FILE` prints the operand: it is not a directory
        fact(sink, "fs." + join_path("", s), "present", ctx.line);
        listing_ = false;
        return;
      }
      for (auto n : names) {
        std::string_view nm = unquote(n);
        while (nm.size() > 1 && (nm.back() == '/' || nm.back() == '*' || nm.back() == '@'))
          nm.remove_suffix(1);
        if (nm.empty() || nm == "." || nm == "..") continue;
        fact(sink, "fs." + (nm.front() == '/' ? join_path("", nm) : join_path(cur_dir_, nm)),
             "present", ctx.line);
        if (listing_) ++list_n_;
      }
      return;
    }
    sink.malformed(ctx, "not an ls -l line");
  }

  void finish(Sink& sink) override { close(sink); }

 private:
  void open(const std::string& dir, const LineCtx& ctx) {
    listing_ = true;
    list_dir_ = join_path("", dir);
    list_n_ = 0;
    list_line_ = ctx.line;
  }
  // the listing of list_dir_ ended: it named list_n_ entries and nothing else is there
  void close(Sink& sink, bool last = true) {
    // the last section of `ls -lR DIR | head -N` that printed N lines may have been cut
    if (last && cmd_.head && out_lines_ >= cmd_.head) listing_ = false;
    if (cmd_.tree && !cmd_.tree_partial && !tree_root_.empty()) {
      for (const auto& [d, n] : tree_children_)
        fact(sink, "dir.entries." + d, std::to_string(n.first), n.second);
    }
    tree_children_.clear();
    if (listing_ && !list_dir_.empty() && !(cmd_.tree && cmd_.tree_partial) &&
        !(cmd_.find && printed_) && !cmd_.tree)
      fact(sink, cmd_.count_fact() + list_dir_, std::to_string(list_n_), list_line_);
    listing_ = false;
  }

  void tree_line(std::string_view name, size_t depth, const LineCtx& ctx, Sink& sink) {
    if (tree_root_.empty()) return;
    // `tree -F` marks directories with '/', links as `name -> target`
    std::string_view target;
    const size_t arrow = name.find(" -> ");
    if (arrow != std::string_view::npos) {
      target = name.substr(arrow + 4);
      name = name.substr(0, arrow);
    }
    bool is_dir = false;
    while (name.size() > 1 && (name.back() == '/' || name.back() == '*' || name.back() == '@')) {
      is_dir = is_dir || name.back() == '/';
      name.remove_suffix(1);
    }
    if (name.empty() || tree_children_.size() > 100000) return;
    tree_stack_.resize(std::min(depth, tree_stack_.size()));
    const std::string parent =
        join_path(join_path("", tree_root_), tree_stack_.empty() ? "" : tree_stack_.back());
    const std::string rel =
        tree_stack_.empty() ? std::string(name) : tree_stack_.back() + "/" + std::string(name);
    const std::string abs = join_path(join_path("", tree_root_), rel);
    auto& pc = tree_children_[parent];
    if (pc.first == 0) pc.second = ctx.line;
    ++pc.first;
    if (is_dir) tree_children_.try_emplace(abs, std::make_pair(size_t{0}, ctx.line));
    fact(sink, "fs." + abs,
         !target.empty() ? "symlink:" + std::string(target)
         : is_dir        ? "dir"
                         : "present",
         ctx.line);
    if (depth == tree_stack_.size()) tree_stack_.push_back(rel);
  }

  // "2 directories, 1 file" / "0 directories, 0 files": the root is listed whole (even empty)
  bool tree_summary(std::string_view s, const LineCtx& ctx) {
    const auto w = text::split_ws(s);
    if (w.size() < 2 || !text::to_int<uint64_t>(w[0])) return false;
    if (!(w[1] == "directories," || w[1] == "directory," || w[1] == "directories" ||
          w[1] == "directory"))
      return false;
    if (cmd_.tree && !tree_root_.empty())
      tree_children_.try_emplace(join_path("", tree_root_), std::make_pair(size_t{0}, ctx.line));
    return true;
  }

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
    if (listing_ && std::string_view(dirname(abs)) == list_dir_) ++list_n_;
    if (type == 'l' && !abs.empty() && abs.front() == '/')
      latest(abs, join_path(std::string(dirname(abs)), target), ctx, sink);
    if (type == 'l') map_file(abs, target, ctx, sink);
  }

  // `ls -l /proc/<pid>/map_files/`: `7f..-7f.. -> /path (deleted)` is a file the process maps
  // after it was removed, the statement of a maps ` (deleted)` line (process.<pid>.deleted)
  void map_file(std::string_view abs, std::string_view target, const LineCtx& ctx, Sink& sink) {
    constexpr std::string_view kDel = " (deleted)";
    if (abs.rfind("/proc/", 0) != 0 || !ends_with(target, kDel)) return;
    const size_t mf = abs.find("/map_files/");
    if (mf == std::string_view::npos || mf <= 6) return;
    const std::string_view pid = abs.substr(6, mf - 6);
    if (!std::all_of(pid.begin(), pid.end(), is_digit)) return;
    const std::string_view path = target.substr(0, target.size() - kDel.size());
    if (path.empty() || path.front() != '/' || path.rfind("/memfd:", 0) == 0 ||
        path.rfind("/SYSV", 0) == 0 || path.rfind("/dev/", 0) == 0)
      return;
    if (map_deleted_.size() < 4096 &&
        map_deleted_.insert(std::string(pid) + "\n" + std::string(path)).second)
      fact(sink, "process." + std::string(pid) + ".deleted", path, ctx.line);
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
    if (listing_ && abs == list_dir_) listing_ = false;  // the directory itself is missing
    const bool dev = abs.rfind("/dev/davinci", 0) == 0 || abs.rfind("/dev/devmm", 0) == 0 ||
                     abs.rfind("/dev/hisi_hdc", 0) == 0;
    event(sink, Ev{ctx.line, 1, ctx.offset, dev ? Severity::warning : Severity::notice, dev, "ls",
                   "missing: " + abs, s, -1, -1});
  }

  std::string cmd_dir_;
  std::string cur_dir_;
  std::string readlink_;
  ListCmd cmd_;
  uint32_t cmd_line_ = 0;
  bool printed_ = false;               // find printed a path
  size_t out_lines_ = 0;               // lines since the command (for `| head -N`)
  std::set<std::string> map_deleted_;  // pid + path stated from map_files links
  bool listing_ = false;
  std::string list_dir_;
  size_t list_n_ = 0;
  uint32_t list_line_ = 0;
  std::string tree_root_;
  std::vector<std::string> tree_stack_;                               // relative path per depth
  std::map<std::string, std::pair<size_t, uint32_t>> tree_children_;  // dir -> (n, first line)
};

}  // namespace

std::unique_ptr<Parser> make_modinfo(std::string_view path) {
  return std::make_unique<ModinfoParser>(path);
}
std::unique_ptr<Parser> make_modprobe(std::string_view path) {
  return std::make_unique<ModprobeParser>(path);
}
// `dkms status`: one line per module/version/kernel built by DKMS, e.g. (dkms 3)
// `ascend-driver/24.1.rc2, 5.10.0-136.12.0.86.oe2203sp1.aarch64, aarch64: installed` or (dkms 2)
// `ascend-driver, 24.1.rc2, 5.10.0-…, aarch64: installed (original_module exists)`; `added` /
// `built` lines name no kernel. -> dkms.<module> = {"module","version","kernel","arch","status"}
class DkmsParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    const size_t colon = s.rfind(": ");
    if (colon == std::string_view::npos) {
      if (!parse_banner(s)) sink.malformed(ctx, "not a dkms status line");
      return;
    }
    std::vector<std::string_view> parts;
    for (auto p : text::split(s.substr(0, colon), ',')) parts.push_back(trim(p));
    if (parts.empty() || parts[0].empty()) {
      sink.malformed(ctx, "not a dkms status line");
      return;
    }
    std::string_view module = parts[0], version;
    size_t next = 1;
    if (const size_t sl = module.find('/'); sl != std::string_view::npos) {
      version = module.substr(sl + 1);
      module = module.substr(0, sl);
    } else if (parts.size() > 1) {
      version = parts[1];
      next = 2;
    }
    const std::string_view kernel = next < parts.size() ? parts[next] : std::string_view();
    const std::string_view arch = next + 1 < parts.size() ? parts[next + 1] : std::string_view();
    std::string_view status = trim(s.substr(colon + 2));
    if (const size_t sp = status.find(' '); sp != std::string_view::npos)
      status = status.substr(0, sp);
    if (module.empty() || version.empty() || status.empty() || module.size() > 128) {
      sink.malformed(ctx, "not a dkms status line");
      return;
    }
    const std::string v = "{\"module\":" + quote(module) + ",\"version\":" + quote(version) +
                          ",\"kernel\":" + quote(kernel) + ",\"arch\":" + quote(arch) +
                          ",\"status\":" + quote(status) + "}";
    fact(sink, "dkms." + std::string(module), v, ctx.line);
  }

 private:
  // a JSON string of printable text (dkms names and versions hold no quotes in practice)
  static std::string quote(std::string_view t) {
    std::string o = "\"";
    for (char c : t)
      if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) o += c;
    return o + "\"";
  }
};

std::unique_ptr<Parser> make_dkms_status(std::string_view /*path*/) {
  return std::make_unique<DkmsParser>();
}
std::unique_ptr<Parser> make_lsmod(std::string_view /*path*/) {
  return std::make_unique<LsmodParser>();
}
std::unique_ptr<Parser> make_ls_listing(std::string_view /*path*/) {
  return std::make_unique<LsParser>();
}
std::unique_ptr<Parser> make_modules_dep(std::string_view path) {
  return std::make_unique<ModulesDepParser>(path);
}
std::unique_ptr<Parser> make_ldd(std::string_view /*path*/) {
  return std::make_unique<LddParser>();
}

}  // namespace faultline::parse::outputs
