// The fleet's decision procedure (docs/fleet.md "Decision procedure"): identity roster, wait
// graph, chains. Jobs are built from verbatim plog lines of ascend-fd's test fixtures and the HCCL
// troubleshooting docs; the peer corpus (../shared/corpus/peer, skipped when absent) is checked
// against ascend-fd's own answers.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "common/temp_dir.hpp"
#include "faultline/app/app.hpp"
#include "faultline/report/report.hpp"
#include "faultline/store/store.hpp"

using namespace faultline;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path temp_path(const std::string& name) {
  const fs::path p = fs::temp_directory_path() /
                     ("faultline-decide-test-" + std::to_string(::getpid()) + "-" + name);
  std::error_code ec;
  fs::remove_all(p, ec);
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(p.string() + ".db" + s, ec);
  return p;
}

void write(const fs::path& p, const std::vector<std::string>& lines) {
  fs::create_directories(p.parent_path());
  std::ofstream o(p, std::ios::binary | std::ios::app);
  for (const auto& l : lines) o << l << "\n";
}

json run_fleet(const fs::path& dir) {
  app::Options o;
  o.cache_dir = test::process_temp_root("faultline-decide") / "cache";
  const fs::path dbp = dir.string() + ".db";
  auto db = store::Db::open(dbp);
  auto out = app::fleet(*db, app::expand_fleet_inputs({dir}), o, 2);
  return json::parse(report::render_fleet(db->handle(), out.bundle_ids, report::Format::json));
}

// The job packed as one tar.gz (the job folder at its top, as `tar czf job.tar.gz job/` makes it)
// and read by `analyze`: the bundle splits into one host per node folder and gets the fleet
// answer (docs/fleet.md "A job in one bundle"). Returns the analyze report's JSON.
json run_analyze_tarball(const fs::path& dir) {
  const fs::path tgz = dir.string() + ".tar.gz";
  const std::string cmd = "tar -C '" + dir.parent_path().string() + "' -czf '" + tgz.string() +
                          "' '" + dir.filename().string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  app::Options o;
  o.cache_dir = test::process_temp_root("faultline-decide") / "cache";
  const fs::path dbp = dir.string() + ".tgz.db";
  json j;
  {
    auto db = store::Db::open(dbp);
    const auto out = app::analyze(*db, tgz, o);
    REQUIRE(out.exit_code == 0);
    CHECK(out.job);
    j = json::parse(report::render_bundle(db->handle(), out.bundle_id, report::Format::json));
  }
  std::error_code ec;
  fs::remove(tgz, ec);
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(dbp.string() + s, ec);
  return j;
}

struct Cleanup {
  fs::path p;
  ~Cleanup() {
    std::error_code ec;
    fs::remove_all(p, ec);
    for (const char* s : {"", "-wal", "-shm"}) fs::remove(p.string() + ".db" + s, ec);
  }
};

std::set<std::string> culprit_keys(const json& ff) {
  std::set<std::string> s;
  for (const auto& c : ff["culprits"])
    s.insert(c["host"].get<std::string>() + "/" + std::to_string(c["rank"].get<int64_t>()) + "/" +
             std::to_string(c["device"].get<int64_t>()));
  return s;
}

// One process of a job: its run plog holds the identity line, its debug plog the errors.
void proc(const fs::path& job, const std::string& worker, int pid, const std::string& identity,
          const std::vector<std::string>& errors) {
  const std::string P = std::to_string(pid);
  write(job / worker / "process_log/run/plog" / ("plog-" + P + "_20240407183553145.log"),
        {identity});
  write(job / worker / "process_log/debug/plog" / ("plog-" + P + "_20240408025504900.log"), errors);
}

std::string setup_agent(int pid, int rank, int dev, const std::string& group,
                        const std::string& server) {
  // ascend-fd fixture shape (notify_wait_cycle_a), identity fields varied per process
  return "[INFO] HCCL(" + std::to_string(pid) +
         ",python3):2024-04-07-18:35:53.395.735 [topoinfo_detect.cc:208][" + std::to_string(pid) +
         "][HCCL_TRACE]SetupAgent rankNum[4], rank[" + std::to_string(rank) +
         "], rootInfo identifier[" + group + "], server[" + server + "%enp179s0f0], logicDevId[" +
         std::to_string(dev) + "], phydevId[" + std::to_string(dev) + "], deviceIp[192.168.13." +
         std::to_string(16 + dev) + "]";
}

const std::string kGroup = "10.136.181.175%enp179s0f0_60000_0_1712529353144389";

// st_transport_timeout fixture shape of the identity line ([Flat]SetupAgent, 16 ranks of
// hccl_world_group), identity fields varied per process
std::string flat_agent(int pid, int rank, int dev, const std::string& server,
                       const std::string& ip) {
  return "[INFO] HCCL(" + std::to_string(pid) +
         ",python3):2025-06-19-09:26:21.655.782 [topoinfo_detect.cc:506] [" + std::to_string(pid) +
         "][HCCL_TRACE][Flat]SetupAgent rankNum[16], rank[" + std::to_string(rank) +
         "], rootInfo identifier[hccl_world_group], server[" + server +
         "%enp189s0f0], serverPort[60000]deviceType[2], logicDevId[" + std::to_string(dev) +
         "], phydevId[" + std::to_string(dev) + "], deviceIp[" + ip + "]";
}

