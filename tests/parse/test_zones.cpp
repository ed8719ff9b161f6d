// Zones per time range (docs/clock.md "Zones per time range", issue 32 item 3): every source of
// a zone change in its real format (systemd-timedated's journal/syslog line, bash history with
// HISTTIMEFORMAT's `#<epoch>` lines, `history` output), same lines in a UTC and a host-local
// clock whose difference moves, and how each host-local time is then read.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "faultline/core/time.hpp"
#include "faultline/parse/clock.hpp"
#include "test_outputs_util.hpp"

using faultline::civil_to_ns;
using faultline::Clock;
using faultline::kNoTime;
using faultline::RawTime;
using faultline::TimeQuality;
using fltest::run;
using fltest::values;
namespace clk = faultline::clock;

namespace {
constexpr int64_t kSec = 1'000'000'000;
constexpr int64_t kHour = 3600 * kSec;
RawTime local(int y, int mo, int d, int h, int mi, int s) {
  RawTime t;
  t.clock = Clock::host_local;
  t.year = y;
  t.month = mo;
  t.day = d;
  t.hour = h;
  t.minute = mi;
  t.second = s;
  return t;
}
nlohmann::json change_of(const faultline::parse::ParseResult& r) {
  const auto v = values(r, "host.timezone_change");
  REQUIRE(v.size() == 1);
  return nlohmann::json::parse(v[0]);
}
}  // namespace

TEST_CASE("zone change: systemd-timedated in syslog, journal short-iso and old systemd",
          "[parse][zones]") {
  // systemd >= 239 (timedated.c: "Changed time zone to '%s' (%s).")
  auto r = run("syslog",
               "Jun 10 14:02:11 a2-n07 systemd-timedated[1873]: Changed time zone to "
               "'Asia/Shanghai' (CST).\n");
  auto j = change_of(r);
  CHECK(j["zone"] == "Asia/Shanghai");
  CHECK(j["abbr"] == "CST");
  CHECK(j["time"] == "0000-06-10 14:02:11");  // year-less: the clock stage gives the year
  CHECK(j["utc"] == false);
  CHECK(j["rendered"] == false);
  // journalctl -o short-iso prints the offset: the instant is known
  r = run("journal",
          "2025-06-10T14:02:11+0800 a2-n07 systemd-timedated[1873]: Changed time zone to "
          "'Asia/Shanghai' (CST).\n");
  j = change_of(r);
  CHECK(j["utc"] == true);
  CHECK(j["time"] == "2025-06-10 06:02:11");
  // journalctl short: printed at collection in the zone of the collection
  r = run("journal",
          "Jun 10 14:02:11 a2-n07 systemd-timedated[1873]: Changed time zone to 'Europe/Berlin' "
          "(CEST).\n");
  j = change_of(r);
  CHECK(j["rendered"] == true);
  CHECK(j["abbr"] == "CEST");
  // older systemd: no abbreviation
  r = run("syslog",
          "Mar  3 09:15:40 node3 systemd-timedated[991]: Changed time zone to 'Etc/UTC'.\n");
  j = change_of(r);
  CHECK(j["zone"] == "Etc/UTC");
  CHECK(!j.contains("abbr"));
  // other programs saying the same words, and the device's messages, are not the host's zone
  CHECK(fltest::count(run("syslog",
                          "Jun 10 14:02:11 a2-n07 myscript[12]: Changed time zone to "
                          "'UTC' (UTC).\n"),
                      "host.timezone_change") == 0);
}

TEST_CASE("zone change: shell history with HISTTIMEFORMAT, and history output", "[parse][zones]") {
  const auto r = run("shell_history",
                     "#1749535200\n"
                     "npu-smi info\n"
                     "#1749535331\n"
                     "sudo timedatectl set-timezone Asia/Shanghai\n"
                     "#1749540000\n"
                     "ln -sf /usr/share/zoneinfo/Asia/Tokyo /etc/localtime\n"
                     "cp /usr/share/zoneinfo/UTC /etc/localtime\n"  // no stamp: not dated
                     "#1749541000\n"
                     "cat /etc/localtime > /tmp/x\n");
  const auto v = values(r, "host.timezone_change");
  REQUIRE(v.size() == 2);
  const auto a = nlohmann::json::parse(v[0]);
  CHECK(a["epoch"] == 1749535331);
  CHECK(a["zone"] == "Asia/Shanghai");
  const auto b = nlohmann::json::parse(v[1]);
  CHECK(b["epoch"] == 1749540000);
  CHECK(b["zone"] == "Asia/Tokyo");
  // `history` with HISTTIMEFORMAT='%F %T ': printed at collection, in today's zone
  const auto h = run("shell_history",
                     "  511  2025-06-10 14:01:58 timedatectl\n"
                     "  512  2025-06-10 14:02:11 timedatectl set-timezone Asia/Shanghai\n"
                     "  513  2025-06-10 14:02:15 date\n");
  const auto c = change_of(h);
  CHECK(c["time"] == "2025-06-10 14:02:11");
  CHECK(c["rendered"] == true);
}

