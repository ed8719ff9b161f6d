// Shell history: `.bash_history` written with HISTTIMEFORMAT set (each command preceded by a
// `#<epoch seconds>` line) and the output of `history` with HISTTIMEFORMAT
// (`  512  2025-06-10 14:02:11 timedatectl set-timezone Asia/Shanghai`, printed at collection in
// the zone of the collection). A command that sets the host zone states host.timezone_change
// (docs/clock.md "Zones per time range"): `timedatectl set-timezone ZONE`,
// `ln -sf /usr/share/zoneinfo/ZONE /etc/localtime`, `cp /usr/share/zoneinfo/ZONE /etc/localtime`.
#include <nlohmann/json.hpp>

#include "faultline/core/text.hpp"
#include "outputs/common.hpp"
#include "outputs/outputs.hpp"

namespace faultline::parse::outputs {

namespace {

using text::trim;

bool zone_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '/' || c == '_' ||
         c == '-' || c == '+';
}

// The zone a command sets, or empty.
std::string zone_set_by(std::string_view cmd) {
  if (const size_t p = cmd.find("set-timezone"); p != std::string_view::npos) {
    std::string_view rest = trim(cmd.substr(p + 12));
    if (!rest.empty() && (rest.front() == '"' || rest.front() == '\'')) rest.remove_prefix(1);
    size_t e = 0;
    while (e < rest.size() && zone_char(rest[e])) ++e;
    return e > 0 && e <= 64 ? std::string(rest.substr(0, e)) : std::string();
  }
  if (cmd.find("/etc/localtime") == std::string_view::npos) return {};
  const bool link = cmd.find("ln ") != std::string_view::npos;
  const bool copy = cmd.find("cp ") != std::string_view::npos;
  if (!link && !copy) return {};
  const size_t z = cmd.find("zoneinfo/");
  // the zone file must come before /etc/localtime (the target)
  if (z == std::string_view::npos || z > cmd.find("/etc/localtime")) return {};
  std::string_view rest = cmd.substr(z + 9);
  size_t e = 0;
  while (e < rest.size() && zone_char(rest[e])) ++e;
  return e > 0 && e <= 64 ? std::string(rest.substr(0, e)) : std::string();
}

class ShellHistoryParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    if (s.size() == 11 && s[0] == '#' && all_digits(s.substr(1))) {
      epoch_ = text::to_int<int64_t>(s.substr(1)).value_or(0);
      return;
    }
    nlohmann::json j;
    std::string_view cmd = s;
    const auto w = text::split_ws(s);
    // `history` with HISTTIMEFORMAT='%F %T ': number, date, time, command
    if (w.size() >= 4 && all_digits(w[0]) && w[1].size() == 10 && w[1][4] == '-' &&
        w[2].size() == 8 && w[2][2] == ':') {
      j["time"] = std::string(w[1]) + " " + std::string(w[2]);
      j["rendered"] = true;
      cmd = s.substr(static_cast<size_t>(w[3].data() - s.data()));
    } else if (epoch_ > 0) {
      j["epoch"] = epoch_;
    }
    epoch_ = 0;
    const std::string zone = zone_set_by(cmd);
    if (zone.empty() || j.empty()) return;
    j["zone"] = zone;
    j["command"] = std::string(cmd.substr(0, 200));
    fact(sink, "host.timezone_change", j.dump(), ctx.line);
  }

 private:
  static bool all_digits(std::string_view v) {
    if (v.empty()) return false;
    for (char c : v)
      if (!is_digit(c)) return false;
    return true;
  }
  int64_t epoch_ = 0;
};

}  // namespace

std::unique_ptr<Parser> make_shell_history(std::string_view /*path*/) {
  return std::make_unique<ShellHistoryParser>();
}

}  // namespace faultline::parse::outputs
