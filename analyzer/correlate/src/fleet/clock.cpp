// Per-host clock offsets from events every node logged (docs/fleet.md, "Clock offsets").
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

#include "internal.hpp"

namespace faultline::correlate::fleet {

// ---------------------------------------------------------------------------------------------
// Clock offsets from shared events

void estimate_offsets(Ctx& c, FleetResult& r) {
  // key -> host -> times (host frame, UTC as resolved on that host)
  std::map<std::string, std::map<std::string, std::vector<int64_t>>> obs;
  std::map<std::string, std::string> key_kind;
  auto add = [&](const std::string& kind, const std::string& key, const std::string& host,
                 int64_t t) {
    obs[kind + "|" + key][host].push_back(t);
    key_kind[kind + "|" + key] = kind;
  };
  for (const auto& h : c.of("hccl.heartbeat_abnormal")) {
    const auto a = parse_ctime(h.c("arrival"));
    if (!a) continue;
    // Arrival Time is stamped by the discoverer; it is usually the reporting rank itself.
    std::string host = h.host;
    const auto [dip, did] = split_ip_id(h.c("discoverer"));
    const auto [dh, dsrc] = host_of_ip(c, dip);
    if (!dh.empty()) host = dh;
    add("heartbeat arrival", h.c("location") + "|" + h.c("type"), host, *a + c.local(host));
  }
  for (const auto& h : c.of("hccl.heartbeat_crimer"))
    if (h.t) add("heartbeat broadcast", h.c("crimer") + "|" + h.c("status"), h.host, *h.t);
  {
    // the same op on every rank: opData timeStamp keyed by index, count and data type
    std::map<std::string, std::map<std::string, std::vector<int64_t>>> ops;
    for (const auto& h : c.of("hccl.task_failed_op_data")) {
      const auto t = parse_dash_time(h.c("issued"));
      if (!t) continue;
      const std::string key =
          bracket_value(h.text, "index[") + "|" + h.c("count") + "|" + h.c("data_type");
      ops[key][h.host].push_back(*t + c.local(h.host));
    }
    for (auto& [key, per_host] : ops)
      for (auto& [host, ts] : per_host)
        if (ts.size() >= 3)  // a median over several ranks: one late rank does not move it
          for (auto t : ts) add("op issue", key, host, t);
  }
  for (const auto& h : c.of("hccl.comm_init_entry"))
    if (h.t) add("communicator init", h.c("identifier"), h.host, *h.t);
  {
    // per-step collectives (HCCL_ENTRY_LOG_ENABLE): every rank of a communicator dispatches the
    // same sequence of ops, so the n-th op of a tag (`AllReduce_<communicator>`) is one step on
    // every host. Counted from the start only for ranks whose plog also holds that
    // communicator's init entry (a plog rotated away at its start would pair different steps),
    // up to the shortest such sequence (a rank that died early ends sooner); a host's time of the
    // n-th op is the median over its ranks.
    std::set<std::tuple<std::string, int64_t, std::string>> inited;  // host, pid, communicator
    for (const auto& h : c.of("hccl.comm_init_entry")) {
      const auto pid = h.line_pid ? h.line_pid : h.pid;
      if (pid) inited.insert({h.host, *pid, h.c("identifier")});
    }
    std::map<std::string, std::map<std::string, std::map<int64_t, std::vector<int64_t>>>> seq;
    for (const auto& h : c.of("hccl.op_entry")) {
      const auto pid = h.line_pid ? h.line_pid : h.pid;
      const std::string tag = h.c("tag");
      const size_t us = tag.find('_');
      if (!h.t || !pid || us == std::string::npos ||
          inited.count({h.host, *pid, tag.substr(us + 1)}) == 0)
        continue;
      seq[tag + "|" + h.c("op")][h.host][*pid].push_back(*h.t);
    }
    for (auto& [tag, per_host] : seq) {
      if (per_host.size() < 2) continue;
      size_t n = SIZE_MAX;
      for (auto& [host, per_rank] : per_host)
        for (auto& [pid, ts] : per_rank) {
          std::sort(ts.begin(), ts.end());
          n = std::min(n, ts.size());
        }
      if (n == SIZE_MAX || n < 2) continue;
      for (auto& [host, per_rank] : per_host)
        for (size_t i = 0; i < n && i < 2000; ++i) {
          std::vector<int64_t> at;
          for (auto& [pid, ts] : per_rank) at.push_back(ts[i]);
          add("collective step", tag + "|" + std::to_string(i), host, median(at));
        }
    }
  }

  // per host: differences to the per-event median of hosts
  struct D {
    std::vector<int64_t> d;
    std::set<std::string> kinds;
    std::vector<int64_t> weak;  // communicator init only (launch skew)
  };
  std::map<std::string, D> diffs;
  for (const auto& [key, per_host] : obs) {
    if (per_host.size() < 2) continue;
    std::vector<int64_t> vals;
    std::map<std::string, int64_t> hv;
    for (const auto& [host, ts] : per_host) {
      hv[host] = median(ts);
      vals.push_back(hv[host]);
    }
    const int64_t m = median(vals);
    const bool weak = key_kind[key] == "communicator init";
    for (const auto& [host, v] : hv) {
      auto& d = diffs[host];
      (weak ? d.weak : d.d).push_back(v - m);
      if (!weak) d.kinds.insert(key_kind[key]);
    }
  }
  std::map<std::string, int64_t> raw;
  std::map<std::string, int> events;
  for (auto& [host, d] : diffs) {
    if (!d.d.empty()) {
      raw[host] = median(d.d);
      events[host] = static_cast<int>(d.d.size());
    } else if (!d.weak.empty()) {
      raw[host] = median(d.weak);
      events[host] = static_cast<int>(d.weak.size());
      d.kinds.insert("communicator init");
      d.d = d.weak;
    }
  }
  // reference: the host with the most shared events (then the first by name)
  std::string ref;
  int best = -1;
  for (const auto& [host, n] : events)
    if (n > best) {
      best = n;
      ref = host;
    }
  r.reference = ref;
  for (auto& fh : r.hosts) {
    auto it = raw.find(fh.host);
    if (it == raw.end() || ref.empty()) continue;
    auto& d = diffs[fh.host];
    fh.offset_ns = it->second - raw[ref];
    fh.offset_events = events[fh.host];
    const auto [mn, mx] = std::minmax_element(d.d.begin(), d.d.end());
    fh.offset_spread_ns = *mx - *mn;
    std::string kinds;
    for (const auto& k : d.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
    fh.offset_method = kinds;
    fh.offset_applied = std::llabs(*fh.offset_ns) >= kOffsetApplyNs;
    if (fh.offset_applied) c.off[fh.host] = *fh.offset_ns;
  }
  // hosts whose clocks the bundle's own correlation already aligned (align.cpp): their offsets
  // above are measured after it
  for (int64_t b : c.bundles) {
    Stmt st(c.db,
            "SELECT host, detail FROM clocks WHERE bundle_id = ? AND clock = 'shared_events' ORDER "
            "BY host");
    st.bind(1, b);
    while (st.step())
      c.notes.push_back(st.str(0) + ": clock aligned before correlation, " + st.str(1) +
                        " (offsets above are measured after it)");
  }
  const bool hccl =
      !c.of("hccl.comm_init_entry").empty() || !c.of("hccl.notify_wait_timeout").empty() ||
      !c.of("hccl.heartbeat_abnormal").empty() || !c.of("hccl.heartbeat_crimer").empty();
  if (ref.empty() && r.hosts.size() > 1 && hccl)
    c.notes.push_back(
        "no event shared by two hosts (heartbeat, op issue, collective step, communicator init): "
        "cross-host order "
        "uses the hosts' own clocks");
}

}  // namespace faultline::correlate::fleet