TEST_CASE("boot_record: systemd-analyze dump and systemctl show", "[parse][outputs][boot]") {
  // systemd's manager_dump: "Timestamp <name>: <realtime>"
  const auto d = run("boot_record",
                     "Manager: systemd 249 (249.11-0ubuntu3.12)\n"
                     "Features: +PAM +AUDIT +SELINUX +APPARMOR +IMA +SMACK +SECCOMP\n"
                     "Timestamp firmware: 1min 2.731s\n"
                     "Timestamp loader: 3.512s\n"
                     "Timestamp kernel: Thu 2025-05-08 07:10:21 CST\n"
                     "Timestamp initrd: Thu 2025-05-08 07:10:23 CST\n"
                     "Timestamp userspace: Thu 2025-05-08 07:10:26 CST\n"
                     "Timestamp finish: Thu 2025-05-08 07:10:51 CST\n");
  CHECK(values(d, "host.boot_time_local") == std::vector<std::string>{"2025-05-08 07:10:21"});
  // in UTC: the epoch
  const auto u = run("boot_record",
                     "Manager: systemd 252 (252.30-1~deb12u2)\n"
                     "Timestamp kernel: Thu 2025-05-08 07:10:21 UTC\n");
  CHECK(values(u, "host.boot_time") ==
        std::vector<std::string>{std::to_string(civil_to_ns(2025, 5, 8, 7, 10, 21, 0) / kSec)});
  const auto s = run("boot_record", "KernelTimestamp=Thu 2025-05-08 07:10:21 CST\n");
  CHECK(values(s, "host.boot_time_local") == std::vector<std::string>{"2025-05-08 07:10:21"});
}

TEST_CASE("zone spans: a stated change splits the host's times", "[clock][zones]") {
  clk::HostInputs in;
  in.zone_offset_s = 8 * 3600;  // timedatectl at collection: Asia/Shanghai (CST, +0800)
  clk::ZoneChange c;
  c.at_utc_ns = civil_to_ns(2025, 6, 10, 6, 2, 11, 0);
  c.to_offset_s = 8 * 3600;
  c.source = "journal:1";
  in.zone_changes.push_back(c);
  const auto m = clk::fit(in);
  REQUIRE(m.zone_spans.size() == 2);
  CHECK(!m.zone_spans[0].offset_ns);  // before it: the bundle shows no zone
  CHECK(m.zone_spans[1].offset_ns == -8 * kHour);
  // an install logged before the change: read as printed, not pinned
  auto r = clk::resolve(m, local(2025, 6, 1, 17, 24, 41));
  CHECK(r.quality == TimeQuality::assumed_utc);
  CHECK(r.ns == civil_to_ns(2025, 6, 1, 17, 24, 41, 0));
  // after it: CST
  r = clk::resolve(m, local(2025, 6, 12, 9, 0, 0));
  CHECK(r.quality == TimeQuality::local);
  CHECK(r.ns == civil_to_ns(2025, 6, 12, 1, 0, 0, 0));
  // journalctl / dmesg -T print every instant in today's zone
  r = clk::resolve(m, local(2025, 6, 1, 17, 24, 41), true);
  CHECK(r.quality == TimeQuality::local);
  CHECK(r.ns == civil_to_ns(2025, 6, 1, 9, 24, 41, 0));
  // without the change, the stated zone holds for every time
  in.zone_changes.clear();
  const auto one = clk::fit(in);
  CHECK(one.zone_spans.empty());
  CHECK(clk::resolve(one, local(2025, 6, 1, 17, 24, 41)).quality == TimeQuality::local);
}

