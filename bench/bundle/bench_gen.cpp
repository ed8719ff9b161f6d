// bench_gen: deterministic, realistic Ascend support bundles for the end-to-end benchmark.
//
//   bench_gen bundle DIR [--size 1G] [--hits 300] [--seed N] [--host NAME] [--devices 8]
//                        [--profile mix|plog]
//       writes one asys-style bundle tree (dfx/log/host/..., dfx/log/device/dev-os-N/...) of
//       about SIZE bytes of text under DIR: plogs, host-side device app logs, device OS logs,
//       firmware (TSCH) logs, event logs, device syslog, slogd, host_kernel.log, dmesg, syslog and
//       ascend_install.log. Every line is a real line of the corpus of the same kind with a fresh
//       timestamp and some of its numbers redrawn; ~4% are WARNING/ERROR lines; HITS lines are
//       signature match examples (of signatures that apply to the member's kind) spread over the
//       bundle in proportion to the bytes. Corpus lines that hit a signature are left out of the
//       pools, so the injected lines are the only signature hits. --profile plog: mostly plogs
//       and training console logs (train_log lines come from a corpus holding rank/worker/train
//       logs, e.g. `--corpus <real> --corpus samples`), as in real training-job bundles.
//   bench_gen fleet DIR [--nodes 200] [--node-size 2M] [--hits 4] [--seed N] [--devices 8]
//       writes DIR/node-NNN/ trees, one small bundle per node (host name node-NNN).
//   bench_gen patterns FILE
//       writes the active signature patterns one per line for `rg -f` ((?i) when caseless).
//
// Common options: --corpus DIR (real corpus root; default FAULTLINE_CORPUS_DIR; repeatable: the
// first replaces the default, more add to the line pools), --corpus-add DIR (one more corpus
// next to the default), --rules DIR
// (rules root with signatures/; default: the rules embedded in faultline).
// The same arguments give the same bytes on every run and machine (own xorshift generator, no
// std distributions, no clock).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "faultline/core/rules.hpp"
#include "faultline/tag/tag.hpp"

namespace fs = std::filesystem;
using faultline::tag::RuleSet;

namespace {

struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ULL;
  }
  uint32_t below(uint32_t n) { return n == 0 ? 0 : static_cast<uint32_t>(next() % n); }
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// ---- timestamps -----------------------------------------------------------------------------

enum class Style : uint8_t { none, iso, syslog, uptime };

// A line of the corpus with the place of its timestamp and of the numbers that may be redrawn.
struct Template {
  std::string text;
  Style style = Style::none;
  uint16_t ts_pos = 0, ts_len = 0;
  char date_time_sep = '-';     // iso: '-' (2025-05-08-09:56:18) or ' ' (2025-05-07 19:54:54)
  uint8_t frac[3] = {0, 0, 0};  // iso: digits of each fraction group (.522.534 -> 3,3)
  std::vector<std::pair<uint16_t, uint8_t>> numbers;  // (pos, len) after the timestamp
  std::vector<uint16_t> pid_pos;  // occurrences of the corpus host pid (plog files use their own)
};

constexpr std::string_view kCorpusPid = "155320";
constexpr std::string_view kCorpusHost = "ubuntu78";

bool digits_at(std::string_view s, size_t p, size_t n) {
  if (p + n > s.size()) return false;
  for (size_t i = 0; i < n; ++i)
    if (!is_digit(s[p + i])) return false;
  return true;
}

