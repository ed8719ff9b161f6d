// Addresses, ranks and process identities of the fleet (docs/fleet.md, "Addresses and ranks").
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "internal.hpp"

namespace faultline::correlate::fleet {

// ---------------------------------------------------------------------------------------------
// Addresses and ranks

// Lower is stronger.
int source_strength(const std::string& s) {
  if (s == "roster") return 0;
  if (s == "heartbeat-local") return 1;
  if (s == "link-local") return 2;
  if (s == "env") return 3;
  if (s == "own-log") return 5;
  return 4;  // host-name
}

void add_ip(Ctx& c, const std::string& ip, const std::string& host, const std::string& source) {
  if (ip.empty() || host.empty() || ip == "0.0.0.0" || ip.rfind("127.", 0) == 0 || ip.size() > 64)
    return;
  auto& m = c.ip_source[ip];
  auto it = m.find(host);
  if (it == m.end() || source_strength(source) < source_strength(it->second)) m[host] = source;
}

// The host an IP belongs to: the strongest source wins; several hosts at the same strength = none.
std::pair<std::string, std::string> host_of_ip(const Ctx& c, const std::string& ip) {
  auto it = c.ip_source.find(ip);
  if (it == c.ip_source.end()) return {};
  int best = 99;
  for (const auto& [h, s] : it->second) best = std::min(best, source_strength(s));
  std::vector<std::string> hs;
  std::string src;
  for (const auto& [h, s] : it->second)
    if (source_strength(s) == best) {
      hs.push_back(h);
      src = s;
    }
  if (hs.size() != 1) return {};
  return {hs.front(), src};
}

// True when `ip` appears in `text` as a whole address (not inside 110.30.1.150).
bool has_ip_token(const std::string& text, const std::string& ip) {
  for (size_t p = text.find(ip); p != std::string::npos; p = text.find(ip, p + 1)) {
    const bool left =
        p == 0 || !(std::isdigit(static_cast<unsigned char>(text[p - 1])) || text[p - 1] == '.');
    const size_t e = p + ip.size();
    const bool right =
        e >= text.size() || !(std::isdigit(static_cast<unsigned char>(text[e])) ||
                              (text[e] == '.' && e + 1 < text.size() &&
                               std::isdigit(static_cast<unsigned char>(text[e + 1]))));
    if (left && right) return true;
  }
  return false;
}

// Last resort for an address no roster names: the one host whose own system logs (syslog,
// journal, kernel log) or facts mention it, HCCL lines excluded (they name peers).
std::string host_by_own_logs(Ctx& c, const std::string& ip) {
  if (ip.empty() || ip.size() > 64) return {};
  std::set<std::string> hosts;
  const std::string like = "%" + ip + "%";
  for (int64_t b : c.bundles) {
    Stmt ev(c.db,
            // members of those kinds first, then their events (idx_events_member): from the
            // events side, every event of the bundle went through the LIKE (issue 19: ~10% of
            // a plog-heavy analysis)
            "SELECT e.host, substr(e.text, 1, 2000) FROM members m CROSS JOIN events e ON "
            "e.member_id = m.id WHERE "
            "m.bundle_id = ? AND m.kind IN ('syslog', 'journal', 'dmesg', 'dmesg_t', "
            "'host_kernel_log') AND "
            "e.text LIKE ? AND e.text NOT LIKE '%HCCL%' ORDER BY e.id LIMIT 50");
    ev.bind(1, b).bind(2, std::string_view(like));
    while (ev.step())
      if (has_ip_token(ev.str(1), ip)) hosts.insert(ev.str(0));
    Stmt fa(c.db,
            "SELECT host, value FROM facts WHERE bundle_id = ? AND value LIKE ? AND name NOT LIKE "
            "'env.MASTER%' "
            "AND name NOT LIKE 'args.%' AND name NOT LIKE 'config.%' LIMIT 50");
    fa.bind(1, b).bind(2, std::string_view(like));
    while (fa.step())
      if (has_ip_token(fa.str(1), ip)) hosts.insert(fa.str(0));
  }
  if (hosts.size() != 1) return {};
  add_ip(c, ip, *hosts.begin(), "own-log");
  return *hosts.begin();
}

void build_roster(Ctx& c, FleetResult& r) {
  std::map<std::pair<int64_t, std::string>, FleetRank> ranks;  // (rank, host)
  auto put = [&](int64_t rank, const std::string& host, const std::string& ip,
                 std::optional<int64_t> device, std::optional<int64_t> pid,
                 const std::string& group, const std::string& source) {
    auto& fr = ranks[{rank, host}];
    fr.rank = rank;
    fr.host = host;
    if (fr.ip.empty()) fr.ip = ip;
    if (!fr.device) fr.device = device;
    if (!fr.pid) fr.pid = pid;
    if (fr.group.empty()) fr.group = group;
    if (fr.source.empty() || source == "roster") fr.source = source;
  };
  // LocalRank Key Info: userRank + hostIp, in the host's own plog.
  for (const auto& h : c.of("hccl.local_rank_info")) {
    const auto rank = to_i64(h.c("user_rank"));
    const std::string ip = h.c("host_ip");
    add_ip(c, ip, h.host, "roster");
    const std::string server = bracket_value(h.text, "server[");
    if (!server.empty() && server != ip) add_ip(c, server, h.host, "roster");
    if (rank) put(*rank, h.host, ip, to_i64(h.c("device_phy")), h.pid, "", "local_rank");
  }
  // Entry-HcclCommInitRootInfoInner: ranks[N], rank[r], identifier, deviceLogicId.
  for (const auto& h : c.of("hccl.comm_init_entry")) {
    const auto rank = to_i64(h.c("rank"));
    if (rank) put(*rank, h.host, "", to_i64(h.c("device")), h.pid, h.c("identifier"), "roster");
  }
  // torch_npu ERR lines: (PID, Device, RankID).
  for (const auto& h : c.of("torch_npu.err_code")) {
    const auto rank = to_i64(h.c("rank"));
    if (rank) put(*rank, h.host, "", to_i64(h.c("device")), to_i64(h.c("pid")), "", "err_line");
  }
  // Own-log addresses: the local side of heartbeat reports and of link error tables.
  for (const auto& h : c.of("hccl.heartbeat_crimer"))
    add_ip(c, split_ip_id(h.c("local")).first, h.host, "heartbeat-local");
  for (const auto& h : c.of("hccl.link_error_info")) add_ip(c, h.c("src_ip"), h.host, "link-local");
  // HCCL_IF_IP of the host's environment.
  for (int64_t b : c.bundles) {
    Stmt st(c.db,
            "SELECT host, value FROM facts WHERE bundle_id = ? AND name IN ('env.HCCL_IF_IP', "
            "'host.ip')");
    st.bind(1, b);
    while (st.step()) add_ip(c, st.str(1), st.str(0), "env");
  }
  // Host named after its address (bundles named 10.30.1.15, node-10-30-1-15, ...).
  for (const auto& [host, bs] : c.host_bundles) {
    std::string dotted;
    for (char ch : host) dotted.push_back(ch == '-' || ch == '_' ? '.' : ch);
    for (size_t i = 0; i < dotted.size(); ++i) {
      if (i > 0 && dotted[i - 1] != '.' && !std::isalpha(static_cast<unsigned char>(dotted[i - 1])))
        continue;
      size_t j = i;
      int dots = 0;
      while (j < dotted.size() &&
             (std::isdigit(static_cast<unsigned char>(dotted[j])) || dotted[j] == '.')) {
        if (dotted[j] == '.') ++dots;
        ++j;
      }
      std::string cand = dotted.substr(i, j - i);
      while (!cand.empty() && cand.back() == '.') {
        cand.pop_back();
        --dots;
      }
      if (dots == 3) add_ip(c, cand, host, "host-name");
      i = j;
    }
  }
  for (auto& [k, fr] : ranks) {
    if (fr.ip.empty()) {
      // the host's roster address
      for (const auto& [ip, hs] : c.ip_source) {
        auto it = hs.find(fr.host);
        if (it != hs.end() && it->second == "roster") {
          fr.ip = ip;
          break;
        }
      }
    }
    r.ranks.push_back(fr);
  }
}

// Rank on a host by device or pid.
std::optional<int64_t> rank_of(const FleetResult& r, const std::string& host,
                               std::optional<int64_t> device, std::optional<int64_t> pid) {
  std::optional<int64_t> by_dev;
  for (const auto& fr : r.ranks) {
    if (fr.host != host) continue;
    if (pid && fr.pid && *pid == *fr.pid) return fr.rank;
    if (device && fr.device && *device == *fr.device && !by_dev) by_dev = fr.rank;
  }
  return by_dev;
}

const FleetRank* find_rank(const FleetResult& r, int64_t rank, const std::string& host) {
  const FleetRank* any = nullptr;
  for (const auto& fr : r.ranks) {
    if (fr.rank != rank) continue;
    if (host.empty() || fr.host == host) return &fr;
    if (!any) any = &fr;
  }
  return host.empty() ? any : nullptr;
}

// ---------------------------------------------------------------------------------------------
// Identity roster: one entry per process

std::string Proc::label() const {
  std::string s = host.empty() ? std::string("?") : host;
  if (rank) s += " rank " + std::to_string(*rank);
  if (phy_dev)
    s += " device " + std::to_string(*phy_dev);
  else if (logic_dev)
    s += " logical device " + std::to_string(*logic_dev);
  if (!rank && !phy_dev && !logic_dev && pid) s += " pid " + std::to_string(*pid);
  return s;
}

size_t Roster::proc_of(const std::string& host, std::optional<int64_t> pid) {
  const auto key = std::make_pair(host, pid.value_or(-1));
  auto it = by_host_pid.find(key);
  if (it != by_host_pid.end()) return it->second;
  Proc p;
  p.host = host;
  p.pid = pid;
  procs.push_back(std::move(p));
  by_host_pid.emplace(key, procs.size() - 1);
  return procs.size() - 1;
}

std::optional<size_t> Roster::find(const std::string& host, std::optional<int64_t> pid) const {
  auto it = by_host_pid.find({host, pid.value_or(-1)});
  if (it == by_host_pid.end()) return std::nullopt;
  return it->second;
}

namespace {
// The first process (in host, pid order) matching; identities claimed twice are flagged elsewhere.
template <class F>
std::optional<size_t> first_where(const std::vector<Proc>& ps, F&& f) {
  std::optional<size_t> best;
  for (size_t i = 0; i < ps.size(); ++i) {
    if (!f(ps[i])) continue;
    if (!best || std::tie(ps[i].host, ps[i].pid) < std::tie(ps[*best].host, ps[*best].pid))
      best = i;
  }
  return best;
}
}  // namespace

std::optional<size_t> Roster::by_device_ip(const std::string& ip) const {
  if (ip.empty()) return std::nullopt;
  return first_where(procs, [&](const Proc& p) { return p.device_ip == ip || p.vnic_ip == ip; });
}

std::optional<size_t> Roster::by_server_device(const std::string& server, int64_t phy) const {
  if (server.empty()) return std::nullopt;
  return first_where(procs,
                     [&](const Proc& p) { return p.server_ip == server && p.phy_dev == phy; });
}

std::optional<size_t> Roster::by_host_device(const std::string& host, int64_t phy) const {
  return first_where(procs, [&](const Proc& p) { return p.host == host && p.phy_dev == phy; });
}

std::optional<size_t> Roster::by_rank(const std::string& group, int64_t rank) const {
  return first_where(procs, [&](const Proc& p) {
    auto it = p.rank_in.find(group);
    return it != p.rank_in.end() && it->second == rank;
  });
}

bool Roster::knows_server(const std::string& server) const {
  return std::any_of(procs.begin(), procs.end(),
                     [&](const Proc& p) { return !server.empty() && p.server_ip == server; });
}

Roster build_identities(const Ctx& c) {
  Roster ro;
  auto set_if = [](std::optional<int64_t>& dst, std::optional<int64_t> v) {
    if (!dst && v && *v >= 0) dst = v;
  };
  auto set_str = [](std::string& dst, const std::string& v) {
    if (dst.empty() && !v.empty() && v != "0.0.0.0") dst = v;
  };
  auto announce = [&](const HitR& h, const std::string& group, std::optional<int64_t> rank,
                      std::optional<int64_t> size) -> Proc& {
    Proc& p = ro.procs[ro.proc_of(h.host, h.pid)];
    if (rank) {
      const std::string g = group.empty() ? std::string("(unnamed)") : group;
      p.rank_in.emplace(g, *rank);
    }
    set_if(p.size, size);
    if (!p.line) p.line = h.as_line("roster");
    return p;
  };
  for (const char* sig : {"hccl.comm_init_trace", "hccl.comm_init_root_failed"})
    for (const auto& h : c.of(sig)) {
      Proc& p = announce(h, h.c("identifier"), to_i64(h.c("rank")), to_i64(h.c("ranks")));
      set_str(p.server_ip, h.c("server"));
      set_if(p.logic_dev, to_i64(h.c("logic_device")));
      set_if(p.phy_dev, to_i64(h.c("device_phy")));
      set_str(p.device_ip, h.c("device_ip"));
    }
  for (const auto& h : c.of("hccl.comm_init_entry")) {
    Proc& p = announce(h, h.c("identifier"), to_i64(h.c("rank")), to_i64(h.c("ranks")));
    set_if(p.logic_dev, to_i64(h.c("device")));
    set_if(p.phy_dev, to_i64(h.c("device_phy")));  // Ascend 950 RootInfoDetect
    set_str(p.root_ip, h.c("root_ip"));
  }
  for (const auto& h : c.of("hccl.comm_init_info")) {
    Proc& p = announce(h, h.c("identifier"), to_i64(h.c("rank")), to_i64(h.c("ranks")));
    set_str(p.server_ip, h.c("server"));
    set_if(p.logic_dev, to_i64(h.c("logic_device")));
  }
  for (const auto& h : c.of("hccl.hcom_init")) {
    Proc& p = announce(h, "", to_i64(h.c("rank")), to_i64(h.c("ranks")));
    set_str(p.server_ip, h.c("server"));
    set_if(p.logic_dev, to_i64(h.c("logic_device")));
  }
  for (const auto& h : c.of("hccl.local_rank_info")) {
    Proc& p = announce(h, "", to_i64(h.c("user_rank")), std::nullopt);
    set_if(p.phy_dev, to_i64(h.c("device_phy")));
    set_str(p.server_ip, bracket_value(h.text, "server["));
    set_str(p.device_ip, bracket_value(h.text, "deviceIp["));
  }
  for (const auto& h : c.of("hccl.get_root_info"))
    if (const auto i = ro.find(h.host, h.pid)) ro.procs[*i].root_of.insert(h.c("identifier"));
  // `[Start][Vnic]Listen on ip[..], port[..] success, devPhyId[..], devLogicId[..]`: the virtual
  // NIC address of a known process (link tables of superpods name it as the far end)
  for (const auto& h : c.of("hccl.vnic_listen")) {
    const auto i = ro.find(h.host, h.pid);
    if (!i) continue;
    Proc& p = ro.procs[*i];
    set_str(p.vnic_ip, h.c("vnic_ip"));
    set_if(p.phy_dev, to_i64(h.c("device_phy")));
    set_if(p.logic_dev, to_i64(h.c("logic_device")));
  }
  for (const auto& h : c.of("torch_npu.err_code")) {
    // training stdout: the line's own PID names the process
    const auto pid = to_i64(h.c("pid"));
    if (!pid || !ro.find(h.host, pid)) continue;
    Proc& p = ro.procs[*ro.find(h.host, pid)];
    set_if(p.logic_dev, to_i64(h.c("device")));
  }
  // Unnamed ranks (hcom init / LocalRank lines) belong to the process's named communicator.
  for (auto& p : ro.procs)
    if (p.rank_in.size() > 1) p.rank_in.erase("(unnamed)");
  // The main communicator: the one most collected processes are members of, then the largest.
  std::map<std::string, std::pair<int, int64_t>> members;
  for (const auto& p : ro.procs)
    for (const auto& [g, rk] : p.rank_in) {
      auto& m = members[g];
      m.first++;
      m.second = std::max(m.second, p.size.value_or(0));
    }
  std::pair<int, int64_t> best{-1, -1};
  for (const auto& [g, m] : members)
    if (m > best) {
      best = m;
      ro.main_group = g;
    }
  for (auto& p : ro.procs) {
    auto it = p.rank_in.find(ro.main_group);
    if (it == p.rank_in.end() && !p.rank_in.empty()) it = p.rank_in.begin();
    if (it != p.rank_in.end()) {
      p.group = it->first;
      p.rank = it->second;
    }
  }
  // Two processes claiming one identity: flagged, not merged.
  std::map<std::string, std::vector<size_t>> claims;
  for (size_t i = 0; i < ro.procs.size(); ++i) {
    const auto& p = ro.procs[i];
    if (p.rank) claims["rank " + std::to_string(*p.rank) + " of " + p.group].push_back(i);
    if (!p.server_ip.empty() && p.phy_dev)
      claims["device " + std::to_string(*p.phy_dev) + " of server " + p.server_ip].push_back(i);
    if (!p.device_ip.empty()) claims["device IP " + p.device_ip].push_back(i);
  }
  for (const auto& [what, ids] : claims) {
    if (ids.size() < 2) continue;
    std::set<std::string> hosts;
    std::string who;
    for (size_t i : ids) {
      const auto& p = ro.procs[i];
      who += (who.empty() ? "" : ", ") + p.host +
             (p.pid ? " (pid " + std::to_string(*p.pid) + ")" : std::string());
      hosts.insert(p.host);
    }
    // one process per device on one host may legitimately share a device IP (A3 dies) only on
    // one host; every other double claim is a copied or re-used identity
    if (what.rfind("device IP ", 0) == 0 && hosts.size() == 1) continue;
    ro.duplicates.push_back(what + " is claimed by " + std::to_string(ids.size()) +
                            " processes: " + who);
  }
  return ro;
}

void merge_identities(const Roster& ro, FleetResult& r) {
  for (const auto& p : ro.procs) {
    if (!p.rank) continue;
    auto it = std::find_if(r.ranks.begin(), r.ranks.end(), [&](const FleetRank& fr) {
      return fr.rank == *p.rank && fr.host == p.host && (!fr.pid || !p.pid || fr.pid == p.pid);
    });
    if (it == r.ranks.end()) {
      FleetRank fr;
      fr.rank = *p.rank;
      fr.host = p.host;
      fr.group = p.group;
      fr.pid = p.pid;
      fr.source = "identity";
      fr.ip = p.server_ip;
      r.ranks.push_back(std::move(fr));
      it = r.ranks.end() - 1;
    }
    if (!it->pid) it->pid = p.pid;
    if (it->group.empty()) it->group = p.group;
    if (p.phy_dev) it->device = p.phy_dev;  // the physical id, when an identity line states it
    if (!it->device) it->device = p.logic_dev;
    it->logic_device = p.logic_dev;
    it->size = p.size;
    it->device_ip = p.device_ip;
    it->server_ip = p.server_ip;
  }
}

}  // namespace faultline::correlate::fleet
