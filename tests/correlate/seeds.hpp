// The two seed incidents (shared/seeds/000, 002) and a healthy node, as database fixtures.
// Lines are the ones the write-ups quote (npu-smi header, install-log messages, SVM and runtime
// messages, modinfo/modprobe/ls output, environment, pip, maps, mountinfo) in the formats of
// log-formats.md; facts and hits are what the parsers and signatures produce from them.
#pragma once

#include <string>

#include "fixture.hpp"

namespace fixture {

// Seed 000: Atlas 900 A2 Pod node; driver downgraded 24.1.0.3 -> 24.1.rc3 without a reboot;
// SVM window mapped with vm_end=0x200000000000; HCCL init fails.
struct Seed000 {
  Member smi, version_info, install, proc_stat, date, plog, device_os, train, ulimit, maps;
};

inline Seed000 build_seed000(Db& db, const std::string& host = "a2-pod-017") {
  Seed000 s;
  db.host(host);
  s.smi = db.member("ascend_log_20260601094002/npu_info_log/card_info.log", "npu_smi_info", host,
                    {"+----------------------------------------------------------------------------"
                     "--------------------+",
                     "| npu-smi 24.1.rc3                 Version: 24.1.rc3                         "
                     "                    |",
                     "+---------------------------+---------------+--------------------------------"
                     "--------------------+",
                     "| NPU   Name                | Health        | Power(W)    Temp(C)           "
                     "Hugepages-Usage(page)|",
                     "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  "
                     "HBM-Usage(MB)        |",
                     "+===========================+===============+================================"
                     "====================+",
                     "| 0     910B3               | OK            | 92.1        52                "
                     "0    / 0             |",
                     "| 0                         | 0000:C1:00.0  | 0           0    / 0          "
                     "2828 / 65536         |",
                     "+===========================+===============+================================"
                     "====================+"});
  db.fact(s.smi, 2, "driver.version.loaded", "24.1.rc3");
  db.fact(s.smi, 7, "npu.0.name", "910B3");
  db.fact(s.smi, 7, "npu.0.health", "OK");
  s.version_info =
      db.member("ascend_log_20260601094002/driver_info/version.info", "version_info", host,
                {"Version=24.1.0.3", "ascendhal_version=7.35.23",
                 "Innerversion=V100R001C19SPC003B211", "package_version=24.1.0.3"});
  db.fact(s.version_info, 1, "driver.version.installed", "24.1.0.3");
  s.install = db.member("ascend_log_20260601094002/install_info/ascend_seclog/ascend_install.log",
                        "install_log", host,
                        {"[Driver] [2026-05-28 14:01:52] [INFO]Start time: 2026-05-28 14:01:52",
                         "[Driver] [2026-05-28 14:01:53] [INFO]Driver package has been installed "
                         "on the path /usr/local/Ascend, "
                         "the version is 24.1.0.3, and the version of this package is 24.1.rc3,do "
                         "you want to continue?  [y/n] ",
                         "[Driver] [2026-05-28 14:03:40] [INFO]Driver package installed "
                         "successfully! Reboot needed for "
                         "installation/upgrade to take effect!",
                         "[Driver] [2026-05-28 14:03:40] [INFO]End time: 2026-05-28 14:03:40"});
  db.fact(
      s.install, 3, "install.event",
      R"({"package":"driver","action":"downgrade","from":"24.1.0.3","to":"24.1.rc3","time":"2026-05-28 14:03:40","result":"success","reboot_required":true})");
  db.hit(s.install, 3, "install.driver_reboot_needed", "{}", local("2026-05-28 14:03:40", 8),
         "local", "info");
  s.proc_stat = db.member("ascend_log_20260601094002/host_info/proc_stat", "proc_stat", host,
                          {"cpu  118237 0 42077 29880392 3140 0 1093 0 0 0",
                           "btime " + std::to_string(utc("2026-05-20 23:12:05") / 1'000'000'000)});
  db.fact(s.proc_stat, 2, "host.boot_time",
          std::to_string(utc("2026-05-20 23:12:05") / 1'000'000'000));
  s.date = db.member("ascend_log_20260601094002/host_info/date.txt", "date", host,
                     {"Mon Jun  1 09:40:02 CST 2026"});
  db.fact(s.date, 1, "host.timezone", "CST");
  db.fact(s.date, 1, "host.collected_at", "Mon Jun  1 09:40:02 CST 2026");
  s.ulimit = db.member(
      "ascend_log_20260601094002/host_info/ulimit.txt", "ulimit", host,
      {"core file size          (blocks, -c) 0", "virtual memory          (kbytes, -v) unlimited"});
  db.fact(s.ulimit, 2, "ulimit.virtual_memory", "unlimited");
  s.maps =
      db.member("ascend_log_20260601094002/proc/48211/maps", "proc_maps", host,
                {"aaaad2a10000-aaaad2a12000 r-xp 00000000 103:02 1311                        "
                 "/usr/bin/python3.9",
                 "ffff8e3d0000-ffff8f2e4000 r-xp 00000000 103:02 7740392                   "
                 "/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux/lib64/libascendcl.so"});
  db.fact(s.maps, 1, "process.48211.library", "/usr/bin/python3.9");
  db.fact(s.maps, 2, "process.48211.library",
          "/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux/lib64/libascendcl.so");
  db.fact(s.maps, 1, "process.48211.mapping", "aaaad2a10000-aaaad2a12000 r-xp /usr/bin/python3.9");
  db.fact(s.maps, 2, "process.48211.mapping",
          "ffff8e3d0000-ffff8f2e4000 r-xp "
          "/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux/lib64/libascendcl.so");
  s.plog = db.member(
      "ascend_log_20260601094002/ascend/log/debug/plog/plog-48211_20260601093012345.log", "plog",
      host,
      {"[ERROR] DRV(48211,python3):2026-06-01-09:30:15.412.339 [ascend][curpid: 48211, "
       "48211][drv][devmm]"
       "[devmm_svm_init 402]Not support svm mem, because asan is opened or os not support mmap 8T",
       "[ERROR] DRV(48211,python3):2026-06-01-09:30:15.413.020 [ascend][curpid: 48211, "
       "48211][drv][devmm]"
       "[devmm_alloc_host 211]Host mem gotgo malloc, errstr=Invalid argument"});
  db.hit(s.plog, 1, "svm.not_support_svm_mem", "{}", local("2026-06-01 09:30:15.412339", 8),
         "local");
  db.hit(s.plog, 2, "svm.host_mem_malloc_invalid", "{}", local("2026-06-01 09:30:15.413020", 8),
         "local");
  s.device_os = db.member(
      "ascend_log_20260601094002/device_log/slog/dev-os-0/debug/device-os/"
      "device-os_20260601013000123.log",
      "device_os_log", host,
      {"[ERROR] KERNEL(1417,sklogd):2026-06-01-01:30:15.398.114 [klogd.c:247][6321.402117] "
       "[ascend] [ERROR] "
       "[devmm] [devmm_svm_mmap 402] <python3:48211,48211> Svm map va not fixed, "
       "vm_start=0x100000000000, "
       "vm_end=0x200000000000"});
  db.hit(s.device_os, 1, "svm.map_va_not_fixed",
         R"({"vm_start":"0x100000000000","vm_end":"0x200000000000"})",
         utc("2026-06-01 01:30:15.398114"), "exact");
  s.train = db.member("ascend_log_20260601094002/train/rank_17.log", "train_log", host,
                      {"Traceback (most recent call last):",
                       "  File \"/workspace/pretrain/train.py\", line 412, in <module>",
                       "    dist.init_process_group(backend=\"hccl\")",
                       "RuntimeError: Communicator of group hccl_world_group inited: failed."});
  db.hit(s.train, 4, "hccl.comm_init_failed", R"({"group":"hccl_world_group"})", std::nullopt);
  return s;
}

// Seed 002: 910B server; stale DKMS symlinks pick an old drv_pcie_host (Unknown symbol at load,
// no /dev/davinci*), environment points at CANN 8.5.1 while 8.5.0 is installed, torch_npu
// 2.8.0.post4 with CANN 8.5.0, deleted libhccl mapping, empty toolkit bind mount, stalled queue,
// rng probe timeout, `--amp False` taking effect as True, uninstall blocked by a mount, NNAL
// partially installed.
struct Seed002 {
  Member modinfo, modprobe, ls_updates, ls_dev, journal, env, toolkit_info, pip, maps, mountinfo,
      shell, plog, train, probes, cmdline, install, ls_nnal, date, proc_stat;
};

inline Seed002 build_seed002(Db& db, const std::string& host = "910b-node3") {
  Seed002 s;
  db.host(host);
  const std::string k = "/lib/modules/5.15.0-105-generic/updates";
  s.date = db.member("diag/date.txt", "date", host, {"Sat Mar 14 10:31:55 +0800 2026"});
  db.fact(s.date, 1, "host.timezone", "+0800");
  s.proc_stat =
      db.member("diag/proc_stat", "proc_stat", host,
                {"btime " + std::to_string(local("2026-03-14 08:01:30", 8) / 1'000'000'000)});
  db.fact(s.proc_stat, 1, "host.boot_time",
          std::to_string(local("2026-03-14 08:01:30", 8) / 1'000'000'000));
  s.modinfo = db.member("diag/modinfo_n_drv_pcie_host.txt", "modinfo", host,
                        {k + "/dkms/drv_pcie_host.ko"});
  db.fact(s.modinfo, 1, "module.drv_pcie_host.resolved_path", k + "/dkms/drv_pcie_host.ko");
  s.modprobe = db.member(
      "diag/modprobe_n_v_drv_pcie_host.txt", "modprobe", host,
      {"insmod " + k + "/dkms/drv_seclib_host.ko ", "insmod " + k + "/dkms/drv_pcie_host.ko "});
  db.fact(s.modprobe, 2, "module.drv_pcie_host.resolved_path", k + "/dkms/drv_pcie_host.ko");
  db.fact(s.modprobe, 1, "module.drv_pcie_host.depends", k + "/dkms/drv_seclib_host.ko");
  s.ls_updates =
      db.member("diag/ls_lR_updates.txt", "ls_listing", host,
                {k + ":", "total 2316", "drwxr-xr-x 2 root root    4096 Mar 12 16:40 dkms",
                 "-rw-r--r-- 1 root root  981256 Mar 12 16:41 drv_pcie_host.ko",
                 "-rw-r--r-- 1 root root   61880 Mar 12 16:41 drv_seclib_host.ko", "",
                 k + "/dkms:", "total 0",
                 "lrwxrwxrwx 1 root root 55 Nov  3  2025 drv_pcie_host.ko -> "
                 "/usr/local/Ascend.bak/driver/kernel/host/drv_pcie_host.ko",
                 "lrwxrwxrwx 1 root root 57 Nov  3  2025 drv_seclib_host.ko -> "
                 "/usr/local/Ascend.bak/driver/kernel/host/drv_seclib_host.ko"});
  db.fact(s.ls_updates, 4, "fs." + k + "/drv_pcie_host.ko", "file");
  db.fact(s.ls_updates, 5, "fs." + k + "/drv_seclib_host.ko", "file");
  db.fact(s.ls_updates, 9, "fs." + k + "/dkms/drv_pcie_host.ko",
          "symlink:/usr/local/Ascend.bak/driver/kernel/host/drv_pcie_host.ko");
  db.fact(s.ls_updates, 10, "fs." + k + "/dkms/drv_seclib_host.ko",
          "symlink:/usr/local/Ascend.bak/driver/kernel/host/drv_seclib_host.ko");
  s.ls_dev = db.member("diag/ls_dev_davinci.txt", "ls_listing", host,
                       {"ls: cannot access '/dev/davinci_manager': No such file or directory",
                        "ls: cannot access '/dev/davinci0': No such file or directory"});
  db.fact(s.ls_dev, 1, "fs./dev/davinci_manager", "missing");
  db.fact(s.ls_dev, 2, "fs./dev/davinci0", "missing");
  s.journal = db.member("diag/journalctl_k_b.txt", "journal", host,
                        {"Mar 14 08:02:11 910b-node3 kernel: drv_pcie_host: Unknown symbol "
                         "devdrv_manager_register (err -2)",
                         "Mar 14 08:02:11 910b-node3 kernel: drv_pcie_host: Unknown symbol "
                         "hal_kernel_get_soc_type (err -2)"});
  db.hit(s.journal, 1, "kernel.unknown_symbol",
         R"({"module":"drv_pcie_host","symbol":"devdrv_manager_register"})",
         local("2026-03-14 08:02:11", 8), "year_inferred");
  db.hit(s.journal, 2, "kernel.unknown_symbol",
         R"({"module":"drv_pcie_host","symbol":"hal_kernel_get_soc_type"})",
         local("2026-03-14 08:02:11", 8), "year_inferred");
  s.env = db.member("diag/printenv.txt", "environ", host,
                    {"ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1",
                     "ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/8.5.1",
                     "ASCEND_OPP_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1/opp",
                     "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/"
                     "ascend-toolkit/8.5.1/lib64",
                     "PATH=/usr/local/Ascend/ascend-toolkit/8.5.1/bin:/usr/local/bin:/usr/bin:/bin",
                     "ASCEND_LAUNCH_BLOCKING=1"});
  db.fact(s.env, 1, "env.ASCEND_HOME_PATH", "/usr/local/Ascend/ascend-toolkit/8.5.1");
  db.fact(s.env, 2, "env.ASCEND_TOOLKIT_HOME", "/usr/local/Ascend/ascend-toolkit/8.5.1");
  db.fact(s.env, 3, "env.ASCEND_OPP_PATH", "/usr/local/Ascend/ascend-toolkit/8.5.1/opp");
  db.fact(s.env, 4, "env.LD_LIBRARY_PATH",
          "/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/ascend-toolkit/8.5.1/lib64");
  db.fact(s.env, 5, "env.PATH",
          "/usr/local/Ascend/ascend-toolkit/8.5.1/bin:/usr/local/bin:/usr/bin:/bin");
  db.fact(s.env, 6, "env.ASCEND_LAUNCH_BLOCKING", "1");
  s.toolkit_info = db.member(
      "diag/ascend_toolkit_install.info", "version_info", host,
      {"package_name=Ascend-cann-toolkit", "version=8.5.0", "innerversion=V100R001C25SPC001B212",
       "arch=aarch64", "os=linux", "path=/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux"});
  db.fact(s.toolkit_info, 2, "cann.version.installed", "8.5.0");
  db.fact(s.toolkit_info, 6, "cann.install_path", "/usr/local/Ascend/ascend-toolkit/8.5.0");
  s.pip = db.member("diag/pip_show.txt", "pip_list", host,
                    {"Name: torch", "Version: 2.8.0", "Name: torch_npu", "Version: 2.8.0.post4",
                     "Name: torchvision", "Version: 0.23.0"});
  db.fact(s.pip, 2, "torch.version", "2.8.0");
  db.fact(s.pip, 4, "torch_npu.version", "2.8.0.post4");
  db.fact(s.pip, 6, "torchvision.version", "0.23.0");
  s.maps = db.member(
      "diag/proc_31337_maps.txt", "proc_maps", host,
      {"fffd4a200000-fffd4b9e2000 r-xp 00000000 103:02 5904392                   "
       "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libascendcl.so",
       "fffd4c000000-fffd4d1a0000 r-xp 00000000 103:02 5904511                   "
       "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libhccl.so (deleted)"});
  db.fact(s.maps, 1, "process.31337.library",
          "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libascendcl.so");
  db.fact(s.maps, 2, "process.31337.library",
          "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libhccl.so");
  db.fact(s.maps, 2, "process.31337.deleted",
          "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libhccl.so");
  db.fact(s.maps, 1, "process.31337.mapping",
          "fffd4a200000-fffd4b9e2000 r-xp "
          "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libascendcl.so");
  db.fact(s.maps, 1, "cann.version.loaded", "8.5.0");
  s.mountinfo = db.member("diag/mountinfo.txt", "mountinfo", host,
                          {"1289 1270 259:2 /data/empty-toolkit /usr/local/Ascend/ascend-toolkit "
                           "rw,relatime - ext4 /dev/nvme0n1p2 rw",
                           "1290 1270 259:2 /data/ascend/nnal /usr/local/Ascend/nnal rw,relatime - "
                           "ext4 /dev/nvme0n1p2 rw"});
  db.fact(s.mountinfo, 1, "mount./usr/local/Ascend/ascend-toolkit",
          "root=/data/empty-toolkit source=/dev/nvme0n1p2 fstype=ext4 opts=rw,relatime");
  db.fact(s.mountinfo, 2, "mount./usr/local/Ascend/nnal",
          "root=/data/ascend/nnal source=/dev/nvme0n1p2 fstype=ext4 opts=rw,relatime");
  s.shell =
      db.member("diag/login_shell.txt", "text", host,
                {"-bash: /usr/local/Ascend/ascend-toolkit/set_env.sh: No such file or directory"});
  db.hit(s.shell, 1, "cann.set_env_missing",
         R"({"path":"/usr/local/Ascend/ascend-toolkit/set_env.sh"})", std::nullopt);
  s.plog = db.member(
      "ascend/log/debug/plog/plog-31337_20260312100950123.log", "plog", host,
      {"[ERROR] RUNTIME(31337,python3):2026-03-12-10:14:07.118.245 [stream.cc:1402]31420 "
       "SynchronizeExecutedTask:"
       "report three minutes timeout! stream_id=47, task_id=1280, sqHead=500, pendingNum=781",
       "[ERROR] RUNTIME(31337,python3):2026-03-12-10:17:07.118.502 [stream.cc:1402]31420 "
       "SynchronizeExecutedTask:"
       "report three minutes timeout! stream_id=47, task_id=1280, sqHead=500, pendingNum=781",
       "[ERROR] RUNTIME(31337,python3):2026-03-12-10:20:07.118.733 [stream.cc:1402]31420 "
       "SynchronizeExecutedTask:"
       "report three minutes timeout! stream_id=47, task_id=1280, sqHead=500, pendingNum=781"});
  const char* caps = R"({"stream_id":"47","task_id":"1280","sq_head":"500","pending_num":"781"})";
  db.hit(s.plog, 1, "runtime.sync_three_minutes_timeout", caps,
         local("2026-03-12 10:14:07.118245", 8), "local");
  db.hit(s.plog, 2, "runtime.sync_three_minutes_timeout", caps,
         local("2026-03-12 10:17:07.118502", 8), "local");
  db.hit(s.plog, 3, "runtime.sync_three_minutes_timeout", caps,
         local("2026-03-12 10:20:07.118733", 8), "local");
  s.train = db.member("train/stdout_rank0.log", "train_log", host,
                      {"2026-03-12 10:09:51,114 - INFO - effective config: amp=True cache=False "
                       "workers=0 batch_size=1",
                       "Traceback (most recent call last):",
                       "  File \"/workspace/det/train.py\", line 233, in <module>",
                       "    loss = criterion(outputs, targets)",
                       "  File \"/workspace/det/loss.py\", line 88, in forward",
                       "    grid = torch.zeros(feat.shape[-2:], device=feat.device)",
                       "RuntimeError: ACL error: 107020",
                       "[ERROR] 2026-03-12-10:21:07 (PID:31337, Device:0, RankID:0) ERR00100 PTA "
                       "call acl api failed",
                       "EE9999: Inner Error!",
                       "        rtStreamSynchronize execution failed, reason=task "
                       "timeout[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]"});
  db.fact(s.train, 1, "config.amp", "True");
  db.fact(s.train, 1, "config.cache", "False");
  db.fact(s.train, 1, "config.workers", "0");
  db.hit(s.train, 7, "acl.error_107020", R"({"code":"107020"})", local("2026-03-12 10:21:07", 8),
         "local");
  db.hit(s.train, 10, "runtime.stream_sync_task_timeout", "{}", local("2026-03-12 10:21:07", 8),
         "local");
  s.cmdline = db.member("diag/proc_31337_cmdline.txt", "proc_cmdline", host,
                        {"python3 train.py --workers 0 --batch-size 1 --amp False --cache False"});
  db.fact(s.cmdline, 1, "process.31337.cmdline",
          "python3 train.py --workers 0 --batch-size 1 --amp False --cache False");
  db.fact(s.cmdline, 1, "args.workers", "0");
  db.fact(s.cmdline, 1, "args.batch-size", "1");
  db.fact(s.cmdline, 1, "args.amp", "False");
  db.fact(s.cmdline, 1, "args.cache", "False");
  s.probes = db.member("probes/probe_output.txt", "probe_output", host,
                       {"$ timeout 60s python3 probe.py matmul", "256.0", "exit=0",
                        "$ timeout 60s python3 probe.py rng", "exit=124", "probe rng: timeout"});
  db.fact(s.probes, 3, "probe.matmul.result", "pass");
  db.fact(s.probes, 5, "probe.rng.result", "timeout");
  db.hit(s.probes, 6, "probe.timeout", R"({"probe":"rng"})", std::nullopt);
  s.install = db.member("install/ascend_install.log", "install_log", host,
                        {"[Driver] [2026-03-13 18:20:41] [INFO]Start time: 2026-03-13 18:20:41",
                         "rm: cannot remove '/usr/local/Ascend/nnal': Device or resource busy",
                         "[Driver] [2026-03-13 18:20:44] [ERROR]ERR_NO:0x0090;ERR_DES:uninstall "
                         "driver failed, details in : "
                         "/var/log/ascend_seclog/ascend_install.log",
                         "[Nnal] [2026-03-13 18:31:02] [INFO]: Nnal package installed "
                         "successfully! The new version takes effect immediately."});
  db.hit(s.install, 2, "install.device_busy", R"({"path":"/usr/local/Ascend/nnal"})", std::nullopt);
  db.hit(s.install, 3, "install.uninstall_failed", "{}", local("2026-03-13 18:20:44", 8), "local");
  db.fact(
      s.install, 3, "install.event",
      R"({"package":"driver","action":"uninstall","time":"2026-03-13 18:20:44","result":"failed","reboot_required":false})");
  db.fact(
      s.install, 4, "install.event",
      R"({"package":"nnal","action":"install","to":"8.5.0","time":"2026-03-13 18:31:02","result":"success","reboot_required":false})");
  s.ls_nnal = db.member(
      "diag/ls_nnal.txt", "ls_listing", host,
      {"ls: cannot access '/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1/lib/libatb.so': No such "
       "file or directory"});
  db.fact(s.ls_nnal, 1, "fs./usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1/lib/libatb.so",
          "missing");
  return s;
}

// A healthy 910B node: versions agree (24.1.rc3 / 24.1.RC3), the last driver install precedes the
// boot, a supported torch 2.9.0 + torch_npu 2.9.0.post6 + CANN 9.1.0 stack, environment through
// `latest`, a DKMS module that is a real file, the driver's own SVM mapping, the driver directory
// bind-mounted into the container as usual, probes passing, flags as intended.
inline void build_healthy(Db& db, const std::string& host = "910b-node5") {
  db.host(host);
  auto smi = db.member("npu_info_log/card_info.log", "npu_smi_info", host,
                       {"+-------------------------------------------------------------------------"
                        "-----------------------+",
                        "| npu-smi 24.1.rc3                 Version: 24.1.rc3                      "
                        "                       |"});
  db.fact(smi, 2, "driver.version.loaded", "24.1.rc3");
  auto vi = db.member("driver_info/version.info", "version_info", host,
                      {"Version=24.1.RC3", "package_version=24.1.RC3"});
  db.fact(vi, 1, "driver.version.installed", "24.1.RC3");
  auto inst = db.member("install_info/ascend_seclog/ascend_install.log", "install_log", host,
                        {"[Driver] [2026-05-10 11:20:03] [INFO]Driver package installed "
                         "successfully! Reboot needed for "
                         "installation/upgrade to take effect!"});
  db.fact(
      inst, 1, "install.event",
      R"({"package":"driver","action":"upgrade","from":"24.1.rc2","to":"24.1.rc3","time":"2026-05-10 11:20:03","result":"success","reboot_required":true})");
  db.hit(inst, 1, "install.driver_reboot_needed", "{}", local("2026-05-10 11:20:03", 8), "local",
         "info");
  auto ps = db.member("host_info/proc_stat", "proc_stat", host,
                      {"btime " + std::to_string(utc("2026-05-10 04:02:00") / 1'000'000'000)});
  db.fact(ps, 1, "host.boot_time", std::to_string(utc("2026-05-10 04:02:00") / 1'000'000'000));
  auto tz = db.member("host_info/timedatectl.txt", "timedatectl", host,
                      {"                Time zone: Asia/Shanghai (CST, +0800)"});
  db.fact(tz, 1, "host.timezone", "+0800");
  auto pip = db.member("pip_list.txt", "pip_list", host,
                       {"torch                    2.9.0", "torch_npu                2.9.0.post6"});
  db.fact(pip, 1, "torch.version", "2.9.0");
  db.fact(pip, 2, "torch_npu.version", "2.9.0.post6");
  auto ti =
      db.member("cann/ascend_toolkit_install.info", "version_info", host,
                {"version=9.1.0", "path=/usr/local/Ascend/ascend-toolkit/9.1.0/aarch64-linux"});
  db.fact(ti, 1, "cann.version.installed", "9.1.0");
  db.fact(ti, 2, "cann.install_path", "/usr/local/Ascend/ascend-toolkit/9.1.0");
  auto env = db.member("env.txt", "environ", host,
                       {"ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/latest",
                        "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/"
                        "ascend-toolkit/9.1.0/lib64"});
  db.fact(env, 1, "env.ASCEND_HOME_PATH", "/usr/local/Ascend/ascend-toolkit/latest");
  db.fact(env, 2, "env.LD_LIBRARY_PATH",
          "/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/ascend-toolkit/9.1.0/lib64");
  auto ul =
      db.member("ulimit.txt", "ulimit", host, {"virtual memory          (kbytes, -v) unlimited"});
  db.fact(ul, 1, "ulimit.virtual_memory", "unlimited");
  auto maps = db.member(
      "proc/2231/maps", "proc_maps", host,
      {"100000000000-180000000000 ---p 00000000 00:06 1050                       /dev/devmm_svm",
       "ffff8e3d0000-ffff8f2e4000 r-xp 00000000 103:02 7740392                   "
       "/usr/local/Ascend/ascend-toolkit/9.1.0/aarch64-linux/lib64/libascendcl.so"});
  db.fact(maps, 1, "process.2231.mapping", "100000000000-180000000000 ---p /dev/devmm_svm");
  db.fact(maps, 2, "process.2231.mapping",
          "ffff8e3d0000-ffff8f2e4000 r-xp "
          "/usr/local/Ascend/ascend-toolkit/9.1.0/aarch64-linux/lib64/libascendcl.so");
  db.fact(maps, 2, "process.2231.library",
          "/usr/local/Ascend/ascend-toolkit/9.1.0/aarch64-linux/lib64/libascendcl.so");
  db.fact(maps, 2, "cann.version.loaded", "9.1.0");
  auto mi = db.member("modinfo_n.txt", "modinfo", host,
                      {"/lib/modules/5.15.0-105-generic/updates/dkms/drv_pcie_host.ko"});
  db.fact(mi, 1, "module.drv_pcie_host.resolved_path",
          "/lib/modules/5.15.0-105-generic/updates/dkms/drv_pcie_host.ko");
  auto ls = db.member("ls_dkms.txt", "ls_listing", host,
                      {"-rw-r--r-- 1 root root  981256 May 10 11:19 drv_pcie_host.ko"});
  db.fact(ls, 1, "fs./lib/modules/5.15.0-105-generic/updates/dkms/drv_pcie_host.ko", "file");
  auto mnt = db.member("mountinfo", "mountinfo", host,
                       {"1301 1270 259:2 /usr/local/Ascend/driver /usr/local/Ascend/driver "
                        "ro,relatime - ext4 /dev/nvme0n1p2 rw"});
  db.fact(mnt, 1, "mount./usr/local/Ascend/driver",
          "root=/usr/local/Ascend/driver source=/dev/nvme0n1p2 fstype=ext4 opts=ro,relatime");
  auto probes = db.member("probes.txt", "probe_output", host,
                          {"$ timeout 60s python3 probe.py matmul", "exit=0",
                           "$ timeout 60s python3 probe.py rng", "exit=0"});
  db.fact(probes, 2, "probe.matmul.result", "pass");
  db.fact(probes, 4, "probe.rng.result", "pass");
  auto cmd = db.member("proc/2231/cmdline", "proc_cmdline", host,
                       {"python3 train.py --amp True --workers 8"});
  db.fact(cmd, 1, "args.amp", "True");
  db.fact(cmd, 1, "args.workers", "8");
  auto tr = db.member("train.log", "train_log", host,
                      {"2026-05-21 09:00:01,002 - INFO - effective config: amp=True workers=8"});
  db.fact(tr, 1, "config.amp", "True");
  db.fact(tr, 1, "config.workers", "8");
  auto hk = db.member(
      "host_kernel.log", "host_kernel_log", host,
      {"[2026-05-10-04:02:31.400027] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
       "<systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"dc\", "
       "driver_name=\"devdrv_device_driver\")"});
  db.event(hk, 1, utc("2026-05-10 04:02:31.400027"), "exact", "info");
}

}  // namespace fixture