void find_timestamp(Template& t) {
  const std::string_view s = t.text;
  // syslog: "May  8 00:00:01 " at the start
  if (s.size() > 16 && std::isupper(static_cast<unsigned char>(s[0])) && s[3] == ' ' &&
      (s[4] == ' ' || is_digit(s[4])) && is_digit(s[5]) && s[6] == ' ' && digits_at(s, 7, 2) &&
      s[9] == ':' && digits_at(s, 10, 2) && s[12] == ':' && digits_at(s, 13, 2)) {
    t.style = Style::syslog;
    t.ts_pos = 0;
    t.ts_len = 15;
    return;
  }
  // YYYY-MM-DD[- ]hh:mm:ss(.fff)* within the first 120 bytes
  const size_t lim = std::min<size_t>(s.size(), 120);
  for (size_t p = 0; p + 19 <= lim; ++p) {
    if (!digits_at(s, p, 4) || s[p + 4] != '-' || !digits_at(s, p + 5, 2) || s[p + 7] != '-' ||
        !digits_at(s, p + 8, 2) || (s[p + 10] != '-' && s[p + 10] != ' ') ||
        !digits_at(s, p + 11, 2) || s[p + 13] != ':' || !digits_at(s, p + 14, 2) ||
        s[p + 16] != ':' || !digits_at(s, p + 17, 2))
      continue;
    if (p > 0 && is_digit(s[p - 1])) continue;
    t.style = Style::iso;
    t.ts_pos = static_cast<uint16_t>(p);
    t.date_time_sep = s[p + 10];
    size_t e = p + 19;
    for (int g = 0; g < 3 && e + 1 < s.size() && s[e] == '.' && is_digit(s[e + 1]); ++g) {
      size_t n = 0;
      while (e + 1 + n < s.size() && is_digit(s[e + 1 + n])) ++n;
      if (n > 6) break;
      t.frac[g] = static_cast<uint8_t>(n);
      e += 1 + n;
    }
    t.ts_len = static_cast<uint16_t>(e - p);
    return;
  }
}

void find_numbers(Template& t) {
  const std::string_view s = t.text;
  for (size_t p = 0; p < s.size(); ++p) {
    const size_t q = s.find(kCorpusPid, p);
    if (q == std::string_view::npos) break;
    t.pid_pos.push_back(static_cast<uint16_t>(q));
    p = q;
  }
  size_t p = t.style == Style::none ? 0 : size_t{t.ts_pos} + t.ts_len;
  while (p < s.size() && t.numbers.size() < 8) {
    if (!is_digit(s[p])) {
      ++p;
      continue;
    }
    size_t n = 0;
    while (p + n < s.size() && is_digit(s[p + n])) ++n;
    // ids, counters, addresses; small numbers (device ids, levels) stay as they are
    if (n >= 3 && n <= 12 && s.substr(p, n) != kCorpusPid)
      t.numbers.emplace_back(static_cast<uint16_t>(p), static_cast<uint8_t>(n));
    p += n;
  }
}

// days since 1970-01-01 -> civil (Howard Hinnant's algorithm)
void civil(int64_t days, int& y, unsigned& m, unsigned& d) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int>(yoe + era * 400 + (m <= 2 ? 1 : 0));
}

constexpr int64_t kBaseEpochMs = 1746662400000LL;  // 2025-05-08 00:00:00 (host-local)
constexpr int64_t kBootEpochMs = 1746600000000LL;  // uptime origin for dmesg lines

void put_time(std::string& out, const Template& t, int64_t ms, uint32_t sub_us) {
  char buf[64];
  int n = 0;
  if (t.style == Style::uptime) {
    const int64_t up_ms = ms - kBootEpochMs;
    n = std::snprintf(buf, sizeof buf, "%5lld.%06u", static_cast<long long>(up_ms / 1000),
                      static_cast<unsigned>(up_ms % 1000) * 1000 + sub_us % 1000);
    out.append(buf, static_cast<size_t>(n));
    return;
  }
  const int64_t secs = ms / 1000;
  int y;
  unsigned mo, d;
  civil(secs / 86400, y, mo, d);
  const auto sod = static_cast<unsigned>(secs % 86400);
  if (t.style == Style::syslog) {
    static const char* const kMon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    n = std::snprintf(buf, sizeof buf, "%s %2u %02u:%02u:%02u", kMon[mo - 1], d, sod / 3600,
                      sod / 60 % 60, sod % 60);
    out.append(buf, static_cast<size_t>(n));
    return;
  }
  n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02u%c%02u:%02u:%02u", y, mo, d, t.date_time_sep,
                    sod / 3600, sod / 60 % 60, sod % 60);
  out.append(buf, static_cast<size_t>(n));
  // fraction: the first digits of the microsecond-resolution sub-second value, in groups
  char frac[16];
  std::snprintf(frac, sizeof frac, "%03u%03u000", static_cast<unsigned>(ms % 1000), sub_us % 1000);
  size_t used = 0;
  for (const uint8_t g : t.frac) {
    if (g == 0) break;
    out.push_back('.');
    out.append(frac + used, std::min<size_t>(g, 9 - used));
    used = std::min<size_t>(used + g, 9);
  }
}