// rc_122 fixture shape: base information (tag, index), para information (remote rank), groupRank
std::vector<std::string> notify_block(int pid, const std::string& time, int index,
                                      const std::string& remote, int rank) {
  const std::string P = std::to_string(pid);
  const std::string pre = "[ERROR] HCCL(" + P + ",python3):2024-04-08-" + time;
  return {pre + " [task_exception_handler.cc:452][" + P +
              "][TaskExceptionHandler][Callback]Task run failed, base information is "
              "streamID:[3], taskID[77726298], taskType[Notify Wait], tag[AllReduce_" +
              kGroup + "], index[" + std::to_string(index) +
              "], AlgType(level 0-1-2):[null-null-ring].",
          pre + " [task_exception_handler.cc:454][" + P +
              "][TaskExceptionHandler][Callback]Task run failed, para information is notify "
              "id:[0x0000000000000050], stage:[ffffffff], remote rank:[" +
              remote + "].",
          pre + " [task_exception_handler.cc:454][" + P +
              "][TaskExceptionHandler][Callback]Task run failed, groupRank information is group:[" +
              kGroup + "], rankSize[4], rankId[" + std::to_string(rank) + "]."};
}

}  // namespace

TEST_CASE("the peer corpus: ascend-fd's answer on each job of its own test suite",
          "[fleet][decide][peer]") {
  const fs::path peer = fs::path(FAULTLINE_CORPUS_DIR) / ".." / "peer";
  if (!fs::exists(peer / "expected.json")) {
    WARN("peer corpus absent (" << peer.string() << "): skipped");
    return;
  }
  std::ifstream in(peer / "expected.json");
  const json cases = json::parse(in);
  REQUIRE(cases.size() >= 9);
  for (const auto& c : cases) {
    const std::string name = c["case"].get<std::string>();
    INFO(name);
    const fs::path job = temp_path("peer-" + name);
    Cleanup cl{job};
    fs::copy(peer / "cases" / c["folder"].get<std::string>(), job, fs::copy_options::recursive);
    const json j = run_fleet(job);
    const json& ff = j["first_failure"];
    REQUIRE(ff.is_object());
    if (c["no_single_root"].get<bool>()) {
      CHECK(ff["no_single_root"] == true);
      CHECK(ff["reason"].is_string());
      continue;
    }
    CHECK(ff["no_single_root"] == false);
    std::set<std::string> want;
    for (size_t i = 0; i < c["root_hosts"].size(); ++i) {
      const std::string dev = c["root_devices"][i].get<std::string>();
      want.insert(c["root_hosts"][i].get<std::string>() + "/" +
                  std::to_string(c["root_ranks"][i].get<int64_t>()) + "/" +
                  dev.substr(dev.rfind('-') + 1));
    }
    CHECK(culprit_keys(ff) == want);
    {
      // the same job as one tarball through `analyze`: the same answer
      const json a = run_analyze_tarball(job);
      REQUIRE(a["first_failure"].is_object());
      CHECK(culprit_keys(a["first_failure"]) == want);
      CHECK(a["fleet"]["first_failure"] == a["first_failure"]);
      CHECK(a["bundle"].is_object());  // the bundle report's contract stays
    }
    if (name == "transport_init_all_workers") {
      // worker-3 repeats worker-2's identity: flagged, not merged
      bool flagged = false;
      for (const auto& n : j["notes"])
        flagged = flagged || n.get<std::string>().find("duplicated identity") != std::string::npos;
      CHECK(flagged);
    }
    if (name == "transport_init_chain") {
      REQUIRE(ff["chain"].size() == 3);
      CHECK(ff["chain"][0].get<std::string>().rfind("worker-2 rank 2", 0) == 0);
      CHECK(ff["chain"][2].get<std::string>().rfind("worker-0 rank 0", 0) == 0);
    }
  }
}

TEST_CASE("Notify Wait: a rank waiting on its own sub-stream that the others wait on is the root",
          "[fleet][decide]") {
  const fs::path job = temp_path("notify-local");
  Cleanup cl{job};
  // rank 0 waits on local; ranks 1-3 wait on rank 0 (remote rank:[0])
  for (int r = 0; r < 4; ++r) {
    const int pid = 69395 + r;
    proc(
        job, "worker-0", pid, setup_agent(pid, r, r, kGroup, "10.136.181.175"),
        notify_block(pid, "02:55:04.903.5" + std::to_string(10 + r), 3, r == 0 ? "local" : "0", r));
  }
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "notify-wait-chain");
  CHECK(ff["no_single_root"] == false);
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-0/0/0"});
}

TEST_CASE("Notify Wait: the ranks in the lowest op index stopped first", "[fleet][decide]") {
  const fs::path job = temp_path("notify-index");
  Cleanup cl{job};
  // ranks 0-2 fail in op index 4, rank 3 in op index 3: it is behind
  for (int r = 0; r < 4; ++r) {
    const int pid = 69395 + r;
    proc(job, "worker-0", pid, setup_agent(pid, r, r, kGroup, "10.136.181.175"),
         notify_block(pid, "02:55:04.903.5" + std::to_string(10 + r), r == 3 ? 3 : 4,
                      std::to_string((r + 1) % 4), r));
  }
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "lowest-op-index");
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-0/3/3"});
}

TEST_CASE("link setup: 6-column table rows and p2p timeouts are wait edges", "[fleet][decide]") {
  const fs::path job = temp_path("link6");
  Cleanup cl{job};
  // st_transport_timeout fixture shapes: worker-1 rank 10 waits on 192.168.2.199(8) (worker-0),
  // whose own p2p link to physical device 1 on the same node times out; device 1 logged nothing
  proc(job, "worker-1", 114654, flat_agent(114654, 10, 2, "2.2.2.2", "192.168.2.197"),
       {"[ERROR] HCCL(114654,python3):2025-06-19-09:28:34.062.846 [hccl_socket_manager.cc:594] "
        "[116451]   |  dest_ip(user_rank)  |   dest_port   |  src_ip(user_rank)   |   src_port   "
        "|   MyRole   |   Status   |",
        "[ERROR] HCCL(114654,python3):2025-06-19-09:28:34.062.858 [hccl_socket_manager.cc:553] "
        "[116451]   |  192.168.2.199(8)   |  16666  |   192.168.2.197(10)   |  0  |  client  | "
        "time out |  "});
  proc(job, "worker-0", 114700, flat_agent(114700, 8, 3, "1.1.1.1", "192.168.2.199"),
       {"[ERROR] HCCL(114700,python3):2025-06-19-09:28:35.062.066 [p2p_mgmt.cc:305] "
        "[115867][Wait][P2PConnected]connected p2p timeout, timeout:130 s. local logicDevid:3, "
        "remote physic id:1."});
  proc(job, "worker-0", 114701, flat_agent(114701, 9, 1, "1.1.1.1", "192.168.2.198"), {});
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "link-setup-chain");
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-0/9/1"});
  REQUIRE(ff["chain"].size() == 3);
  CHECK(ff["chain"][0].get<std::string>().rfind("worker-1 rank 10", 0) == 0);
}

