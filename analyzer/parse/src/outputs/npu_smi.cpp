// npu-smi outputs: the `npu-smi info` table (A2 96-col, 310P, A3 Phy-ID, 118-col, 950) and the
// key-value subcommands (`-t board|health|ecc|usages|common|memory|sys-time|current-fault-event`,
// `-l`, `npu-smi -v`). log-formats.md section 5.
#include <array>
#include <cctype>
#include <set>

#include "faultline/core/text.hpp"
#include "outputs/common.hpp"
#include "outputs/outputs.hpp"

namespace faultline::parse::outputs {
namespace {

using text::trim;

constexpr std::string_view kModule = "npu-smi";

std::optional<Severity> health_severity(std::string_view h) {
  const std::string l = text::to_lower(h);
  if (l == "ok") return Severity::info;
  if (l == "warning") return Severity::warning;
  if (l == "alarm") return Severity::error;
  if (l == "critical") return Severity::critical;
  if (l == "unknown") return Severity::warning;
  return std::nullopt;
}

bool is_bus_id(std::string_view s) {
  // 0000:C1:00.0
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  return is_hex(s.substr(0, 4)) && is_hex(s.substr(5, 2)) && is_hex(s.substr(8, 2)) &&
         is_hex(s.substr(11, 1));
}

std::optional<int> first_int(std::string_view s) {
  const auto w = text::split_ws(s);
  if (w.empty()) return std::nullopt;
  return text::to_int<int>(w[0]);
}

std::vector<std::string> cells_of(std::string_view line) {
  std::string_view s = trim(line);
  std::vector<std::string> out;
  if (s.empty() || s.front() != '|') return out;
  s.remove_prefix(1);
  if (!s.empty() && s.back() == '|') s.remove_suffix(1);
  for (auto c : text::split(s, '|')) {
    std::string v(trim(c));
    // Markdown pastes escape underscores
    for (size_t p = 0; (p = v.find("\\_", p)) != std::string::npos;) v.erase(p, 1);
    out.push_back(std::move(v));
  }
  return out;
}

// "0           0    / 0          2828 / 32768" -> first "0", pairs {0/0, 2828/32768}
struct Metrics {
  std::string first;
  std::vector<std::string> pairs;  // "used/total"
};
Metrics metrics_of(std::string_view cell) {
  std::string norm;
  for (size_t i = 0; i < cell.size(); ++i) {
    const char c = cell[i];
    if (c == '/') {
      while (!norm.empty() && norm.back() == ' ') norm.pop_back();
      norm.push_back('/');
      while (i + 1 < cell.size() && cell[i + 1] == ' ') ++i;
      continue;
    }
    norm.push_back(c);
  }
  Metrics m;
  for (auto w : text::split_ws(norm)) {
    if (w.find('/') != std::string_view::npos)
      m.pairs.emplace_back(w);
    else if (m.first.empty() && m.pairs.empty())
      m.first = std::string(w);
  }
  return m;
}

bool pair_total_nonzero(std::string_view p) {
  const size_t s = p.find('/');
  if (s == std::string_view::npos) return false;
  const auto t = p.substr(s + 1);
  return !t.empty() && t != "0" && starts_with_digit(t);
}

bool is_na(std::string_view v) {
  const std::string l = text::to_lower(trim(v));
  return l.empty() || l == "na" || l == "n/a" || l == "-" || l == "none";
}

class NpuSmiParser final : public OutputParser {
 public:
  explicit NpuSmiParser(std::string_view path) {
    if (auto n = npu_from_path(path)) path_npu_ = *n;
    kv_npu_ = path_npu_;
  }

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    const char c0 = s.front();
    if (c0 == '+') return;  // table rule
    if (header(s, ctx, sink)) return;
    if (c0 == '|') {
      table_row(raw, ctx, sink);
      return;
    }
    if (auto b = parse_banner(s)) {
      flush_table(sink);
      kv_npu_ = b->npu >= 0 ? b->npu : path_npu_;
      version_cmd_ = b->is_command("npu-smi") &&
                     (b->has_arg("-v") || b->has_arg("version") || b->has_arg("--version"));
      return;
    }
    if (error_line(s, ctx, sink)) return;
    kv_line(s, ctx, sink);
  }

  void finish(Sink& sink) override { flush_table(sink); }

 private:
  enum class Section { none, device, process };