// ---- pools of corpus lines per kind ---------------------------------------------------------

struct Pool {
  std::vector<Template> normal, bad;
};

bool is_bad(std::string_view s) {
  for (std::string_view k :
       {"[ERROR", "[WARN", "[ERR]", "kern.err", "kern.warn", "kern.crit", "[CRIT", "[FATAL"})
    if (s.find(k) != std::string_view::npos) return true;
  return false;
}

// The kind a corpus file stands for (the asys layout of the real sample).
std::string corpus_kind(const std::string& p) {
  auto has = [&](std::string_view k) { return p.find(k) != std::string::npos; };
  if (has("/plog/")) return "plog";
  if (has("/host/cann/") && has("/device-")) return "device_app_log";
  if (has("/application/") && has("/device-app-")) return "device_app_log";
  if (has("/device-os/")) return "device_os_log";
  if (has("/firmware/")) return "device_fw_log";
  if (has("/event/event_")) return "device_event_log";
  if (has("/system/message/messages")) return "device_syslog";
  if (has("slogdlog")) return "slogd_log";
  if (has("host_kernel.log")) return "host_kernel_log";
  if (has("/host/message/syslog")) return "syslog";
  if (has("ascend_install.log")) return "install_log";
  // training / serving console logs (rules/classify/kinds.yaml train_log: rank-N.txt,
  // worker_N.log, train*.log, stdout ...), e.g. the samples' msrun and torch logs
  const std::string name = p.substr(p.rfind('/') + 1);
  for (std::string_view k : {"train", "rank", "worker", "stdout", "console"})
    if (name.rfind(k, 0) == 0 && (name.ends_with(".log") || name.ends_with(".txt")))
      return "train_log";
  return "";
}

std::map<std::string, Pool> load_pools(const std::vector<fs::path>& corpora,
                                       const faultline::tag::Engine& eng, size_t* dropped) {
  std::map<std::string, Pool> pools;
  std::vector<fs::path> files;
  for (const auto& corpus : corpora)
    for (const auto& e : fs::recursive_directory_iterator(corpus))
      if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const std::string kind = corpus_kind(f.generic_string());
    if (kind.empty()) continue;
    std::ifstream in(f, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty() || line.size() > 4000) continue;
      bool hit = false;
      eng.scan(line, "", [&](const faultline::tag::Hit&) { hit = true; });
      if (hit) {
        ++*dropped;
        continue;
      }
      for (const std::string& k : kind == "host_kernel_log"
                                      ? std::vector<std::string>{kind, "dmesg"}
                                      : std::vector<std::string>{kind}) {
        Template t;
        t.text = line;
        find_timestamp(t);
        if (k == "dmesg") {
          // dmesg: the same driver lines with the kernel's uptime prefix instead of the wall clock
          if (t.style != Style::iso || t.ts_pos != 1) continue;
          t.style = Style::uptime;
        }
        find_numbers(t);
        (is_bad(line) ? pools[k].bad : pools[k].normal).push_back(std::move(t));
      }
    }
  }
  // The signature catalog covers most WARNING/ERROR lines of the corpus (they were left out
  // above): kinds with few left get more by raising the level of their own INFO lines
  // ("[INFO]" -> "[WARNING]"/"[ERROR]", "[WARN]"/"[ERROR]" in kernel lines, "kern.info" ->
  // "kern.warn"/"kern.err"), which keeps each kind's grammar.
  for (auto& [kind, p] : pools) {
    if (p.bad.size() >= 50) continue;
    const bool kernel = kind == "host_kernel_log" || kind == "dmesg";
    size_t k = 0;
    for (const Template& t : p.normal) {
      if (p.bad.size() >= 400) break;
      std::string s = t.text;
      const bool err = (k++ % 3) == 0;
      bool done = false;
      for (const auto& [from, to] :
           {std::pair<std::string_view, std::string_view>{
                "[INFO]", err ? "[ERROR]" : (kernel ? "[WARN]" : "[WARNING]")},
            {"kern.info", err ? "kern.err" : "kern.warn"},
            {".info ", err ? ".err " : ".warning "}}) {
        const size_t at = s.find(from);
        if (at == std::string::npos) continue;
        s.replace(at, from.size(), to);
        done = true;
        break;
      }
      if (!done) continue;
      bool hit = false;
      eng.scan(s, "", [&](const faultline::tag::Hit&) { hit = true; });
      if (hit) continue;
      Template b;
      b.text = std::move(s);
      find_timestamp(b);
      if (t.style == Style::uptime) b.style = Style::uptime;
      find_numbers(b);
      p.bad.push_back(std::move(b));
    }
  }
  for (const auto& [k, p] : pools)
    std::fprintf(stderr, "pool %-18s %6zu lines, %5zu WARNING/ERROR\n", k.c_str(), p.normal.size(),
                 p.bad.size());
  return pools;
}