TEST_CASE("link setup: a link-table row naming a virtual NIC address resolves to its process",
          "[fleet][decide]") {
  // superpod: worker-1 rank 10 timed out linking to 172.16.0.3(8), the vNIC address on which
  // worker-0's rank 8 listens (`[Start][Vnic]Listen on ip[..] ... devPhyId[3]`, HCCL's format);
  // its device IP is another one, so only the vNIC line ties the row to it
  const fs::path job = temp_path("vnic");
  Cleanup cl{job};
  proc(job, "worker-1", 114654, flat_agent(114654, 10, 2, "2.2.2.2", "192.168.2.197"),
       {"[ERROR] HCCL(114654,python3):2025-06-19-09:28:34.062.846 [hccl_socket_manager.cc:594] "
        "[116451]   |  dest_ip(user_rank)  |   dest_port   |  src_ip(user_rank)   |   src_port   "
        "|   MyRole   |   Status   |",
        "[ERROR] HCCL(114654,python3):2025-06-19-09:28:34.062.858 [hccl_socket_manager.cc:553] "
        "[116451]   |  172.16.0.3(8)   |  16666  |   192.168.2.197(10)   |  0  |  client  | "
        "time out |  "});
  proc(job, "worker-0", 114700, flat_agent(114700, 8, 3, "1.1.1.1", "192.168.2.199"), {});
  write(job / "worker-0/process_log/run/plog/plog-114700_20240407183553145.log",
        {"[INFO] HCCL(114700,python3):2025-06-19-09:26:22.113.403 [network_manager.cc:512] "
         "[114700][Start][Vnic]Listen on ip[172.16.0.3], port[16666] success, devPhyId[3], "
         "devLogicId[3], isAutoPort[0]"});
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-0/8/3"});
}

TEST_CASE("RoCE error CQE: links that all point at one device name it", "[fleet][decide]") {
  const fs::path job = temp_path("cqe");
  Cleanup cl{job};
  // st_cqe_testcase line shape (`cqe err status[12], time:[..], ip:[<remote device ip>]`) on two
  // ranks, both towards rank 2's device IP
  for (int r = 0; r < 3; ++r) {
    const int pid = 12337 + r;
    const std::string P = std::to_string(pid);
    std::vector<std::string> err;
    if (r != 2)
      err.push_back("[ERROR] HCCL(" + P +
                    ",python):2024-04-08-02:55:04.773.698 [heartbeat.cc:551][" + P +
                    "][283707][Heartbeat]cqe err status[12], time:[2024-04-08 02:55:04.099518], "
                    "ip:[192.168.13.18]");
    proc(job, "worker-" + std::to_string(r), pid,
         setup_agent(pid, r, r, kGroup, "10.136.181.17" + std::to_string(r)), err);
  }
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "roce-cqe");
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-2/2/2"});
  // the job's tarball through `analyze`: three hosts, the same culprit, and the per-host report
  const json a = run_analyze_tarball(job);
  REQUIRE(a["first_failure"].is_object());
  CHECK(a["first_failure"]["rule"] == "roce-cqe");
  CHECK(culprit_keys(a["first_failure"]) == std::set<std::string>{"worker-2/2/2"});
  CHECK(a["fleet"]["summary"]["hosts"] == 3);
  CHECK(a["bundle"]["hosts"].size() == 3);
}

TEST_CASE("an HCCL job in which no rank logged an error has no single root", "[fleet][decide]") {
  const fs::path job = temp_path("noerr");
  Cleanup cl{job};
  for (int r = 0; r < 2; ++r)
    proc(job, "worker-" + std::to_string(r), 100 + r,
         setup_agent(100 + r, r, r, kGroup, "10.136.181.17" + std::to_string(r)), {});
  // worker-1's clock is not synchronized (timedatectl's answer): the report says so
  write(job / "worker-1" / "timedatectl.txt",
        {"               Local time: Mon 2024-04-08 02:55:04 CST",
         "           Universal time: Sun 2024-04-07 18:55:04 UTC",
         "                 RTC time: Sun 2024-04-07 18:55:04",
         "                Time zone: Asia/Shanghai (CST, +0800)", "System clock synchronized: no",
         "              NTP service: inactive", "          RTC in local TZ: no"});
  const json j = run_fleet(job);
  bool noted = false;
  for (const auto& n : j["notes"])
    noted = noted || (n.get<std::string>().find("no time sync") != std::string::npos &&
                      n.get<std::string>().find("worker-1") != std::string::npos);
  CHECK(noted);
  const json ff = j["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "no-error");
  CHECK(ff["no_single_root"] == true);
  CHECK(ff["culprits"].empty());
}

TEST_CASE("a hang before any timeout: the ranks whose runtime stopped reporting are behind",
          "[fleet][decide]") {
  // no rank logged an error; the runtime of ranks 0 and 1 reported task timeouts until 03:40
  // (`ReportTimeoutProc:report timeout!...`, the runtime's format); rank 2's reports stopped at
  // 03:10 (SECTION 1) or it never reported (SECTION 2): it is behind (ascend-fd's lagging rule)
  const fs::path job = temp_path("lagging");
  Cleanup cl{job};
  const auto report = [](int pid, const std::string& hhmm) {
    const std::string P = std::to_string(pid);
    return "[EVENT] RUNTIME(" + P + ",python3):2024-04-08-" + hhmm +
           ":17.572.654 [engine.cc:1510]" + P +
           " ReportTimeoutProc:report timeout!streamId=20,taskId=6,execId=0,pendingNum=1,"
           "reportCount=1203,parseTaskCount=1203,msec=0,curSec=1712544617572,model=,modelId=-1";
  };
  const bool never = GENERATE(false, true);
  for (int r = 0; r < 3; ++r) {
    const int pid = 200 + r;
    std::vector<std::string> lines;
    if (r < 2)
      lines = {report(pid, "03:05"), report(pid, "03:40")};
    else if (!never)
      lines = {report(pid, "03:05"), report(pid, "03:10")};
    proc(job, "worker-" + std::to_string(r), pid,
         setup_agent(pid, r, r, kGroup, "10.136.181.17" + std::to_string(r)), lines);
  }
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "lagging-report");
  CHECK(ff["no_single_root"] == false);
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-2/2/2"});
  // plogs state no zone: the rule's sentence gives the wall time as written, never as UTC
  INFO(ff["rule_text"].get<std::string>());
  CHECK(ff["rule_text"].get<std::string>().find("up to 2024-04-08 03:40:17.572654 local (zone "
                                                "unknown)") != std::string::npos);
}

