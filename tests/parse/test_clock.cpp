// Clock model rules on small inputs (docs/clock.md).
#include <catch2/catch.hpp>

#include "faultline/core/time.hpp"
#include "faultline/parse/clock.hpp"
#include "faultline/parse/parser.hpp"

using faultline::civil_to_ns;
using faultline::Clock;
using faultline::RawTime;
using faultline::TimeQuality;
namespace clk = faultline::clock;

namespace {
constexpr int64_t kSec = 1'000'000'000;
RawTime civil(Clock c, int y, int mo, int d, int h, int mi, int s, int64_t ns = 0,
              int64_t up = -1) {
  RawTime t;
  t.clock = c;
  t.year = y;
  t.month = mo;
  t.day = d;
  t.hour = h;
  t.minute = mi;
  t.second = s;
  t.nanos = ns;
  t.uptime_ns = up;
  return t;
}
}  // namespace

TEST_CASE("naive_ns and year inference", "[clock]") {
  CHECK(clk::naive_ns(civil(Clock::utc, 2025, 5, 8, 2, 28, 1)) ==
        civil_to_ns(2025, 5, 8, 2, 28, 1, 0));
  CHECK(clk::naive_ns(RawTime{}) == faultline::kNoTime);
  const int64_t jan3 = civil_to_ns(2026, 1, 3, 10, 0, 0, 0);
  // a December syslog line read in January belongs to the previous year
  CHECK(clk::infer_year(civil(Clock::host_local, 0, 12, 30, 23, 59, 0), jan3) == 2025);
  CHECK(clk::infer_year(civil(Clock::host_local, 0, 1, 2, 8, 0, 0), jan3) == 2026);
  clk::HostInputs in;
  in.reference_ns = jan3;
  const auto r = clk::resolve(clk::fit(in), civil(Clock::host_local, 0, 12, 31, 23, 0, 0));
  CHECK(r.quality == TimeQuality::year_inferred);
  CHECK(r.ns == civil_to_ns(2025, 12, 31, 23, 0, 0, 0));
  // without a reference a year-less time stays unknown
  CHECK(clk::resolve(clk::ClockModel{}, civil(Clock::host_local, 0, 5, 8, 1, 0, 0)).quality ==
        TimeQuality::unknown);
}

TEST_CASE("host zone: stated, fitted from two views of the boot, else assumed UTC", "[clock]") {
  const RawTime plog = civil(Clock::host_local, 2025, 5, 8, 9, 56, 18, 522'534'000);
  {
    clk::HostInputs in;
    in.zone_offset_s = 8 * 3600;  // date +%z: +0800
    const auto m = clk::fit(in);
    CHECK(m.host_local_method == "zone-stated");
    const auto r = clk::resolve(m, plog);
    CHECK(r.quality == TimeQuality::local);
    CHECK(r.ns == civil_to_ns(2025, 5, 8, 1, 56, 18, 522'534'000));
  }
  {
    const auto m = clk::fit(clk::HostInputs{});
    CHECK(m.host_local_method == "assumed");
    const auto r = clk::resolve(m, plog);
    CHECK(r.quality == TimeQuality::assumed_utc);
    CHECK(r.ns == civil_to_ns(2025, 5, 8, 9, 56, 18, 522'534'000));
  }
  {
    // host_kernel.log with [sec.usec] (UTC) and syslog kernel lines (local, UTC+8) of one boot
    clk::HostInputs in;
    const int64_t boot_utc = civil_to_ns(2025, 5, 7, 19, 53, 56, 0);
    for (int i = 0; i < 5; ++i) {
      const int64_t up = (1000 + i * 100) * kSec;
      in.pairs.push_back({Clock::utc, boot_utc + up, up});
      in.pairs.push_back({Clock::host_local, boot_utc + 8 * 3600 * kSec + up + (i % 2) * kSec, up});
    }
    const auto m = clk::fit(in);
    CHECK(m.host_local_method == "fitted");
    CHECK(m.host_local_offset_ns == -8 * 3600 * kSec);
    REQUIRE(m.boot_ns);
    CHECK(*m.boot_ns == boot_utc);
  }
}

