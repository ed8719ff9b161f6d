#include "logs/install_util.hpp"

#include <array>
#include <vector>

#include "logs/common.hpp"

namespace faultline::parse::logs {

namespace {

std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return o;
}

std::vector<std::string_view> split_any(std::string_view s, std::string_view seps) {
  std::vector<std::string_view> out;
  size_t b = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || seps.find(s[i]) != std::string_view::npos) {
      if (i > b) out.push_back(s.substr(b, i - b));
      b = i + 1;
    }
  }
  return out;
}

struct Seg {
  std::string_view letters;
  int64_t number = -1;
  std::string_view rest;
};

Seg parse_seg(std::string_view s) {
  Seg g;
  size_t i = 0;
  while (i < s.size() && is_alpha(s[i])) ++i;
  g.letters = s.substr(0, i);
  size_t j = i;
  int64_t v = 0;
  if (read_uint(s, j, v)) g.number = v;
  g.rest = s.substr(j);
  return g;
}

int rank_of(const Seg& g) {
  if (g.letters == "alpha") return 0;
  if (g.letters == "beta") return 1;
  if (g.letters == "rc") return 2;
  return 3;
}

int cmp3(int64_t a, int64_t b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}
int cmpsv(std::string_view a, std::string_view b) {
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

bool all_zero(const std::vector<std::string_view>& v, size_t from) {
  for (size_t i = from; i < v.size(); ++i)
    if (v[i] != "0") return false;
  return true;
}

}  // namespace

int compare_versions(std::string_view a, std::string_view b) {
  std::string la = lower(a), lb = lower(b);
  while (!la.empty() && la.back() == '.') la.pop_back();
  while (!lb.empty() && lb.back() == '.') lb.pop_back();
  const auto sa = split_any(la, ".-_");
  const auto sb = split_any(lb, ".-_");
  const size_t n = sa.size() > sb.size() ? sa.size() : sb.size();
  for (size_t i = 0; i < n; ++i) {
    if (i >= sa.size()) return all_zero(sb, i) ? 0 : -1;
    if (i >= sb.size()) return all_zero(sa, i) ? 0 : 1;
    const Seg x = parse_seg(sa[i]), y = parse_seg(sb[i]);
    int c = cmp3(rank_of(x), rank_of(y));
    if (c == 0) c = cmpsv(x.letters, y.letters);
    if (c == 0) c = cmp3(x.number, y.number);
    if (c == 0) c = cmpsv(x.rest, y.rest);
    if (c != 0) return c;
  }
  return 0;
}

std::string version_from_run(std::string_view run) {
  const size_t slash = run.find_last_of('/');
  if (slash != std::string_view::npos) run = run.substr(slash + 1);
  for (std::string_view tok : split_any(run, "-_")) {
    if (tok.empty() || !is_digit(tok[0]) || tok.find('.') == std::string_view::npos) continue;
    for (std::string_view suf : {".run", ".rpm", ".deb", ".aarch64", ".x86_64", ".zip"})
      if (ends_with(tok, suf)) tok.remove_suffix(suf.size());
    if (tok.find('.') == std::string_view::npos) continue;
    return std::string(tok);
  }
  return {};
}

std::string package_from_run(std::string_view run) {
  static constexpr std::array<std::string_view, 18> kKnown = {
      "driver", "firmware", "toolkit",  "kernels", "nnae", "nnal",      "nnrt", "opp",  "tfplugin",
      "mcu",    "runtime",  "compiler", "hccl",    "aoe",  "fwkplugin", "ops",  "cann", "opensdk"};
  const size_t slash = run.find_last_of('/');
  if (slash != std::string_view::npos) run = run.substr(slash + 1);
  for (std::string_view tok : split_any(run, "-_.")) {
    const std::string l = lower(tok);
    for (std::string_view k : kKnown)
      if (l == k) return l;
  }
  return "unknown";
}

std::string InstallEvent::json() const {
  std::string o = "{\"package\":\"" + json_escape(package) + "\",\"action\":\"" +
                  json_escape(action) + "\",\"from\":\"" + json_escape(from) + "\",\"to\":\"" +
                  json_escape(to) + "\",\"time\":\"" + json_escape(time) + "\",\"result\":\"" +
                  json_escape(result) +
                  "\",\"reboot_required\":" + (reboot_required ? "true" : "false");
  if (!path.empty()) o += ",\"path\":\"" + json_escape(path) + "\"";
  o += "}";
  return o;
}

}  // namespace faultline::parse::logs
