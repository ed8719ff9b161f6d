// Hyperscan engine: hits on real lines, kinds, per-line dedupe, line-spanning matches, captures,
// compile errors, cache round trip, scanners for other threads.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <thread>

#include "tag_test_util.hpp"

using faultline::tag::Engine;
using faultline::tag::RuleSet;
using tagtest::ids;
using tagtest::scan_all;

namespace {

std::unique_ptr<Engine> build(const RuleSet& rs, const std::filesystem::path& cache = {}) {
  std::string err;
  auto e = Engine::build(rs, cache, &err);
  INFO(err);
  REQUIRE(e);
  return e;
}

// Real lines (seeds, log-formats.md §4.2, §8.3, asys sample) as one chunk of complete lines.
const std::string kChunk =
    "[INFO] ATRACE(155320,python3):2025-05-08-09:56:08.124.468 [trace_attr.c:190](tid:155320) attr "
    "init success, timeout=0ms.\n"
    "Not support svm mem, because asan is opened or os not support mmap 8T\n"
    "Svm map va not fixed, vm_start=0x100000000000, vm_end=0x200000000000\n"
    "May  8 00:00:01 ubuntu78 systemd[1]: logrotate.service: Succeeded.\n"
    "RuntimeError: Communicator of group hccl_world_group inited: failed.\n"
    "Aug  1 08:38:31 localhost kernel: [ 1197.584409] [ascend] [ERROR] [drv_soft_fault] "
    "[heart_beat_judge 318] <kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; "
    "new_count=1104; lost_count=4; total_lost_count=4; total_10s_count=0; total_15s_count 0).\n";

}  // namespace

TEST_CASE("engine hits real lines and captures their values") {
  auto e = build(tagtest::test_rules());
  const auto found = scan_all(*e, kChunk, "");
  CHECK(ids(found) == std::vector<std::string>{"svm.not_support_svm_mem", "svm.map_va_not_fixed",
                                               "hccl.comm_init_failed", "driver.heartbeat_lost"});
  // Offsets point at the line holding the match.
  for (const auto& f : found) {
    REQUIRE(f.line_end <= kChunk.size());
    CHECK(kChunk[f.line_end] == '\n');
    CHECK((f.line_begin == 0 || kChunk[f.line_begin - 1] == '\n'));
    CHECK(f.end > f.line_begin);
    CHECK(f.end <= f.line_end);
  }
  const auto& svm = found[1];
  const std::string line = kChunk.substr(svm.line_begin, svm.line_end - svm.line_begin);
  CHECK(line == "Svm map va not fixed, vm_start=0x100000000000, vm_end=0x200000000000");
  CHECK(kChunk.substr(svm.line_begin, svm.end - svm.line_begin) == "Svm map va not fixed");
  const auto caps = e->captures(static_cast<uint32_t>(e->find("svm.map_va_not_fixed")), line);
  CHECK(caps == std::vector<std::pair<std::string, std::string>>{{"vm_end", "0x200000000000"},
                                                                 {"vm_start", "0x100000000000"}});
  const auto& hb = found[3];
  CHECK(e->captures(static_cast<uint32_t>(e->find("driver.heartbeat_lost")),
                    std::string_view(kChunk).substr(hb.line_begin, hb.line_end - hb.line_begin)) ==
        std::vector<std::pair<std::string, std::string>>{{"device", "1"}});
  // No capture pattern, or no match of it: no captures.
  CHECK(e->captures(static_cast<uint32_t>(e->find("svm.not_support_svm_mem")), line).empty());
  CHECK(e->captures(static_cast<uint32_t>(e->find("svm.map_va_not_fixed")), "Svm map va not fixed")
            .empty());
}

TEST_CASE("kind filtering keeps only signatures that apply to the member kind") {
  auto e = build(tagtest::test_rules());
  // plog: svm.map_va_not_fixed (lists plog), svm.not_support_svm_mem (no kinds), hccl (plog).
  CHECK(ids(scan_all(*e, kChunk, "plog")) == std::vector<std::string>{"svm.not_support_svm_mem",
                                                                      "svm.map_va_not_fixed",
                                                                      "hccl.comm_init_failed"});
  // syslog: the heartbeat signature applies, hccl does not.
  CHECK(ids(scan_all(*e, kChunk, "syslog")) == std::vector<std::string>{"svm.not_support_svm_mem",
                                                                        "svm.map_va_not_fixed",
                                                                        "driver.heartbeat_lost"});
  // A kind no signature names: only the kind-less ones.
  CHECK(ids(scan_all(*e, kChunk, "npu_smi_info")) ==
        std::vector<std::string>{"svm.not_support_svm_mem"});
  // Binary members: nothing unless a signature names "binary".
  CHECK(scan_all(*e, kChunk, "binary").empty());
}

