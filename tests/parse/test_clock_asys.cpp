// Clock alignment on the real asys bundle (log-formats.md §10.2): host_kernel.log is UTC, the
// device OS `messages` run on UTC+8 while the device slog runs on UTC, the host booted about
// 2025-05-07 19:53:56 UTC (fitted from syslog kernel pairs), and 1970 device stamps are flagged.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>

#include "faultline/core/time.hpp"
#include "faultline/parse/clock.hpp"
#include "test_logs_util.hpp"

using faultline::civil_to_ns;
using faultline::Clock;
using faultline::TimeQuality;
namespace clk = faultline::clock;

namespace {
constexpr int64_t kSec = 1'000'000'000;
int64_t absdiff(int64_t a, int64_t b) {
  return a > b ? a - b : b - a;
}

struct Loaded {
  std::map<std::string, faultline::parse::ParseResult> by_file;
  clk::HostInputs in;
};

Loaded load_all() {
  Loaded l;
  // bundle name asys_output_20250508095626087: collection time, host-local (the zone is not stated)
  l.in.reference_ns = civil_to_ns(2025, 5, 8, 9, 56, 26, 87'000'000);
  for (const auto& f : fltest::asys_log_files()) {
    auto r = faultline::parse::parse_text(f.kind, fltest::read_file(f.path), f.rel);
    for (const auto& e : r.events) clk::observe(l.in, e.view());
    l.by_file.emplace(f.rel, std::move(r));
  }
  return l;
}

const faultline::OwnedEvent* find_event(const faultline::parse::ParseResult& r,
                                        std::string_view needle) {
  for (const auto& e : r.events)
    if (e.text.find(needle) != std::string::npos) return &e;
  return nullptr;
}

const faultline::parse::ParseResult& file(const Loaded& l, std::string_view suffix) {
  for (const auto& [rel, r] : l.by_file)
    if (rel.size() >= suffix.size() &&
        rel.compare(rel.size() - suffix.size(), suffix.size(), suffix) == 0)
      return r;
  FAIL("no file " << suffix);
  static faultline::parse::ParseResult none;
  return none;
}
}  // namespace

TEST_CASE("asys clocks: zones, boot times and unsynced device stamps", "[corpus][clock]") {
  if (!fltest::have_asys()) {
    WARN("FAULTLINE_CORPUS_DIR has no asys-aicerror bundle: skipped");
    return;
  }
  const Loaded l = load_all();
  REQUIRE_FALSE(l.in.pairs.empty());
  const clk::ClockModel m = clk::fit(l.in);

  SECTION("host boot fitted from syslog kernel pairs ~ 2025-05-07 19:53:56 UTC") {
    REQUIRE(m.boot_ns.has_value());
    CHECK(m.boot_method == "fitted");
    const int64_t expect = civil_to_ns(2025, 5, 7, 19, 53, 56, 0);
    INFO("boot " << faultline::format_utc(*m.boot_ns));
    CHECK(absdiff(*m.boot_ns, expect) < 3 * kSec);
  }

  SECTION("host_kernel.log is UTC by construction, 31 s after the host boot") {
    const auto& hk = file(l, "host/driver/host_kernel.log");
    const auto* e = find_event(hk, "Insmod host driver");
    REQUIRE(e != nullptr);
    CHECK(e->time.clock == Clock::utc);
    const auto r = clk::resolve(m, e->time);
    CHECK(r.quality == TimeQuality::exact);
    CHECK(r.ns == civil_to_ns(2025, 5, 7, 19, 54, 27, 400'027'000));
    REQUIRE(m.boot_ns.has_value());
    const int64_t after = r.ns - *m.boot_ns;
    CHECK(after > 25 * kSec);
    CHECK(after < 40 * kSec);
  }

  SECTION("device slog is UTC, device messages are UTC+8") {
    CHECK(m.device_local_method == "fitted");
    CHECK(m.device_local_offset_ns == 0);
    CHECK(m.device_syslog_method == "fitted");
    CHECK(m.device_syslog_offset_ns == -8 * 3600 * kSec);
    REQUIRE(m.device_boot_ns.has_value());
    INFO("device boot " << faultline::format_utc(*m.device_boot_ns));
    CHECK(absdiff(*m.device_boot_ns, civil_to_ns(2025, 5, 7, 19, 54, 36, 400'000'000)) < 2 * kSec);

    // The same tsdrv exception (device uptime 50047.252723, epoch 1746697723.659997783) seen in the
    // device slog (09:48:43 UTC) and in messages (17:48:43 UTC+8) resolves to one instant.
    const auto* slog = find_event(file(l, "device-os_20250508024510859.log"), "[50047.252723]");
    const auto* msgs = find_event(file(l, "system/message/messages"), "[50047.252723]");
    REQUIRE(slog != nullptr);
    REQUIRE(msgs != nullptr);
    CHECK(msgs->time.clock == Clock::device_syslog);
    CHECK(msgs->time.year == 0);
    const auto rs = clk::resolve(m, slog->time);
    const auto rm = clk::resolve(m, msgs->time);
    const int64_t epoch = 1746697723LL * kSec + 659'997'783;
    CHECK(absdiff(rs.ns, epoch) < 1 * kSec);
    CHECK(absdiff(rm.ns, epoch) < 2 * kSec);
    CHECK(rm.quality == TimeQuality::year_inferred);
    CHECK(rs.quality == TimeQuality::local);
  }

  SECTION("1970 device stamps are device_unsynced, placed after the device boot") {
    const auto& fw = file(l, "device-0_20250507195454620.log");
    const auto* first = find_event(fw, "stars_pcie_dma_abnormal_detect");
    REQUIRE(first != nullptr);
    CHECK(first->time.year == 1970);
    const auto r = clk::resolve(m, first->time);
    CHECK(r.quality == TimeQuality::device_unsynced);
    REQUIRE(m.device_boot_ns.has_value());
    CHECK(r.ns == *m.device_boot_ns + 1'014'351'000);
    // the event log's first line carries an uptime (7.932713 s): that wins over the 1970 stamp
    const auto* ev = find_event(file(l, "event_20250507195454617.log"), "OS init");
    REQUIRE(ev != nullptr);
    const auto re = clk::resolve(m, ev->time);
    CHECK(re.quality == TimeQuality::device_unsynced);
    CHECK(re.ns == *m.device_boot_ns + 7'932'713'000);
    // every 1970 line of the firmware log is flagged, none is taken as a 1970 date
    size_t n1970 = 0;
    for (const auto& e : fw.events) {
      if (e.time.year != 1970) continue;
      ++n1970;
      CHECK(clk::resolve(m, e.time).quality == TimeQuality::device_unsynced);
    }
    CHECK(n1970 > 100);
  }

  SECTION("host plogs are host-local, assumed UTC (the bundle states no zone)") {
    CHECK(m.host_local_method == "assumed");
    const auto* e = find_event(file(l, "plog-155320_20250508095618528.log"), "ProcLogicCqReport");
    REQUIRE(e != nullptr);
    const auto r = clk::resolve(m, e->time);
    CHECK(r.quality == TimeQuality::assumed_utc);
    CHECK(r.ns == civil_to_ns(2025, 5, 8, 9, 56, 18, 522'534'000));
    // the device-side AI CPU line of the same run is stamped before the host plog error
    const auto* dev = find_event(file(l, "device-155320_20250508095615632.log"), "Start para.");
    REQUIRE(dev != nullptr);
    CHECK(dev->time.clock == Clock::device_local);
    CHECK(clk::resolve(m, dev->time).ns < r.ns);
  }
}