  // `npu-smi 24.1.rc3   Version: 24.1.rc3` (table header, with or without the frame),
  // `npu-smi version: 24.1.rc3` (`npu-smi -v`), `npu-smi Version: 25.0.rc1.2`.
  bool header(std::string_view s, const LineCtx& ctx, Sink& sink) {
    std::string_view t = s;
    if (t.front() == '|') {
      t.remove_prefix(1);
      if (!t.empty() && t.back() == '|') t.remove_suffix(1);
      t = trim(t);
    }
    if (!text::istarts_with(t, "npu-smi")) return false;
    const auto w = text::split_ws(t);
    if (w.size() < 2 || w[0] != "npu-smi") return false;
    std::string_view ver;
    bool table = false;
    if (w.size() >= 4 && text::to_lower(w[2]) == "version:") {
      ver = w[3];  // table header: npu-smi <tool ver> Version: <driver ver>
      table = true;
    } else if (w.size() >= 3 && text::to_lower(w[1]) == "version:") {
      ver = w[2];
    } else if (w.size() == 2 && starts_with_digit(w[1]) &&
               w[1].find('.') != std::string_view::npos) {
      ver = w[1];
    } else {
      return false;
    }
    if (table) flush_table(sink);
    // the tool's own version (normally equal to the driver's; different when the tool on disk
    // comes from another install than the running driver)
    if (table && starts_with_digit(w[1])) fact(sink, "npu_smi.tool_version", w[1], ctx.line);
    // placeholders such as x.x.x (documentation) are not versions
    if (starts_with_digit(ver)) fact(sink, "driver.version.loaded", ver, ctx.line);
    return true;
  }

  void flush_table(Sink& sink) {
    if (!npus_.empty()) fact(sink, "npu.count", std::to_string(npus_.size()), count_line_);
    npus_.clear();
    count_line_ = 0;
    section_ = Section::none;
    cur_npu_ = -1;
  }

  void table_row(std::string_view raw, const LineCtx& ctx, Sink& sink) {
    const auto cells = cells_of(raw);
    if (cells.empty()) return;
    // header rows
    int health = -1;
    bool name = false, bus = false, proc = false;
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string& c = cells[i];
      if (c == "Health") health = static_cast<int>(i);
      if (c.find("Name") != std::string::npos) name = true;
      if (c.find("Bus-Id") != std::string::npos) bus = true;
      if (text::istarts_with(c, "Process id") && c.find("container") == std::string::npos)
        proc = true;
    }
    if (proc) {
      section_ = Section::process;
      proc_cols_ = {-1, -1, -1};
      for (size_t i = 0; i < cells.size(); ++i) {
        const std::string& c = cells[i];
        if (text::istarts_with(c, "Process id") && c.find("container") == std::string::npos)
          proc_cols_[0] = static_cast<int>(i);
        else if (text::istarts_with(c, "Process name"))
          proc_cols_[1] = static_cast<int>(i);
        else if (text::istarts_with(c, "Process memory"))
          proc_cols_[2] = static_cast<int>(i);
      }
      return;
    }
    if (health >= 0 && name) {
      section_ = Section::device;
      health_col_ = health;
      return;
    }
    if (bus && (section_ == Section::device || section_ == Section::none)) {
      // second header row: `| Chip | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB) |`
      for (const auto& c : cells)
        if (c.find("HBM-Usage") != std::string::npos) has_hbm_ = true;
      section_ = Section::device;
      return;
    }
    if (cells.size() == 1 && text::istarts_with(cells[0], "No running processes")) return;

    if (section_ == Section::none && cells.size() >= 3 && health_severity(cells[1])) {
      section_ = Section::device;  // table without its header (cropped paste)
      health_col_ = 1;
    }
    if (section_ == Section::device)
      device_row(cells, raw, ctx, sink);
    else if (section_ == Section::process)
      process_row(cells, ctx, sink);
  }

  void device_row(const std::vector<std::string>& cells, std::string_view raw, const LineCtx& ctx,
                  Sink& sink) {
    const size_t h = static_cast<size_t>(health_col_);
    if (cells.size() <= h) {
      sink.malformed(ctx, "npu-smi row with too few columns");
      return;
    }
    const std::string& hc = cells[h];
    if (auto sev = health_severity(hc)) {
      auto id = first_int(cells[0]);
      if (!id) {
        sink.malformed(ctx, "npu-smi row without NPU id");
        return;
      }
      cur_npu_ = *id;
      if (npus_.empty()) count_line_ = ctx.line;
      npus_.insert(*id);
      std::string nm;
      if (h == 1) {
        const auto w = text::split_ws(cells[0]);
        for (size_t i = 1; i < w.size(); ++i) {
          if (!nm.empty()) nm.push_back(' ');
          nm += w[i];
        }
      } else {
        nm = cells[1];
      }
      const std::string p = "npu." + std::to_string(*id);
      if (!nm.empty()) fact(sink, p + ".name", nm, ctx.line);
      fact(sink, p + ".health", hc, ctx.line);
      if (*sev > Severity::info) {
        const std::string msg = "NPU " + std::to_string(*id) + " health " + hc +
                                (nm.empty() ? std::string() : " (" + nm + ")");
        event(sink, Ev{ctx.line, 1, ctx.offset, *sev, true, kModule, msg, trim(raw), *id, -1});
      }
      return;
    }
    if (is_bus_id(hc) || is_na(hc)) {
      if (cur_npu_ < 0) {
        sink.malformed(ctx, "npu-smi chip row before any NPU row");
        return;
      }
      const std::string p = "npu." + std::to_string(cur_npu_);
      if (is_bus_id(hc)) fact(sink, p + ".bus_id", hc, ctx.line);
      const Metrics m = metrics_of(cells.back());
      if (!m.first.empty() && starts_with_digit(m.first))
        fact(sink, p + ".aicore_util", m.first, ctx.line);
      if (!m.pairs.empty() && pair_total_nonzero(m.pairs[0]))
        fact(sink, p + ".memory_usage_mb", m.pairs[0], ctx.line);
      if (m.pairs.size() >= 2 && has_hbm_) fact(sink, p + ".hbm_usage_mb", m.pairs[1], ctx.line);
      return;
    }
    sink.malformed(ctx, "npu-smi row not understood");
  }

