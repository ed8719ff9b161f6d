// Fleet analysis (docs/fleet.md): the fleet sample's first failure with its root cause and
// evidence, per-node expectations of samples/expected.json, clock offsets from shared events
// deciding the cross-node order, version drift, corrupt and duplicate bundles, the JSON contract,
// deterministic bytes, the stored run read back, progress only on a TTY.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "common/sql.hpp"
#include "faultline/app/app.hpp"
#include "faultline/core/time.hpp"
#include "faultline/correlate/fleet.hpp"
#include "faultline/report/report.hpp"

using namespace faultline;
namespace fs = std::filesystem;
using nlohmann::json;
using report::Format;

namespace {

constexpr int64_t kSec = 1'000'000'000;

fs::path temp_path(const std::string& name) {
  const fs::path p = fs::temp_directory_path() /
                     ("faultline-fleet-test-" + std::to_string(::getpid()) + "-" + name);
  std::error_code ec;
  fs::remove_all(p, ec);
  for (const char* s : {"-wal", "-shm"}) fs::remove(p.string() + s, ec);
  return p;
}

void write(const fs::path& p, const std::vector<std::string>& lines) {
  fs::create_directories(p.parent_path());
  std::ofstream o(p, std::ios::binary | std::ios::app);
  for (const auto& l : lines) o << l << "\n";
}

std::string slurp(const fs::path& p) {
  std::ifstream i(p, std::ios::binary);
  std::stringstream s;
  s << i.rdbuf();
  return s.str();
}

// "2026-03-14T02:41:17.204000Z" -> ns (the reports' time format)
int64_t iso_ns(const std::string& s) {
  REQUIRE(s.size() >= 19);
  const auto n = [&](size_t p, size_t len) { return std::stoi(s.substr(p, len)); };
  int64_t frac = 0;
  if (s.size() > 20 && s[19] == '.')
    frac = static_cast<int64_t>(std::stoll(s.substr(20, 6))) * 1000;
  return civil_to_ns(n(0, 4), n(5, 2), n(8, 2), n(11, 2), n(14, 2), n(17, 2), frac);
}

// Removes the test's files when the test case ends.
struct Cleanup {
  std::vector<fs::path> paths;
  ~Cleanup() {
    std::error_code ec;
    for (const auto& p : paths) {
      fs::remove_all(p, ec);
      for (const char* s : {"-wal", "-shm"}) fs::remove(p.string() + s, ec);
    }
  }
};

int run(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string q(const fs::path& p) {
  return "'" + p.string() + "'";
}

app::Options quiet_options() {
  app::Options o;
  o.cache_dir = temp_path("cache");
  return o;
}

using test::scalar;

// "2026-03-14-02:41:16.528.880": plog header / opData timeStamp form.
std::string dash(int64_t ns) {
  const auto c = ns_to_civil(ns);
  char b[64];
  std::snprintf(b, sizeof b, "%04d-%02d-%02d-%02d:%02d:%02d.%03d.%03d", c.year, c.month, c.day,
                c.hour, c.minute, c.second, static_cast<int>(c.nanos / 1000000),
                static_cast<int>(c.nanos / 1000 % 1000));
  return b;
}

// "Sat Mar 14 02:41:47 2026": HCCL Arrival Time and dmesg -T form.
std::string ctime_text(int64_t ns) {
  static const char* wd[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
  static const char* mo[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                             "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto c = ns_to_civil(ns);
  const int64_t days = ns / kSec / 86400;
  char b[64];
  std::snprintf(b, sizeof b, "%s %s %2d %02d:%02d:%02d %04d", wd[days % 7], mo[c.month - 1], c.day,
                c.hour, c.minute, c.second, c.year);
  return b;
}

// A synthetic multi-node job in the MindCluster FaultDiag layout of samples/fleet-hccl-cascade
// (process_log/{run,debug}/plog, dmesg = dmesg -T), lines in the shapes of log-formats.md §8.3
// and of the sample. Times are the true times; a node's skew is added to everything it prints.
struct Node {
  std::string name, ip;
  int64_t skew = 0;  // ns added to every time the node prints
};

struct Job {
  std::vector<Node> nodes;
  int ranks_per_node = 3;
  int64_t init = civil_to_ns(2026, 3, 14, 0, 12, 19, 660'382'000);
  int64_t issue = civil_to_ns(2026, 3, 14, 2, 41, 16, 508'773'000);
  int64_t exec_timeout_s = 1836;
  bool heartbeat = true;  // the culprit's loss is broadcast (crimer + Cluster Exception Location)
  int culprit_node = 1, culprit_local = 1;
  int64_t fault = civil_to_ns(2026, 3, 14, 2, 41, 17, 204'000'000);
  bool culprit_fault =
      true;  // the culprit's device loses its heartbeat; else it times out like the others
  bool op_timeouts = true;  // ranks log the EI0002 task-exception record
  int silent_rank = -1;     // this rank logs nothing after the communicator init
};

int pid_of(int rank) {
  return 40000 + rank;
}

void write_job(const fs::path& root, const Job& j) {
  const int size = static_cast<int>(j.nodes.size()) * j.ranks_per_node;
  const Node& cn = j.nodes[static_cast<size_t>(j.culprit_node)];
  const int crank = j.culprit_node * j.ranks_per_node + j.culprit_local;
  const std::string cloc = cn.ip + "/" + std::to_string(crank);
  const int64_t lost = j.fault + 30 * kSec;  // heartbeat LOST after 30 s without heartbeat
  const int64_t timeout = j.issue + j.exec_timeout_s * kSec;
  for (size_t n = 0; n < j.nodes.size(); ++n) {
    const Node& nd = j.nodes[n];
    const fs::path base = root / nd.name;
    auto t = [&](int64_t ns) { return dash(ns + nd.skew); };
    write(base / "dmesg", {"[" + ctime_text(civil_to_ns(2026, 3, 10, 21, 15, 35, 0) + nd.skew) +
                           "] Booting Linux on physical CPU 0x0000080000 [0x481fd010]"});
    for (int l = 0; l < j.ranks_per_node; ++l) {
      const int rank = static_cast<int>(n) * j.ranks_per_node + l;
      const int pid = pid_of(rank);
      const std::string P = std::to_string(pid);
      const std::string pre = "HCCL(" + P + ",python3):";
      const int64_t jitter = (rank * 7919 % 97) * 1'000'000;  // up to 96 ms between ranks
      std::vector<std::string> run = {
          "[INFO] " + pre + t(j.init - 14 * kSec) + " [externalinput.cc:558] [" + P +
              "][HCCL_ENV] HCCL_EXEC_TIMEOUT set by default to [" +
              std::to_string(j.exec_timeout_s) + "]s",
          "[INFO] " + pre + t(j.init + jitter) + " [op_base.cc:1292] [" + P +
              "]Entry-HcclCommInitRootInfoInner:ranks[" + std::to_string(size) + "], rank[" +
              std::to_string(rank) + "], rootinfo: host ip[" + j.nodes[0].ip +
              "] port[60000] nicDeploy[1] identifier[hccl_world_group], deviceLogicId[" +
              std::to_string(l) + "]",
          "[INFO] " + pre + t(j.init + jitter + 730'000) + " [hccl_communicator_attrs.cc:330] [" +
              P + "][LocalRank Key Info]userRank[" + std::to_string(rank) + "] hostIp[" + nd.ip +
              "] devicePhyId[" + std::to_string(l) + "] server[" + nd.ip + "] deviceIp[192.168.10" +
              std::to_string(l) + "." + std::to_string(n + 1) +
              "] superPodId[0] useSuperPodMode[0] isStandardCard[0]"};
      const bool culprit = rank == crank && j.culprit_fault;
      if (rank == j.silent_rank) {
        write(base / "process_log/run/plog" / ("plog-" + P + "_20260314001203402.log"), run);
        continue;
      }
      if (j.heartbeat && j.culprit_fault && !culprit)
        run.push_back("[INFO] " + pre + t(lost + jitter * 3) + " [heartbeat.cc:951] [" +
                      std::to_string(pid + 7) + "][TaskExecStage][HeartbeatAbnormal]local rank [" +
                      nd.ip + "/" + std::to_string(rank) + "]: crimer rank [" + cloc +
                      "] status[LOST] by informer rank [" + cn.ip + "/" +
                      std::to_string(crank == 0 ? 1 : crank - 1) + "]");
      write(base / "process_log/run/plog" / ("plog-" + P + "_20260314001203402.log"), run);
      std::vector<std::string> dbg;
      if (culprit) {
        dbg.push_back("[ERROR] RUNTIME(" + P + ",python3):" + t(j.fault + 1'900'410'000) +
                      " [device_error_proc.cc:1402]" + P +
                      " ProcessDeviceHeartBeatLost:[EXEC][DEFAULT]Device " + std::to_string(l) +
                      " heartbeat lost, device status is abnormal, retCode=0x7150050.");
      } else if (j.op_timeouts) {
        const int64_t to = timeout + jitter * 5;
        dbg = {"[ERROR] " + pre + t(to) + " [task_exception_handler.cc:908] [" + P +
                   "][TaskExecStage][Timeout][Host]Task run failed, base information is "
                   "streamID:[2], taskID[418211], "
                   "tag[AllReduce_hccl_world_group], AlgType(level 0-1-2):[fullmesh-ring-NHR].",
               "[ERROR] " + pre + t(to + 12'000) + " [task_exception_handler.cc:771] [" + P +
                   "][TaskExecStage][Timeout][Host]Task run failed, groupRank information is "
                   "group:[hccl_world_group], "
                   "user define information[], rankSize[" +
                   std::to_string(size) + "], rankId[" + std::to_string(rank) + "].",
               "[ERROR] " + pre + t(to + 48'000) + " [task_exception_handler.cc:704] [" + P +
                   "][TaskExecStage][Timeout][Host]Task run failed, opData information is "
                   "timeStamp:[" +
                   t(j.issue + jitter) + "], deviceId[" + std::to_string(l) +
                   "], index[418211], count[262144], reduceType[sum], "
                   "src[0x12c0c0013000], dst[0x12c0c0014000], dataType[bfloat16]."};
        if (j.heartbeat && j.culprit_fault)
          dbg.push_back("[ERROR] " + pre + t(to + 95'000) + " [task_exception_handler.cc:610] [" +
                        P +
                        "][TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[" +
                        cloc + "], Arrival Time:[" + ctime_text(lost + nd.skew) +
                        "], Discoverer:[" + nd.ip + "/" + std::to_string(rank) +
                        "], ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. "
                        "Process has exited, 2. Network Disconnected");
      }
      if (!dbg.empty())
        write(base / "process_log/debug/plog" / ("plog-" + P + "_20260314031152508.log"), dbg);
    }
  }
  if (!j.culprit_fault) return;
  // the culprit's device heartbeat loss in its kernel log (dmesg -T, host clock)
  write(root / cn.name / "dmesg", {"[" + ctime_text(j.fault + cn.skew) +
                                   "] [ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] "
                                   "<kworker/5:1H:39365> Heartbeat lost! (device=" +
                                   std::to_string(j.culprit_local) +
                                   "; old_count=8931; new_count=8931; lost_count=4; "
                                   "total_lost_count=4; total_10s_count=0; total_15s_count 0)."});
}

struct Fleet {
  fs::path dbp;
  std::unique_ptr<store::Db> db;
  app::FleetOutcome out;
  json j;
  explicit Fleet(const fs::path& dir, const std::string& name) : dbp(temp_path(name + ".db")) {
    db = store::Db::open(dbp);
    out = app::fleet(*db, app::expand_fleet_inputs({dir}), quiet_options(), 2);
    j = json::parse(report::render_fleet(db->handle(), out.bundle_ids, Format::json));
  }
  const json& host(const std::string& h) const {
    for (const auto& x : j["hosts"])
      if (x["host"] == h) return x;
    FAIL("no host " << h);
    static json none;
    return none;
  }
  const json* offset(const std::string& h) const {
    for (const auto& x : j["clock"]["offsets"])
      if (x["host"] == h) return &x;
    return nullptr;
  }
};

std::set<std::string> ids_of(const json& arr) {
  std::set<std::string> s;
  for (const auto& x : arr) s.insert(x["id"].get<std::string>());
  return s;
}

}  // namespace

TEST_CASE("fleet sample: node05 / rank 35 failed first, with its root cause and evidence",
          "[fleet][sample]") {
  const fs::path src(FAULTLINE_SOURCE_DIR);
  const json expected = json::parse(slurp(src / "samples/expected.json"))["fleet-hccl-cascade"];
  const auto& ef = expected["fleet"];
  Cleanup cl{{temp_path("sample.db"), temp_path("cache")}};
  Fleet f(src / "samples/fleet-hccl-cascade", "sample");
  REQUIRE(f.out.failures.empty());
  REQUIRE(f.out.correlation_error.empty());
  const json& j = f.j;

  // the hosts, and no drift (expected.json: drift {})
  std::set<std::string> hosts;
  for (const auto& b : j["bundles"])
    for (const auto& h : b["hosts"]) hosts.insert(h.get<std::string>());
  CHECK(hosts == ef["hosts"].get<std::set<std::string>>());
  CHECK(j["drift"] == ef["drift"]);

  // first failure: host, rank, address, communicator, rule, node root cause
  const auto& ff = j["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["host"] == ef["first_failure"]["host"]);
  CHECK(ff["rank"] == ef["first_failure"]["rank"]);
  CHECK(ff["ip"] == ef["culprit_ip"]);
  CHECK(ff["group"] == ef["group"]);
  CHECK(ff["device"] == 3);
  CHECK(ff["rule"] == ef["rule"]);
  CHECK(ff["confidence"].get<double>() >= 0.8);
  REQUIRE(ff["root_cause"].is_object());
  CHECK(ff["root_cause"]["id"] == ef["root_cause"]);
  CHECK(ff["explains"]["hosts"] == ef["explains"]["hosts"]);
  CHECK(ff["explains"]["symptoms"] == json::array({ef["explains"]["symptom"]}));

  // time: the sample states no zone, so the clock stage keeps node05's clock as assumed UTC and
  // the civil reading must be the expected local one; once a zone is known it is the instant.
  const std::string exp_time = ef["first_failure"]["time"];  // 2026-03-14T02:41:17+08:00
  if (ff["time_quality"] == "assumed_utc") {
    CHECK(ff["time"].get<std::string>().substr(0, 19) == exp_time.substr(0, 19));
  } else {
    CHECK(ff["time"].get<std::string>().substr(0, 19) == "2026-03-13T18:41:17");
  }

  // evidence: node05's own heartbeat loss first (file:line), the device's own records, and the
  // broadcast naming 10.30.1.15/35 from every other host
  const auto& lines = ff["evidence_lines"];
  REQUIRE(lines.size() >= 8);
  CHECK(ff["evidence"] == lines[0]);
  CHECK(lines[0]["host"] == "node05");
  CHECK(lines[0]["role"] == "culprit");
  CHECK(lines[0]["signature"] == "driver.heartbeat_lost");
  CHECK(lines[0]["line"].get<int64_t>() > 0);
  CHECK(lines[0]["finding"] == "device.heartbeat_lost");
  std::set<std::string> broadcast_hosts, corroboration;
  for (const auto& l : lines) {
    CHECK(!l["file"].get<std::string>().empty());
    if (l["role"] == "broadcast") {
      broadcast_hosts.insert(l["host"].get<std::string>());
      CHECK(l["text"].get<std::string>().find("10.30.1.15/35") != std::string::npos);
    }
    if (l["role"] == "corroboration") corroboration.insert(l["signature"].get<std::string>());
  }
  for (const auto& h : ef["explains"]["hosts"])
    CHECK(broadcast_hosts.count(h.get<std::string>()) == 1);
  CHECK(corroboration.count("device.event_alarm") == 1);  // device 3's DMS "heartbeat lost" event
  CHECK(corroboration.count("device.bbox_exception") == 1);  // its black box record
  // the device-side OOM_NOTIFIER noise of the hours before is not evidence
  for (const auto& l : lines) CHECK(l["signature"] != "device.oom_notifier");

  // offsets: the sample's clocks agree; every host has shared events
  CHECK(j["clock"]["offsets"].size() == 8);
  for (const auto& o : j["clock"]["offsets"]) {
    CHECK(o["events"].get<int>() >= 2);
    CHECK(std::abs(o["offset_s"].get<double>()) < 1.0);
    CHECK(o["applied"] == false);
  }

  // per node (samples/expected.json per_node, must_not), and the node05 root cause explains its
  // symptom
  const auto must_not = expected["must_not"].get<std::set<std::string>>();
  for (const auto& b : j["bundles"]) {
    const std::string h = b["hosts"][0];
    const auto& exp = expected["per_node"][h == "node05" ? "node05" : "others"];
    const auto roots = ids_of(b["root_causes"]);
    const auto syms = ids_of(b["symptoms"]);
    CHECK(roots == exp["root_causes"].get<std::set<std::string>>());
    for (const auto& s : exp["symptoms"]) CHECK(syms.count(s.get<std::string>()) == 1);
    for (const auto& id : must_not) {
      CHECK(roots.count(id) == 0);
      CHECK(syms.count(id) == 0);
    }
    if (exp.contains("explains"))
      for (const auto& [root, explained] : exp["explains"].items())
        for (const auto& s : b["symptoms"])
          if (explained.get<std::set<std::string>>().count(s["id"].get<std::string>()))
            CHECK(s["explained_by"] == root);
    for (const auto& sig : exp["signatures"]) {
      INFO(h << " signature " << sig);
      CHECK(std::stoi(scalar(f.db->handle(),
                             "SELECT COUNT(*) FROM hits h JOIN events e ON e.id = h.event_id WHERE "
                             "e.host = '" +
                                 h + "' AND h.signature = '" + sig.get<std::string>() + "'")) > 0);
    }
  }
  // facts of expected.json on every node; host.timezone needs a zone the bundle does not state
  for (const auto& [name, value] : expected["facts"].items()) {
    for (const auto& h : ef["hosts"]) {
      const std::string n =
          scalar(f.db->handle(), "SELECT COUNT(*) FROM facts WHERE host = '" +
                                     h.get<std::string>() + "' AND name = '" + name +
                                     "' AND value = '" + value.get<std::string>() + "'");
      if (name == "host.timezone" && n == "0") {
        WARN("host.timezone " << value
                              << " is not stated by the sample (no date/timedatectl output); "
                                 "the clock stage keeps host clocks as assumed UTC");
        CHECK(ff["time_quality"] == "assumed_utc");
        continue;
      }
      INFO(h << " fact " << name << "=" << value);
      CHECK(n != "0");
    }
  }

  // the run is stored (schema 2) and reads back to the same report as a fresh inference
  CHECK(scalar(f.db->handle(), "SELECT rule FROM fleet_first_failure") == "heartbeat-broadcast");
  CHECK(scalar(f.db->handle(), "SELECT COUNT(*) FROM fleet_hosts") == "8");
  const std::string md1 = report::render_fleet(f.db->handle(), f.out.bundle_ids, Format::md);
  const std::string js1 = report::render_fleet(f.db->handle(), f.out.bundle_ids, Format::json);
  const std::string ht1 = report::render_fleet(f.db->handle(), f.out.bundle_ids, Format::html);
  CHECK(report::render_fleet(f.db->handle(), f.out.bundle_ids, Format::md) == md1);
  CHECK(report::render_fleet(f.db->handle(), f.out.bundle_ids, Format::json) == js1);
  CHECK(report::render_fleet(f.db->handle(), f.out.bundle_ids, Format::html) == ht1);
  f.db->exec("DELETE FROM fleet_runs");
  CHECK(report::render_fleet(f.db->handle(), f.out.bundle_ids, Format::json) == js1);
  CHECK(report::render_fleet(f.db->handle(), f.out.bundle_ids, Format::md) == md1);
  CHECK(md1.find("## Clock offsets") != std::string::npos);
  CHECK(md1.find("**node05, rank 35, device 3, 10.30.1.15**") != std::string::npos);
  // no URL anywhere ("http-equiv" of the page's own CSP meta tag is none)
  CHECK(ht1.find("http:") == std::string::npos);
  CHECK(ht1.find("https:") == std::string::npos);
  CHECK(ht1.find("<details") != std::string::npos);
}

TEST_CASE("the fleet sample packed one archive per node gives the same first failure",
          "[fleet][sample]") {
  const fs::path src(FAULTLINE_SOURCE_DIR);
  const fs::path out = temp_path("packed");
  Cleanup cl{{out, temp_path("packed.db"), temp_path("cache")}};
  REQUIRE(run("sh " + q(src / "scripts/pack-samples.sh") + " -f tar.zst --split " +
              q(src / "samples/fleet-hccl-cascade") + " " + q(out) + " > /dev/null 2>&1") == 0);
  Fleet f(out / "fleet-hccl-cascade", "packed");
  CHECK(f.out.bundle_ids.size() == 8);
  const json& ff = f.j["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["host"] == "node05");
  CHECK(ff["rank"] == 35);
  CHECK(ff["rule"] == "heartbeat-broadcast");
  CHECK(ff["root_cause"]["id"] == "device.heartbeat_lost");
  CHECK(ff["evidence"]["file"] == "node05/dmesg");  // the archive's top entry is node05/
}

TEST_CASE("clock offsets from shared events: a node 300 s ahead is put back in order",
          "[fleet][clock]") {
  // heartbeat broadcast names nodeB rank 4; nodeB's clock runs 300 s ahead of the others
  const fs::path dir = temp_path("skew-hb");
  Cleanup cl{{dir, temp_path("skew-hb.db")}};
  Job j;
  j.nodes = {
      {"nodeA", "10.20.0.11", 0}, {"nodeB", "10.20.0.12", 300 * kSec}, {"nodeC", "10.20.0.13", 0}};
  write_job(dir, j);
  Fleet f(dir, "skew-hb");
  const json& ff = f.j["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["host"] == "nodeB");
  CHECK(ff["rank"] == 4);
  CHECK(ff["device"] == 1);
  CHECK(ff["ip"] == "10.20.0.12");
  CHECK(ff["rule"] == "heartbeat-broadcast");
  // nodeB printed its fault 300 s late; in the reference clock it is back at the true time
  CHECK(ff["time"].get<std::string>().substr(0, 19) == "2026-03-14T02:46:17");
  // the offset rests on second-resolution Arrival Times and ms-apart broadcast lines: within 1.5 s
  CHECK(std::llabs(iso_ns(ff["fleet_time"]) - civil_to_ns(2026, 3, 14, 2, 41, 17, 0)) <
        1'500'000'000);
  const json* ob = f.offset("nodeB");
  REQUIRE(ob != nullptr);
  CHECK(std::abs((*ob)["offset_s"].get<double>() - 300.0) < 1.5);
  CHECK((*ob)["applied"] == true);
  CHECK((*ob)["events"].get<int>() >= 2);  // heartbeat arrival + broadcast (+ op issue)
  for (const char* h : {"nodeA", "nodeC"}) {
    const json* o = f.offset(h);
    REQUIRE(o != nullptr);
    CHECK(std::abs((*o)["offset_s"].get<double>()) < 1.5);
    CHECK((*o)["applied"] == false);
  }
  // addresses come from the HCCL roster of each node's own logs
  CHECK(f.host("nodeB")["ips"][0]["ip"] == "10.20.0.12");
  CHECK(f.host("nodeB")["ips"][0]["source"] == "roster");
  CHECK(f.host("nodeB")["ranks"] == json::array({3, 4, 5}));
  const std::string md = report::render_fleet(f.db->handle(), f.out.bundle_ids, Format::md);
  CHECK(md.find("| nodeB | +300.") != std::string::npos);
}

TEST_CASE("first errors are ordered with the offsets, not the hosts' own clocks",
          "[fleet][clock]") {
  // No heartbeat broadcast: every rank times out on the same AllReduce (EI0002 records with the
  // op's issue time). nodeB (clock +300 s) lost a device heartbeat at 02:41:20, nodeC hit a devmm
  // error at 02:41:30 (true times). By the printed times nodeC looks first; by the offsets
  // estimated from the shared op issue times nodeB is.
  const fs::path dir = temp_path("skew-order");
  Cleanup cl{{dir, temp_path("skew-order.db")}};
  Job j;
  j.heartbeat = false;
  j.ranks_per_node =
      4;  // three timeout records on the culprit's node too: a median of op issue times
  j.fault = civil_to_ns(2026, 3, 14, 2, 41, 20, 0);
  j.nodes = {
      {"nodeA", "10.20.1.11", 0}, {"nodeB", "10.20.1.12", 300 * kSec}, {"nodeC", "10.20.1.13", 0}};
  write_job(dir, j);
  write(dir / "nodeC" / "dmesg", {"[" + ctime_text(civil_to_ns(2026, 3, 14, 2, 41, 30, 0)) +
                                  "] [ascend] [devmm] [ERROR] "
                                  "[devmm_pin_user_pages_fast 124] <python3:40009,40009> "
                                  "Get_user_pages_fast fail. (va=0xfffc8c19e2e8; "
                                  "expected_page_num=1; real_got_page_num=0)"});
  Fleet f(dir, "skew-order");
  const json& b = f.host("nodeB");
  const json& c = f.host("nodeC");
  REQUIRE(b["first_error"].is_object());
  REQUIRE(c["first_error"].is_object());
  CHECK(b["first_error_class"] == "fault");
  CHECK(c["first_error_class"] == "fault");
  // printed: C before B; fleet clock: B before C
  CHECK(b["first_error"]["time"].get<std::string>() > c["first_error"]["time"].get<std::string>());
  CHECK(b["first_error_fleet_time"].get<std::string>() <
        c["first_error_fleet_time"].get<std::string>());
  const json& ff = f.j["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["host"] == "nodeB");
  CHECK(ff["rank"] == 5);
  // the decision procedure's "first error is not a timeout" step (ascend-fd 113) decides; the
  // older different-first-error rule agrees
  CHECK(ff["rule"] == "first-error-not-timeout");
  CHECK(std::find(ff["agreed"].begin(), ff["agreed"].end(), "different-first-error") !=
        ff["agreed"].end());
  CHECK(ff["evidence"]["signature"] == "driver.heartbeat_lost");
  const json* ob = f.offset("nodeB");
  REQUIRE(ob != nullptr);
  CHECK(std::abs((*ob)["offset_s"].get<double>() - 300.0) < 1.5);
  CHECK((*ob)["method"].get<std::string>().find("op issue") != std::string::npos);
  // no host states its zone (plogs and dmesg -T carry none): the sentences of every rule say
  // the wall time is local with its zone unknown, never a UTC "Z" (docs/report.md "Times")
  REQUIRE(ff["time_quality"] == "assumed_utc");
  std::string sentences =
      ff["summary"].get<std::string>() + "\n" + ff["rule_text"].get<std::string>();
  for (const auto& s : f.j["suspects"]) sentences += "\n" + s["detail"].get<std::string>();
  INFO(sentences);
  CHECK(sentences.find("local (zone unknown)") != std::string::npos);
  static const std::regex utc_z(R"(\d\d:\d\d:\d\d(\.\d+)?Z)");
  CHECK_FALSE(std::regex_search(sentences, utc_z));
}

TEST_CASE("late arrival: all ranks timed out, one issued the op more than HCCL_EXEC_TIMEOUT later",
          "[fleet][hccl]") {
  // No broadcast, no fault line: nodeC rank 7 issued the AllReduce 2000 s after the others
  // (HCCL_EXEC_TIMEOUT 1836 s), so everyone else timed out waiting for it.
  const fs::path dir = temp_path("late");
  Cleanup cl{{dir, temp_path("late.db")}};
  Job j;
  j.heartbeat = false;
  j.nodes = {{"nodeA", "10.20.2.11", 0}, {"nodeB", "10.20.2.12", 0}, {"nodeC", "10.20.2.13", 0}};
  j.culprit_fault = false;  // every rank, rank 7 included, logs the timeout record
  write_job(dir, j);
  const int64_t late_issue = j.issue + 2000 * kSec;
  auto record = [&](int rank, int local, int64_t issued, int64_t to) {
    const std::string P = std::to_string(pid_of(rank));
    const std::string pre = "HCCL(" + P + ",python3):";
    return std::vector<std::string>{
        "[ERROR] " + pre + dash(to) + " [task_exception_handler.cc:908] [" + P +
            "][TaskExecStage][Timeout][Host]Task run failed, base information is streamID:[2], "
            "taskID[418211], "
            "tag[AllReduce_hccl_world_group], AlgType(level 0-1-2):[fullmesh-ring-NHR].",
        "[ERROR] " + pre + dash(to + 12'000) + " [task_exception_handler.cc:771] [" + P +
            "][TaskExecStage][Timeout][Host]Task run failed, groupRank information is "
            "group:[hccl_world_group], "
            "user define information[], rankSize[9], rankId[" +
            std::to_string(rank) + "].",
        "[ERROR] " + pre + dash(to + 48'000) + " [task_exception_handler.cc:704] [" + P +
            "][TaskExecStage][Timeout][Host]Task run failed, opData information is timeStamp:[" +
            dash(issued) + "], deviceId[" + std::to_string(local) +
            "], index[418211], count[262144], reduceType[sum], "
            "src[0x12c0c0013000], dst[0x12c0c0014000], dataType[bfloat16]."};
  };
  const fs::path p7 = dir / "nodeC/process_log/debug/plog" /
                      ("plog-" + std::to_string(pid_of(7)) + "_20260314031152508.log");
  fs::remove(p7);
  write(p7, record(7, 1, late_issue, late_issue + j.exec_timeout_s * kSec));
  Fleet f(dir, "late");
  const json& ff = f.j["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "late-arrival");
  CHECK(ff["host"] == "nodeC");
  CHECK(ff["rank"] == 7);
  CHECK(ff["rule_text"].get<std::string>().find("HCCL_EXEC_TIMEOUT (1836 s)") != std::string::npos);
}

TEST_CASE("silent rank: a communicator member with no error while every other rank timed out",
          "[fleet][hccl]") {
  // rank 4 (nodeB) joined the communicator (roster lines) and then logged nothing: it never
  // issued the collective (log-formats.md §8.5 step 4)
  const fs::path dir = temp_path("silent");
  Cleanup cl{{dir, temp_path("silent.db")}};
  Job j;
  j.heartbeat = false;
  j.culprit_fault = false;
  j.silent_rank = 4;
  j.nodes = {{"nodeA", "10.20.3.11", 0}, {"nodeB", "10.20.3.12", 0}, {"nodeC", "10.20.3.13", 0}};
  write_job(dir, j);
  Fleet f(dir, "silent");
  const json& ff = f.j["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "silent-rank");
  CHECK(ff["host"] == "nodeB");
  CHECK(ff["rank"] == 4);
  CHECK(ff["device"] == 1);
}

TEST_CASE("RoCE error CQE (status 12) names where the link broke when nothing else does",
          "[fleet][hccl]") {
  const fs::path dir = temp_path("roce");
  Cleanup cl{{dir, temp_path("roce.db")}};
  Job j;
  j.heartbeat = false;
  j.culprit_fault = false;
  j.nodes = {{"nodeA", "10.20.4.11", 0}, {"nodeB", "10.20.4.12", 0}, {"nodeC", "10.20.4.13", 0}};
  write_job(dir, j);
  // the hccl.roce_error_cqe form (rules/signatures/hccl.yaml): rank 7 on nodeC, remote rank 1 on
  // nodeA
  write(dir / "nodeC/process_log/run/plog" /
            ("plog-" + std::to_string(pid_of(7)) + "_20260314001203402.log"),
        {"[ERROR] HCCL(40007,python3):" + dash(j.issue + 2 * kSec) +
         " [heartbeat.cc:1220] [40090][Heartbeat]cqe error "
         "status[12], local rank [10.20.4.13/7], remote rank [10.20.4.11/1]"});
  Fleet f(dir, "roce");
  const json& ff = f.j["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "roce-cqe");
  CHECK(ff["host"] == "nodeC");
  CHECK(ff["rank"] == 7);
  CHECK(ff["rule_text"].get<std::string>().find("retransmission") != std::string::npos);
  CHECK(ff["evidence"]["signature"] == "hccl.roce_error_cqe");
}

TEST_CASE("link-setup timeouts that all point at one rank name it", "[fleet][hccl]") {
  // ranks of nodeA and nodeC time out building links to 10.20.5.12(4) (LINK_ERROR_INFO table of
  // log-formats.md §8.3); rank 4 on nodeB never answered and reports no link timeout itself
  const fs::path dir = temp_path("link");
  Cleanup cl{{dir, temp_path("link.db")}};
  Job j;
  j.heartbeat = false;
  j.culprit_fault = false;
  j.op_timeouts = false;
  j.silent_rank = 4;
  j.nodes = {{"nodeA", "10.20.5.11", 0}, {"nodeB", "10.20.5.12", 0}, {"nodeC", "10.20.5.13", 0}};
  write_job(dir, j);
  const int64_t t0 = j.init + 120 * kSec;
  for (int rank : {0, 1, 2, 6, 7, 8}) {
    const std::string node = rank < 3 ? "nodeA" : "nodeC";
    const std::string ip = rank < 3 ? "10.20.5.11" : "10.20.5.13";
    const std::string P = std::to_string(pid_of(rank)), T = std::to_string(pid_of(rank) + 700);
    const std::string pre = "[ERROR] HCCL(" + P + ",python3):";
    const int64_t t = t0 + rank * 1'000'000;
    write(dir / node / "process_log/debug/plog" / ("plog-" + P + "_20260314001403402.log"),
          {pre + dash(t) + " [hccl_socket_manager.cc:797] [" + T +
               "][Wait][LinkEstablish]wait socket establish timeout, role[1] rank[" +
               std::to_string(rank) + "] timeout[120 s]",
           pre + dash(t + 243'000) + " [hccl_socket_manager.cc:623] [" + T +
               "]   _________________________LINK_ERROR_INFO___________________________",
           pre + dash(t + 247'000) + " [hccl_socket_manager.cc:624] [" + T +
               "]   |  comm error, device[" + std::to_string(rank % 3) + "]",
           pre + dash(t + 250'000) + " [hccl_socket_manager.cc:626] [" + T +
               "]   |  dest_ip(user_rank)  |   dest_port   |  src_ip(user_rank)   |   src_port   | "
               "  MyRole   |   Status   |    TlsStatus   |",
           pre + dash(t + 303'000) + " [hccl_socket_manager.cc:583] [" + T +
               "]   |  10.20.5.12(4)   |  16666  |   " + ip + "(" + std::to_string(rank) +
               ")   |  3234403008  |  client  | time out |   DISABLE  | LinkInfo"});
  }
  Fleet f(dir, "link");
  const json& ff = f.j["first_failure"];
  REQUIRE(ff.is_object());
  // followed hop by hop (docs/fleet.md "Decision procedure"): the first-erroring rank 0 waits on
  // 10.20.5.12(4), nodeB's own address and rank 4 there, which waits on nobody
  CHECK(ff["rule"] == "link-setup-chain");
  CHECK(ff["host"] == "nodeB");
  CHECK(ff["rank"] == 4);
  CHECK(ff["ip"] == "192.168.101.2");  // rank 4's device IP (LocalRank Key Info)
  REQUIRE(ff["chain"].size() == 2);
  CHECK(ff["chain"][0].get<std::string>().rfind("nodeA rank 0", 0) == 0);
  CHECK(ff["chain"][1].get<std::string>().rfind("nodeB rank 4", 0) == 0);
  CHECK(ff["no_single_root"] == false);
  // the older rule names the same rank: it agrees
  CHECK(std::find(ff["agreed"].begin(), ff["agreed"].end(), "link-wait-target") !=
        ff["agreed"].end());
  // the silent rank agrees (same host and rank): no competing suspect
  for (const auto& s : f.j["suspects"]) CHECK(s["host"] != "nodeA");
}

TEST_CASE("a culprit whose node bundle is missing is still named by address and rank",
          "[fleet][hccl]") {
  const fs::path dir = temp_path("missing");
  Cleanup cl{{dir, temp_path("missing.db")}};
  Job j;
  j.nodes = {{"nodeA", "10.20.6.11", 0}, {"nodeB", "10.20.6.12", 0}, {"nodeC", "10.20.6.13", 0}};
  write_job(dir, j);
  fs::remove_all(dir / "nodeB");
  Fleet f(dir, "missing");
  const json& ff = f.j["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "heartbeat-broadcast");
  CHECK(ff["host"].is_null());
  CHECK(ff["ip"] == "10.20.6.12");
  CHECK(ff["rank"] == 4);
  CHECK(ff["rule_text"].get<std::string>().find("not an address of any bundle") !=
        std::string::npos);
  bool noted = false;
  for (const auto& n : f.j["notes"])
    noted = noted || n.get<std::string>().find("3 of 9 ranks") != std::string::npos;
  CHECK(noted);
  const std::string md = report::render_fleet(f.db->handle(), f.out.bundle_ids, Format::md);
  CHECK(md.find("(no bundle of the fleet), rank 4") != std::string::npos);
}

TEST_CASE(
    "drift: hosts that disagree on the driver version; corrupt and duplicate bundles are skipped",
    "[fleet][drift]") {
  const fs::path dir = temp_path("drift");
  Cleanup cl{{dir, temp_path("drift.json"), temp_path("drift.err"), temp_path("drift.md"),
              temp_path("drift.db"), temp_path("r1.json"), temp_path("r2.json"),
              temp_path("cache")}};
  // npu-smi info header as in samples/fleet-hccl-cascade (98 columns), version changed
  auto npu_smi = [](const std::string& v) {
    std::string head = "| npu-smi " + v;
    head.resize(35, ' ');
    head += "Version: " + v;
    head.resize(97, ' ');
    head += "|";
    return std::vector<std::string>{
        "+-----------------------------------------------------------------------------------------"
        "-------+",
        head,
        "+---------------------------+---------------+---------------------------------------------"
        "-------+",
        "| NPU   Name                | Health        | Power(W)    Temp(C)           "
        "Hugepages-Usage(page)|",
        "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB) "
        "       |",
        "+===========================+===============+============================================="
        "=======+",
        "| 0     910B2               | OK            | 88.4        42                0    / 0      "
        "       |",
        "| 0                         | 0000:C1:00.0  | 0           0    / 0          2860 / 65536  "
        "       |",
        "+===========================+===============+============================================="
        "=======+"};
  };
  auto version_info = [](const std::string& v, const std::string& inner) {
    return std::vector<std::string>{
        "Version=" + v,
        "ascendhal_version=7.35.23",
        "aicpu_version=1.0",
        "Innerversion=" + inner,
        "compatible_version=[V100R001C17],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21]",
        "compatible_version_fw=[7.0.0,7.7.99]",
        "package_version=" + v};
  };
  const std::map<std::string, std::pair<std::string, std::string>> nodes = {
      {"a2-pod-001", {"25.5.1", "V100R001C25SPC001B212"}},
      {"a2-pod-002", {"25.5.1", "V100R001C25SPC001B212"}},
      {"a2-pod-003", {"25.3.rc1", "V100R001C23SPC002B212"}},
      {"a2-pod-004", {"25.5.1", "V100R001C25SPC001B212"}}};
  for (const auto& [n, v] : nodes) {
    write(dir / n / "npu-smi_info.txt", npu_smi(v.first));
    write(dir / n / "usr/local/Ascend/driver/version.info", version_info(v.first, v.second));
    write(dir / n / "hostname.txt", {n});
  }
  // a copy of a-pod-001 under another name (same content) and a corrupt archive
  fs::copy(dir / "a2-pod-001", dir / "a2-pod-001-copy", fs::copy_options::recursive);
  {
    std::ofstream bad(dir / "a2-pod-005.tar.gz", std::ios::binary);
    bad << std::string("\x1f\x8b\x08\x00", 4) << "this is not a gzip stream";
  }
  const fs::path out = temp_path("drift.json"), err = temp_path("drift.err"),
                 md = temp_path("drift.md");
  const std::string bin = FAULTLINE_BINARY;
  const fs::path cache = temp_path("cache");
  REQUIRE(run(bin + " fleet " + q(dir) + " -j 2 --cache-dir " + q(cache) + " --format json > " +
              q(out) + " 2> " + q(err)) == 0);
  const json j = json::parse(slurp(out));
  const std::string e = slurp(err);
  // the contract: bundles, causes, drift, first_failure
  for (const char* k : {"bundles", "causes", "drift", "first_failure"}) CHECK(j.contains(k));
  CHECK(j["bundles"].is_array());
  CHECK(j["causes"].is_object());
  CHECK(j["drift"].is_object());
  CHECK((j["first_failure"].is_null() || j["first_failure"].is_object()));
  // drift of the loaded (npu-smi) and installed (version.info) driver: value -> hosts
  for (const char* fact : {"driver.version.loaded", "driver.version.installed"}) {
    INFO(fact);
    REQUIRE(j["drift"].contains(fact));
    CHECK(j["drift"][fact]["25.5.1"] == json::array({"a2-pod-001", "a2-pod-002", "a2-pod-004"}));
    CHECK(j["drift"][fact]["25.3.rc1"] == json::array({"a2-pod-003"}));
    CHECK(j["drift_majority"][fact] == "25.5.1");
  }
  // the corrupt archive and the duplicate are reported and skipped; the others are analysed
  CHECK(j["summary"]["failed"] == 2);
  CHECK(j["summary"]["analysed"] == 4);
  std::map<std::string, std::string> status;
  for (const auto& b : j["bundles"])
    status[fs::path(b["path"].get<std::string>()).filename().string()] = b["status"];
  CHECK(status["a2-pod-005.tar.gz"] == "failed");
  CHECK(status["a2-pod-001-copy"] == "failed");
  CHECK(status["a2-pod-003"] == "complete");
  CHECK(e.find("skipped " + (dir / "a2-pod-005.tar.gz").string()) != std::string::npos);
  CHECK(e.find("same content") != std::string::npos);
  // stderr is not a TTY here: no progress line
  CHECK(e.find('\r') == std::string::npos);
  CHECK(e.find("bundles,") == std::string::npos);
  // md highlights the minority
  REQUIRE(run(bin + " fleet " + q(dir) + " -j 2 --cache-dir " + q(cache) + " --format md > " +
              q(md) + " 2>/dev/null") == 0);
  const std::string m = slurp(md);
  CHECK(m.find("| `driver.version.loaded` | **25.3.rc1** (minority) | a2-pod-003 | 1 |") !=
        std::string::npos);
  CHECK(m.find("| `driver.version.loaded` | 25.5.1 | a2-pod-[001-002,004] | 3 |") !=
        std::string::npos);
  CHECK(m.find("NOT ANALYSED") != std::string::npos);
  // rendering twice gives identical bytes (and so does `report --db` of the kept database)
  const fs::path dbf = temp_path("drift.db"), r1 = temp_path("r1.json"), r2 = temp_path("r2.json");
  REQUIRE(run(bin + " fleet " + q(dir) + " -j 2 --cache-dir " + q(cache) + " --db " + q(dbf) +
              " --format json > " + q(r1) + " 2>/dev/null") == 0);
  REQUIRE(run(bin + " report --db " + q(dbf) + " --format json > " + q(r2) + " 2>/dev/null") == 0);
  CHECK(slurp(r1) == slurp(r2));
  CHECK(slurp(r1) == slurp(out));
}

TEST_CASE("progress goes to a terminal only", "[fleet][cli]") {
  const fs::path dir = temp_path("progress");
  Cleanup cl{{dir, temp_path("progress.err"), temp_path("progress.tty")}};
  for (const char* n : {"n1", "n2"})
    write(dir / n / "npu-smi_info.txt", {"| npu-smi 25.5.1                   Version: 25.5.1       "
                                         "                                        |",
                                         std::string("| ") + n});
  const std::string bin = FAULTLINE_BINARY;
  const fs::path err = temp_path("progress.err");
  REQUIRE(run(bin + " fleet " + q(dir) + " --no-cache > /dev/null 2> " + q(err)) == 0);
  CHECK(slurp(err).empty());
  // under a pseudo-terminal (util-linux `script`), the progress line appears
  if (run("command -v script > /dev/null 2>&1") == 0) {
    const fs::path tty = temp_path("progress.tty");
    const int rc = run("script -qec \"" + bin + " fleet " + dir.string() +
                       " --no-cache --format json -o /dev/null\" " + q(tty) + " > /dev/null 2>&1");
    // the first bundle done draws it (later ones at most four times a second: which count is
    // drawn depends on timing); the line is erased at the end
    if (rc == 0) {
      const std::string t = slurp(tty);
      CHECK((t.find("faultline fleet: 1/2 bundles (50%)") != std::string::npos ||
             t.find("faultline fleet: 2/2 bundles (100%)") != std::string::npos));
      CHECK(t.find("\r\033[K") != std::string::npos);
    }
  }
}

TEST_CASE("a failed cross-node correlation is printed, noted in the report and exits 3",
          "[fleet][cli]") {
  const fs::path src(FAULTLINE_SOURCE_DIR);
  const fs::path dbf = temp_path("corr.db"), out = temp_path("corr.json"),
                 err = temp_path("corr.err"), rep = temp_path("corr-report.json");
  Cleanup cl{{dbf, out, err, rep, temp_path("cache")}};
  const std::string bin = FAULTLINE_BINARY;
  const fs::path cache = temp_path("cache");
  const fs::path sample = src / "samples/fleet-hccl-cascade";
  REQUIRE(run(bin + " fleet " + q(sample) + " -j 2 --cache-dir " + q(cache) + " --db " + q(dbf) +
              " --format json -o /dev/null 2>/dev/null") == 0);
  // The database refuses the stored inference (as a full disk or a read-only table would), but
  // not a run that only carries the note of the failure.
  {
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open(dbf.c_str(), &h) == SQLITE_OK);
    REQUIRE(sqlite3_exec(h,
                         "CREATE TRIGGER refuse_fleet BEFORE INSERT ON fleet_runs WHEN NEW.notes "
                         "NOT LIKE '%correlation failed%' BEGIN SELECT RAISE(ABORT, "
                         "'fleet_runs refused by the test'); END;",
                         nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(h);
  }
  CHECK(run(bin + " fleet " + q(sample) + " -j 2 --cache-dir " + q(cache) + " --db " + q(dbf) +
            " --format json > " + q(out) + " 2> " + q(err)) == 3);
  const std::string e = slurp(err);
  INFO(e);
  CHECK(e.find("faultline fleet: the cross-node correlation of ") != std::string::npos);
  CHECK(e.find("fleet_runs refused by the test") != std::string::npos);
  CHECK(e.find(sample.string()) != std::string::npos);
  const json j = json::parse(slurp(out));
  CHECK(j["summary"]["analysed"].get<int>() > 1);
  CHECK(j["first_failure"].is_null());
  bool noted = false;
  for (const auto& n : j["notes"])
    noted =
        noted || n.get<std::string>().find("fleet_runs refused by the test") != std::string::npos;
  CHECK(noted);
  // the stored run with its note is what `report --db` renders
  REQUIRE(run(bin + " report --db " + q(dbf) + " --format json > " + q(rep) + " 2>/dev/null") == 0);
  CHECK(slurp(rep) == slurp(out));
}

TEST_CASE(
    "clock offsets from per-step collectives: the n-th AllReduce of a communicator is one "
    "step on every node",
    "[fleet][clock]") {
  // three nodes, two ranks each, with HCCL_ENTRY_LOG_ENABLE: the communicator init entry and
  // then one AllReduce every 31 s (hicann/hccl's Entry-HcclAllReduce record); nodeB runs 95 s
  // ahead (more than a step: only the index pairs the steps, not the nearest time). No heartbeat,
  // no opData: nothing else is shared.
  const fs::path dir = temp_path("steps");
  Cleanup cl{{dir, temp_path("steps.db")}};
  const std::string ident = "10.40.2.51%enp189s0f0_60000_0_1763443202733019";
  const int64_t init = civil_to_ns(2025, 11, 18, 13, 20, 19, 100'000'000);
  for (const auto& [node, skew] : std::vector<std::pair<std::string, int64_t>>{
           {"nodeA", 0}, {"nodeB", 95 * kSec}, {"nodeC", 0}}) {
    for (int r = 0; r < 2; ++r) {
      const std::string P = std::to_string(41400 + r + (node == "nodeB" ? 100 : 0));
      const std::string pre = "[INFO] HCCL(" + P + ",python3):";
      std::vector<std::string> lines = {
          pre + dash(init + skew + r * 3'000'000) + " [op_base.cc:1292] [" + P +
          "]Entry-HcclCommInitRootInfoInner:ranks[6], rank[" + std::to_string(r) +
          "], rootinfo: host ip[10.40.2.51] port[60000] nicDeploy[1] identifier[" + ident +
          "], deviceLogicId[" + std::to_string(r) + "]"};
      // a node that died after 4 steps logs fewer: the common prefix is used
      const int steps = node == "nodeC" ? 4 : 6;
      for (int s = 0; s < steps; ++s)
        lines.push_back(pre + dash(init + 30 * kSec + s * 31 * kSec + skew + r * 2'000'000) +
                        " [op_base.cc:2214] [" + P + "]Entry-HcclAllReduce:tag[AllReduce_" + ident +
                        "], sendBuf[0x12c01dc62a00], recvBuf[0x12c0678d4e00], count[16777216], "
                        "dataType[bfp16], op[sum], localRank[" +
                        std::to_string(r) + "], streamId[7],comm[0xaaab047218bb], deviceLogicId[" +
                        std::to_string(r) + "]");
      write(dir / node / "process_log/run/plog" / ("plog-" + P + "_20251118132019000.log"), lines);
    }
    write(dir / node / "dmesg",
          {"[" + ctime_text(init - 600 * kSec + skew) +
           "] IPv6: ADDRCONF(NETDEV_CHANGE): vethcacd06e: link becomes ready"});
  }
  Fleet f(dir, "steps");
  const json* ob = f.offset("nodeB");
  REQUIRE(ob != nullptr);
  CHECK(std::abs((*ob)["offset_s"].get<double>() - 95.0) < 0.5);
  CHECK((*ob)["method"].get<std::string>().find("collective step") != std::string::npos);
  CHECK((*ob)["applied"] == true);
  const json* oc = f.offset("nodeC");
  REQUIRE(oc != nullptr);
  CHECK(std::abs((*oc)["offset_s"].get<double>()) < 0.5);
}