TEST_CASE("MindIE PD links: the device a failed KV link or KV pull names is a culprit",
          "[fleet][decide]") {
  // test_interface.py's MindIE llm lines (TestRootClusterParser), with the device IPs of the
  // job's SetupAgent lines: rank 0 (192.168.13.16) failed to link to rank 2 (192.168.13.18),
  // which did not fail to reach rank 0: rank 2 is at fault (ascend-fd 131); a failed KV pull
  // names both of its ends and is the rule (ascend-fd 129)
  const fs::path job = temp_path("mindie-link");
  Cleanup cl{job};
  for (int r = 0; r < 3; ++r)
    proc(job, "worker-" + std::to_string(r), 300 + r,
         setup_agent(300 + r, r, r, kGroup, "10.136.181.17" + std::to_string(r)), {});
  const bool pull = GENERATE(false, true);
  const fs::path log = job / "worker-0/mindie/log/debug/mindie-llm_134_20250530214744.log";
  if (!pull)
    write(log, {"[2025-05-30 21:47:44,982] [134] [281466201825504] [llm] [ERROR] "
                "[logging.py-56] : Link from 192.168.13.16 to 192.168.13.18 failed, error code is "
                "MIE05E01001B."});
  else
    write(log, {"[2025-06-03 14:21:44,857] [7855] [281464498917600] [llm] [ERROR] "
                "[logging.py-56] : 192.168.13.17 pull kv from 192.168.13.18 failed, error code "
                "is MIE05E01001A."});
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["no_single_root"] == false);
  if (!pull) {
    CHECK(culprit_keys(ff).count("worker-2/2/2") == 1);
    CHECK(culprit_keys(ff).count("worker-0/0/0") == 0);
  } else {
    CHECK(ff["rule"] == "mindie-pull-kv");
    CHECK(culprit_keys(ff).count("worker-1/1/1") == 1);
    CHECK(culprit_keys(ff).count("worker-2/2/2") == 1);
  }
}

TEST_CASE("AICPU: a device-side NOTIFY WAIT names the rank it waited on", "[fleet][decide]") {
  const fs::path job = temp_path("aicpu");
  Cleanup cl{job};
  // st_aicpu_notify_testcase shapes: hcclCommInitInfo in the host plog, the task exception in the
  // device log of the host process (device-<host pid>_<ts>.log)
  auto init = [](int pid, int rank) {
    const std::string P = std::to_string(pid);
    return "[INFO] HCCL(" + P + ",python3.8):2025-08-05-19:48:34.256.762 [hccl_comm.cc:129] [" + P +
           "]hcclCommInitInfo:commId[hccl-" + P + "-5-1754394514-hccl_world_group], rank[" +
           std::to_string(rank) +
           "], totalRanks[2], serverId[%bond4.24], deviceType[4],logicDevId[3], "
           "identifier[group_name_17271]";
  };
  write(job / "worker-0/process_log/run/plog/plog-1382_20250805194545930.log", {init(1382, 0)});
  write(job / "worker-1/process_log/run/plog/plog-1365_20250805194545930.log", {init(1365, 1)});
  write(job / "worker-1/process_log/debug/device-3/device-1365_20250806230906733.log",
        {"[ERROR] HCCL(5375,aicpu_scheduler):2025-08-06-23:09:01.834.048 "
         "[aicpu_communicator.cc:3083] [5792][TaskException]base information is streamId:149, "
         "sqid:153, head:1488, tail:136, type:NOTIFY WAIT, localRank:1, remoteRank:0, "
         "taskId:26064, notifyId:760, addr1High:0x0, addr1Low:0x0, addr2High:0x0, addr2Low:0x0.",
         "[ERROR] HCCL(5375,aicpu_scheduler):2025-08-06-23:09:01.834.086 "
         "[aicpu_communicator.cc:3806] [5792][TaskException]opData information is "
         "tag:worldCommSendRecv_2_1_group_name_17271SendExecutor_device, group:group_name_17271, "
         "opIndex:39013693, count:1048576, dataType:11, opType:4, rootId:4294967295, "
         "dstAddr:0x12dd78094200, srcAddr:0x12dd78094200."});
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "aicpu-notify-chain");
  REQUIRE(ff["culprits"].size() == 1);
  CHECK(ff["culprits"][0]["host"] == "worker-0");
  CHECK(ff["culprits"][0]["rank"] == 0);
}