TEST_CASE("boot time: btime, else uptime -s, else fitted; dmesg resolves through it", "[clock]") {
  RawTime dm;
  dm.clock = Clock::uptime;
  dm.uptime_ns = 23645'213'796'000LL;
  {
    clk::HostInputs in;
    in.boot_time_ns = civil_to_ns(2025, 5, 7, 19, 53, 56, 0);
    const auto m = clk::fit(in);
    CHECK(m.boot_method == "btime");
    const auto r = clk::resolve(m, dm);
    CHECK(r.quality == TimeQuality::boot_relative);
    CHECK(r.ns == civil_to_ns(2025, 5, 8, 2, 28, 1, 213'796'000));
  }
  {
    clk::HostInputs in;
    in.boot_local_naive_ns = civil_to_ns(2025, 5, 8, 3, 53, 56, 0);  // uptime -s on a UTC+8 host
    in.zone_offset_s = 8 * 3600;
    const auto m = clk::fit(in);
    CHECK(m.boot_method == "uptime-s");
    CHECK(*m.boot_ns == civil_to_ns(2025, 5, 7, 19, 53, 56, 0));
  }
  {
    // syslog kernel pairs, one of them delayed by rsyslog: the median ignores it
    clk::HostInputs in;
    in.reference_ns = civil_to_ns(2025, 5, 8, 9, 56, 26, 0);
    const auto r = faultline::parse::parse_text(
        "syslog",
        "May  8 02:28:01 ubuntu78 kernel: [23645.213796] devdrv_device_driver 0000:03:00.4: "
        "enabling device (0000 -> 0002)\n"
        "May  8 02:28:14 ubuntu78 kernel: [23658.586773] [ascend] [ts_agent] [tsagent_device_init "
        "1315] <vdavinci_tool:5131,5131> tsagent device init, devid=100, tsid=0, "
        "phy_addr=0x39c42708000, size=0x800.\n"
        "May  8 02:33:33 ubuntu78 kernel: [23666.010616] [ascend] [ts_agent] [tsagent_device_init "
        "1335] <vdavinci_tool:5131,5131> tsagent device init, ioremap_addr=0xffffa8697232d200\n");
    for (const auto& e : r.events) clk::observe(in, e.view());
    REQUIRE(in.pairs.size() == 3);
    const auto m = clk::fit(in);
    CHECK(m.boot_method == "fitted");
    // median of 19:53:55.413227, 19:53:55.786204 and 19:58:26.989384 (the delayed line)
    const int64_t expect =
        civil_to_ns(2025, 5, 7, 19, 53, 55, 786'204'000);  // 02:28:01 - 23645.213796
    CHECK(*m.boot_ns == expect);
    CHECK(clk::resolve(m, dm).ns == expect + dm.uptime_ns);
  }
  CHECK(clk::resolve(clk::ClockModel{}, dm).quality == TimeQuality::unknown);
}

TEST_CASE("zone snapping and epoch payloads", "[clock]") {
  CHECK(clk::snap_zone_ns(28799 * kSec + 350'000'000) == 28800 * kSec);
  CHECK(clk::snap_zone_ns(-28830 * kSec) == -28800 * kSec);
  CHECK(clk::snap_zone_ns(2000 * kSec) == 2000 * kSec);  // 1100 s from 900*2: drift, not a zone
  CHECK(clk::epoch_payload_ns("receive ts exception msg, call excep_code=0xb4060006, "
                              "time=1746674705.163997783s, devid=0 tsid=0") ==
        1746674705LL * kSec + 163'997'783);
  CHECK(clk::epoch_payload_ns(
            "event_serial_num=2; notify_serial_num=0; event_raised_time=1746671295066 ms.") ==
        1746671295066LL * 1'000'000);
  CHECK_FALSE(
      clk::epoch_payload_ns("event_raised_time=7876 ms.").has_value());  // uptime, not epoch
  CHECK_FALSE(
      clk::epoch_payload_ns("wait response time too long.(time=218(ms), chan_id=13)").has_value());
}

TEST_CASE("device 1970 stamps without a device boot stay unknown in time", "[clock]") {
  const RawTime t = civil(Clock::device_local, 1970, 1, 1, 0, 0, 1, 14'351'000);
  const auto r = clk::resolve(clk::ClockModel{}, t);
  CHECK(r.quality == TimeQuality::device_unsynced);
  CHECK(r.ns == faultline::kNoTime);
}

namespace {
// Parses `text` as `kind` and feeds every event to `same` (as the app does per host).
void feed(clk::SameLines& same, std::string_view kind, std::string_view text) {
  const auto r = faultline::parse::parse_text(kind, text);
  REQUIRE(!r.events.empty());
  for (const auto& e : r.events) same.add(e.view());
}
// host_kernel.log, verbatim from the asys sample (UTC by construction, log-formats.md §4.3)
constexpr std::string_view kHostKernel =
    "[2025-05-07-19:54:27.400027] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
    "<systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"dc\", "
    "driver_name=\"devdrv_device_driver\")\n"
    "[2025-05-07-19:54:27.400707] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2253] "
    "<systemd-udevd:694:694> Findout device. (index=4; device=d802; dev_num=1)\n"
    "[2025-05-08-02:28:14.715953] [ascend] [devdrv] [WARN] [devdrv_manager_device_ready 4476] "
    "<kworker/12:2:3753,3753> Device is not ready. (dev_id=100)\n";
}  // namespace