// ---- members --------------------------------------------------------------------------------

struct Member {
  std::string path, kind;
  uint64_t bytes = 0;
  std::string pid;  // replaces the corpus pid in the member's lines (same width)
  int series = 0;   // members of one series share one clock
};

struct Totals {
  uint64_t members = 0, bytes = 0, lines = 0, bad = 0, injected = 0;
};

class Generator {
 public:
  Generator(std::map<std::string, Pool> pools, const RuleSet& rules) : pools_(std::move(pools)) {
    for (const auto& s : rules.signatures) {
      if (!s.active()) continue;
      for (const auto& ex : s.match) {
        if (ex.line.find('\n') != std::string::npos) continue;
        if (s.kinds.empty()) {
          generic_.push_back(ex.line);
        } else {
          for (const auto& k : s.kinds) examples_[k].push_back(ex.line);
        }
      }
    }
  }

  // Examples applicable to a kind: those naming it, then those with no kinds.
  std::vector<std::string> examples_for(const std::string& kind) const {
    std::vector<std::string> v;
    if (auto it = examples_.find(kind); it != examples_.end()) v = it->second;
    v.insert(v.end(), generic_.begin(), generic_.end());
    return v;
  }

  void write_bundle(const fs::path& root, const std::vector<Member>& members,
                    const std::string& host, uint64_t hits, uint64_t seed, Totals& tot) {
    uint64_t total = 0;
    for (const auto& m : members)
      if (!examples_for(m.kind).empty()) total += m.bytes;
    double carry = 0;
    std::map<int, int64_t> clocks;
    Rng r{seed * 0x9e3779b97f4a7c15ULL + 0x5eedfa17u};
    for (const auto& m : members) {
      uint64_t inject = 0;
      const auto ex = examples_for(m.kind);
      if (!ex.empty() && total > 0) {
        carry +=
            static_cast<double>(hits) * static_cast<double>(m.bytes) / static_cast<double>(total);
        inject = static_cast<uint64_t>(std::floor(carry + 1e-9));
        carry -= static_cast<double>(inject);
      }
      auto [it, fresh] = clocks.emplace(m.series, kBaseEpochMs + r.below(3600000));
      (void)fresh;
      write_member(root / m.path, m, host, ex, inject, it->second, r, tot);
    }
  }

