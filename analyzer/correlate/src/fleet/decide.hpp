// The decision procedure's parts shared by its files (docs/fleet.md "Decision procedure"), one
// file per decision class:
//   decide.cpp            the procedure: which class decides when (decide_first, decide)
//   decide_chain.cpp      following wait chains (transport-init and link-setup chains use it)
//   decide_op.cpp         op execution / Notify Wait: exits of the wait graph, deadlocks
//   decide_cqe.cpp        RoCE error CQE links
//   decide_quiet.cpp      no error at all / lagging runtime reports
//   decide_init.cpp       root-info init: the ranks the root-info server never saw
//   decide_link.cpp       link setup: the TLS switch minority
// Private to correlate/src/fleet/decide*.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "internal.hpp"

namespace faultline::correlate::fleet::decision {

enum class Cls { none, root_init, link, op };

inline const std::set<std::string>& root_init_sigs() {
  static const std::set<std::string> s = {
      "hccl.comm_init_root_failed",     "hccl.topo_exchange_timeout",
      "hccl.cluster_info_recv_failed",  "hccl.init_group_stage_error",
      "hccl.root_info_connected_ranks", "hccl.root_info_connect_count",
      "hccl.topo_detect_agent_failed",  "hccl.rank_basic_info_failed"};
  return s;
}
inline const std::set<std::string>& link_sigs() {
  static const std::set<std::string> s = {"hccl.link_error_info",       "hccl.socket_timeout",
                                          "hccl.connect_detect_result", "hccl.p2p_connect_timeout",
                                          "hccl.transport_init_error",  "hccl.socket_recv_failed",
                                          "hccl.rasocket_timeout"};
  return s;
}
inline const std::set<std::string>& op_sigs() {
  static const std::set<std::string> s = {"hccl.notify_wait_timeout",    "hccl.task_failed_para",
                                          "hccl.task_failed_group_rank", "hccl.task_failed_op_data",
                                          "hccl.fftsplus_timeout",       "hccl.sdma_exception"};
  return s;
}

struct PState {
  std::optional<int64_t> first;  // fleet clock
  const HitR* first_hit = nullptr;
  std::set<std::string> sigs;
  std::optional<int64_t> first_of_class[4];
};

struct Chain {
  std::vector<size_t> path;
  std::vector<size_t> cycle;  // members of the cycle, when it closed
  std::optional<size_t> end;  // the process the chain ended at (inside the set)
  std::string missing;        // awaited address outside the set
  bool local = false;         // ended waiting on its own sub-stream
  std::vector<const WaitEdge*> hops;
};

// decide_chain.cpp
std::vector<size_t> reachable(const WaitGraph& g, size_t start, const std::set<std::string>& kinds);
Chain follow(const Roster& ro, const WaitGraph& g, size_t start, const std::set<std::string>& kinds,
             const std::map<size_t, size_t>* toward = nullptr);
std::vector<std::string> chain_words(const Roster& ro, const Chain& ch);
void set_primary(Candidate& k, const Roster& ro, size_t i);
void add_culprits(Candidate& k, const Roster& ro, std::vector<size_t> ids);
Candidate from_chain(const Roster& ro, const Chain& ch, const std::string& rule,
                     const std::string& what, bool cycle_is_deadlock);
std::vector<size_t> members_of(const Roster& ro, const std::string& group);

// decide_op.cpp
std::map<size_t, size_t> exit_distance(const Roster& ro, const WaitGraph& g,
                                       const std::set<std::string>& kinds);
Candidate deadlock(const Roster& ro, const WaitGraph& g, size_t start);

// decide_cqe.cpp
std::optional<Candidate> decide_cqe(const Ctx& c, const Roster& ro);

// decide_quiet.cpp
std::optional<Candidate> decide_no_error(const Ctx& c, const FleetResult& r, const Roster& ro);

// decide_init.cpp
std::set<int64_t> rank_list(const std::string& s);
std::optional<Candidate> root_info_unconnected(Ctx& c, const Roster& ro,
                                               const std::vector<size_t>& members,
                                               const std::string& grp, int64_t size);

// decide_link.cpp
std::optional<Candidate> tls_minority(Ctx& c, const Roster& ro, const std::vector<size_t>& members);

}  // namespace faultline::correlate::fleet::decision