TEST_CASE("root-info init: the process that made the root info is the root-info rank",
          "[fleet][decide]") {
  // every member timed out in root-info init within a second: the root-info host (the
  // identifier's address, 10.136.181.175) is to blame; of its two processes, rank 1 logged
  // `HcclGetRootInfo success` (ascend-fd's line shape): it is named, not the lowest rank
  const fs::path job = temp_path("rootinfo-maker");
  Cleanup cl{job};
  const auto agent_timeout = [](int pid, const std::string& ms) {
    const std::string P = std::to_string(pid);
    return "[ERROR] HCCL(" + P + ",all_reduce_test):2025-11-21-01:20:01." + ms +
           " [topoinfo_exchange_agent.cc:314] [" + P +
           "][InitGroupStage][RanktableDetect]topo exchange agent get socket timeout! "
           "timeout[120 s]";
  };
  proc(job, "worker-0", 5100, setup_agent(5100, 0, 0, kGroup, "10.136.181.175"),
       {agent_timeout(5100, "624.966")});
  proc(job, "worker-0", 5101, setup_agent(5101, 1, 1, kGroup, "10.136.181.175"),
       {agent_timeout(5101, "625.966")});
  write(job / "worker-0/process_log/run/plog/plog-5101_20240407183553145.log",
        {"[INFO] HCCL(5101,all_reduce_test):2024-04-07-18:35:52.977.325 [op_base.cc:830] "
         "[5101][HCCL_TRACE]HcclGetRootInfo success, take time [5015]us, identifier[" +
         kGroup + "]"});
  proc(job, "worker-1", 5102, setup_agent(5102, 2, 0, kGroup, "10.136.181.176"),
       {agent_timeout(5102, "626.966")});
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["no_single_root"] == false);
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-0/1/1"});
}

TEST_CASE("root-info init: ranks that neither connected to the server nor left a log are the root",
          "[fleet][decide]") {
  const fs::path job = temp_path("rootinfo-unconnected");
  Cleanup cl{job};
  // hiascend HCCL troubleshooting "部分rank未连接到server节点 (EI0015)": the server's lines
  // verbatim (pid and threads of that page), on rank 0; 8 ranks needed, 0,2,4,6 connected
  const std::vector<std::string> server = {
      "[ERROR] HCCL(1041081,all_reduce_test):2025-11-21-01:20:01.624.966 "
      "[topoinfo_exchange_server.cc:314] [1041362][InitGroupStage][RanktableDetect]topo exchange "
      "server get socket timeout! timeout[120 s]",
      "[ERROR] HCCL(1041081,all_reduce_test):2025-11-21-01:20:01.625.103 "
      "[topoinfo_exchange_server.cc:501] [1041362][InitGroupStage][DisplayConnectionedRank]total "
      "connected num is [4],line num is [1]",
      "[ERROR] HCCL(1041081,all_reduce_test):2025-11-21-01:20:01.625.112 "
      "[topoinfo_exchange_server.cc:503] [1041362][InitGroupStage][DisplayConnectionedRank]need "
      "connect rankNum is [8]",
      "[ERROR] HCCL(1041081,all_reduce_test):2025-11-21-01:20:01.625.145 "
      "[topoinfo_exchange_server.cc:517] [1041362][InitGroupStage][DisplayConnectionedRank]"
      "connected rankinfo[LINE 0]: "
      "[0000000000000000],[0000000000000002],[0000000000000004],[0000000000000006];"};
  proc(job, "worker-0", 1041081, setup_agent(1041081, 0, 0, kGroup, "10.136.181.170"), server);
  SECTION("collected ranks that are not listed are not blamed; the others are, by rank") {
    // ranks 1 and 2 were collected (rank 2 connected, rank 1 did not but left its log)
    proc(job, "worker-0", 1041082, setup_agent(1041082, 1, 1, kGroup, "10.136.181.170"), {});
    proc(job, "worker-1", 2041081, setup_agent(2041081, 2, 0, kGroup, "10.136.181.171"), {});
    const json ff = run_fleet(job)["first_failure"];
    REQUIRE(ff.is_object());
    CHECK(ff["rule"] == "root-info-unconnected");
    std::set<int64_t> ranks;
    for (const auto& u : ff["culprits"]) {
      ranks.insert(u["rank"].get<int64_t>());
      CHECK(u["host"].is_null());  // not collected: no host to name
    }
    CHECK(ranks == std::set<int64_t>{3, 5, 7});
  }
  SECTION("the agent's TopoDetect error names collected ranks that did not connect") {
    proc(job, "worker-1", 1041085, setup_agent(1041085, 1, 0, kGroup, "10.136.181.171"),
         {"[ERROR] HCCL(1041085,all_reduce_test):2025-11-21-01:20:01.630.122 "
          "[topoinfo_exchange_base.cc:145] [1041085][InitGroupStage][RanktableDetect]TopoDetect "
          "ERROR occur !!! fault_type[1], fault_info[\"Failed to connect agent[1,3,5,7,]\"]"});
    const json ff = run_fleet(job)["first_failure"];
    REQUIRE(ff.is_object());
    CHECK(ff["rule"] == "root-info-unconnected");
    std::set<std::string> seen;
    for (const auto& u : ff["culprits"])
      seen.insert((u["host"].is_string() ? u["host"].get<std::string>() : "") + "/" +
                  std::to_string(u["rank"].get<int64_t>()));
    CHECK(seen == std::set<std::string>{"worker-1/1", "/3", "/5", "/7"});
  }
}

