// Version files and package inventories: driver/firmware version.info, *_install.info,
// version.cfg, /etc/ascend_install.info, davinci.conf (log-formats.md 6.3); dpkg -l; rpm -qa;
// pip list / pip freeze / pip show.
#include <cctype>
#include <nlohmann/json.hpp>

#include "faultline/core/text.hpp"
#include "outputs/common.hpp"
#include "outputs/outputs.hpp"

namespace faultline::parse::outputs {
namespace {

using text::trim;

// ---------------------------------------------------------------------------------------------
// helpers shared by the package parsers

bool name_has(std::string_view lname, std::string_view w) {
  return lname.find(w) != std::string_view::npos;
}
bool ascend_pkg(std::string_view lname) {
  return name_has(lname, "ascend") || name_has(lname, "npu") || name_has(lname, "hdk") ||
         name_has(lname, "910") || name_has(lname, "310") || name_has(lname, "950");
}
bool driver_pkg(std::string_view lname) {
  return ascend_pkg(lname) && name_has(lname, "driver");
}
bool firmware_pkg(std::string_view lname) {
  return ascend_pkg(lname) && name_has(lname, "firmware");
}
bool cann_pkg(std::string_view lname) {
  return name_has(lname, "cann-toolkit") || name_has(lname, "ascend-toolkit") ||
         name_has(lname, "cann-nnae") || name_has(lname, "cann-nnrt") || lname == "ascend-cann" ||
         name_has(lname, "cann-runtime");
}

// "1:24.1.rc3-2" -> "24.1.rc3"
std::string_view upstream_version(std::string_view v) {
  if (const size_t c = v.find(':'); c != std::string_view::npos && c < 4) v.remove_prefix(c + 1);
  if (const size_t d = v.rfind('-'); d != std::string_view::npos && d > 0) v = v.substr(0, d);
  return v;
}

// Member path -> absolute path on the host when it holds a recognisable root
// ("bundle/usr/local/Ascend/driver/version.info" -> "/usr/local/Ascend/driver/version.info").
std::string host_path(std::string_view member) {
  if (!member.empty() && member.front() == '/') return std::string(member);
  for (std::string_view root : {"usr/local/", "etc/", "opt/", "lib/", "home/", "root/", "var/"}) {
    size_t p = 0;
    while ((p = member.find(root, p)) != std::string_view::npos) {
      if (p == 0 || member[p - 1] == '/') return "/" + std::string(member.substr(p));
      p += root.size();
    }
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// version_info

enum class Comp {
  unknown,
  driver,
  firmware,
  cann,
  cann_cfg,
  install_info,
  run_pkg,
  davinci_conf,
  skip
};

Comp comp_from_path(std::string_view path) {
  const std::string l = text::to_lower(path);
  const std::string base(basename(l));
  const std::string parent(basename(dirname(l)));
  if (base == "ascend_install.info") return Comp::install_info;
  if (base.size() > 13 && base.substr(base.size() - 13) == "_install.info") return Comp::run_pkg;
  if (base == "version.cfg") return Comp::cann_cfg;
  if (base == "davinci.conf") return Comp::davinci_conf;
  if (base == "build.info") return Comp::skip;
  if (base == "version.info" || base.find("version") != std::string::npos) {
    if (parent == "driver" || base.find("driver") != std::string::npos) return Comp::driver;
    if (parent == "firmware" || base.find("firmware") != std::string::npos) return Comp::firmware;
    if (cann_version_in_path("/" + l) || parent == "toolkit" || parent == "runtime" ||
        parent == "compiler" || parent == "opp" || parent == "latest" ||
        base.find("cann") != std::string::npos || base.find("toolkit") != std::string::npos)
      return Comp::cann;
  }
  return Comp::unknown;
}

Comp comp_from_keys(const std::vector<std::string>& lkeys) {
  auto has = [&](std::string_view k) {
    for (const auto& x : lkeys)
      if (x == k) return true;
    return false;
  };
  if (has("driver_install_path_param") || has("driver_install_type")) return Comp::install_info;
  if (has("ascendhal_version") || has("compatible_version_fw") || has("tsfw_version"))
    return Comp::driver;
  if (has("firmware_version") || has("compatible_version_drv")) return Comp::firmware;
  for (const auto& k : lkeys)
    if (k.size() > 16 && k.substr(k.size() - 16) == "_running_version") return Comp::cann_cfg;
  if (has("package_name") && has("version")) return Comp::run_pkg;
  if (has("version_dir")) return Comp::cann;
  if (has("davinci_home_path")) return Comp::davinci_conf;
  return Comp::unknown;
}

struct Entry {
  std::string key;   // as printed
  std::string lkey;  // lowercase
  std::string value;
  uint32_t line;
};

class VersionInfoParser final : public OutputParser {
 public:
  explicit VersionInfoParser(std::string_view path)
      : member_comp_(comp_from_path(path)), smi_(make_npu_smi(path)) {
    file_ = host_path(path);
  }

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    if (s.front() == '|' || s.front() == '+' || s.substr(0, 8) == "npu-smi ") {
      smi_->line(raw, ctx, sink);  // version_info.log of npu_log_collect.sh holds `npu-smi info`
      return;
    }
    if (s.front() == '#' && !(s.size() > 2 && s[1] == '#')) return;  // comment (version.cfg)
    if (auto b = parse_banner(s)) {
      flush(sink);
      banner_path_ = b->path;
      if (banner_path_.empty() && !b->argv.empty()) {
        for (const auto& op : b->operands())
          if (op.find('/') != std::string::npos) banner_path_ = op;
      } else if (banner_path_.empty() && b->title.find(' ') == std::string::npos &&
                 (b->title.find('/') != std::string::npos ||
                  b->title.find(".info") != std::string::npos ||
                  b->title.find(".cfg") != std::string::npos)) {
        banner_path_ = b->title;  // "==> driver/version.info <=="
      }
      return;
    }
    std::string_view key, val;
    if (!split_kv(s, '=', key, val)) {
      // nnal/atb style "    Ascend-cann-atb : 8.2.RC1"
      if (split_kv(s, ':', key, val) && starts_with_digit(val)) {
        add(std::string(key), val, ctx, sink);
        return;
      }
      sink.malformed(ctx, "not a key=value line");
      return;
    }
    if (key.find(' ') != std::string_view::npos) {
      sink.malformed(ctx, "key with spaces");
      return;
    }
    add(std::string(key), unquote(val), ctx, sink);
  }

  void finish(Sink& sink) override {
    flush(sink);
    smi_->finish(sink);
  }

 private:
  void add(std::string key, std::string_view val, const LineCtx& ctx, Sink& sink) {
    std::string lkey = text::to_lower(key);
    for (const auto& e : entries_)
      if (e.lkey == lkey) {  // a repeated key starts the next file of a concatenation
        flush(sink);
        break;
      }
    if (entries_.size() < 4096)
      entries_.push_back(Entry{std::move(key), std::move(lkey), std::string(val), ctx.line});
  }

  const Entry* get(std::string_view lkey) const {
    for (const auto& e : entries_)
      if (e.lkey == lkey) return &e;
    return nullptr;
  }

  void flush(Sink& sink) {
    if (entries_.empty()) {
      banner_path_.clear();
      return;
    }
    std::string src = banner_path_.empty() ? file_ : banner_path_;
    Comp c = banner_path_.empty() ? member_comp_ : comp_from_path(banner_path_);
    if (c == Comp::unknown) {
      std::vector<std::string> lkeys;
      for (const auto& e : entries_) lkeys.push_back(e.lkey);
      c = comp_from_keys(lkeys);
    }
    if (src.empty() && !banner_path_.empty()) src = banner_path_;
    emit(c, src, sink);
    entries_.clear();
    banner_path_.clear();
  }

  void emit_cann_path(const std::string& src, uint32_t line, Sink& sink) {
    if (src.empty()) return;
    auto root = cann_root_in_path(src);
    if (root && basename(*root) != "latest") fact(sink, "cann.install_path", *root, line);
  }

  void emit(Comp c, const std::string& src, Sink& sink) {
    switch (c) {
      case Comp::driver:
        for (const auto& e : entries_) {
          if (e.lkey == "version" || e.lkey == "package_version")
            fact(sink, "driver.version.installed", e.value, e.line);
          else if (e.lkey == "innerversion")
            fact(sink, "driver.innerversion", e.value, e.line);
          else if (e.lkey == "compatible_version")
            fact(sink, "driver.compatible_version", e.value, e.line);
          else if (e.lkey == "compatible_version_fw")
            fact(sink, "driver.compatible_firmware", e.value, e.line);
        }
        break;
      case Comp::firmware:
        for (const auto& e : entries_) {
          if (e.lkey == "version")
            fact(sink, "firmware.version", e.value, e.line);
          else if (e.lkey == "package_version")
            fact(sink, "firmware.package_version", e.value, e.line);
          else if (e.lkey == "compatible_version_drv")
            fact(sink, "firmware.compatible_driver", e.value, e.line);
        }
        break;
      case Comp::cann: {
        const Entry* vd = get("version_dir");
        const Entry* v = get("version");
        if (vd) {
          fact(sink, "cann.version.installed", vd->value, vd->line);
          emit_cann_path(src, vd->line, sink);
        } else if (v) {
          // runtime/version.info `Version=9.0.0` is the CANN version; toolkit/version.info
          // `Version=8.2.0.0.201` is an inner build number
          size_t dots = 0;
          for (char ch : v->value) dots += ch == '.';
          if (dots <= 2 || text::icontains(v->value, "rc")) {
            fact(sink, "cann.version.installed", v->value, v->line);
            emit_cann_path(src, v->line, sink);
          } else {
            fact(sink, "cann.innerversion", v->value, v->line);
          }
        }
        break;
      }
      case Comp::cann_cfg: {
        // runtime_running_version=[7.5.0.1.129:8.0.RC3]
        const Entry* pick = get("runtime_running_version");
        if (!pick)
          for (const auto& e : entries_)
            if (e.lkey.find("_running_version") != std::string::npos) {
              pick = &e;
              break;
            }
        if (!pick) break;
        std::string_view v = pick->value;
        if (!v.empty() && v.front() == '[') v.remove_prefix(1);
        if (const size_t rb = v.find(']'); rb != std::string_view::npos) v = v.substr(0, rb);
        if (const size_t colon = v.find(':'); colon != std::string_view::npos) {
          fact(sink, "cann.innerversion", v.substr(0, colon), pick->line);
          v = v.substr(colon + 1);
        }
        if (!v.empty()) {
          fact(sink, "cann.version.installed", v, pick->line);
          emit_cann_path(src, pick->line, sink);
        }
        break;
      }
      case Comp::run_pkg: {
        const Entry* name = get("package_name");
        const Entry* v = get("version");
        std::string pkg = name ? text::to_lower(name->value) : std::string();
        if (pkg.empty() && !src.empty()) {
          std::string b(basename(src));
          if (b.size() > 13) b = b.substr(0, b.size() - 13);  // ascend_toolkit_install.info
          pkg = text::to_lower(b);
          for (char& ch : pkg)
            if (ch == '_') ch = '-';
        }
        if (v && !pkg.empty()) fact(sink, "package.run." + pkg, v->value, v->line);
        const std::string lb = text::to_lower(basename(src));
        const bool is_cann = cann_pkg(pkg) || name_has(pkg, "toolkit") || name_has(pkg, "nnae") ||
                             name_has(pkg, "nnrt") || name_has(lb, "toolkit") ||
                             name_has(lb, "nnae") || name_has(lb, "runtime") ||
                             lb == "ascend_cann_install.info" || pkg == "ascend-cann";
        if (is_cann && v) {
          fact(sink, "cann.version.installed", v->value, v->line);
          if (const Entry* p = get("path")) {
            // path=/usr/local/Ascend/ascend-toolkit/8.1.RC1/aarch64-linux
            std::string_view ip = p->value;
            while (ip.size() > 1 && ip.back() == '/') ip.remove_suffix(1);
            const std::string_view last = basename(ip);
            if (last.size() > 6 && last.substr(last.size() - 6) == "-linux") ip = dirname(ip);
            fact(sink, "cann.install_path", ip, p->line);
          } else {
            emit_cann_path(src, v->line, sink);
          }
          if (const Entry* iv = get("innerversion"))
            fact(sink, "cann.innerversion", iv->value, iv->line);
          if (const Entry* cv = get("compatible_version"))
            fact(sink, "cann.compatible_version", cv->value, cv->line);
        }
        break;
      }
      case Comp::install_info:
        for (const auto& e : entries_) {
          if (e.lkey == "driver_install_path_param")
            fact(sink, "driver.install_path", e.value, e.line);
          else if (e.lkey == "driver_install_type")
            fact(sink, "driver.install_type", e.value, e.line);
          else if (e.lkey == "firmware_install_path_param")
            fact(sink, "firmware.install_path", e.value, e.line);
        }
        break;
      case Comp::davinci_conf:
        for (const auto& e : entries_)
          if (e.lkey == "davinci_home_path" || e.lkey == "install_path")
            fact(sink, "driver.install_path", e.value, e.line);
        break;
      case Comp::unknown:
        // nnal/atb listing "Ascend-cann-atb : 8.2.RC1"
        for (const auto& e : entries_) {
          const std::string lk = text::to_lower(e.key);
          if (lk.rfind("ascend-", 0) == 0 && lk.find(' ') == std::string::npos)
            fact(sink, "package.run." + lk, e.value, e.line);
        }
        break;
      case Comp::skip:
        break;
    }
  }

  Comp member_comp_;
  std::string file_;
  std::string banner_path_;
  std::vector<Entry> entries_;
  std::unique_ptr<Parser> smi_;
};

// ---------------------------------------------------------------------------------------------
// dpkg -l

class DpkgParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    if (s.front() == '|' || s.front() == '+' || text::istarts_with(s, "Desired=")) return;
    if (parse_banner(s)) return;
    const auto w = text::split_ws(s);
    if (w.size() < 3 || w[0].size() < 2 || w[0].size() > 3) {
      sink.malformed(ctx, "not a dpkg -l row");
      return;
    }
    const std::string_view st = w[0];
    const std::string_view desired = "uirph";
    const std::string_view state = "ncHUFWti";
    if (desired.find(st[0]) == std::string_view::npos ||
        state.find(st[1]) == std::string_view::npos || (st.size() == 3 && st[2] != 'R')) {
      sink.malformed(ctx, "not a dpkg -l row");
      return;
    }
    std::string name = text::to_lower(w[1]);
    if (const size_t c = name.find(':'); c != std::string::npos) name.resize(c);  // libc6:amd64
    const std::string_view ver = w[2];
    if (st[1] == 'n' || st[1] == 'c') return;  // not installed / config files only
    fact(sink, "package.deb." + name, ver, ctx.line);
    if (driver_pkg(name)) fact(sink, "driver.version.installed", upstream_version(ver), ctx.line);
    if (firmware_pkg(name)) fact(sink, "firmware.package_version", upstream_version(ver), ctx.line);
    if (cann_pkg(name)) fact(sink, "cann.version.installed", upstream_version(ver), ctx.line);
    if (st[1] != 'i' || st.size() == 3) {
      const std::string msg = "package " + name + " " + std::string(ver) + " in dpkg state " +
                              std::string(st) + " (not fully installed)";
      event(sink, Ev{ctx.line, 1, ctx.offset, Severity::warning, ascend_pkg(name), "dpkg", msg, s,
                     -1, -1});
    }
  }
};

// ---------------------------------------------------------------------------------------------
// rpm -qa (name-version-release.arch), dnf "Installed:" lists, rpm -qi blocks

bool is_arch(std::string_view a) {
  for (std::string_view x : {"x86_64", "aarch64", "noarch", "i686", "i386", "armv7hl", "ppc64le",
                             "s390x", "src", "arm64", "amd64", "loongarch64", "riscv64"})
    if (a == x) return true;
  return false;
}

// "Name        : x", "Architecture: aarch64" (rpm -qi)
bool rpm_qi_key(std::string_view s) {
  const size_t c = s.find(':');
  if (c == std::string_view::npos || c == 0 || c > 16) return false;
  for (size_t i = 0; i < c; ++i)
    if (!(std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == ' ')) return false;
  return c + 1 == s.size() || s[c + 1] == ' ';
}

class RpmParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    if (parse_banner(s)) return;
    std::string_view key, val;
    if (rpm_qi_key(s) && split_kv(s, ':', key, val)) {
      // rpm -qi
      const std::string k = text::to_lower(key);
      if (k == "name") {
        qi_name_ = std::string(val);
        qi_ver_.clear();
      } else if (k == "version") {
        qi_ver_ = std::string(val);
        qi_line_ = ctx.line;
      } else if (k == "release" && !qi_name_.empty() && !qi_ver_.empty()) {
        emit(qi_name_, qi_ver_, val, qi_line_, ctx, sink);
        qi_name_.clear();
      }
      return;
    }
    const auto w = text::split_ws(s);
    if (w.size() == 1 && s.back() == ':') return;  // "Installed:"
    if (w.size() >= 2 && w.size() <= 3 && starts_with_digit(w[1])) {
      // "name ver-rel" (--qf) or dnf list "name.arch  ver-rel  @repo"
      std::string_view n = w[0];
      if (const size_t d = n.rfind('.'); d != std::string_view::npos && is_arch(n.substr(d + 1)))
        n = n.substr(0, d);
      std::string_view vr = w[1];
      if (const size_t c = vr.find(':'); c != std::string_view::npos && c < 4)
        vr.remove_prefix(c + 1);
      const size_t dash = vr.rfind('-');
      emit(n, dash == std::string_view::npos ? vr : vr.substr(0, dash),
           dash == std::string_view::npos ? std::string_view() : vr.substr(dash + 1), ctx.line, ctx,
           sink);
      return;
    }
    if (w.size() != 1) {
      sink.malformed(ctx, "not an rpm package line");
      return;
    }
    std::string_view t = w[0];
    if (const size_t d = t.rfind('.'); d != std::string_view::npos && is_arch(t.substr(d + 1)))
      t = t.substr(0, d);
    const size_t r = t.rfind('-');
    if (r == std::string_view::npos || r == 0) {
      sink.malformed(ctx, "not an rpm package line");
      return;
    }
    const size_t v = t.rfind('-', r - 1);
    if (v == std::string_view::npos || v == 0) {
      sink.malformed(ctx, "not an rpm package line");
      return;
    }
    const std::string_view ver = t.substr(v + 1, r - v - 1);
    if (ver.find_first_of("0123456789") == std::string_view::npos) {
      sink.malformed(ctx, "not an rpm package line");
      return;
    }
    emit(t.substr(0, v), ver, t.substr(r + 1), ctx.line, ctx, sink);
  }

 private:
  void emit(std::string_view name, std::string_view ver, std::string_view rel, uint32_t line,
            const LineCtx& /*ctx*/, Sink& sink) {
    const std::string n = text::to_lower(name);
    std::string vr(ver);
    if (!rel.empty()) vr += "-" + std::string(rel);
    fact(sink, "package.rpm." + n, vr, line);
    if (driver_pkg(n)) fact(sink, "driver.version.installed", ver, line);
    if (firmware_pkg(n)) fact(sink, "firmware.package_version", ver, line);
    if (cann_pkg(n)) fact(sink, "cann.version.installed", ver, line);
  }

  std::string qi_name_, qi_ver_;
  uint32_t qi_line_ = 0;
};