TEST_CASE("zone spans: a syslog-stamped change and a known old zone from same lines",
          "[clock][zones]") {
  clk::HostInputs in;
  // the same driver lines in host_kernel.log (UTC) and syslog (host-local): UTC before June 10
  for (int d = 1; d <= 3; ++d)
    in.utc_local_pairs.emplace_back(civil_to_ns(2025, 6, d, 10, 0, 0, 0),
                                    civil_to_ns(2025, 6, d, 10, 0, 1, 0));
  clk::ZoneChange c;
  c.at_local_naive_ns = civil_to_ns(2025, 6, 10, 14, 2, 11, 0);  // stamped in the new zone
  c.to_offset_s = 8 * 3600;
  in.zone_changes.push_back(c);
  const auto m = clk::fit(in);
  REQUIRE(m.zone_spans.size() == 2);
  CHECK(m.zone_spans[0].offset_ns == 0);
  CHECK(m.zone_spans[0].method == "fitted");
  CHECK(m.zone_spans[1].from_utc_ns == civil_to_ns(2025, 6, 10, 6, 2, 11, 0));
  CHECK(m.host_local_offset_ns == -8 * kHour);  // the zone at collection
  auto r = clk::resolve(m, local(2025, 6, 5, 17, 0, 0));
  CHECK(r.quality == TimeQuality::local);
  CHECK(r.ns == civil_to_ns(2025, 6, 5, 17, 0, 0, 0));
  r = clk::resolve(m, local(2025, 6, 11, 17, 0, 0));
  CHECK(r.ns == civil_to_ns(2025, 6, 11, 9, 0, 0, 0));
  // between 06-10 06:02:11 and 14:02:11 host-local, no time was written (the clock jumped)
  // a clock set back (CST -> UTC) would make some host-local times ambiguous: see below
}

TEST_CASE(
    "zone spans: inferred from same lines whose difference moves; the window between is "
    "unknown",
    "[clock][zones]") {
  clk::HostInputs in;
  // UTC+8 until 06-10, UTC from 06-12 (the clock set back: local times repeat)
  for (int d = 1; d <= 3; ++d)
    in.utc_local_pairs.emplace_back(civil_to_ns(2025, 6, d, 2, 0, 0, 0),
                                    civil_to_ns(2025, 6, d, 10, 0, 0, 0));
  for (int d = 12; d <= 14; ++d)
    in.utc_local_pairs.emplace_back(civil_to_ns(2025, 6, d, 2, 0, 0, 0),
                                    civil_to_ns(2025, 6, d, 2, 0, 0, 0));
  const auto m = clk::fit(in);
  REQUIRE(m.zone_spans.size() == 3);
  CHECK(m.zone_spans[0].offset_ns == -8 * kHour);
  CHECK(!m.zone_spans[1].offset_ns);  // 06-03 .. 06-12: no line says which zone
  CHECK(m.zone_spans[2].offset_ns == 0);
  CHECK(m.host_local_method == "fitted");
  CHECK(m.host_local_offset_ns == 0);
  CHECK(clk::resolve(m, local(2025, 6, 2, 12, 0, 0)).ns == civil_to_ns(2025, 6, 2, 4, 0, 0, 0));
  CHECK(clk::resolve(m, local(2025, 6, 13, 12, 0, 0)).ns == civil_to_ns(2025, 6, 13, 12, 0, 0, 0));
  CHECK(clk::resolve(m, local(2025, 6, 8, 12, 0, 0)).quality == TimeQuality::assumed_utc);
  // one pair alone is not a zone change (two happenings with the same words)
  clk::HostInputs one = in;
  one.utc_local_pairs.resize(3);
  one.utc_local_pairs.emplace_back(civil_to_ns(2025, 6, 12, 2, 0, 0, 0),
                                   civil_to_ns(2025, 6, 12, 2, 0, 0, 0));
  CHECK(clk::fit(one).zone_spans.empty());
}

TEST_CASE("zone spans: a clock set back makes the repeated local hours ambiguous",
          "[clock][zones]") {
  clk::HostInputs in;
  in.zone_offset_s = 0;  // UTC at collection
  clk::ZoneChange c;     // from CST to UTC at 2025-06-10 06:00 UTC (local 14:00 -> 06:00)
  c.at_utc_ns = civil_to_ns(2025, 6, 10, 6, 0, 0, 0);
  c.to_offset_s = 0;
  in.zone_changes.push_back(c);
  for (int d = 1; d <= 3; ++d)
    in.utc_local_pairs.emplace_back(civil_to_ns(2025, 6, d, 2, 0, 0, 0),
                                    civil_to_ns(2025, 6, d, 10, 0, 0, 0));
  const auto m = clk::fit(in);
  REQUIRE(m.zone_spans.size() == 2);
  CHECK(m.zone_spans[0].offset_ns == -8 * kHour);
  // 10:00 local on 06-10 is 02:00 UTC in CST and 10:00 UTC in UTC: both spans hold it
  const auto z = clk::zone_at(m, civil_to_ns(2025, 6, 10, 10, 0, 0, 0));
  CHECK(!z.offset_ns);
  CHECK(clk::zone_at(m, civil_to_ns(2025, 6, 10, 5, 0, 0, 0)).offset_ns == -8 * kHour);
  CHECK(clk::zone_at(m, civil_to_ns(2025, 6, 10, 15, 0, 0, 0)).offset_ns == 0);
  CHECK(kNoTime == m.zone_spans[0].from_utc_ns);
}
