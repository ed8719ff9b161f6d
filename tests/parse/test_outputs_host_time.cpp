// uptime, proc_stat, date, timedatectl: the host clock facts the clock stage needs
// (log-formats.md 10). Times are those of the real asys sample (collected 2025-05-08 09:56:26 CST).
#include "test_outputs_util.hpp"

using namespace fltest;

TEST_CASE("uptime: forms", "[parse][outputs][uptime]") {
  struct Case {
    const char* name;
    const char* text;
    std::vector<F> want;
  };
  const std::vector<Case> cases = {
      {"uptime -s", "2025-05-08 07:10:21\n", {{"host.boot_time_local", "2025-05-08 07:10:21", 1}}},
      {"uptime",
       " 09:56:26 up  2:46,  3 users,  load average: 0.52, 0.58, 0.59\n",
       {{"host.uptime", "2:46", 1}}},
      {"uptime, days",
       " 09:56:26 up 12 days,  3:04,  1 user,  load average: 8.10, 8.02, 7.95\n",
       {{"host.uptime", "12 days, 3:04", 1}}},
      {"uptime -p", "up 2 hours, 46 minutes\n", {{"host.uptime", "2 hours, 46 minutes", 1}}},
      {"/proc/uptime", "9963.64 39251.10\n", {{"host.uptime_seconds", "9963.64", 1}}},
      {"banner then -s",
       "$ uptime -s\n2025-05-08 07:10:21\n",
       {{"host.boot_time_local", "2025-05-08 07:10:21", 2}}},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      const auto r = run("uptime", c.text);
      INFO(dump(r));
      check_facts(r, c.want);
      CHECK(r.facts.size() == c.want.size());
      CHECK(r.malformed == 0);
      check_facts(run("uptime", crlf(c.text)), c.want);
    }
  }
}

TEST_CASE("proc_stat: btime", "[parse][outputs][proc_stat]") {
  const char* t =
      "cpu  2255 34 2290 22625563 6290 127 456 0 0 0\n"
      "cpu0 1132 34 1441 11311718 3675 127 438 0 0 0\n"
      "intr 114930548 113199788 3 0 5 263 0 4 [... 200 values ...]\n"
      "ctxt 1990473\n"
      "btime 1746659421\n"
      "processes 2915\n"
      "procs_running 1\n"
      "procs_blocked 0\n";
  const auto r = run("proc_stat", t, "proc/stat");
  INFO(dump(r));
  check_facts(r, {{"host.boot_time", "1746659421", 5}});
  CHECK(r.facts.size() == 1);
  CHECK(r.malformed == 0);
}

TEST_CASE("date: forms", "[parse][outputs][date]") {
  struct Case {
    const char* name;
    const char* text;
    std::vector<F> want;
    bool zone;
  };
  const std::vector<Case> cases = {
      {"date",
       "Thu May  8 09:56:26 CST 2025\n",
       {{"host.collected_at", "Thu May  8 09:56:26 CST 2025", 1}, {"host.timezone", "CST", 1}},
       true},
      {"date -R",
       "Thu, 08 May 2025 09:56:26 +0800\n",
       {{"host.collected_at", "Thu, 08 May 2025 09:56:26 +0800", 1}, {"host.timezone", "+0800", 1}},
       true},
      {"date +%s%z",
       "1746669386+0800\n",
       {{"host.collected_at", "1746669386+0800", 1}, {"host.timezone", "+0800", 1}},
       true},
      {"date --iso-8601=seconds",
       "2025-05-08T09:56:26+08:00\n",
       {{"host.collected_at", "2025-05-08T09:56:26+08:00", 1}, {"host.timezone", "+08:00", 1}},
       true},
      {"zh_CN locale",
       "2025\xe5\xb9\xb4 05\xe6\x9c\x88 08\xe6\x97\xa5 \xe6\x98\x9f\xe6\x9c\x9f\xe5\x9b\x9b "
       "09:56:26 CST\n",
       {{"host.timezone", "CST", 1}},
       true},
      {"date -u states UTC, not the host zone",
       "$ date -u\nThu May  8 01:56:26 UTC 2025\n",
       {{"host.collected_at", "Thu May  8 01:56:26 UTC 2025", 2}},
       false},
      {"zone abbreviation the clock stage may not know",
       "Thu May  8 02:56:26 BST 2025\n",
       {{"host.timezone", "BST", 1}},
       true},
      {"date -u under a collector header",
       "==> date -u <==\nThu May  8 01:56:26 UTC 2025\n",
       {{"host.collected_at", "Thu May  8 01:56:26 UTC 2025", 2}},
       false},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      const auto r = run("date", c.text);
      INFO(dump(r));
      check_facts(r, c.want);
      CHECK(has_name(r, "host.timezone") == c.zone);
      CHECK(r.malformed == 0);
    }
  }
}

TEST_CASE("date: uname -a in a date member is not a date", "[parse][outputs][date]") {
  const auto r =
      run("date",
          "Linux node7 4.19.90-52.22.v2207.ky10.aarch64 #1 SMP Tue Mar 14 12:19:10 CST 2023 "
          "aarch64 aarch64 aarch64 GNU/Linux\n");
  CHECK(r.facts.empty());
  CHECK(r.malformed == 1);
}

TEST_CASE("timedatectl", "[parse][outputs][timedatectl]") {
  const char* t = R"X(               Local time: Thu 2025-05-08 09:56:26 CST
           Universal time: Thu 2025-05-08 01:56:26 UTC
                 RTC time: Thu 2025-05-08 01:56:26
                Time zone: Asia/Shanghai (CST, +0800)
System clock synchronized: no
              NTP service: inactive
          RTC in local TZ: no
)X";
  for (const std::string& text : {std::string(t), crlf(t)}) {
    const auto r = run("timedatectl", text);
    INFO(dump(r));
    check_facts(r, {{"host.timezone", "Asia/Shanghai", 4},
                    {"host.timezone", "+0800", 4},
                    {"host.collected_at", "Thu 2025-05-08 09:56:26 CST", 1},
                    {"host.clock_synchronized", "no", 5},
                    {"host.ntp_service", "inactive", 6}});
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].line == 5);
    CHECK(r.malformed == 0);
  }
}