 private:
  void write_member(const fs::path& file, const Member& m, const std::string& host,
                    const std::vector<std::string>& ex, uint64_t inject, int64_t& clock, Rng& r,
                    Totals& tot) {
    const auto pit = pools_.find(m.kind);
    if (pit == pools_.end() || pit->second.normal.empty()) {
      std::cerr << "no corpus lines of kind " << m.kind << "\n";
      std::exit(3);
    }
    const Pool& pool = pit->second;
    fs::create_directories(file.parent_path());
    std::FILE* f = std::fopen(file.c_str(), "wb");
    if (f == nullptr) {
      std::perror(file.c_str());
      std::exit(3);
    }
    std::string buf;
    buf.reserve(1 << 20);
    uint64_t written = 0, lines = 0;
    const uint64_t est_lines = std::max<uint64_t>(1, m.bytes / 120);
    const uint64_t every = inject ? std::max<uint64_t>(1, est_lines / (inject + 1)) : 0;
    uint64_t injected = 0;
    size_t cursor = 0, run = 0;
    const size_t ex0 = ex.empty() ? 0 : r.below(static_cast<uint32_t>(ex.size()));
    while (written < m.bytes || injected < inject) {
      const size_t start = buf.size();
      clock += 1 + r.below(25);
      if (every && injected < inject && (lines % every == every - 1 || written >= m.bytes)) {
        buf += ex[(ex0 + injected * 7) % ex.size()];
        ++injected;
      } else {
        // runs of consecutive corpus lines (real logs repeat sequences), ~4% WARNING/ERROR
        const bool bad = !pool.bad.empty() && r.below(1000) < 40;
        const Template* tp;
        if (bad) {
          tp = &pool.bad[r.below(static_cast<uint32_t>(pool.bad.size()))];
        } else {
          if (run == 0) {
            cursor = r.below(static_cast<uint32_t>(pool.normal.size()));
            run = 1 + r.below(40);
          }
          tp = &pool.normal[cursor];
          cursor = (cursor + 1) % pool.normal.size();
          --run;
        }
        const Template& t = *tp;
        tot.bad += bad ? 1 : 0;
        emit(buf, t, clock, r, m.pid);
        if (m.kind == "syslog" && host != kCorpusHost) {
          const size_t h = buf.find(kCorpusHost, start);
          if (h != std::string::npos) buf.replace(h, kCorpusHost.size(), host);
        }
      }
      buf.push_back('\n');
      written += buf.size() - start;
      ++lines;
      if (buf.size() >= (1 << 20) - 8192) {
        std::fwrite(buf.data(), 1, buf.size(), f);
        buf.clear();
      }
    }
    std::fwrite(buf.data(), 1, buf.size(), f);
    if (std::fclose(f) != 0) {
      std::perror(file.c_str());
      std::exit(3);
    }
    ++tot.members;
    tot.bytes += written;
    tot.lines += lines;
    tot.injected += injected;
  }

  static void emit(std::string& out, const Template& t, int64_t ms, Rng& r,
                   const std::string& pid) {
    const size_t base = out.size();
    const std::string_view s = t.text;
    if (t.style == Style::none) {
      out.append(s);
    } else {
      out.append(s.substr(0, t.ts_pos));
      put_time(out, t, ms, r.below(1000));
      out.append(s.substr(t.ts_pos + t.ts_len));
    }
    // the timestamp may print wider or narrower than the corpus one: positions after it move
    const auto shift = static_cast<int64_t>(out.size() - base) - static_cast<int64_t>(s.size());
    for (const auto& [p, n] : t.numbers) {
      if (r.below(8) != 0) continue;  // one number in eight is redrawn
      char* d = out.data() + base + static_cast<size_t>(static_cast<int64_t>(p) + shift);
      d[0] = static_cast<char>('1' + r.below(9));
      for (size_t i = 1; i < n; ++i) d[i] = static_cast<char>('0' + r.below(10));
    }
    if (!pid.empty())
      for (const uint16_t p : t.pid_pos) {
        const int64_t at = p >= t.ts_pos + t.ts_len ? p + shift : p;
        out.replace(base + static_cast<size_t>(at), kCorpusPid.size(), pid);
      }
  }

  std::map<std::string, Pool> pools_;
  std::map<std::string, std::vector<std::string>> examples_;
  std::vector<std::string> generic_;
};

// ---- layout ---------------------------------------------------------------------------------

std::string ts17(int64_t ms) {
  int y;
  unsigned mo, d;
  const int64_t secs = ms / 1000;
  civil(secs / 86400, y, mo, d);
  const auto sod = static_cast<unsigned>(secs % 86400);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d%02u%02u%02u%02u%02u%03u", y, mo, d, sod / 3600,
                sod / 60 % 60, sod % 60, static_cast<unsigned>(ms % 1000));
  return buf;
}

// A series of rotated files of `bytes` in all, none larger than cap; name(i, ts) gives each path.
template <typename Name>
void series(std::vector<Member>& out, int& sid, const std::string& kind, uint64_t bytes,
            uint64_t cap, const std::string& pid, Name name) {
  if (bytes == 0) return;
  const uint64_t n = std::max<uint64_t>(1, (bytes + cap - 1) / cap);
  const int s = ++sid;
  for (uint64_t i = 0; i < n; ++i) {
    Member m;
    m.kind = kind;
    m.bytes = bytes / n;
    m.pid = pid;
    m.series = s;
    m.path = name(
        i, ts17(kBaseEpochMs + static_cast<int64_t>(s) * 7919 + static_cast<int64_t>(i) * 3600000));
    out.push_back(std::move(m));
  }
}