  void process_row(const std::vector<std::string>& cells, const LineCtx& ctx, Sink& sink) {
    auto id = first_int(cells[0]);
    const int pc = proc_cols_[0], nc = proc_cols_[1], mc = proc_cols_[2];
    if (!id || pc < 0 || static_cast<size_t>(pc) >= cells.size()) {
      sink.malformed(ctx, "npu-smi process row not understood");
      return;
    }
    auto cell = [&](int i) -> std::string {
      return i >= 0 && static_cast<size_t>(i) < cells.size() ? cells[static_cast<size_t>(i)]
                                                             : std::string();
    };
    std::string nm = cell(nc);
    for (char& c : nm)
      if (c == ' ') c = '_';
    if (nm.empty()) nm = "-";
    std::string mem = cell(mc);
    if (mem.empty()) mem = "-";
    fact(sink, "npu." + std::to_string(*id) + ".process", cell(pc) + " " + nm + " " + mem,
         ctx.line);
  }

  // `dcmi module initialize failed. ret is -8005` and other tool errors.
  bool error_line(std::string_view s, const LineCtx& ctx, Sink& sink) {
    const bool dcmi = text::icontains(s, "dcmi") && text::icontains(s, "fail");
    const bool err = dcmi || text::icontains(s, "failed") || text::icontains(s, "error:") ||
                     text::icontains(s, "command not found") ||
                     text::icontains(s, "No such file") || text::icontains(s, "not support") ||
                     text::icontains(s, "can not") || text::icontains(s, "cannot");
    if (!err) return false;
    // `Get component version(...) succeed` lines are fine; "Error Code : NA" is a key
    if (s.find(" : ") != std::string_view::npos || s.find("\t: ") != std::string_view::npos)
      return false;
    const int dev = kv_npu_;
    event(sink, Ev{ctx.line, 1, ctx.offset, dcmi ? Severity::error : Severity::warning, true,
                   kModule, s, s, dev, -1});
    return true;
  }

  std::string npu_prefix() const { return "npu." + std::to_string(kv_npu_); }

