// The wait graph of a fleet (docs/fleet.md "Wait graph"): for every line that says a process
// waited on another end, an edge from that process (host, pid of the file) to the awaited end,
// resolved through the identity roster when the address names a collected process.
//   link       LINK_ERROR_INFO rows (4-column, 6-column, with TlsStatus/LinkInfo), status
//              `time out` / `no connect`: dest_ip(rank) is the awaited device
//   transport  `Transport init error` remoteIpAddr[<server ip>/<device id>] (both spellings);
//              without the device id no edge can be resolved
//   detect     CONNECT TIMEOUT DETECT RESULT: dstRank (server, device ID)
//   p2p        intra-node `connected p2p timeout ... remote physic id:<n>`
//   aicpu      device-side `[TaskException]base information is ... type:NOTIFY WAIT, localRank:l,
//              remoteRank:r` + the next line's `group:g`: rank r of communicator g
//   notify     `Task run failed, para information is ... remote rank:[r|local]` after a Notify
//              Wait task failure: rank r of the task's communicator (its tag), or itself; without
//              a para line, EI0002's `Notify record from remote rank [r]` (same meaning)
#include <tuple>

#include "internal.hpp"

namespace faultline::correlate::fleet {

std::vector<const WaitEdge*> WaitGraph::out(size_t from, const std::set<std::string>& kinds) const {
  std::vector<const WaitEdge*> v;
  for (const auto& e : edges)
    if (e.from == from && (kinds.empty() || kinds.count(e.kind) != 0)) v.push_back(&e);
  return v;
}

namespace {

// The communicator a task tag names: `AllReduce_<identifier>` / `HcomAllReduce_<n>_0`.
std::string group_of_tag(const Roster& ro, const Proc& p, const std::string& tag) {
  for (const auto& [g, rk] : p.rank_in)
    if (!g.empty() && tag.find(g) != std::string::npos) return g;
  (void)ro;
  return p.group;
}

}  // namespace

WaitGraph build_waits(const Ctx& c, const Roster& ro) {
  WaitGraph g;
  auto from_of = [&](const HitR& h) { return ro.find(h.host, h.pid); };
  std::set<std::tuple<size_t, int64_t, std::string, std::string>> seen;
  auto add = [&](size_t from, std::optional<size_t> to, const std::string& kind,
                 const std::string& address, const HitR& h, bool local = false) {
    // one edge per (from, to/address, kind): a set, not a scan, so 1,024-rank jobs stay linear
    if (!seen.emplace(from, to ? static_cast<int64_t>(*to) : -1, kind, address).second) return;
    WaitEdge e;
    e.from = from;
    e.to = to;
    e.kind = kind;
    e.address = address;
    e.local = local;
    e.hit = &h;
    g.edges.push_back(e);
  };
  for (const auto& h : c.of("hccl.link_error_info")) {
    const std::string status = h.c("status");
    if (status.find("time") == std::string::npos && status.find("no connect") == std::string::npos)
      continue;
    const auto from = from_of(h);
    if (!from) continue;
    const std::string ip = h.c("dest_ip");
    const auto rank = to_i64(h.c("dest_rank"));
    std::optional<size_t> to = ro.by_device_ip(ip);
    if (!to && rank) {
      // by rank only when that rank's process has no other device IP of its own
      auto byr = ro.by_rank(ro.procs[*from].group, *rank);
      if (byr && (ro.procs[*byr].device_ip.empty() || ro.procs[*byr].device_ip == ip)) to = byr;
      // or the address is the host's own (server IP, HCCL_IF_IP): that rank on that host
      if (!to && byr) {
        const std::string host = host_of_ip(c, ip).first;
        if ((!host.empty() && ro.procs[*byr].host == host) || ro.procs[*byr].server_ip == ip)
          to = byr;
      }
    }
    add(*from, to, "link", ip + (rank ? "(" + std::to_string(*rank) + ")" : std::string()), h);
  }
  for (const auto& h : c.of("hccl.transport_init_error")) {
    const auto from = from_of(h);
    if (!from) continue;
    const std::string ip = h.c("remote_ip");
    const auto dev = to_i64(h.c("remote_device"));
    if (ip.empty() || !dev) {
      g.unresolvable_transport++;
      continue;
    }
    std::optional<size_t> to = ro.by_server_device(ip, *dev);
    if (!to) {
      auto byip = ro.by_device_ip(ip);
      if (byip && ro.procs[*byip].phy_dev == dev) to = byip;
    }
    add(*from, to, "transport", ip + "/" + std::to_string(*dev), h);
  }
  for (const auto& h : c.of("hccl.connect_detect_result")) {
    const std::string dst = h.c("dst_server");
    const auto dd = to_i64(h.c("dst_device"));
    if (dst.empty() || !dd) continue;
    std::optional<size_t> from;
    if (auto sd = to_i64(h.c("src_device"))) from = ro.by_server_device(h.c("src_server"), *sd);
    if (!from) from = from_of(h);
    if (!from) continue;
    add(*from, ro.by_server_device(dst, *dd), "detect", dst + " device " + std::to_string(*dd), h);
  }
  for (const auto& h : c.of("hccl.p2p_connect_timeout")) {
    const auto from = from_of(h);
    const auto dev = to_i64(h.c("remote_device"));
    if (!from || !dev) continue;
    add(*from, ro.by_host_device(h.host, *dev), "p2p", h.host + " device " + std::to_string(*dev),
        h);
  }
  {
    // the task's communicator: the tag of the Notify Wait failure just before, same file
    std::map<std::pair<std::string, std::string>, std::vector<const HitR*>> tags;
    for (const auto& h : c.of("hccl.notify_wait_timeout")) tags[{h.host, h.file}].push_back(&h);
    for (const auto& h : c.of("hccl.task_failed_para")) {
      const auto from = from_of(h);
      if (!from) continue;
      const std::string rr = h.c("remote_rank");
      if (rr.empty()) continue;
      const Proc& p = ro.procs[*from];
      std::string tag;
      auto it = tags.find({h.host, h.file});
      if (it != tags.end())
        for (const HitR* t : it->second)
          if (t->line <= h.line) tag = t->c("tag");
      const std::string grp = group_of_tag(ro, p, tag);
      if (rr == "local") {
        add(*from, from, "notify", "local", h, true);
        continue;
      }
      const auto rank = to_i64(rr);
      if (!rank || *rank == 4294967295) continue;  // none
      add(*from, ro.by_rank(grp, *rank), "notify", "rank " + rr, h);
    }
    // EI0002 names the awaited rank in its own text (`... Notify record from remote rank [r].base
    // information: [... tag[..] ...]`): an edge of its own when the process logged no para line
    std::set<size_t> with_para;
    for (const auto& e : g.edges)
      if (e.kind == "notify") with_para.insert(e.from);
    for (const auto& h : c.of("hccl.notify_wait_timeout")) {
      const std::string rr = h.c("remote_rank");
      if (rr.empty() || rr == "unknown") continue;
      const auto from = from_of(h);
      if (!from || with_para.count(*from) != 0) continue;
      if (rr == "local") {
        add(*from, from, "notify", "local", h, true);
        continue;
      }
      const auto rank = to_i64(rr);
      if (!rank || *rank == 4294967295) continue;
      add(*from, ro.by_rank(group_of_tag(ro, ro.procs[*from], h.c("tag")), *rank), "notify",
          "rank " + rr, h);
    }
  }
  {
    // AICPU (device side): `type:NOTIFY WAIT, localRank:l, remoteRank:r` in the device log of the
    // host process (device-<host pid>_<ts>.log), its communicator on the next line (`group:`)
    std::map<std::pair<std::string, std::string>, std::map<int64_t, std::string>> groups;
    for (const auto& h : c.of("hccl.aicpu_op_data"))
      groups[{h.host, h.file}][h.line] = h.c("group");
    for (const auto& h : c.of("hccl.aicpu_task_exception")) {
      if (h.c("type").find("NOTIFY WAIT") == std::string::npos) continue;
      const auto from = from_of(h);
      const auto rank = to_i64(h.c("remote_rank"));
      if (!from || !rank || *rank == 4294967295) continue;
      std::string grp;
      auto it = groups.find({h.host, h.file});
      if (it != groups.end()) {
        auto gl = it->second.find(h.line + 1);
        if (gl != it->second.end()) grp = gl->second;
      }
      if (grp.empty()) continue;  // the communicator is needed to name the rank
      add(*from, ro.by_rank(grp, *rank), "aicpu", grp + " rank " + std::to_string(*rank), h);
    }
  }
  return g;
}

}  // namespace faultline::correlate::fleet