TEST_CASE("host zone from the same driver line in UTC and in host-local time", "[clock]") {
  const int64_t reference = civil_to_ns(2025, 5, 8, 9, 56, 26, 0);
  {
    // the same printk lines in the host's syslog (drv_printk: no level tag), host in UTC+8
    clk::SameLines same;
    feed(same, "host_kernel_log", kHostKernel);
    feed(same, "syslog",
         "May  8 03:54:27 ubuntu78 kernel: [   31.586231] [ascend] [drv_pcie] "
         "[devdrv_init_module 2338] <systemd-udevd:694:694> Insmod host driver. "
         "(type=\"normal\", product=\"dc\", driver_name=\"devdrv_device_driver\")\n"
         "May  8 03:54:28 ubuntu78 kernel: [   31.586911] [ascend] [drv_pcie] "
         "[devdrv_init_dev_num 2253] <systemd-udevd:694:694> Findout device. (index=4; "
         "device=d802; dev_num=1)\n"
         "May  8 10:28:14 ubuntu78 kernel: [23658.902127] [ascend] [devdrv] "
         "[devdrv_manager_device_ready 4476] <kworker/12:2:3753,3753> Device is not ready. "
         "(dev_id=100)\n");
    clk::HostInputs in;
    in.reference_ns = reference;
    same.match(in);
    CHECK(in.utc_local_pairs.size() == 3);
    const auto m = clk::fit(in);
    CHECK(m.host_local_method == "fitted");
    CHECK(m.host_local_quality == TimeQuality::local);
    CHECK(m.host_local_offset_ns == -8 * 3600 * kSec);
    // a plog line of the host now resolves to UTC
    const auto r = clk::resolve(m, civil(Clock::host_local, 2025, 5, 8, 9, 56, 18, 522'534'000));
    CHECK(r.ns == civil_to_ns(2025, 5, 8, 1, 56, 18, 522'534'000));
    CHECK(r.quality == TimeQuality::local);
  }
  {
    // plain dmesg (uptime only) holding a host_kernel.log line: that line dates the boot in UTC
    clk::SameLines same;
    feed(same, "host_kernel_log", kHostKernel);
    feed(same, "dmesg",
         "[   31.586231] [ascend] [drv_pcie] [devdrv_init_module 2338] <systemd-udevd:694:694> "
         "Insmod host driver. (type=\"normal\", product=\"dc\", "
         "driver_name=\"devdrv_device_driver\")\n");
    clk::HostInputs in;
    in.reference_ns = reference;
    same.match(in);
    REQUIRE(in.pairs.size() == 1);
    CHECK(in.pairs[0].clock == Clock::utc);
    const auto m = clk::fit(in);
    REQUIRE(m.boot_ns);
    CHECK(*m.boot_ns == civil_to_ns(2025, 5, 7, 19, 53, 55, 813'796'000));
    CHECK(m.host_local_method == "assumed");  // a boot time alone says nothing of the zone
  }
}

TEST_CASE("no zone is invented without two clocks of one happening", "[clock]") {
  const int64_t reference = civil_to_ns(2026, 3, 4, 10, 20, 0, 0);
  {
    // FaultDiag layout: plog (host-local), syslog and dmesg -T (host-local), nothing in UTC
    clk::SameLines same;
    feed(same, "plog",
         "[ERROR] RUNTIME(30917,python3):2026-03-04-10:17:11.004.512 [api_impl.cc:1203]30917 "
         "StreamSynchronize:[EXEC][DEFAULT]rtStreamSynchronize execution failed, reason=task "
         "timeout\n");
    feed(same, "syslog",
         "Mar  1 20:12:03 ai-train-03 kernel: [   23.100000] devdrv_device_driver 0000:c1:00.0: "
         "enabling device (0000 -> 0002)\n");
    feed(same, "dmesg_t",
         "[Sun Mar  1 20:12:03 2026] devdrv_device_driver 0000:c1:00.0: enabling device (0000 -> "
         "0002)\n");
    clk::HostInputs in;
    in.reference_ns = reference;
    same.match(in);
    CHECK(in.utc_local_pairs.empty());
    const auto m = clk::fit(in);
    CHECK(m.host_local_method == "assumed");
    CHECK(m.host_local_quality == TimeQuality::assumed_utc);
  }
  {
    // the same message twice in host_kernel.log: which syslog copy is which is a guess, unused
    clk::SameLines same;
    feed(same, "host_kernel_log",
         "[2025-05-08-02:28:14.715953] [ascend] [devdrv] [WARN] [devdrv_manager_device_ready "
         "4476] <kworker/12:2:3753,3753> Device is not ready. (dev_id=100)\n"
         "[2025-05-08-02:29:14.715953] [ascend] [devdrv] [WARN] [devdrv_manager_device_ready "
         "4476] <kworker/12:2:3753,3753> Device is not ready. (dev_id=100)\n");
    feed(same, "syslog",
         "May  8 10:28:14 ubuntu78 kernel: [23658.902127] [ascend] [devdrv] "
         "[devdrv_manager_device_ready 4476] <kworker/12:2:3753,3753> Device is not ready. "
         "(dev_id=100)\n");
    clk::HostInputs in;
    in.reference_ns = civil_to_ns(2025, 5, 8, 9, 56, 26, 0);
    same.match(in);
    CHECK(in.utc_local_pairs.empty());
  }
  {
    // one line in both, 37 min 13 s apart: not a zone (a different happening), not used
    clk::HostInputs in;
    in.utc_local_pairs.emplace_back(civil_to_ns(2025, 5, 8, 2, 28, 14, 0),
                                    civil_to_ns(2025, 5, 8, 3, 5, 27, 0));
    CHECK(clk::fit(in).host_local_method == "assumed");
  }
}
