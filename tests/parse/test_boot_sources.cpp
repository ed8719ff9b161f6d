// Boot time from every source (docs/clock.md "Boot time"): who -b, last reboot / last -x -F,
// journalctl --list-boots, dmesg -T, host_kernel.log `Insmod host driver` after a gap. Lines are
// in the tools' real output formats (util-linux who/last, systemd journalctl, the Ascend driver's
// ring-buffer copy of the asys collection).
#include <catch2/catch.hpp>

#include "test_logs_util.hpp"
#include "test_outputs_util.hpp"

using fltest::count;
using fltest::has;
using fltest::line_of;
using fltest::run;
using fltest::values;

TEST_CASE("boot_record: who -b", "[parse][outputs][boot]") {
  const auto r = run("boot_record", "         system boot  2025-05-08 07:10\n");
  CHECK(values(r, "host.boot_time_local") == std::vector<std::string>{"2025-05-08 07:10:00"});
  CHECK(r.malformed == 0);
  // with the `-H` heading and a run level line (`who -b -r`)
  const auto h = run("boot_record",
                     "NAME     LINE         TIME             COMMENT\n"
                     "         system boot  2024-11-30 22:41\n"
                     "         run-level 5  2024-11-30 22:41\n");
  CHECK(values(h, "host.boot_time_local") == std::vector<std::string>{"2024-11-30 22:41:00"});
}

TEST_CASE("boot_record: last reboot / last -x -F, newest first", "[parse][outputs][boot]") {
  const auto r =
      run("boot_record",
          "root     pts/0        10.0.0.8         Thu May  8 09:40:01 2025   still logged in\n"
          "reboot   system boot  5.4.0-125-generic Thu May  8 03:53:40 2025   still running\n"
          "shutdown system down  5.4.0-125-generic Thu May  8 03:52:10 2025 - Thu May  8 03:53:40 "
          "2025  (00:01)\n"
          "reboot   system boot  5.4.0-125-generic Tue Apr 29 11:02:33 2025 - Thu May  8 03:52:10 "
          "2025 (8+16:49)\n"
          "\n"
          "wtmp begins Tue Apr  1 08:00:12 2025\n");
  CHECK(values(r, "host.boot_time_local") == std::vector<std::string>{"2025-05-08 03:53:40"});
  CHECK(line_of(r, "host.boot_time_local", "2025-05-08 03:53:40") == 2);
  // without -F last prints no year: the row is not dated (a guessed year could invert the order
  // of boot and install)
  const auto y = run("boot_record",
                     "reboot   system boot  5.15.0-91-generic Thu May  8 07:10   still running\n"
                     "\n"
                     "wtmp begins Thu May  1 00:00:01 2025\n");
  CHECK(count(y, "host.boot_time_local") == 0);
  CHECK(y.malformed == 0);
}

TEST_CASE("boot_record: journalctl --list-boots, old and new layouts", "[parse][outputs][boot]") {
  // systemd < 250: no header, em dash between first and last entry
  const auto a =
      run("boot_record",
          "-1 fa733c82bc8c479bb1d92a964e4680e6 Tue 2025-04-29 11:02:35 CST—Thu 2025-05-08 03:52:09 "
          "CST\n"
          " 0 4d2d1f0d8f0e4a8c9c7d0c1b2a3e4f5a Thu 2025-05-08 03:53:42 CST—Thu 2025-05-08 09:56:26 "
          "CST\n");
  CHECK(values(a, "host.boot_time_local") == std::vector<std::string>{"2025-05-08 03:53:42"});
  CHECK(line_of(a, "host.boot_time_local", "2025-05-08 03:53:42") == 2);
  // systemd >= 250: a header, spaces between the two entries
  const auto b =
      run("boot_record",
          "IDX BOOT ID                          FIRST ENTRY                 LAST ENTRY\n"
          " -1 fa733c82bc8c479bb1d92a964e4680e6 Tue 2025-04-29 11:02:35 UTC Thu 2025-05-08 "
          "03:52:09 UTC\n"
          "  0 4d2d1f0d8f0e4a8c9c7d0c1b2a3e4f5a Thu 2025-05-08 03:53:42 UTC Thu 2025-05-08 "
          "09:56:26 UTC\n");
  CHECK(values(b, "host.boot_time_local") == std::vector<std::string>{"2025-05-08 03:53:42"});
  CHECK(b.malformed == 0);
}