// ---------------------------------------------------------------------------------------------
// pip list / pip freeze / pip show / pip list --format=json

std::string pep503(std::string_view n) {
  std::string out;
  bool sep = false;
  for (char c : n) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out.push_back('-');
    sep = false;
    out.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

bool pkg_name_ok(std::string_view n) {
  if (n.empty() || n.size() > 200) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  return true;
}

class PipParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    if (s.front() == '[' && s.find("\"name\"") != std::string_view::npos) {
      json_line(s, ctx, sink);
      return;
    }
    if (text::istarts_with(s, "WARNING: Package(s) not found:")) {
      const std::string msg = "pip: package not found:" + std::string(s.substr(30));
      event(sink, Ev{ctx.line, 1, ctx.offset, Severity::warning, false, "pip", msg, s, -1, -1});
      return;
    }
    if (text::istarts_with(s, "WARNING") || text::istarts_with(s, "DEPRECATION") ||
        text::istarts_with(s, "[notice]") || s.front() == '-' || s.front() == '#')
      return;  // pip chatter, `---` separators of pip show / pip list, `-e` editable installs
    if (parse_banner(s)) {
      show_name_.clear();
      return;
    }
    std::string_view key, val;
    if (split_kv(s, ':', key, val) && s.find("==") == std::string_view::npos &&
        key.find(' ') == std::string_view::npos) {
      const std::string k = text::to_lower(key);
      if (k == "name") {
        show_name_ = std::string(val);
      } else if (k == "version" && !show_name_.empty()) {
        emit(show_name_, val, ctx.line, sink);
        show_name_.clear();
      }
      return;  // other pip show fields (Summary:, Location:, Requires: ...)
    }
    if (const size_t eq = s.find("=="); eq != std::string_view::npos) {
      std::string_view n = trim(s.substr(0, eq));
      std::string_view v = s.substr(eq + 2);
      if (!v.empty() && v.front() == '=') v.remove_prefix(1);  // ===
      v = trim(v);
      if (const size_t sc = v.find(';'); sc != std::string_view::npos) v = trim(v.substr(0, sc));
      if (pkg_name_ok(n) && !v.empty()) {
        emit(n, v, ctx.line, sink);
        return;
      }
    }
    if (s.find(" @ ") != std::string_view::npos) return;  // "torch-npu @ file:///..." (no version)
    const auto w = text::split_ws(s);
    if (w.size() >= 2 && pkg_name_ok(w[0]) && starts_with_digit(w[1])) {
      emit(w[0], w[1], ctx.line, sink);
      return;
    }
    if (w.size() == 2 && text::to_lower(w[0]) == "package" && text::to_lower(w[1]) == "version")
      return;  // pip list header
    if (w.size() >= 2 && text::to_lower(w[0]) == "package") return;
    sink.malformed(ctx, "not a pip package line");
  }

 private:
  void json_line(std::string_view s, const LineCtx& ctx, Sink& sink) {
    const auto j = nlohmann::json::parse(s, nullptr, false);
    if (j.is_discarded() || !j.is_array()) {
      sink.malformed(ctx, "pip list json not parsable");
      return;
    }
    for (const auto& it : j) {
      if (!it.is_object()) continue;
      auto n = it.find("name");
      auto v = it.find("version");
      if (n != it.end() && v != it.end() && n->is_string() && v->is_string())
        emit(n->get<std::string>(), v->get<std::string>(), ctx.line, sink);
    }
  }

  void emit(std::string_view name, std::string_view ver, uint32_t line, Sink& sink) {
    const std::string n = pep503(name);
    fact(sink, "package.pip." + n, ver, line);
    if (n == "torch") fact(sink, "torch.version", ver, line);
    if (n == "torch-npu") fact(sink, "torch_npu.version", ver, line);
    if (n == "torchvision") fact(sink, "torchvision.version", ver, line);
  }

  std::string show_name_;
};

}  // namespace

std::unique_ptr<Parser> make_version_info(std::string_view path) {
  return std::make_unique<VersionInfoParser>(path);
}
std::unique_ptr<Parser> make_dpkg_list(std::string_view /*path*/) {
  return std::make_unique<DpkgParser>();
}
std::unique_ptr<Parser> make_rpm_list(std::string_view /*path*/) {
  return std::make_unique<RpmParser>();
}
std::unique_ptr<Parser> make_pip_list(std::string_view /*path*/) {
  return std::make_unique<PipParser>();
}

}  // namespace faultline::parse::outputs