std::vector<Member> plan(uint64_t total, int devices) {
  const std::string root = "asys_output_20250508095626087/dfx/log/";
  auto share = [&](double pct) {
    return static_cast<uint64_t>(static_cast<double>(total) * pct / 100.0);
  };
  constexpr uint64_t MiB = 1 << 20;
  std::vector<Member> out;
  int sid = 0;
  const auto d = static_cast<uint64_t>(devices);
  // host: one training process per device
  for (int i = 0; i < devices; ++i) {
    const std::string pid = std::to_string(155320 + 1117 * i);
    series(out, sid, "plog", share(21) / d, 20 * MiB, pid, [&](uint64_t, const std::string& ts) {
      return root + "host/cann/run/plog/plog-" + pid + "_" + ts + ".log";
    });
    series(out, sid, "plog", share(13) / d, 20 * MiB, pid, [&](uint64_t, const std::string& ts) {
      return root + "host/cann/debug/plog/plog-" + pid + "_" + ts + ".log";
    });
    series(out, sid, "device_app_log", share(12) / d, 20 * MiB, pid,
           [&](uint64_t, const std::string& ts) {
             return root + "host/cann/run/device-" + std::to_string(i) + "/device-" + pid + "_" +
                    ts + ".log";
           });
  }
  series(out, sid, "host_kernel_log", share(6), 32 * MiB, "", [&](uint64_t k, const std::string&) {
    return root + "host/driver/host_kernel.log" + (k ? "." + std::to_string(k) : "");
  });
  series(out, sid, "syslog", share(8), 64 * MiB, "", [&](uint64_t k, const std::string&) {
    return root + "host/message/syslog" + (k ? "." + std::to_string(k) : "");
  });
  series(out, sid, "dmesg", share(2), 64 * MiB, "", [&](uint64_t k, const std::string&) {
    return root + "host/message/dmesg" + (k ? "." + std::to_string(k) : "");
  });
  series(out, sid, "install_log", share(2), 64 * MiB, "", [&](uint64_t k, const std::string&) {
    return root + "host/install/ascend_install.log" + (k ? "." + std::to_string(k) : "");
  });
  for (int i = 0; i < devices; ++i) {
    const std::string dev = root + "device/dev-os-" + std::to_string(i) + "/";
    const std::string di = std::to_string(i);
    series(out, sid, "device_os_log", share(13) / d, MiB, "", [&](uint64_t, const std::string& ts) {
      return dev + "system/run/device-os/device-os_" + ts + ".log";
    });
    series(out, sid, "device_os_log", share(3) / d, MiB, "", [&](uint64_t, const std::string& ts) {
      return dev + "system/debug/device-os/device-os_" + ts + ".log";
    });
    series(out, sid, "device_fw_log", share(12) / d, 4 * MiB, "",
           [&](uint64_t, const std::string& ts) {
             return dev + "firmware/debug/device-" + di + "/device-" + di + "_" + ts + ".log";
           });
    series(out, sid, "device_event_log", share(1) / d, 4 * MiB, "",
           [&](uint64_t, const std::string& ts) {
             return dev + "system/run/event/event_" + ts + ".log";
           });
    series(out, sid, "device_syslog", share(5) / d, 8 * MiB, "",
           [&](uint64_t k, const std::string&) {
             return dev + "system/message/messages" + (k ? "." + std::to_string(k - 1) : "");
           });
    series(out, sid, "slogd_log", share(1) / d, 8 * MiB, "", [&](uint64_t k, const std::string&) {
      return dev + "slogd/slogdlog" + (k ? "." + std::to_string(k) : "");
    });
    // device-side app logs kept on the device (forwarding failed): 2 files x 512 KiB at most
    const std::string apid = std::to_string(94868 + 3011 * i);
    series(out, sid, "device_app_log", share(1) / d, MiB / 2, "",
           [&](uint64_t, const std::string& ts) {
             return dev + "application/run/device-app-" + apid + "/device-app-" + apid + "_" + ts +
                    ".log";
           });
  }
  return out;
}

