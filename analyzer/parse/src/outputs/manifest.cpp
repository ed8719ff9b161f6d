// faultline-collect manifest.json:
//   {"host": "...", "collected_at": "...", "collector_version": "...",
//    "commands": [{"cmd": "...", "file": "...", "exit": 0, "seconds": 1.2}, ...]}
// Facts: host.name, host.collected_at, collector.version, probe.<name>.result; one event per
// command that failed or timed out.
#include <nlohmann/json.hpp>

#include "faultline/core/text.hpp"
#include "outputs/common.hpp"
#include "outputs/outputs.hpp"

namespace faultline::parse::outputs {
namespace {

class ManifestParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    if (too_big_) return;
    if (text_.size() + raw.size() + 1 > kMaxAccumBytes) {
      too_big_ = true;
      sink.malformed(ctx, "manifest larger than the parse limit; ignored");
      return;
    }
    line_offsets_.push_back(ctx.offset);
    text_.append(raw);
    text_.push_back('\n');
    // remember where keys are stated, for evidence line numbers
    if (raw.find("\"host\"") != std::string_view::npos && host_line_ == 0) host_line_ = ctx.line;
    if (raw.find("\"collected_at\"") != std::string_view::npos && at_line_ == 0)
      at_line_ = ctx.line;
    if (raw.find("\"collector_version\"") != std::string_view::npos && ver_line_ == 0)
      ver_line_ = ctx.line;
    for (size_t p = 0; (p = raw.find("\"cmd\"", p)) != std::string_view::npos; p += 5)
      cmd_lines_.push_back(ctx.line);
  }

  void finish(Sink& sink) override {
    if (too_big_ || text_.empty()) return;
    const auto j = nlohmann::json::parse(text_, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      sink.malformed(LineCtx{1, 0}, "manifest is not a JSON object");
      return;
    }
    auto str = [&](const nlohmann::json& o, const char* k) -> std::string {
      auto it = o.find(k);
      if (it == o.end()) return {};
      if (it->is_string()) return it->get<std::string>();
      if (it->is_number()) return it->dump();
      return {};
    };
    const uint32_t one = 1;
    if (auto h = str(j, "host"); !h.empty())
      fact(sink, "host.name", h, host_line_ ? host_line_ : one);
    if (auto a = str(j, "collected_at"); !a.empty())
      fact(sink, "host.collected_at", a, at_line_ ? at_line_ : one);
    if (auto v = str(j, "collector_version"); !v.empty())
      fact(sink, "collector.version", v, ver_line_ ? ver_line_ : one);
    auto cmds = j.find("commands");
    if (cmds == j.end() || !cmds->is_array()) return;
    size_t i = 0;
    for (const auto& c : *cmds) {
      const uint32_t ln = i < cmd_lines_.size() ? cmd_lines_[i] : one;
      ++i;
      if (!c.is_object()) continue;
      const std::string cmd = str(c, "cmd");
      const std::string file = str(c, "file");
      std::optional<int64_t> exit;
      if (auto e = c.find("exit"); e != c.end() && e->is_number_integer()) exit = e->get<int64_t>();
      bool timed_out = false;
      for (const char* k : {"timed_out", "timeout"})
        if (auto t = c.find(k); t != c.end() && t->is_boolean() && t->get<bool>()) timed_out = true;
      if (exit && (*exit == 124 || *exit == 137)) timed_out = true;  // timeout(1), SIGKILL
      const bool failed = timed_out || (exit && *exit != 0);
      // probe.py <name> (seed 002 section 4)
      if (const size_t pp = cmd.find("probe.py"); pp != std::string::npos) {
        const auto w = text::split_ws(std::string_view(cmd).substr(pp + 8));
        if (!w.empty()) {
          std::string name = snake(w[0]);
          if (!name.empty())
            fact(sink, "probe." + name + ".result",
                 timed_out ? "timeout" : (failed ? "fail" : (exit ? "pass" : "unknown")), ln);
        }
      }
      if (!failed) continue;
      std::string msg = std::string(timed_out ? "collection command timed out: "
                                              : "collection command failed: ") +
                        cmd;
      if (exit) msg += " (exit " + std::to_string(*exit) + ")";
      if (!file.empty()) msg += " -> " + file;
      const uint64_t off = ln >= 1 && ln - 1 < line_offsets_.size() ? line_offsets_[ln - 1] : 0;
      event(sink, Ev{ln, 1, off, timed_out ? Severity::error : Severity::warning, true, "manifest",
                     msg, msg, -1, -1});
    }
  }

 private:
  std::string text_;
  bool too_big_ = false;
  std::vector<uint64_t> line_offsets_;
  uint32_t host_line_ = 0, at_line_ = 0, ver_line_ = 0;
  std::vector<uint32_t> cmd_lines_;
};

}  // namespace

std::unique_ptr<Parser> make_manifest(std::string_view /*path*/) {
  return std::make_unique<ManifestParser>();
}

}  // namespace faultline::parse::outputs
