#include "faultline/parse/install_replay.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "logs/install_util.hpp"

namespace faultline::parse {

std::optional<InstallRecord> install_record(std::string_view json) {
  const auto j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  auto str = [&](const char* k) {
    auto it = j.find(k);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  InstallRecord r;
  r.package = str("package");
  r.action = str("action");
  r.from = str("from");
  r.to = str("to");
  r.time = str("time");
  r.result = str("result");
  r.path = str("path");
  if (r.package.empty() || r.action.empty()) return std::nullopt;
  return r;
}

std::vector<Installed> replay_installs(const std::vector<InstallRecord>& records) {
  std::vector<size_t> order(records.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return records[a].time < records[b].time; });
  std::map<std::pair<std::string, std::string>, Installed> now;  // (package, path)
  for (const size_t i : order) {
    const InstallRecord& r = records[i];
    if (r.result != "success") continue;  // a failed step installs and removes nothing
    // one driver and one firmware per host: their installers remove the previous one wherever it
    // was installed (/etc/ascend_install.info); other packages stay side by side per root
    const bool single = r.package == "driver" || r.package == "firmware";
    const auto key = std::make_pair(r.package, single ? std::string() : r.path);
    if (r.action == "uninstall") {
      auto it = now.find(key);
      if (it == now.end() && !r.from.empty()) {
        // uninstalled from another root than the command named: the entry of that version
        for (auto j = now.begin(); j != now.end(); ++j)
          if (j->first.first == r.package &&
              logs::compare_versions(j->second.version, r.from) == 0) {
            it = j;
            break;
          }
      }
      if (it == now.end() && r.path.empty()) {
        // the only root of that package
        auto first = now.end();
        size_t n = 0;
        for (auto j = now.begin(); j != now.end(); ++j)
          if (j->first.first == r.package && n++ == 0) first = j;
        if (n == 1) it = first;
      }
      if (it != now.end()) now.erase(it);
      continue;
    }
    if (r.action != "install" && r.action != "upgrade" && r.action != "downgrade" &&
        r.action != "rollback")
      continue;
    if (r.to.empty()) {
      // installed, but the session did not say which version: what was there is gone
      now.erase(key);
      continue;
    }
    Installed& s = now[key];
    s.package = r.package;
    s.version = r.to;
    s.path = r.path;
    s.time = r.time;
    s.member_id = r.member_id;
    s.line = r.line;
  }
  std::vector<Installed> out;
  out.reserve(now.size());
  for (auto& [k, v] : now) out.push_back(std::move(v));
  return out;
}

std::string_view installed_fact_name(std::string_view package) {
  if (package == "driver") return "driver.version.installed";
  if (package == "firmware") return "firmware.version.installed";
  for (std::string_view c : {"toolkit", "nnae", "nnrt", "runtime", "kernels", "cann"})
    if (package == c) return "cann.version.installed";
  return {};
}

}  // namespace faultline::parse