// The plog-heavy profile (issue 19): what most real asys / npu_log_collect bundles of a
// training job are made of. Per device: the training process's run and debug plogs (60%), its
// host-side device log (10%) and the rank's console log (20%); the host's kernel log, syslog
// and install log and the device OS logs share the rest.
std::vector<Member> plan_plog(uint64_t total, int devices) {
  const std::string root = "asys_output_20250508095626087/dfx/log/";
  auto share = [&](double pct) {
    return static_cast<uint64_t>(static_cast<double>(total) * pct / 100.0);
  };
  constexpr uint64_t MiB = 1 << 20;
  std::vector<Member> out;
  int sid = 0;
  const auto d = static_cast<uint64_t>(devices);
  for (int i = 0; i < devices; ++i) {
    const std::string pid = std::to_string(155320 + 1117 * i);
    series(out, sid, "plog", share(36) / d, 20 * MiB, pid, [&](uint64_t, const std::string& ts) {
      return root + "host/cann/run/plog/plog-" + pid + "_" + ts + ".log";
    });
    series(out, sid, "plog", share(24) / d, 20 * MiB, pid, [&](uint64_t, const std::string& ts) {
      return root + "host/cann/debug/plog/plog-" + pid + "_" + ts + ".log";
    });
    series(out, sid, "device_app_log", share(10) / d, 20 * MiB, pid,
           [&](uint64_t, const std::string& ts) {
             return root + "host/cann/run/device-" + std::to_string(i) + "/device-" + pid + "_" +
                    ts + ".log";
           });
    series(out, sid, "train_log", share(20) / d, 64 * MiB, pid,
           [&](uint64_t k, const std::string&) {
             return "training/worker_" + std::to_string(i) + ".log" +
                    (k ? "." + std::to_string(k) : "");
           });
    series(out, sid, "device_os_log", share(4) / d, MiB, "", [&](uint64_t, const std::string& ts) {
      return root + "device/dev-os-" + std::to_string(i) + "/system/run/device-os/device-os_" + ts +
             ".log";
    });
  }
  series(out, sid, "host_kernel_log", share(2), 32 * MiB, "", [&](uint64_t k, const std::string&) {
    return root + "host/driver/host_kernel.log" + (k ? "." + std::to_string(k) : "");
  });
  series(out, sid, "syslog", share(3), 64 * MiB, "", [&](uint64_t k, const std::string&) {
    return root + "host/message/syslog" + (k ? "." + std::to_string(k) : "");
  });
  series(out, sid, "install_log", share(1), 64 * MiB, "", [&](uint64_t k, const std::string&) {
    return root + "host/install/ascend_install.log" + (k ? "." + std::to_string(k) : "");
  });
  return out;
}

// ---- CLI ------------------------------------------------------------------------------------

uint64_t parse_size(const std::string& s) {
  size_t pos = 0;
  const double v = std::stod(s, &pos);
  double mul = 1;
  const std::string unit = s.substr(pos);
  if (unit == "K" || unit == "k" || unit == "KiB")
    mul = 1024.0;
  else if (unit == "M" || unit == "m" || unit == "MiB")
    mul = 1024.0 * 1024;
  else if (unit == "G" || unit == "g" || unit == "GiB")
    mul = 1024.0 * 1024 * 1024;
  else if (!unit.empty() && unit != "B")
    throw std::invalid_argument("bad size: " + s);
  return static_cast<uint64_t>(v * mul);
}

RuleSet load_rules(const fs::path& dir) {
  const auto files = dir.empty() ? faultline::embedded_rules() : faultline::read_rule_dir(dir);
  RuleSet rs = faultline::tag::load_signatures(faultline::rules_under(files, "signatures/"));
  for (const auto& e : rs.errors) std::cerr << "rule error: " << e << "\n";
  return rs;
}

int usage() {
  std::cerr << "usage: bench_gen bundle DIR [--size 1G] [--hits 300] [--seed N] [--host NAME] "
               "[--devices 8] [--profile mix|plog]\n"
               "       bench_gen fleet DIR [--nodes 200] [--node-size 2M] [--hits 4] [--seed N] "
               "[--devices 8]\n"
               "       bench_gen patterns FILE\n"
               "       common: [--corpus DIR]... [--corpus-add DIR]... [--rules DIR]\n";
  return 2;
}