TEST_CASE("dmesg -T: the kernel's first line is the boot time", "[parse][logs][boot]") {
  const auto x86 = faultline::parse::parse_text(
      "dmesg_t",
      "[Thu May  8 03:53:31 2025] Linux version 5.4.0-125-generic (buildd@lcy02-amd64-083) (gcc "
      "version 9.4.0 (Ubuntu 9.4.0-1ubuntu1~20.04.1)) #141-Ubuntu SMP Wed Aug 10 13:42:03 UTC "
      "2022 (Ubuntu 5.4.0-125.141-generic 5.4.195)\n"
      "[Thu May  8 03:53:31 2025] Command line: BOOT_IMAGE=/vmlinuz-5.4.0-125-generic "
      "root=/dev/mapper/vg-root ro\n");
  CHECK(values(x86, "host.boot_time_local") == std::vector<std::string>{"2025-05-08 03:53:31"});
  const auto arm = faultline::parse::parse_text(
      "dmesg_t",
      "[Sat Nov 30 22:40:58 2024] Booting Linux on physical CPU 0x0000080000 [0x481fd010]\n"
      "[Sat Nov 30 22:40:58 2024] Linux version 5.10.0-60.18.0.50.oe2203.aarch64 "
      "(abuild@obs-worker-002) (gcc_old (GCC) 10.3.1, GNU ld (GNU Binutils) 2.37) #1 SMP Wed "
      "Mar 30 02:43:08 UTC 2022\n");
  CHECK(count(arm, "host.boot_time_local") == 1);
  CHECK(has(arm, "host.boot_time_local", "2024-11-30 22:40:58"));
  // plain dmesg prints uptimes only: no civil boot time from it
  const auto raw = faultline::parse::parse_text(
      "dmesg", "[    0.000000] Linux version 5.4.0-125-generic (buildd@lcy02-amd64-083)\n");
  CHECK(count(raw, "host.boot_time_local") == 0);
}

TEST_CASE("host_kernel.log: Insmod host driver after a gap is a boot", "[parse][logs][boot]") {
  const char* kBoot =
      "[2025-05-07-19:54:27.371626] [ascend] [uda] [INFO] [uda_host_ns_init_work 125] "
      "<kworker/4:1:231:231:4> Ns info. (ns=ffff968e9f409780; init.task ns=ffff968e9f409780)\n"
      "[2025-05-07-19:54:27.400027] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
      "<systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"dc\", "
      "driver_name=\"devdrv_device_driver\")\n";
  SECTION("at the start of the file") {
    const auto r = faultline::parse::parse_text("host_kernel_log", kBoot);
    CHECK(values(r, "host.boot_time") == std::vector<std::string>{"1746647667"});
    CHECK(line_of(r, "host.boot_time", "1746647667") == 2);
  }
  SECTION("a later boot after a gap wins; a reload without a gap is not a boot") {
    std::string log = kBoot;
    log +=
        "[2025-05-08-02:28:01.213483] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
        "<insmod:9001:9001> Insmod host driver. (type=\"normal\", product=\"dc\", "
        "driver_name=\"devdrv_device_driver\")\n"
        "[2025-05-09-01:00:00.000001] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
        "<systemd-udevd:690:690> Insmod host driver. (type=\"normal\", product=\"dc\", "
        "driver_name=\"devdrv_device_driver\")\n";
    const auto r = faultline::parse::parse_text("host_kernel_log", log);
    // 02:28 comes after a gap too (no driver lines for hours) but was loaded by hand (insmod):
    // a reload; 2025-05-09 01:00 by systemd-udevd after a gap is the newest boot
    CHECK(values(r, "host.boot_time") == std::vector<std::string>{"1746752400"});
  }
  SECTION("newer drivers print the uptime: boot = wall - uptime") {
    const auto r = faultline::parse::parse_text(
        "host_kernel_log",
        "[2025-05-07-19:54:27.400027] [31.612345] [ascend] [drv_pcie] [INFO] [devdrv_init_module "
        "2338] <systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"dc\", "
        "driver_name=\"devdrv_device_driver\")\n");
    CHECK(values(r, "host.boot_time") == std::vector<std::string>{"1746647635"});
  }
  SECTION("a reload by modprobe after a gap leaves the boot where it was") {
    std::string log = kBoot;
    log +=
        "[2025-05-08-02:28:01.213483] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
        "<modprobe:9001:9001> Insmod host driver. (type=\"normal\", product=\"dc\", "
        "driver_name=\"devdrv_device_driver\")\n";
    const auto r = faultline::parse::parse_text("host_kernel_log", log);
    CHECK(values(r, "host.boot_time") == std::vector<std::string>{"1746647667"});
  }
  SECTION("no Insmod line: no boot time") {
    const auto r = faultline::parse::parse_text(
        "host_kernel_log",
        "[2025-05-07-19:54:27.376037] [ascend] [vmng_dev] [INFO] [vmngh_vpc_init_module 504] "
        "<systemd-udevd:694> Init vmngh vpc module finish.\n");
    CHECK(count(r, "host.boot_time") == 0);
  }
}

TEST_CASE("host_kernel.log of the real asys collection states its boot", "[parse][boot][corpus]") {
  if (!fltest::have_asys()) {
    WARN("no asys bundle: skipped");
    return;
  }
  const auto r = fltest::parse_asys("host/driver/host_kernel.log");
  // `Insmod host driver` by systemd-udevd at 2025-05-07 19:54:27 UTC, line 3
  CHECK(values(r, "host.boot_time") == std::vector<std::string>{"1746647667"});
  CHECK(line_of(r, "host.boot_time", "1746647667") == 3);
}
