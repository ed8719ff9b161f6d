// The incident window and the first error of each host.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "internal.hpp"

namespace faultline::correlate::fleet {

Incident find_incident(const Ctx& c, int64_t exec_s) {
  Incident in;
  std::optional<int64_t> first_issue, first_report;
  for (const auto& [sig, hs] : c.hits) {
    if (!hccl_error_signature(sig)) continue;
    for (const auto& h : hs) {
      if (h.sev < 4) continue;
      in.hccl = true;
      in.errors_per_host[h.host]++;
      if (h.pid) in.erring_pids.insert({h.host, *h.pid});
      if (!h.t) continue;
      const int64_t t = c.to_fleet(h.host, *h.t);
      if (!in.detect || t < *in.detect) in.detect = t;
      Incident::Span* span = sig == "hccl.notify_wait_timeout" ? &in.op
                             : (sig == "hccl.socket_timeout" || sig == "hccl.topo_exchange_timeout")
                                 ? &in.link
                                 : nullptr;
      if (span) {
        if (!in.first_timeout || t < *in.first_timeout) in.first_timeout = t;
        if (!span->first || t < *span->first) span->first = t;
        if (!span->last || t > *span->last || (t == *span->last && h.host < span->last_hit->host)) {
          span->last = t;
          span->last_hit = &h;
        }
      }
    }
  }
  for (const auto& h : c.of("torch_npu.err_code"))
    if (h.pid) in.erring_pids.insert({h.host, *h.pid});
  for (const auto& sig : {"hccl.heartbeat_crimer", "hccl.heartbeat_abnormal"})
    for (const auto& h : c.of(sig)) {
      in.hccl = true;
      if (!h.t) continue;
      const int64_t t = c.to_fleet(h.host, *h.t);
      if (!first_report || t < *first_report) first_report = t;
    }
  for (const auto& h : c.of("hccl.task_failed_op_data")) {
    const auto t = parse_dash_time(h.c("issued"));
    if (!t) continue;
    const int64_t f = c.to_fleet(h.host, *t + c.local(h.host));
    if (!first_issue || f < *first_issue) first_issue = f;
  }
  if (first_report && (!in.detect || *first_report < *in.detect)) in.detect = first_report;
  if (first_issue)
    in.start = *first_issue - 120 * kSec;
  else if (first_report)
    in.start = *first_report - (exec_s / 3 + 120) * kSec;
  else if (in.first_timeout)
    in.start = *in.first_timeout - (exec_s + 120) * kSec;
  else if (in.detect)
    in.start = *in.detect - 600 * kSec;
  return in;
}

void fill_first_errors(Ctx& c, FleetResult& r, const Incident& in) {
  for (auto& fh : r.hosts) {
    auto it = in.errors_per_host.find(fh.host);
    fh.hccl_errors = it == in.errors_per_host.end() ? 0 : it->second;
    const int64_t from = in.start ? c.to_host(fh.host, *in.start) : INT64_MIN;
    auto ev = host_errors(c, fh.host, from, INT64_MAX, 64);
    if (ev.empty()) continue;
    const EventR& e = ev.front();
    fh.first = e.as_line("timing");
    fh.first_fleet_ns = c.to_fleet(fh.host, *e.t);
    fh.first_class = e.fault() ? "fault" : "collective";
  }
  // silent hosts: ranks in the roster, no error of any kind while others failed
  if (!in.errors_per_host.empty())
    for (auto& fh : r.hosts)
      if (!fh.ranks.empty() && fh.hccl_errors == 0 && !fh.first) fh.silent = true;
}

}  // namespace faultline::correlate::fleet