TEST_CASE("link setup: the member whose TLS switch differs from the others' is the root",
          "[fleet][decide]") {
  const fs::path job = temp_path("tls");
  Cleanup cl{job};
  // three ranks; each waits on the next in a 6-column link table (st_transport_timeout shape);
  // HCCP's `TLS SWITCH (n)` line (hiascend HCCL troubleshooting, verbatim shape) in each
  // process's device log: rank 2 alone runs with TLS on
  const std::string g = "hccl_world_group";
  for (int r = 0; r < 3; ++r) {
    const int pid = 114650 + r;
    const std::string P = std::to_string(pid), R = std::to_string(r);
    const std::string ip = "192.168.2.19" + R, next = "192.168.2.19" + std::to_string((r + 1) % 3);
    proc(job, "worker-" + R, pid,
         "[INFO] HCCL(" + P + ",python3):2025-06-19-09:26:21.655.782 [topoinfo_detect.cc:506] [" +
             P + "][HCCL_TRACE][Flat]SetupAgent rankNum[3], rank[" + R + "], rootInfo identifier[" +
             g + "], server[1.1.1." + R + "%enp189s0f0], serverPort[60000]deviceType[2], " +
             "logicDevId[0], phydevId[0], deviceIp[" + ip + "]",
         {"[ERROR] HCCL(" + P + ",python3):2025-06-19-09:28:34.062.84" + R +
              " [hccl_socket_manager.cc:594] [116451]   |  dest_ip(user_rank)  |   dest_port   |  "
              "src_ip(user_rank)   |   src_port   |   MyRole   |   Status   |",
          "[ERROR] HCCL(" + P + ",python3):2025-06-19-09:28:34.062.85" + R +
              " [hccl_socket_manager.cc:553] [116451]   |  " + next + "(" +
              std::to_string((r + 1) % 3) + ")   |  16666  |   " + ip + "(" + R +
              ")   |  0  |  client  | time out |  "});
    write(job / ("worker-" + R) / "run/device-0" / ("device-" + P + "_20250619092621364.log"),
          {"[INFO] HCCP(2988,hccp_service.bin):2025-06-19-09:26:20.133.826 [rs_ssl.c:1529]tid:2988,"
           "rs_ssl_init(1529) : TLS SWITCH (" +
           std::string(r == 2 ? "1" : "0") + ")"});
  }
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "tls-switch-different");
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-2/2/0"});
}

TEST_CASE("a first error that is not a timeout names the processes that did not time out",
          "[fleet][decide]") {
  const fs::path job = temp_path("not-timeout");
  Cleanup cl{job};
  // rank 0's stream failed with an AI Core exception (the runtime's GetError line, as the
  // device.aicore_exception examples show it) before anybody timed out; ranks 1 and 2 then time
  // out in Notify Wait (rc_122 fixture block shape) waiting on rank 0
  proc(job, "worker-0", 4410, setup_agent(4410, 0, 0, kGroup, "10.136.181.170"),
       {"[ERROR] RUNTIME(4410,python3):2024-04-08-02:50:12.527.404 [stream.cc:1172]4410 "
        "GetError:[INIT][DEFAULT]Stream Synchronize failed, stream_id=2, retCode=0x2b, [aicore "
        "exception]."});
  for (int r = 1; r < 3; ++r)
    proc(job, "worker-" + std::to_string(r), 4410 + r,
         setup_agent(4410 + r, r, r, kGroup, "10.136.181.17" + std::to_string(r)),
         notify_block(4410 + r, "02:55:04.773.69" + std::to_string(r), 7, "0", r));
  SECTION("others timed out: the erring process without a timeout") {
    const json ff = run_fleet(job)["first_failure"];
    REQUIRE(ff.is_object());
    CHECK(ff["rule"] == "first-error-not-timeout");
    CHECK(culprit_keys(ff) == std::set<std::string>{"worker-0/0/0"});
  }
  SECTION("an earlier error of a process that restarted is not the first error") {
    // rank 3 hit an AI Core exception at 02:45 in an earlier run, initialised its CANN log again
    // at 02:52 (docs/faults.md "Restarts") and then timed out like ranks 1 and 2: the 02:45 line
    // would make it the first-erroring process; without it rank 0's 02:50 error is the first
    const int pid = 4413;
    proc(job, "worker-3", pid, setup_agent(pid, 3, 3, kGroup, "10.136.181.173"),
         {"[ERROR] RUNTIME(4413,python3):2024-04-08-02:45:12.527.404 [stream.cc:1172]4413 "
          "GetError:[INIT][DEFAULT]Stream Synchronize failed, stream_id=2, retCode=0x2b, [aicore "
          "exception]."});
    write(job / "worker-3/process_log/debug/plog/plog-4413_20240408025504900.log",
          notify_block(pid, "02:55:04.773.693", 7, "0", 3));
    write(job / "worker-3/process_log/run/plog/plog-4413_20240407183553145.log",
          {"[INFO] HCCL(4413,python3):2024-04-07-18:35:50.246.088 [trace_attr.c:189](tid:4413) "
           "attr init success, timeout=0ms.",
           "[INFO] HCCL(4413,python3):2024-04-08-02:52:00.000.000 [trace_attr.c:189](tid:4413) "
           "attr init success, timeout=0ms."});
    const json j = run_fleet(job);
    const json& ff = j["first_failure"];
    REQUIRE(ff.is_object());
    CHECK(ff["rule"] == "first-error-not-timeout");
    CHECK(culprit_keys(ff) == std::set<std::string>{"worker-0/0/0"});
    bool noted = false;
    for (const auto& n : j["notes"])
      noted |=
          n.get<std::string>().find(
              "restart on worker-3: 1 error line of CANN process logs up to 2024-04-08T02:51:50") ==
          0;
    CHECK(noted);
  }
}

