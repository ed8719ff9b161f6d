// bench_tag: throughput of the tag engine on a deterministic Ascend-like corpus.
//
//   bench_tag gen FILE [--mb N] [--rules DIR]
//       writes ~N MB (default 200) of plog / device-os / firmware / host_kernel / syslog / dmesg
//       lines in the shapes of the real asys sample, ~4% WARNING/ERROR, plus a few hundred
//       lines that hit signatures (the match examples of the rule set, injected evenly).
//   bench_tag scan FILE [--rules DIR] [--threads N] [--rounds R] [--patterns-out FILE]
//       builds the engine (no cache), scans FILE in 1 MiB whole-line chunks (every signature,
//       no kind filter, like `rg -f`), prints MB/s (median of R rounds), hits and matching lines.
//       --patterns-out writes the active patterns one per line for `rg -f` ((?i) if caseless).
//
// --rules DIR is a rules root (holding signatures/); default: the source tree's rules/ when it
// has signatures, else tests/tag/data/rules (test-only packs).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "faultline/core/rules.hpp"
#include "faultline/tag/tag.hpp"

namespace fs = std::filesystem;
using faultline::tag::Engine;
using faultline::tag::RuleSet;

namespace {

// xorshift64*: deterministic across standard libraries (std distributions are not).
struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ULL;
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
};

fs::path default_rules() {
  const fs::path src = FAULTLINE_SOURCE_DIR;
  if (fs::is_directory(src / "rules" / "signatures")) return src / "rules";
  return src / "tests" / "tag" / "data" / "rules";
}

RuleSet load(const fs::path& dir) {
  RuleSet rs = faultline::tag::load_signatures(
      faultline::rules_under(faultline::read_rule_dir(dir), "signatures/"));
  for (const auto& e : rs.errors) std::cerr << "rule error: " << e << "\n";
  return rs;
}

// Clock stamp helpers.
void stamp_plog(char* buf, size_t n, uint64_t t) {
  const unsigned ms = static_cast<unsigned>(t % 1000), s = static_cast<unsigned>((t / 1000) % 60),
                 m = static_cast<unsigned>((t / 60000) % 60),
                 h = static_cast<unsigned>((t / 3600000) % 24);
  std::snprintf(buf, n, "2025-05-08-%02u:%02u:%02u.%03u.%03u", h, m, s, ms,
                static_cast<unsigned>((t * 7) % 1000));
}

// host_kernel.log: [YYYY-MM-DD-hh:mm:ss.uuuuuu]
void stamp_hk(char* buf, size_t n, uint64_t t) {
  std::snprintf(buf, n, "2025-05-08-%02u:%02u:%02u.%06u", static_cast<unsigned>(t / 3600000 % 24),
                static_cast<unsigned>(t / 60000 % 60), static_cast<unsigned>(t / 1000 % 60),
                static_cast<unsigned>((t % 1000) * 1000 + (t * 7) % 1000));
}