TEST_CASE("a signature is reported once per line") {
  auto e = build(tagtest::test_rules());
  // Two matches of one pattern on one line, and two patterns of one signature on one line.
  const std::string chunk =
      "Svm map va not fixed, vm_start=0x1; Svm map va not fixed, vm_start=0x2\n"
      "[ERROR]HCCL(835695,all_reduce_test):2025-10-23-17:28:06.049.385[task_exception_handler.cc:"
      "610][835695][TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[127.10.0.1/"
      "1], Arrival Time:[Thu Oct 23 17:25:58 2025], Discoverer:[127.10.0.1/2], "
      "ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited, 2. Network "
      "Disconnected\n"
      "Svm map va not fixed, vm_start=0x3\n";
  const auto found = scan_all(*e, chunk, "plog");
  CHECK(ids(found) == std::vector<std::string>{"svm.map_va_not_fixed", "hccl.heartbeat_abnormal",
                                               "svm.map_va_not_fixed"});
  // The first match on the line is the one reported.
  CHECK(found[0].end == std::string("Svm map va not fixed").size());
  // A line without a trailing newline at the chunk end still counts.
  const auto last = scan_all(*e, "Svm map va not fixed", "plog");
  REQUIRE(last.size() == 1);
  CHECK(last[0].line_end == std::string("Svm map va not fixed").size());
}

TEST_CASE("a match spanning two lines is not a hit") {
  auto e = build(tagtest::test_rules());
  // hccl.comm_init_failed uses `inited:\s*failed`; \s also matches the newline.
  const std::string chunk =
      "RuntimeError: Communicator of group hccl_world_group inited:\n"
      "failed to parse the rank table\n";
  CHECK(scan_all(*e, chunk, "train_log").empty());
  const std::string ok = chunk + "RuntimeError: Communicator of group g1 inited: failed.\n";
  const auto found = scan_all(*e, ok, "train_log");
  REQUIRE(found.size() == 1);
  CHECK(found[0].line_begin == chunk.size());
}

TEST_CASE("caseless flag applies to Hyperscan and to the capture pattern") {
  auto e = build(tagtest::test_rules());
  const std::string line =
      "[ 1197.584409] [ascend] [ERROR] [DRV_SOFT_FAULT] [heart_beat_judge 318] "
      "<kworker/5:1H:39365> "
      "HEARTBEAT LOST! (device=3; old_count=1104)";
  const auto found = scan_all(*e, line, "dmesg");
  REQUIRE(ids(found) == std::vector<std::string>{"driver.heartbeat_lost"});
  CHECK(e->captures(static_cast<uint32_t>(e->find("driver.heartbeat_lost")), line) ==
        std::vector<std::pair<std::string, std::string>>{{"device", "3"}});
}

TEST_CASE("deprecated signatures stay listed but never hit") {
  auto e = build(tagtest::test_rules());
  const int64_t idx = e->find("driver.old_heartbeat_text");
  REQUIRE(idx >= 0);
  CHECK(e->signatures()[static_cast<size_t>(idx)].status == "deprecated");
  CHECK(scan_all(*e, "Device heart beat lost, stop all msg send. (udevid=3)\n", "dmesg").empty());
  CHECK(e->build_info().patterns == 6);  // 7 patterns, the deprecated one left out
}

TEST_CASE("a pattern Hyperscan rejects fails the build naming id, file and line") {
  RuleSet rs = tagtest::test_rules();
  auto it = std::find_if(rs.signatures.begin(), rs.signatures.end(),
                         [](const auto& s) { return s.id == "hccl.heartbeat_abnormal"; });
  REQUIRE(it != rs.signatures.end());
  it->patterns[1] = "(Heartbeat)\\1";  // back-references are not supported by Hyperscan
  std::string err;
  CHECK_FALSE(Engine::build(rs, {}, &err));
  INFO(err);
  CHECK(err.find("signatures/hccl.yaml:" + std::to_string(it->pattern_lines[1]) +
                 ": hccl.heartbeat_abnormal") != std::string::npos);
  CHECK(err.find("(Heartbeat)\\1") != std::string::npos);

  it->patterns[1] = "\\[TaskExecStage\\]";
  it->capture = "(?<location>[";
  CHECK_FALSE(Engine::build(rs, {}, &err));
  CHECK(err.find("signatures/hccl.yaml:" + std::to_string(it->capture_line) +
                 ": hccl.heartbeat_abnormal: capture pattern") != std::string::npos);
}