TEST_CASE("errors without any HCCL timeout: every erring process", "[fleet][decide]") {
  const fs::path job = temp_path("no-timeout");
  Cleanup cl{job};
  for (int r = 0; r < 2; ++r) {
    const int pid = 4410 + r;
    const std::string P = std::to_string(pid);
    proc(job, "worker-" + std::to_string(r), pid,
         setup_agent(pid, r, r, kGroup, "10.136.181.17" + std::to_string(r)),
         {"[ERROR] RUNTIME(" + P + ",python3):2024-04-08-02:50:12.527.40" + std::to_string(r) +
          " [stream.cc:1172]" + P +
          " GetError:[INIT][DEFAULT]Stream Synchronize failed, stream_id=2, retCode=0x2b, "
          "[aicore exception]."});
  }
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "errors-without-timeout");
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-0/0/0", "worker-1/1/1"});
}

TEST_CASE("Ascend 950 spellings: RootInfoDetect identities and the Env config timeouts",
          "[fleet][decide]") {
  // ascend-fd test_rc_parse.py TestA5RootInfoDetect / test_parse_a5_timeout_info message parts in
  // plog lines: the roster comes from `[RootInfoDetect] nRanks[..], rank[..] ...` and the
  // timeouts from `[HCCL_TRACE]Env config ..., linkTimeOut[180]s, execTimeOut[300]s`
  const fs::path job = temp_path("a5");
  Cleanup cl{job};
  for (int r = 0; r < 2; ++r) {
    const int pid = 5510 + r;
    const std::string P = std::to_string(pid);
    const std::string head =
        "[INFO] HCCL(" + P + ",python3):2024-04-07-18:35:53.395.735 [op_base.cc:1292][" + P + "]";
    write(
        job / ("worker-" + std::to_string(r)) / "process_log/run/plog" /
            ("plog-" + P + "_20240407183553145.log"),
        {head + "[HCCL_TRACE]Env config hcclSocketFamily[*], linkTimeOut[180]s, execTimeOut[300]s",
         head + "[RootInfoDetect] nRanks[2], rank[" + std::to_string(r) +
             "] entry flat topo detect, rootinfo: host ip[192.168.0.1] port[30000] "
             "netMode[HrtNetworkMode::HDC] identifier[192.168.0.1_30000_0_947147113161045], "
             "deviceLogicId[" +
             std::to_string(r) + "], devPhyId[" + std::to_string(r + 8) + "]"});
    write(job / ("worker-" + std::to_string(r)) / "process_log/debug/plog" /
              ("plog-" + P + "_20240408025504900.log"),
          {"[ERROR] RUNTIME(" + P + ",python3):2024-04-08-02:50:12.527.40" + std::to_string(r) +
           " [stream.cc:1172]" + P +
           " GetError:[INIT][DEFAULT]Stream Synchronize failed, stream_id=2, retCode=0x2b, "
           "[aicore exception]."});
  }
  const json j = run_fleet(job);
  CHECK(j["hccl"]["exec_timeout_s"] == 300);
  CHECK(j["hccl"]["connect_timeout_s"] == 180);
  std::set<int64_t> ranks;
  for (const auto& r : j["roster"]) ranks.insert(r["rank"].get<int64_t>());
  CHECK(ranks == std::set<int64_t>{0, 1});
  const json& ff = j["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "errors-without-timeout");
}

// ---- issue 34: the deadlock shape in every spelling of the exception lines, the CQE shape

namespace {

// The three-line task-exception record of one rank waiting on `remote` in op index 3 of the same
// tag, in one of the spellings HCCL has printed (hccl task_exception_handler.cc, log-formats.md
// §8.3, ascend-fd fixtures):
//   callback    [TaskExceptionHandler][Callback]... base information is streamID (ascend-fd)
//   device_id   [TaskExceptionHandler]... base information is deviceID:[n], streamID (HCCL source)
//   stage       [TaskExecStage][Timeout][Host]... para information (CANN 8.5 keywords)
//   ei0002      [TaskExecStage][Timeout][Host] base line + EI0002's "remote rank [r]", no para
std::vector<std::string> notify_spelling(const std::string& spelling, int pid, int rank,
                                         const std::string& remote) {
  const std::string P = std::to_string(pid);
  const std::string t = "2024-04-08-02:55:04.903.5" + std::to_string(10 + rank);
  const std::string pre = "[ERROR] HCCL(" + P + ",python3):" + t;
  const std::string tag = "tag[AllReduce_" + kGroup + "], index[3]";
  if (spelling == "callback")
    return notify_block(pid, "02:55:04.903.5" + std::to_string(10 + rank), 3, remote, rank);
  if (spelling == "device_id")
    return {pre + " [task_exception_handler.cc:452][" + P +
                "][TaskExceptionHandler]Task run failed, base information is deviceID:[" +
                std::to_string(rank) +
                "], streamID:[3], taskID[77726298], taskType[Notify Wait], " + tag +
                ", AlgType(level 0-1-2):[null-null-ring].",
            pre + " [task_exception_handler.cc:454][" + P +
                "][TaskExceptionHandler]Task run failed, para information is notify "
                "id:[0x0000000000000050], stage:[ffffffff], remote rank:[" +
                remote + "].",
            pre + " [task_exception_handler.cc:456][" + P +
                "][TaskExceptionHandler]Task run failed, groupRank information is group:[" +
                kGroup + "], rankSize[4], rankId[" + std::to_string(rank) + "]."};
  const std::string base = pre + " [task_exception_handler.cc:908] [" + P +
                           "][TaskExecStage][Timeout][Host]Task run failed, base information is "
                           "streamID:[2], taskID[21], " +
                           tag + ", AlgType(level 0-1-2):[fullmesh-ring-NHR].";
  const std::string group = pre + " [task_exception_handler.cc:771] [" + P +
                            "][TaskExecStage][Timeout][Host]Task run failed, groupRank information "
                            "is group:[" +
                            kGroup +
                            "], user define information[], rankSize[4], "
                            "rankId[" +
                            std::to_string(rank) + "].";
  if (spelling == "stage")
    return {base,
            pre + " [task_exception_handler.cc:789] [" + P +
                "][TaskExecStage][Timeout][Host]Task run failed, para information is notify "
                "id:[0x0000000000000050], stage:[ffffffff], remote rank:[" +
                remote + "].",
            group};
  // ei0002: the error-manager record names the awaited rank itself
  return {base,
          "EI0002: [PID: " + P + "] " + t +
              " The wait execution of the Notify register times out. Reason: The Notify register "
              "has not received the Notify record from remote rank [" +
              remote + "].base information: [streamID:[2], taskID[21], tag[AllReduce_" + kGroup +
              "], AlgType(level 0-1-2):[fullmesh-ring-NHR].] task information: []",
          group};
}

}  // namespace

TEST_CASE("Notify Wait deadlock: a closed cycle with no exit in every spelling is no single root",
          "[fleet][decide][deadlock]") {
  for (const std::string spelling : {"callback", "device_id", "stage", "ei0002"}) {
    SECTION(spelling) {
      const fs::path job = temp_path("deadlock-" + spelling);
      Cleanup cl{job};
      // ranks 0..3 on two nodes, same tag and index, within the exec timeout: 0->1->2->3->0
      for (int r = 0; r < 4; ++r) {
        const int pid = 69395 + r;
        proc(job, "worker-" + std::to_string(r / 2), pid,
             setup_agent(pid, r, r % 2, kGroup, "10.136.181.17" + std::to_string(r / 2)),
             notify_spelling(spelling, pid, r, std::to_string((r + 1) % 4)));
      }
      const json j = run_fleet(job);
      const json ff = j["first_failure"];
      REQUIRE(ff.is_object());
      CHECK(ff["rule"] == "notify-wait-chain");
      CHECK(ff["no_single_root"] == true);
      CHECK(ff["host"].is_null());
      CHECK(ff["culprits"].empty());
      CHECK(ff["reason"].get<std::string>().rfind("deadlock", 0) == 0);
      CHECK(ff["vendor_code"] == 124);
      std::set<int64_t> ranks;
      for (const auto& m : ff["cycle"]) ranks.insert(m["rank"].get<int64_t>());
      CHECK(ranks == std::set<int64_t>{0, 1, 2, 3});
      // a deadlock explains nobody's errors
      CHECK(ff["explains"]["hosts"].empty());
      CHECK(ff["summary"].get<std::string>().find("consequence") == std::string::npos);
    }
  }
}

TEST_CASE("Notify Wait: a cycle with an exit is no deadlock: the chain leaves it for the end",
          "[fleet][decide][deadlock]") {
  const fs::path job = temp_path("cycle-exit");
  Cleanup cl{job};
  // 0 waits on 1; 1 waits on 0 and on 2; 2 waits on 3; 3 waits on its own sub-stream (local):
  // the way out of the 0<->1 cycle ends at rank 3
  const std::vector<std::vector<std::string>> waits = {{"1"}, {"0", "2"}, {"3"}, {"local"}};
  for (int r = 0; r < 4; ++r) {
    const int pid = 69395 + r;
    std::vector<std::string> lines;
    for (const auto& w : waits[static_cast<size_t>(r)])
      for (const auto& l : notify_spelling("callback", pid, r, w)) lines.push_back(l);
    proc(job, "worker-0", pid, setup_agent(pid, r, r, kGroup, "10.136.181.175"), lines);
  }
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["no_single_root"] == false);
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-0/3/3"});
}