void print_totals(const char* what, const Totals& t) {
  std::printf(
      "%s: %llu files, %llu bytes, %llu lines, %llu WARNING/ERROR (%.1f%%), %llu signature lines\n",
      what, static_cast<unsigned long long>(t.members), static_cast<unsigned long long>(t.bytes),
      static_cast<unsigned long long>(t.lines), static_cast<unsigned long long>(t.bad),
      t.lines ? 100.0 * static_cast<double>(t.bad) / static_cast<double>(t.lines) : 0.0,
      static_cast<unsigned long long>(t.injected));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string cmd = argv[1];
  const fs::path out = argv[2];
  std::vector<fs::path> corpora{FAULTLINE_CORPUS_DIR};
  bool corpus_given = false;
  fs::path rules;
  std::string profile = "mix";
  uint64_t size = 1ULL << 30, node_size = 2ULL << 20, seed = 1;
  int64_t hits = -1;
  int nodes = 200, devices = 8;
  std::string host = std::string(kCorpusHost);
  try {
    for (int i = 3; i < argc; ++i) {
      const std::string a = argv[i];
      if (i + 1 >= argc) return usage();
      const std::string v = argv[++i];
      if (a == "--size")
        size = parse_size(v);
      else if (a == "--node-size")
        node_size = parse_size(v);
      else if (a == "--hits")
        hits = std::stoll(v);
      else if (a == "--seed")
        seed = std::stoull(v);
      else if (a == "--nodes")
        nodes = std::stoi(v);
      else if (a == "--devices")
        devices = std::max(1, std::stoi(v));
      else if (a == "--host")
        host = v;
      else if (a == "--corpus") {
        if (!corpus_given) corpora.clear();  // the first --corpus replaces the default
        corpus_given = true;
        corpora.emplace_back(v);
      } else if (a == "--corpus-add") {
        corpora.emplace_back(v);
      } else if (a == "--profile") {
        if (v != "mix" && v != "plog") return usage();
        profile = v;
      } else if (a == "--rules")
        rules = v;
      else
        return usage();
    }
    const RuleSet rs = load_rules(rules);
    if (cmd == "patterns") {
      std::ofstream p(out, std::ios::trunc);
      size_t n = 0;
      for (const auto& s : rs.signatures)
        if (s.active())
          for (const auto& pat : s.patterns) {
            p << (s.caseless ? "(?i)" : "") << pat << "\n";
            ++n;
          }
      std::printf("wrote %zu patterns to %s\n", n, out.c_str());
      return p ? 0 : 3;
    }
    if (cmd != "bundle" && cmd != "fleet") return usage();
    std::string err;
    const auto engine = faultline::tag::Engine::build(rs, {}, &err);
    if (!engine) {
      std::cerr << err << "\n";
      return 3;
    }
    for (const auto& corpus : corpora)
      if (!fs::is_directory(corpus)) {
        std::cerr << corpus << ": corpus directory not found (--corpus DIR)\n";
        return 3;
      }
    size_t dropped = 0;
    Generator gen(load_pools(corpora, *engine, &dropped), rs);
    auto layout = [&](uint64_t bytes) {
      return profile == "plog" ? plan_plog(bytes, devices) : plan(bytes, devices);
    };
    Totals tot;
    if (cmd == "bundle") {
      gen.write_bundle(out, layout(size), host, hits < 0 ? 300 : static_cast<uint64_t>(hits), seed,
                       tot);
      print_totals(out.c_str(), tot);
    } else {
      for (int n = 0; n < nodes; ++n) {
        char name[32];
        std::snprintf(name, sizeof name, "node-%03d", n);
        Totals t;
        gen.write_bundle(out / name, layout(node_size), name,
                         hits < 0 ? 4 : static_cast<uint64_t>(hits),
                         seed * 1000003 + static_cast<uint64_t>(n), t);
        tot.members += t.members;
        tot.bytes += t.bytes;
        tot.lines += t.lines;
        tot.bad += t.bad;
        tot.injected += t.injected;
      }
      print_totals((out.string() + " (" + std::to_string(nodes) + " nodes)").c_str(), tot);
    }
    std::printf("corpus lines left out because they hit a signature: %zu\n", dropped);
  } catch (const std::exception& e) {
    std::cerr << "bench_gen: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