  void kv_line(std::string_view s, const LineCtx& ctx, Sink& sink) {
    std::string_view key, val;
    if (!split_kv(s, ':', key, val)) return;
    for (char c : key)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == ' ' || c == '(' || c == ')' ||
            c == '%' || c == '-' || c == '_' || c == '.' || c == '/'))
        return;  // not a key-value line
    const std::string k = text::to_lower(key);
    const uint32_t ln = ctx.line;
    if (k == "npu id") {
      if (auto v = text::to_int<int>(val)) kv_npu_ = *v;
      return;
    }
    if (k == "chip id") return;            // facts are per NPU; chips of one NPU state them in turn
    if (k == "version" && version_cmd_) {  // `npu-smi version` printing `Version : <v>`
      if (starts_with_digit(val)) fact(sink, "driver.version.loaded", val, ln);
      return;
    }
    if (k == "card count" || k == "total count") {
      fact(sink, "npu.count", val, ln);
      return;
    }
    if (k == "software version") {
      if (starts_with_digit(val)) fact(sink, "driver.version.loaded", val, ln);
      return;
    }
    if (k == "firmware version") {
      if (starts_with_digit(val)) fact(sink, "firmware.version", val, ln);
      return;
    }
    const bool known_npu = kv_npu_ >= 0;
    const std::string p = npu_prefix();
    if (k == "health status" || k == "health") {
      if (known_npu) fact(sink, p + ".health", val, ln);
      auto sev = health_severity(val);
      if (!sev || *sev > Severity::info) {
        const std::string msg = "NPU " + (known_npu ? std::to_string(kv_npu_) : std::string("?")) +
                                " health " + std::string(val);
        event(sink, Ev{ln, 1, ctx.offset, sev.value_or(Severity::warning), true, kModule, msg, s,
                       kv_npu_, -1});
      }
      return;
    }
    if (k == "error code") {
      if (is_na(val)) return;
      if (known_npu) fact(sink, p + ".health_error_code", val, ln);
      const std::string msg = "NPU " + (known_npu ? std::to_string(kv_npu_) : std::string("?")) +
                              " health error code " + std::string(val);
      event(sink, Ev{ln, 1, ctx.offset, Severity::error, true, kModule, msg, s, kv_npu_, -1});
      // `Error Code : A4025021 8C03A000 8C084E00`: every code is a fault event of its own; the
      // line states the first, a derived record (docs/events.md) each further one
      const auto codes = text::split_ws(val);
      for (size_t i = 1; i < codes.size() && i < 16; ++i) {
        const std::string d =
            "npu-smi health: NPU " + (known_npu ? std::to_string(kv_npu_) : std::string("?")) +
            " Error Code : " + std::string(codes[i]) + " (code " + std::to_string(i + 1) + " of " +
            std::to_string(codes.size()) + " on the line)";
        Event e = derived_record(ctx, kModule, Severity::error, d);
        e.device = kv_npu_;
        sink.event(e);
      }
      return;
    }
    if (k == "error information") {
      if (!is_na(val) && known_npu) fact(sink, p + ".health_error_info", val, ln);
      return;
    }
    if (k == "fault event information") {
      Severity sev = Severity::warning;
      const size_t sp = val.find("severity=");
      if (sp != std::string_view::npos && sp + 9 < val.size()) {
        const char d = val[sp + 9];
        sev = d == '0'   ? Severity::notice
              : d == '1' ? Severity::warning
              : d == '2' ? Severity::error
                         : Severity::critical;
      }
      const std::string msg = "NPU " + (known_npu ? std::to_string(kv_npu_) : std::string("?")) +
                              " fault event: " + std::string(val);
      event(sink, Ev{ln, 1, ctx.offset, sev, true, kModule, msg, s, kv_npu_, -1});
      if (known_npu) fact(sink, p + ".fault_event", val, ln);
      return;
    }
    if (!known_npu) return;
    if (k == "pcie bus info") {
      fact(sink, p + ".bus_id", val, ln);
    } else if (k == "chip name") {
      if (!is_na(val)) fact(sink, p + ".name", val, ln);
    } else if (k == "product name") {
      if (!is_na(val)) fact(sink, p + ".product_name", val, ln);
    } else if (k == "serial number") {
      if (!is_na(val)) fact(sink, p + ".serial_number", val, ln);
    } else if (k == "chip count") {
      fact(sink, p + ".chip_count", val, ln);
    } else if (k == "aicore usage rate(%)") {
      fact(sink, p + ".aicore_util", val, ln);
    } else if (k == "system time(local)") {
      fact(sink, p + ".system_time", val, ln);
    } else if (k == "fault event count") {
      fact(sink, p + ".fault_event_count", val, ln);
    } else if (k == "compatibility") {
      fact(sink, p + ".compatibility", val, ln);
      if (text::to_lower(val) != "ok") {
        const std::string msg =
            "NPU " + std::to_string(kv_npu_) + " driver/firmware compatibility " + std::string(val);
        event(sink, Ev{ln, 1, ctx.offset, Severity::error, true, kModule, msg, s, kv_npu_, -1});
      }
    } else if (text::icontains(k, "error count") || text::icontains(k, "isolated pages")) {
      fact(sink, p + ".ecc." + snake(key), val, ln);
      const auto n = text::to_int<int64_t>(val);
      const bool severe = text::icontains(k, "double bit") || text::icontains(k, "multi bit") ||
                          text::icontains(k, "isolated");
      if (n && *n > 0 && severe) {
        const std::string msg =
            "NPU " + std::to_string(kv_npu_) + " " + std::string(key) + " " + std::string(val);
        event(sink, Ev{ln, 1, ctx.offset, Severity::warning, true, kModule, msg, s, kv_npu_, -1});
      }
    } else {
      fact(sink, p + ".kv." + snake(key), val, ln);
    }
  }

  int path_npu_ = -1;
  // key-value state
  int kv_npu_ = -1;
  bool version_cmd_ = false;
  // table state
  Section section_ = Section::none;
  int health_col_ = 1;
  bool has_hbm_ = false;
  int cur_npu_ = -1;
  std::array<int, 3> proc_cols_{-1, -1, -1};
  std::set<int> npus_;
  uint32_t count_line_ = 0;
};

}  // namespace

std::unique_ptr<Parser> make_npu_smi(std::string_view path) {
  return std::make_unique<NpuSmiParser>(path);
}

}  // namespace faultline::parse::outputs