TEST_CASE("RoCE error CQE: one device towards two remote ends names the device that logged them",
          "[fleet][decide][cqe]") {
  const fs::path job = temp_path("cqe-two-ends");
  Cleanup cl{job};
  // rank 0 logs error CQEs towards rank 1's and rank 2's device IPs (st_cqe_testcase shape):
  // no common remote end, so the local device is the culprit, not the two ends
  for (int r = 0; r < 3; ++r) {
    const int pid = 12337 + r;
    const std::string P = std::to_string(pid);
    std::vector<std::string> err;
    if (r == 0)
      for (const char* ip : {"192.168.13.17", "192.168.13.18"})
        err.push_back(
            "[ERROR] HCCL(" + P + ",python):2024-04-08-02:55:04.773.698 [heartbeat.cc:551][" + P +
            "][283707][Heartbeat]cqe err status[12], time:[2024-04-08 02:55:04.099518], ip:[" + ip +
            "]");
    proc(job, "worker-" + std::to_string(r), pid,
         setup_agent(pid, r, r, kGroup, "10.136.181.17" + std::to_string(r)), err);
  }
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "roce-cqe");
  CHECK(ff["host"] == "worker-0");
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-0/0/0"});
  const std::string text = ff["rule_text"].get<std::string>();
  CHECK(text.find("worker-1 rank 1") != std::string::npos);  // the remote ends are named
  CHECK(text.find("worker-2 rank 2") != std::string::npos);
}

TEST_CASE("RoCE error CQE: two devices towards each other are both culprits",
          "[fleet][decide][cqe]") {
  const fs::path job = temp_path("cqe-mutual");
  Cleanup cl{job};
  for (int r = 0; r < 2; ++r) {
    const int pid = 12337 + r;
    const std::string P = std::to_string(pid);
    proc(job, "worker-" + std::to_string(r), pid,
         setup_agent(pid, r, r, kGroup, "10.136.181.17" + std::to_string(r)),
         {"[ERROR] HCCL(" + P + ",python):2024-04-08-02:55:04.773.698 [heartbeat.cc:551][" + P +
          "][283707][Heartbeat]cqe err status[12], time:[2024-04-08 02:55:04.099518], "
          "ip:[192.168.13." +
          std::to_string(17 - r) + "]"});
  }
  const json ff = run_fleet(job)["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "roce-cqe");
  CHECK(culprit_keys(ff) == std::set<std::string>{"worker-0/0/0", "worker-1/1/1"});
}
