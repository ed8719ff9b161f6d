// Small files of the collectors: readlink -f, /proc/<pid>/limits, /etc/timezone, hostname, and
// the loaded module versions that faultline-collect lists from /sys/module.
#include "faultline/core/text.hpp"
#include "outputs/common.hpp"
#include "outputs/outputs.hpp"

namespace faultline::parse::outputs {

namespace {

bool is_driver_module(std::string_view m) {
  return m.substr(0, 4) == "drv_" || m.substr(0, 6) == "asdrv_" || m.substr(0, 7) == "ascend_" ||
         m == "ts_agent";
}

// readlink -f / realpath: one resolved absolute path per line.
class ReadlinkParser final : public Parser {
 public:
  explicit ReadlinkParser(std::string_view path) : path_(path) {}
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view l = text::trim(raw);
    if (l.empty()) return;
    if (l.front() != '/') {
      // "readlink: /x: No such file or directory" and similar
      if (text::icontains(l, "no such file")) {
        Event e;
        e.line = ctx.line;
        e.offset = ctx.offset;
        e.severity = Severity::warning;
        e.keep = true;
        e.module = "readlink";
        e.message = l;
        e.text = raw;
        sink.event(e);
      } else {
        sink.malformed(ctx, "not a path");
      }
      return;
    }
    sink.fact(Fact{"readlink.target", std::string(l), ctx.line});
    // the toolkit's `latest` link (the file name or the path says so)
    if (text::icontains(path_, "latest") || text::icontains(l, "ascend-toolkit") ||
        text::icontains(l, "/cann"))
      if (text::icontains(l, "Ascend"))
        sink.fact(Fact{"cann.latest_target", std::string(l), ctx.line});
  }

 private:
  std::string path_;
};

// /proc/<pid>/limits: "Max address space   unlimited   unlimited   bytes"
class LimitsParser final : public Parser {
 public:
  explicit LimitsParser(std::string_view path) {
    const auto pid = pid_from_path(path);
    pid_ = pid ? std::to_string(*pid) : "unknown";
  }
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view l = text::rtrim(raw);
    if (l.empty() || l.substr(0, 5) == "Limit") return;
    if (l.substr(0, 4) != "Max ") {
      sink.malformed(ctx, "not a limit line");
      return;
    }
    // the name runs until two spaces
    const size_t gap = l.find("  ");
    if (gap == std::string_view::npos) {
      sink.malformed(ctx, "no value");
      return;
    }
    const std::string name(text::trim(l.substr(4, gap - 4)));
    const auto vals = text::split_ws(l.substr(gap));
    if (vals.size() < 2) {
      sink.malformed(ctx, "no value");
      return;
    }
    std::string key;
    for (char c : name) key += c == ' ' ? '_' : c;
    const std::string soft(vals[0]);
    const std::string units = vals.size() >= 3 ? std::string(vals[2]) : std::string();
    sink.fact(Fact{"process." + pid_ + ".limit." + key,
                   soft + " " + std::string(vals[1]) + (units.empty() ? "" : " " + units),
                   ctx.line});
    // the address-space limit is what blocks the 8 TB SVM mapping: state it like `ulimit -v`
    if (key == "address_space") {
      std::string v = soft;
      if (soft != "unlimited")
        if (auto b = text::to_int<uint64_t>(soft))
          v = std::to_string(*b / 1024);  // bytes -> kbytes
      sink.fact(Fact{"ulimit.virtual_memory", v, ctx.line});
    }
  }

 private:
  std::string pid_;
};

// /etc/timezone ("Asia/Shanghai"), or a `hostname` output: the first non-empty line.
class FirstLineParser final : public Parser {
 public:
  explicit FirstLineParser(std::string fact) : fact_(std::move(fact)) {}
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view l = text::trim(raw);
    if (done_ || l.empty()) return;
    done_ = true;
    if (l.size() > 255 || l.find(' ') != std::string_view::npos) {
      sink.malformed(ctx, "not a single word");
      return;
    }
    sink.fact(Fact{fact_, std::string(l), ctx.line});
  }

 private:
  std::string fact_;
  bool done_ = false;
};

// "/sys/module/drv_pcie_host version=24.1.0.3 srcversion=A53D7BB0AF950639615BB29": what the
// running kernel has loaded (as opposed to modinfo, which reads the file on disk).
class SysModuleParser final : public Parser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view l = text::trim(raw);
    if (l.empty()) return;
    const auto w = text::split_ws(l);
    if (w.empty() || w[0].substr(0, 12) != "/sys/module/") {
      sink.malformed(ctx, "not a /sys/module line");
      return;
    }
    const std::string mod(w[0].substr(12));
    for (size_t i = 1; i < w.size(); ++i) {
      const size_t eq = w[i].find('=');
      if (eq == std::string_view::npos) continue;
      const auto k = w[i].substr(0, eq);
      const std::string v(w[i].substr(eq + 1));
      if (k == "version" && !v.empty()) {
        sink.fact(Fact{"module." + mod + ".loaded_version", v, ctx.line});
        if (!stated_ && is_driver_module(mod)) {
          sink.fact(Fact{"driver.version.loaded", v, ctx.line});
          stated_ = true;
        }
      } else if (k == "srcversion" && !v.empty()) {
        sink.fact(Fact{"module." + mod + ".loaded_srcversion", v, ctx.line});
      }
    }
  }

 private:
  bool stated_ = false;
};

}  // namespace

std::unique_ptr<Parser> make_readlink(std::string_view path) {
  return std::make_unique<ReadlinkParser>(path);
}
std::unique_ptr<Parser> make_proc_limits(std::string_view path) {
  return std::make_unique<LimitsParser>(path);
}
std::unique_ptr<Parser> make_timezone(std::string_view /*path*/) {
  return std::make_unique<FirstLineParser>("host.timezone");
}
std::unique_ptr<Parser> make_hostname(std::string_view /*path*/) {
  return std::make_unique<FirstLineParser>("host.name");
}
std::unique_ptr<Parser> make_sys_module(std::string_view /*path*/) {
  return std::make_unique<SysModuleParser>();
}

}  // namespace faultline::parse::outputs