std::string gen_line(Rng& r, uint64_t t, const std::string& host) {
  char ts[64], hk[64];
  stamp_plog(ts, sizeof ts, t);
  stamp_hk(hk, sizeof hk, t);
  char out[640];
  const uint32_t pid = 155320 + r.below(8);
  const uint32_t pick = r.below(1000);
  const bool bad = pick < 40;  // ~4% WARNING/ERROR
  const uint32_t shape = r.below(8);
  const unsigned up_s = static_cast<unsigned>(t / 1000 % 90000);
  const unsigned up_us = static_cast<unsigned>((t * 13) % 1000000);
  if (bad) {
    switch (r.below(5)) {
      case 0:
        std::snprintf(out, sizeof out,
                      "[WARNING] TDT(4866,tsdaemon):%s [hdc_common.cpp:247][RecvMsg][tid:%u] "
                      "[TsdEVENT] GetHdcSession not success ret[8]",
                      ts, 28000 + r.below(200));
        break;
      case 1:
        std::snprintf(out, sizeof out,
                      "[ERROR] TSCH(-1,null):%s %u (dieid:0,cpuid:0) [stars_adapter_base.c:228] "
                      "stars_dump_sqe: stream_id=%u, task_id=%u, sqe_type=0",
                      ts, 2121 + r.below(100000), r.below(64), r.below(4096));
        break;
      case 2:
        std::snprintf(out, sizeof out,
                      "[%s] [ascend] [devdrv] [WARN] [devdrv_manager_device_ready 4476] "
                      "<kworker/12:2:3753,3753> Device is not ready. (dev_id=%u)",
                      hk, 100 + r.below(8));
        break;
      case 3:
        std::snprintf(out, sizeof out,
                      "[WARNING] TDT(4866,tsdaemon):%s [hdc_server.cpp:171][RecvData][tid:%u] recv "
                      "no msg by hdc down, sessionId[%u], deviceId[0]",
                      ts, 28000 + r.below(200), r.below(16));
        break;
      default:
        std::snprintf(out, sizeof out,
                      "[%s] [ascend] [devdrv] [WARN] [devdrv_query_process_host_pids_by_pid 1032] "
                      "<python3:%u,%u> Can't find cp_pid in hashtable. (pid=%u)",
                      hk, pid, pid, pid + r.below(100));
        break;
    }
    return out;
  }
  switch (shape) {
    case 0:
      std::snprintf(out, sizeof out,
                    "[INFO] RUNTIME(%u,python3):%s [task_fail_callback_data_manager.cc:58] %u "
                    "TaskFailCallBackManager: Constructor.",
                    pid, ts, pid);
      break;
    case 1:
      std::snprintf(out, sizeof out,
                    "[INFO] GE(%u,python3):%s [gelib.cc:244]%u InnerInitialize:[GEPERFTRACE] The "
                    "time cost of InnerInitialize::EngineInitialize is [%u] micro seconds.",
                    pid, ts, pid, r.below(200000));
      break;
    case 2:
      std::snprintf(out, sizeof out,
                    "[INFO] TDT(4866,tsdaemon):%s [tsd_common.cpp:3369][DoSetThreadSchedMode][tid:"
                    "%u] set all thread to fifo begin deviceid:0,vfid:0,sessId:%u,fmkPid:%u,"
                    "aicpuPid:1179,threadCnt:6",
                    ts, 1198 + r.below(8), r.below(100), 98209 + r.below(50));
      break;
    case 3:
      std::snprintf(out, sizeof out,
                    "[INFO] TSCH(-1,null):1970-01-01-00:00:%02u.%06u %u (dieid:0,cpuid:0) "
                    "[stars_aic_util.c:75] stars_freq_sharemem_timeout_call_back: timer_count=%u",
                    up_s % 60, up_us, 2121 + r.below(100000), r.below(50));
      break;
    case 4:
      std::snprintf(out, sizeof out,
                    "[%s] [ascend] [devmm] [INFO] [devmm_svm_release_proc 617] "
                    "<davinci_recycle:%u,%u> Devmm release create work. (hostpid=%u)",
                    hk, 42400 + r.below(100), 42400 + r.below(100), pid);
      break;
    case 5:
      std::snprintf(out, sizeof out,
                    "May  8 %02u:%02u:%02u %s kernel: [%5u.%06u] [ascend] [ts_agent] "
                    "[tsagent_device_init 1315] <vdavinci_tool:%u,%u> tsagent device init, "
                    "devid=%u, tsid=0, phy_addr=0x39c42708000, size=0x800.",
                    static_cast<unsigned>(t / 3600000 % 24), static_cast<unsigned>(t / 60000 % 60),
                    static_cast<unsigned>(t / 1000 % 60), host.c_str(), up_s, up_us,
                    5131 + r.below(10), 5131 + r.below(10), 100 + r.below(8));
      break;
    case 6:
      std::snprintf(out, sizeof out,
                    "[%5u.%06u] [ascend] [devmm] [devmm_alloc_svm_proc_set_to_file 662] "
                    "<main:%u,%u> Devmm_set_porcess details. (status=0; proc_idx=%u)",
                    up_s, up_us, 42394 + r.below(20), 42394 + r.below(20), r.below(16));
      break;
    default:
      std::snprintf(out, sizeof out,
                    "[INFO] ASCENDCL(%u,python3):%s [resource_statistics.cpp:113]%u "
                    "TraverseStatistics: The ResourceType:ACL_STATISTICS_CREATE_DESTROY_PROF_CONFIG"
                    ", applyTotal = %u, applySucc = %u, releaseTotal = 0, releaseSucc = 0",
                    pid, ts, pid, r.below(10), r.below(10));
      break;
  }
  return out;
}

int cmd_gen(const fs::path& file, double mb, const fs::path& rules) {
  const RuleSet rs = load(rules);
  std::vector<std::string> inject;
  for (const auto& s : rs.signatures)
    if (s.active())
      for (const auto& ex : s.match) inject.push_back(ex.line);
  const uint64_t target = static_cast<uint64_t>(mb * 1e6);
  // ~150 bytes per line: a few hundred injected lines in total.
  const uint64_t lines_est = target / 150;
  const uint64_t every = inject.empty() ? 0 : std::max<uint64_t>(1000, lines_est / 400);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) {
    std::cerr << file << ": cannot write\n";
    return 3;
  }
  Rng r{0x5eedfa17u};
  uint64_t bytes = 0, n = 0, injected = 0, t = 0;
  std::string buf;
  buf.reserve(1 << 20);
  while (bytes < target) {
    t += 1 + r.below(40);
    std::string line;
    if (every && n % every == every / 2) {
      line = inject[injected++ % inject.size()];
    } else {
      line = gen_line(r, t, "ubuntu78");
    }
    buf += line;
    buf.push_back('\n');
    bytes += line.size() + 1;
    ++n;
    if (buf.size() > (1 << 20) - 1024) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  std::cout << "wrote " << file.string() << ": " << bytes << " bytes, " << n << " lines, "
            << injected << " injected signature lines\n";
  return out ? 0 : 3;
}