TEST_CASE("the compiled database is cached and reloaded") {
  const auto dir = tagtest::temp_dir("cache");
  const RuleSet rs = tagtest::test_rules();
  auto first = build(rs, dir);
  CHECK_FALSE(first->build_info().from_cache);
  CHECK(first->build_info().cache_warning.empty());
  const auto file = first->build_info().cache_file;
  CHECK(file.parent_path() == dir);
  CHECK(file.extension() == ".hsdb");
  REQUIRE(std::filesystem::exists(file));
  CHECK(std::filesystem::file_size(file) > 40);

  auto second = build(rs, dir);
  CHECK(second->build_info().from_cache);
  CHECK(second->build_info().cache_file == file);
  const auto a = scan_all(*first, kChunk, "syslog");
  const auto b = scan_all(*second, kChunk, "syslog");
  CHECK(ids(a) == ids(b));
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) CHECK(a[i].end == b[i].end);
  CHECK(!a.empty());

  // Another pattern text means another cache file.
  RuleSet changed = rs;
  changed.signatures[0].patterns[0] += " ";
  auto third = build(changed, dir);
  CHECK_FALSE(third->build_info().from_cache);
  CHECK(third->build_info().cache_file != file);

  // A corrupt cache file is detected, replaced, and scanning still works.
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(60);
    f.write("garbage!", 8);
  }
  auto fourth = build(rs, dir);
  CHECK_FALSE(fourth->build_info().from_cache);
  CHECK(fourth->build_info().cache_warning.find("corrupt") != std::string::npos);
  CHECK(ids(scan_all(*fourth, kChunk, "syslog")) == ids(a));
  auto fifth = build(rs, dir);
  CHECK(fifth->build_info().from_cache);
  // One byte in the middle of the compiled bytecode: Hyperscan's own CRC32C refuses it (the
  // loader relies on that and does not hash the file itself).
  {
    const auto size = std::filesystem::file_size(file);
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(size / 2));
    char c = 0;
    f.get(c);
    f.seekp(static_cast<std::streamoff>(size / 2));
    f.put(static_cast<char>(c ^ 0x5a));
  }
  auto damaged = build(rs, dir);
  CHECK_FALSE(damaged->build_info().from_cache);
  CHECK(damaged->build_info().cache_warning.find("corrupt") != std::string::npos);
  CHECK(ids(scan_all(*damaged, kChunk, "syslog")) == ids(a));
  CHECK(build(rs, dir)->build_info().from_cache);  // rewritten whole

  // A truncated file too.
  std::filesystem::resize_file(file, 20);
  auto sixth = build(rs, dir);
  CHECK_FALSE(sixth->build_info().from_cache);
  CHECK(ids(scan_all(*sixth, kChunk, "syslog")) == ids(a));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the cache stays bounded: old databases of other rules are removed, in-use ones kept") {
  namespace fs = std::filesystem;
  using faultline::tag::kCacheKeep;
  using faultline::tag::kCacheMaxAge;
  const auto dir = tagtest::temp_dir("cache_prune");
  const auto now = fs::file_time_type::clock::now();
  auto fake = [&](const std::string& name, fs::file_time_type when) {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << "FLHSDB01 from another build";
    fs::last_write_time(p, when);
    return p;
  };
  // Databases of other rule sets: two unused for longer than the limit, and more recent ones than
  // are kept (used 1..kCacheKeep+3 hours ago). A writer that died left a temporary file a day ago;
  // another process is writing one right now. A file that is no database is left alone.
  const fs::path stale1 =
      fake(std::string(64, 'a') + ".hsdb", now - kCacheMaxAge - std::chrono::hours(1));
  const fs::path stale2 = fake(std::string(64, 'b') + ".hsdb", now - kCacheMaxAge * 2);
  std::vector<fs::path> recent;
  for (size_t i = 0; i < kCacheKeep + 3; ++i)
    recent.push_back(
        fake(std::string(63, 'c') + std::to_string(i % 10) + std::to_string(i) + ".hsdb",
             now - std::chrono::hours(1 + i)));
  const fs::path dead_tmp = fake("x.hsdb.tmp.1234.5678", now - std::chrono::hours(24));
  const fs::path live_tmp = fake("y.hsdb.tmp.4321.8765", now);
  const fs::path other = fake("notes.txt", now - kCacheMaxAge * 3);

  auto e = build(tagtest::test_rules(), dir);
  REQUIRE_FALSE(e->build_info().from_cache);
  const fs::path mine = e->build_info().cache_file;
  CHECK(fs::exists(mine));
  CHECK_FALSE(fs::exists(stale1));
  CHECK_FALSE(fs::exists(stale2));
  for (size_t i = 0; i < recent.size(); ++i) {
    INFO(i);
    CHECK(fs::exists(recent[i]) == (i < kCacheKeep));  // the most recently used are kept
  }
  CHECK_FALSE(fs::exists(dead_tmp));
  CHECK(fs::exists(live_tmp));
  CHECK(fs::exists(other));

  // Loading a database marks it used: an old but loaded database survives the next prune.
  fs::last_write_time(mine, now - kCacheMaxAge - std::chrono::hours(2));
  auto again = build(tagtest::test_rules(), dir);
  REQUIRE(again->build_info().from_cache);
  CHECK(fs::last_write_time(mine) > now - std::chrono::hours(1));
  fs::remove_all(dir);
}