struct Chunk {
  size_t begin, end;
};

std::vector<Chunk> chunks_of(const char* data, size_t size) {
  constexpr size_t kChunk = 1 << 20;
  std::vector<Chunk> out;
  size_t off = 0;
  while (off < size) {
    size_t end = std::min(size, off + kChunk);
    if (end < size) {
      const void* nl = memrchr(data + off, '\n', end - off);
      if (nl) {
        end = static_cast<size_t>(static_cast<const char*>(nl) - data) + 1;
      } else {
        const void* fwd = std::memchr(data + end, '\n', size - end);
        end = fwd ? static_cast<size_t>(static_cast<const char*>(fwd) - data) + 1 : size;
      }
    }
    out.push_back({off, end});
    off = end;
  }
  return out;
}

int cmd_scan(const fs::path& file, const fs::path& rules, int threads, int rounds,
             const fs::path& patterns_out) {
  const RuleSet rs = load(rules);
  const auto t0 = std::chrono::steady_clock::now();
  std::string err;
  auto engine = Engine::build(rs, {}, &err);
  if (!engine) {
    std::cerr << err << "\n";
    return 2;
  }
  const double compile_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!patterns_out.empty()) {
    std::ofstream p(patterns_out, std::ios::trunc);
    for (const auto& s : rs.signatures)
      if (s.active())
        for (const auto& pat : s.patterns) p << (s.caseless ? "(?i)" : "") << pat << "\n";
  }
  const int fd = ::open(file.c_str(), O_RDONLY);
  if (fd < 0) {
    std::perror(file.c_str());
    return 3;
  }
  struct stat st {};
  ::fstat(fd, &st);
  const auto size = static_cast<size_t>(st.st_size);
  void* map = size ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : nullptr;
  ::close(fd);
  if (size && map == MAP_FAILED) {
    std::perror("mmap");
    return 3;
  }
  const char* data = static_cast<const char*>(map);
  const auto chunks = chunks_of(data, size);

  std::vector<std::unique_ptr<faultline::tag::Scanner>> scanners;
  for (int i = 0; i < threads; ++i) scanners.push_back(engine->scanner());
  std::vector<double> rates;
  uint64_t hits = 0, lines = 0;
  for (int round = 0; round < rounds; ++round) {
    std::atomic<size_t> next{0};
    std::atomic<uint64_t> nhits{0}, nlines{0};
    const auto a = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) {
      pool.emplace_back([&, i] {
        uint64_t h = 0, l = 0;
        for (size_t c; (c = next.fetch_add(1)) < chunks.size();) {
          const Chunk& ch = chunks[c];
          size_t last_line = SIZE_MAX;
          scanners[static_cast<size_t>(i)]->scan(
              std::string_view(data + ch.begin, ch.end - ch.begin), "",
              [&](const faultline::tag::Hit& hit) {
                ++h;
                if (hit.line_begin != last_line) {
                  // hits come in end order; a line's hits are adjacent
                  ++l;
                  last_line = hit.line_begin;
                }
              });
        }
        nhits += h;
        nlines += l;
      });
    }
    for (auto& t : pool) t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
    rates.push_back(static_cast<double>(size) / 1e6 / s);
    hits = nhits;
    lines = nlines;
  }
  std::sort(rates.begin(), rates.end());
  const double median = rates[rates.size() / 2];
  size_t npat = 0, nsig = 0;
  for (const auto& s : rs.signatures)
    if (s.active()) {
      ++nsig;
      npat += s.patterns.size();
    }
  std::printf(
      "tag: %zu signatures, %zu patterns, compile %.3f s, %zu chunks, %d thread(s): %.0f MB/s "
      "(median of %d), %llu hits on %llu lines\n",
      nsig, npat, compile_s, chunks.size(), threads, median, rounds,
      static_cast<unsigned long long>(hits), static_cast<unsigned long long>(lines));
  std::printf("MBPS %.1f\nLINES %llu\n", median, static_cast<unsigned long long>(lines));
  if (map) ::munmap(map, size);
  return 0;
}

int usage() {
  std::cerr << "usage: bench_tag gen FILE [--mb N] [--rules DIR]\n"
               "       bench_tag scan FILE [--rules DIR] [--threads N] [--rounds R] "
               "[--patterns-out FILE]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string cmd = argv[1];
  const fs::path file = argv[2];
  fs::path rules = default_rules(), patterns_out;
  double mb = 200;
  int threads = 1, rounds = 3;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--mb")
      mb = std::stod(val());
    else if (a == "--rules")
      rules = val();
    else if (a == "--threads")
      threads = std::max(1, std::stoi(val()));
    else if (a == "--rounds")
      rounds = std::max(1, std::stoi(val()));
    else if (a == "--patterns-out")
      patterns_out = val();
    else
      return usage();
  }
  try {
    if (cmd == "gen") return cmd_gen(file, mb, rules);
    if (cmd == "scan") return cmd_scan(file, rules, threads, rounds, patterns_out);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 3;
  }
  return usage();
}