TEST_CASE("an unwritable cache directory falls back to compiling") {
  const auto dir = tagtest::temp_dir("cache_file");
  const auto not_a_dir = dir / "plain_file";
  std::ofstream(not_a_dir) << "x";
  auto e = build(tagtest::test_rules(), not_a_dir);
  CHECK_FALSE(e->build_info().from_cache);
  CHECK_FALSE(e->build_info().cache_warning.empty());
  CHECK(ids(scan_all(*e, kChunk, "")).size() == 4);
  std::filesystem::remove_all(dir);
}

TEST_CASE("PCRE2 limits stop a catastrophic capture pattern") {
  RuleSet rs = tagtest::test_rules();
  auto it = std::find_if(rs.signatures.begin(), rs.signatures.end(),
                         [](const auto& s) { return s.id == "svm.not_support_svm_mem"; });
  REQUIRE(it != rs.signatures.end());
  it->patterns = {"aaaa"};
  it->capture = "^(?<x>(a|a)+)$";  // exponential backtracking when the line ends in another byte
  auto e = build(rs);
  const auto sig = static_cast<uint32_t>(e->find("svm.not_support_svm_mem"));
  const std::string line = std::string(5000, 'a') + "!";
  REQUIRE(ids(scan_all(*e, line, "")) == std::vector<std::string>{"svm.not_support_svm_mem"});
  CHECK(e->captures(sig, line).empty());
  const std::string short_line = std::string(40, 'a') + "!";
  CHECK(e->captures(sig, short_line).empty());
  // The same pattern still captures when it can match.
  CHECK(e->captures(sig, "aaaaaa") ==
        std::vector<std::pair<std::string, std::string>>{{"x", "aaaaaa"}});
}

TEST_CASE("scanners made for other threads give the engine's hits") {
  auto e = build(tagtest::test_rules());
  const auto want = ids(scan_all(*e, kChunk, "syslog"));
  REQUIRE(want.size() == 3);
  std::vector<int> same(2, 0);  // rounds whose hits equal `want`, per thread
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      auto sc = e->scanner();
      if (!sc) return;
      for (int round = 0; round < 50; ++round) {
        std::vector<std::string> v;
        sc->scan(kChunk, "syslog", [&](const faultline::tag::Hit& h) {
          v.push_back(e->signatures()[h.signature].id);
        });
        if (v == want) ++same[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(same[0] == 50);
  CHECK(same[1] == 50);
}

TEST_CASE("an empty rule set builds an engine that never hits") {
  auto e = build(RuleSet{});
  CHECK(scan_all(*e, kChunk, "").empty());
  auto sc = e->scanner();
  REQUIRE(sc);
  int n = 0;
  sc->scan(kChunk, "", [&](const faultline::tag::Hit&) { ++n; });
  CHECK(n == 0);
}
