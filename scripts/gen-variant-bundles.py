#!/usr/bin/env python3
"""Variant bundles: the same failure stories as samples/, laid out the way each official collector
(and an engineer at a shell) really writes them, with what real collections vary.

Written from the REFERENCE (/work/shared/design/log-formats.md, the two seeds), not from samples/:
dated top dirs, node dirs named by IP or host name, rotated and .gz members, CRLF, a UTF-8 BOM,
non-UTF-8 bytes, truncated last lines, empty files, both zones (UTC, +0800, stated or not),
`[root@node ~]# cmd` transcripts, npu-smi 910B 8-card and 310P tables, dpkg vs rpm, pip freeze vs
pip list, launcher prefixes (`[rank3]:`, `[default0]:`), journal vs dmesg -T vs dmesg.

Usage:
  scripts/gen-variant-bundles.py [--out DIR]         # every variant into DIR (default /tmp/fl-variants)
  scripts/gen-variant-bundles.py --samples           # (re)write the variants kept as samples/variant-*
  scripts/gen-variant-bundles.py --check             # samples/variant-* equal the generator output
Variants that need binary members (.gz, .tar.gz) are only written with --out; the ones kept under
samples/ are text only. Output is byte-for-byte reproducible.
"""
from __future__ import annotations

import argparse
import filecmp
import gzip
import io
import os
import shutil
import sys
import tarfile
import tempfile
from datetime import datetime, timedelta, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
WDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
CST = timezone(timedelta(hours=8))
UTC = timezone.utc


def T(s: str, z=CST) -> datetime:
    return datetime.strptime(s, "%Y-%m-%d %H:%M:%S.%f" if "." in s else "%Y-%m-%d %H:%M:%S").replace(tzinfo=z)


def f_plog(d):  # 2026-04-10-15:21:05.311.204
    return d.strftime("%Y-%m-%d-%H:%M:%S.") + "%03d.%03d" % (d.microsecond // 1000, d.microsecond % 1000)


def f_17(d):
    return d.strftime("%Y%m%d%H%M%S") + "%03d" % (d.microsecond // 1000)


def f_hk(d):  # host_kernel.log, UTC
    return d.astimezone(UTC).strftime("[%Y-%m-%d-%H:%M:%S.%f]")


def f_sys(d):  # May  8 02:28:01
    return "%s %2d %s" % (MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def f_jrn(d):  # journal short: Mar 05 09:38:40
    return "%s %02d %s" % (MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def f_ctime(d):  # Thu May  8 02:28:01 2025
    return "%s %s %2d %s %d" % (WDAYS[d.weekday()], MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def f_inst(d):
    return d.strftime("%Y-%m-%d %H:%M:%S")


class Files:
    def __init__(self):
        self.data: dict[str, bytes] = {}
        self.links: dict[str, str] = {}  # symbolic links (rel -> target as stored, never followed)

    def link(self, rel: str, target: str):
        self.links[rel] = target

    def put(self, rel: str, content, eol="\n", bom=False, trunc=0):
        if isinstance(content, list):
            content = eol.join(content) + eol if content else ""
        b = content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content
        if bom:
            b = b"\xef\xbb\xbf" + b
        if trunc:
            b = b[:-trunc]
        self.data[rel] = b

    def write(self, out: str):
        for rel, b in sorted(self.data.items()):
            p = os.path.join(out, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(b)
        for rel, target in sorted(self.links.items()):
            p = os.path.join(out, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            os.symlink(target, p)


def gz(b: bytes, name: str) -> bytes:
    bio = io.BytesIO()
    with gzip.GzipFile(filename=name, mode="wb", fileobj=bio, mtime=0) as g:
        g.write(b)
    return bio.getvalue()


def targz(files: dict[str, bytes], compress=True) -> bytes:
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w:gz" if compress else "w", format=tarfile.GNU_FORMAT) as t:
        for rel, b in sorted(files.items()):
            ti = tarfile.TarInfo(rel)
            ti.size = len(b)
            ti.mtime = 1775800000
            ti.mode = 0o644
            t.addfile(ti, io.BytesIO(b))
    raw = bio.getvalue()
    if compress:  # gzip header mtime: make it reproducible
        raw = raw[:4] + b"\x00\x00\x00\x00" + raw[8:]
    return raw


# ----------------------------------------------------------------------------------------------
# shared content
# ----------------------------------------------------------------------------------------------
def npu_smi_910b(tool: str, drv: str, n=8, card="910B3", hbm=65536, procs=None) -> list:
    """96-column A2 layout (log-formats.md §5.1)."""
    sep = "+===========================+===============+====================================================+"
    def row(s):
        return "| " + s.ljust(95) + "|"
    def cells(a, b, c):
        return "| " + a.ljust(25) + " | " + b.ljust(13) + " | " + c.ljust(51) + "|"
    L = ["+" + "-" * 96 + "+", row(("npu-smi %s" % tool).ljust(33) + "Version: %s" % drv),
         "+---------------------------+---------------+----------------------------------------------------+",
         "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
         "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |", sep]
    bus = ["0000:C1:00.0", "0000:C2:00.0", "0000:81:00.0", "0000:82:00.0", "0000:01:00.0", "0000:02:00.0", "0000:41:00.0", "0000:42:00.0"]
    for i in range(n):
        L.append(cells("%-5d %s" % (i, card), "OK", ("%.1f" % (92.0 + i * 0.7)).ljust(12) + str(40 + i).ljust(18) + "0    / 0"))
        used = 3390 + 7 * i
        L.append(cells("0", bus[i], "0".ljust(12) + "0    / 0".ljust(18) + "%-4d / %d" % (used, hbm)))
        L.append(sep)
    L.append("+---------------------------+---------------+----------------------------------------------------+")
    L.append("| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |")
    L.append(sep)
    for i in range(n):
        if procs and i in procs:
            pid, name, mem = procs[i]
            L.append("| " + ("%-7d %d" % (i, 0)).ljust(25) + " | " + str(pid).ljust(13) + " | " + name.ljust(24) + " | " + str(mem).ljust(24) + "|")
        else:
            L.append(row("No running processes found in NPU %d" % i))
        L.append(sep)
    assert all(len(x) == 98 for x in L)
    return L


def npu_smi_310p(ver: str) -> list:
    """104-column 310P layout, 2 chips per card (log-formats.md §5.2)."""
    W = 104
    dash = "+-------------------------------+-----------------+------------------------------------------------------+"
    eq = "+===============================+=================+======================================================+"
    def c3(a, b, c):
        return "| " + a.ljust(29) + " | " + b.ljust(15) + " | " + c.ljust(52) + " |"
    L = ["+" + "-" * W + "+", "| " + ("npu-smi %s" % ver).ljust(49) + ("Version: %s" % ver).ljust(54) + "|", dash,
         "| NPU     Name                  | Health          | Power(W)     Temp(C)           Hugepages-Usage(page) |",
         "| Chip    Device                | Bus-Id          | AICore(%)    Memory-Usage(MB)                        |", eq]
    for card, bus in ((1, "0000:01:00.0"), (2, "0000:02:00.0")):
        for chip in (0, 1):
            L.append(c3("%-7d %s" % (card, "310P3"), "OK", "NA".ljust(13) + str(68 + chip).ljust(18) + "0     / 0"))
            L.append(c3("%-7d %d" % (chip, (card - 1) * 2 + chip), bus, "0".ljust(13) + "%d / 44216" % (1417 + 99 * chip)))
            L.append(dash if chip == 0 else eq)
    L.append(dash)
    L.append("| NPU     Chip                  | Process id      | Process name             | Process memory(MB)        |")
    L.append(eq)
    for card in (1, 2):
        for chip in (0, 1):
            L.append("| " + ("No running processes found in NPU %d" % card).ljust(W - 1) + "|")
            L.append(eq if chip == 1 else dash)
    assert all(len(x) == W + 2 for x in L), [(len(x), x) for x in L if len(x) != W + 2]
    return L


def version_info_driver(ver: str, inner: str) -> list:
    return ["Version=%s" % ver, "ascendhal_version=7.35.23", "aicpu_version=1.0", "tdt_version=1.0", "log_version=1.0",
            "prof_version=2.0", "dvppkernels_version=1.1", "tsfw_version=1.0", "Innerversion=%s" % inner,
            "compatible_version=[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19]",
            "compatible_version_fw=[7.0.0,7.7.99]", "package_version=%s" % ver]


def inst_driver(d: datetime, old: str, new: str, kernel: str, action="upgrade") -> list:
    P = lambda lvl, msg: "[Driver] [%s] [%s]%s" % (f_inst(d), lvl, msg)  # noqa: E731
    return [P("INFO", "Start time: %s" % f_inst(d)),
            P("INFO", "LogFile:/var/log/ascend_seclog/ascend_install.log"),
            P("INFO", "OperationLogFile:/var/log/ascend_seclog/operation.log"),
            P("INFO", "base version is %s." % old),
            P("INFO", "Driver package has been installed on the path /usr/local/Ascend, the version is %s, and the version of this package is %s,do you want to continue?  [y/n] " % (old, new)),
            P("INFO", "uninstall driver success"),
            P("INFO", "driver install type: DKMS"),
            P("INFO", "config_modversions is : CONFIG_MODVERSIONS=y"),
            P("INFO", "upgradePercentage:10%"),
            P("INFO", "driver and firmware version relationship check success"),
            P("INFO", "upgradePercentage:100%"),
            P("INFO", "Driver package installed successfully! Reboot needed for installation/upgrade to take effect!"),
            P("INFO", "End time: %s" % f_inst(d))]


# ----------------------------------------------------------------------------------------------
# 1. asys in a dated case dir, node dir named by IP; seed 000 (downgrade, no reboot), host in
#    +0800 with no zone stated anywhere but the engineer's `date`; plus a RHEL-prompt transcript.
# ----------------------------------------------------------------------------------------------
def v_asys_ip_reboot_pending():
    F = Files()
    boot = T("2026-03-02 17:00:41")
    inst_old = T("2026-03-02 16:41:07")
    inst_new = T("2026-04-09 14:03:11")  # downgrade, no reboot since
    job = T("2026-04-10 15:21:05.311204")
    top = "case_20260410_node42/10.20.0.42/asys_output_20260410153012345/"
    pid, host = 48211, "a2pod-n042"
    dbg = [
        "[ERROR] DRV(%d,python3):%s [ascend][curpid: %d, %d][drv][devmm][devmm_svm_init 412]Not support svm mem, because asan is opened or os not support mmap 8T." % (pid, f_plog(job), pid, pid),
        "[ERROR] DRV(%d,python3):%s [ascend][curpid: %d, %d][drv][devmm][devmm_alloc_host 233]Host mem gotgo malloc, errstr=Invalid argument." % (pid, f_plog(job + timedelta(milliseconds=3)), pid, pid),
        "[ERROR] HCCL(%d,python3):%s [hcom.cc:266] [%d][InitGroupStage][Resource]Communicator of group hccl_world_group inited: failed, ret[4]" % (pid, f_plog(job + timedelta(milliseconds=41)), pid),
        "[ERROR] RUNTIME(%d,python3):%s [api_impl.cc:1203]%d MallocHost:[INIT][DEFAULT]malloc host memory failed, size=4096, ret=207001" % (pid, f_plog(job + timedelta(milliseconds=42)), pid),
    ]
    F.put(top + "dfx/log/host/cann/debug/plog/plog-%d_%s.log" % (pid, f_17(job - timedelta(seconds=9))), dbg)
    run = ["[INFO] ATRACE(%d,python3):%s [trace_attr.c:190](tid:%d) attr init success, timeout=0ms." % (pid, f_plog(job - timedelta(seconds=9)), pid),
           "[INFO] HCCL(%d,python3):%s [externalinput.cc:598] [%d][HCCL_ENV] HCCL_CONNECT_TIMEOUT set by default to [120]s" % (pid, f_plog(job - timedelta(seconds=8)), pid),
           "[INFO] HCCL(%d,python3):%s [op_base.cc:1292] [%d]Entry-HcclCommInitRootInfoInner:ranks[1024], rank[338], rootinfo: host ip[10.20.0.1] port[60000] nicDeploy[1] identifier[10.20.0.1%%enp_60000_0_1775805665201113], deviceLogicId[2]" % (pid, f_plog(job - timedelta(seconds=1)), pid)]
    # rotated copy of an earlier run of the same process (brief: plog-123_2025...log.1)
    F.put(top + "dfx/log/host/cann/run/plog/plog-%d_%s.log" % (pid, f_17(job - timedelta(seconds=9))), run)
    F.put(top + "dfx/log/host/cann/run/plog/plog-%d_%s.log.1" % (pid, f_17(job - timedelta(seconds=9))), run[:1])
    dev_wall = job.astimezone(UTC) + timedelta(milliseconds=91)
    up = (dev_wall - boot).total_seconds() - 38.2
    F.put(top + "dfx/log/device/dev-os-2/system/run/device-os/device-os_%s.log" % f_17(dev_wall - timedelta(hours=3)), [
        "[INFO] TDT(4866,tsdaemon):%s [tsd_common.cpp:918][StartRspProc][tid:1201] [TSDaemon] device index in os[0] sessId[66] fmkPid[%d] StartRspProc() [subProcPid=1179][procType=1(0:HCCP,1:COMPUTE,2:CUSTOM_COMPUTE,3.QUEUE_SCHEDULE)]." % (f_plog(dev_wall - timedelta(seconds=2)), pid),
        "[ERROR] KERNEL(4723,sklogd):%s [klogd.c:247][%.6f] [ascend] [ERROR] [devmm] [devmm_svm_mmap 301] <python3:%d,%d> Svm map va not fixed. (vm_start=0x100000000000; vm_end=0x200000000000; vm_pgoff=0x0; vm_flags=0x400fb)" % (f_plog(dev_wall), up, pid, pid)])
    hk = ["%s [%.6f] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] <systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"dc\", driver_name=\"devdrv_device_driver\")" % (f_hk(boot + timedelta(seconds=31)), 31.4),
          "%s [%.6f] [ascend] [devmm] [ERROR] [devmm_svm_mmap 301] <python3:%d,%d> Svm map va not fixed. (vm_start=0x100000000000; vm_end=0x200000000000; vm_pgoff=0x0; vm_flags=0x400fb)" % (f_hk(job + timedelta(milliseconds=2)), (job - boot).total_seconds() + 0.002, pid, pid)]
    F.put(top + "dfx/log/host/driver/host_kernel.log", hk)
    inst = ["[Driver] [%s] [INFO]Start time: %s" % (f_inst(inst_old - timedelta(days=90)), f_inst(inst_old - timedelta(days=90)))]
    inst += inst_driver(inst_old, "24.1.rc3", "24.1.0.3", "5.15.0-105-generic")
    inst += ["[Firmware] [%s] [INFO]Firmware package installed successfully! Reboot now or after driver installation for the installation/upgrade to take effect." % f_inst(inst_old + timedelta(minutes=4))]
    inst += inst_driver(inst_new, "24.1.0.3", "24.1.rc3", "5.15.0-105-generic")
    F.put(top + "dfx/log/host/install/ascend_install.log", inst)
    sl = ["%s %s kernel: [%11.6f] [ascend] [devmm] [ERROR] [devmm_svm_mmap 301] <python3:%d,%d> Svm map va not fixed. (vm_start=0x100000000000; vm_end=0x200000000000; vm_pgoff=0x0; vm_flags=0x400fb)" % (f_sys(job), host, (job - boot).total_seconds(), pid, pid),
          "%s %s systemd[1]: Started Session 4711 of user root." % (f_sys(job + timedelta(seconds=40)), host)]
    F.put(top + "dfx/log/host/message/syslog", sl)
    F.put(top + "dfx/log/host/message/syslog.1", ["%s %s systemd[1]: logrotate.service: Succeeded." % (f_sys(job - timedelta(days=1)), host)])
    # the engineer's pasted commands (RHEL/openEuler prompt form)
    P = "[root@%s ~]# " % host
    tr = [P + "npu-smi info"] + npu_smi_910b("24.1.rc3", "24.1.0.3", card="910B2") + [
        P + "cat /usr/local/Ascend/driver/version.info"] + version_info_driver("24.1.rc3", "V100R001C19SPC001B320") + [
        P + "uptime -s", f_inst(boot),
        P + "date", "Fri Apr 10 15:40:02 CST 2026",
        P + "rpm -qa | grep -i ascend", "Ascend910B-driver-24.1.rc3-1.aarch64", "Ascend910B-firmware-7.5.0.3.220-1.aarch64",
        P + "uname -r", "5.15.0-105-generic"]
    F.put("case_20260410_node42/10.20.0.42/cmds_after_failure.txt", tr)
    F.put("case_20260410_node42/10.20.0.42/rank338_stdout.log", [
        "Traceback (most recent call last):",
        "  File \"/job/code/pretrain.py\", line 88, in <module>",
        "    init_distributed()",
        "RuntimeError: Communicator of group hccl_world_group inited: failed."])
    return F


# ----------------------------------------------------------------------------------------------
# 2. npu_log_collect -f of a healthy 310P inference host, openEuler (rpm, pip freeze), UTC+8 stated
#    by `date`; install log `Reboot needed` BEFORE the boot; dmesg and dmesg -T both present.
# ----------------------------------------------------------------------------------------------
def v_nlc_310p_healthy():
    F = Files()
    host = "infer-310p-07"
    boot = T("2026-02-11 08:15:02")
    inst = T("2026-02-11 07:58:40")
    now = T("2026-02-20 10:05:12")
    top = "npu_log_collect_20260220100512/"
    bug = top + "ascend_log_20260220100514/"
    card = ["########### collect npu id 1 card info #############", "npu-smi info"] + npu_smi_310p("25.2.0") + [
        "npu-smi info -l", "        Total Count                    : 2", "",
        "        NPU ID                         : 1", "        Chip Count                     : 2", "",
        "        NPU ID                         : 2", "        Chip Count                     : 2", ""]
    F.put(top + "npu_info_log/card_info.log", card)
    F.put(bug + "install_info/ascend_seclog/ascend_install.log", inst_driver(inst, "24.1.0", "25.2.0", "5.10.0-182.0.0.95.oe2203sp3.aarch64"))
    F.put(bug + "install_info/ascend_seclog/operation.log", ["Upgrade MINOR root %s 127.0.0.1 Ascend-hdk-310p-npu-driver_25.2.0_linux-aarch64.run success cmdlist=--full --quiet." % f_inst(inst)])
    up = lambda d: (d - boot).total_seconds()  # noqa: E731
    kl = [(1.204411, "Linux version 5.10.0-182.0.0.95.oe2203sp3.aarch64 (root@dc-64g.compass-ci) (gcc_old (GCC) 10.3.1, GNU ld (GNU Binutils) 2.37) #1 SMP Sat Dec 30 13:17:50 CST 2023"),
          (23.645213, "devdrv_device_driver 0000:01:00.0: enabling device (0000 -> 0002)"),
          (23.658584, "[ascend] [drv_pcie] [devdrv_init_module 2338] <systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"310P\", driver_name=\"devdrv_device_driver\")"),
          (up(now) - 30, "[ascend] [devmm] [devmm_alloc_svm_proc_set_to_file 662] <python3:42394,42394> Devmm_set_porcess details. (status=0; proc_idx=3)")]
    F.put(bug + "host_log/dmesg.log", ["[%12.6f] %s" % (u, m) for u, m in kl])
    F.put(bug + "host_log/dmesg_T.log", ["[%s] %s" % (f_ctime(boot + timedelta(seconds=u)), m) for u, m in kl])
    F.put(bug + "host_log/messages", ["%s %s kernel: [%12.6f] %s" % (f_sys(boot + timedelta(seconds=u)), host, u, m) for u, m in kl[1:]] +
          ["%s %s systemd[1]: Started Daily man-db regeneration." % (f_sys(now - timedelta(minutes=5)), host)])
    F.put(bug + "host_info/env_info.md", ["# PATH", "---", "```", "/usr/local/Ascend/ascend-toolkit/latest/bin:/usr/local/bin:/usr/bin", "```",
                                          "# OS info", "---", "```", "Linux %s 5.10.0-182.0.0.95.oe2203sp3.aarch64 #1 SMP Sat Dec 30 13:17:50 CST 2023 aarch64 aarch64 aarch64 GNU/Linux" % host, "```",
                                          "# last reboot", "---", "```", "reboot   system boot  5.10.0-182.0.0.9 Wed Feb 11 08:15   still running", "```"])
    F.put(top + "OS_info.log", ["uname -a output:", "Linux %s 5.10.0-182.0.0.95.oe2203sp3.aarch64 #1 SMP Sat Dec 30 13:17:50 CST 2023 aarch64 aarch64 aarch64 GNU/Linux" % host,
                                "uptime -s output:", f_inst(boot), "date output:", "Fri Feb 20 10:05:12 CST 2026"])
    F.put(top + "driver_version.info", version_info_driver("25.2.0", "V100R001C23SPC001B230"))
    F.put(top + "rpm_qa.txt", ["Ascend310P-driver-25.2.0-1.aarch64", "Ascend310P-firmware-7.7.0.6.236-1.aarch64", "python3-3.9.9-28.oe2203sp3.aarch64", "kernel-5.10.0-182.0.0.95.oe2203sp3.aarch64"])
    F.put(top + "pip_freeze.txt", ["torch==2.1.0", "torch-npu==2.1.0.post10", "numpy==1.24.4", "mindie-llm==1.0.0", "transformers==4.41.2"])
    return F


# ----------------------------------------------------------------------------------------------
# 3. msnpureport export (YYYY-MM-DD-HH-MM-SS dir) from a healthy 910B: rotated and .gz device
#    messages, firmware log starting at 1970, device event log, slogd.  (/tmp only: .gz member)
# ----------------------------------------------------------------------------------------------
def v_msnpureport_rotated(text_only=False):
    F = Files()
    top = "2026-04-22-09-06-17/"
    boot = T("2026-04-21 22:10:05", UTC)
    up = lambda d: (d - boot).total_seconds()  # noqa: E731
    d1 = T("2026-04-22 01:02:03.204118", UTC)
    F.put(top + "slog/dev-os-0/debug/device-0/device-0_20260421221047001.log", [
        "[INFO] TSCH(-1,null):1970-01-01-00:00:01.014.351 2121 (dieid:0,cpuid:0) [dfx_resource_detect.c:363] stars_pcie_dma_abnormal_detect: pcie dma abnormal detect get start_chan_id=13, end_chan_id=24.",
        "[EVENT] TSCH(-1,null):%s 17641 (dieid:0,cpuid:0) ringbuffer.c:177 delete_ringbuffer: pid=3299758, vf_id=0" % f_plog(d1)])
    F.put(top + "slog/dev-os-0/run/device-os/device-os_20260422010203204.log", [
        "[INFO] TDT(4866,tsdaemon):%s [tsd_common.cpp:918][StartRspProc][tid:1201] [TSDaemon] device index in os[0] sessId[66] fmkPid[98209] StartRspProc() [subProcPid=1179][procType=1(0:HCCP,1:COMPUTE,2:CUSTOM_COMPUTE,3.QUEUE_SCHEDULE)]." % f_plog(d1),
        "[INFO] PROCMGR(4866,tsdaemon):%s [ProcMgrSysOperatorAgent.cpp:223]ProcMgrSetScheduler done. ret=0" % f_plog(d1 + timedelta(milliseconds=1))])
    F.put(top + "slog/dev-os-0/run/event/event_20260421221047017.log", [
        "[EVENT] DRV(4898,drv_tsd_daemon):%s [drv_tsd_hdc_server.c:339][common] [hlt_server_main] [339] hlt_tsd process start" % f_plog(boot + timedelta(seconds=51)),
        "[EVENT] DRV(4898,drv_tsd_daemon):%s [drv_tsd_hdc_server.c:163][common] [hlt_server_wait_pid] start hlt daemon thread..." % f_plog(boot + timedelta(seconds=51, milliseconds=6)),
        "[EVENT] DRV(3423,dms_poll_task):1970-01-01-00:00:08.876.153 [dms_event.c:1399][fault_manager][    7.932713] event_id=0x8c2fa009; device_id=0; node_type=0x617[OS_Linux]; node_id=1; sub_node_id=0; event_type=0x9[OS init]; severity=0[OK]; assertion=2[One time event]; description=[OS init]; os_id=0; "])
    F.put(top + "slog/dev-os-0/slogd/slogdlog", ["2026-04-21 22:10:54.608[INFO] log_path_mgr.c:123: logWorkspace = /usr/slog."])
    F.put(top + "hisi_logs/device-0/history.log", [])  # empty: no exception recorded
    msg = ["%s (none) kern.info kernel: [%.6f][  T613] [ascend] [INFO] [devmm] [devmm_svm_release_proc 617] <davinci_recycle:42400,42400> Devmm release create work. (hostpid=-1)" % (f_sys(d1.astimezone(CST)), up(d1))]
    F.put(top + "message/dev-os-0/messages", msg)
    old_boot = "%s (none) kern.info kernel: [%.6f][    C0] random: crng init done\n" % (f_sys((boot + timedelta(seconds=3)).astimezone(CST)), 3.0)
    if text_only:
        F.put(top + "message/dev-os-0/messages.1", old_boot)
    else:
        F.data[top + "message/dev-os-0/messages.1.gz"] = gz(old_boot.encode(), "messages.1")
    F.put(top + "slog/host/host_kernel.log", ["%s [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] <systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"dc\", driver_name=\"devdrv_device_driver\")" % f_hk(boot - timedelta(seconds=30))])
    return F


# ----------------------------------------------------------------------------------------------
# 4. FaultDiag per-node input with seed 002's pre-reboot symptoms: torchrun --tee console with
#    `[default0]:` prefixes, `dmesg` in -T form, messages, plog with the three-minute timeouts.
# ----------------------------------------------------------------------------------------------
def v_faultdiag_default_prefix():
    F = Files()
    host = "ai-train-03"
    pid = 30917
    t0 = T("2026-03-04 10:02:11.004512")
    node = "faultdiag_input/%s/" % host
    dbg = []
    for k in range(4):
        t = t0 + timedelta(seconds=180 * (k + 1))
        dbg.append("[ERROR] RUNTIME(%d,python3):%s [stream.cc:1402]%d SynchronizeExecutedTask:report three minutes timeout!" % (pid, f_plog(t), pid + 412))
        dbg.append("[ERROR] RUNTIME(%d,python3):%s [stream.cc:1410]%d SynchronizeExecutedTask:stream_id=47, task_id=1280, sqHead=500, pendingNum=781" % (pid, f_plog(t + timedelta(microseconds=40)), pid + 412))
    tf = t0 + timedelta(seconds=900)
    dbg.append("[ERROR] RUNTIME(%d,python3):%s [api_impl.cc:1203]%d StreamSynchronize:[EXEC][DEFAULT]rtStreamSynchronize execution failed, reason=task timeout" % (pid, f_plog(tf), pid))
    dbg.append("[ERROR] ASCENDCL(%d,python3):%s [stream.cpp:102]%d aclrtSynchronizeStream: [EXEC][DEFAULT]synchronize stream failed, runtime result = 107020" % (pid, f_plog(tf + timedelta(microseconds=90)), pid))
    F.put(node + "process_log/debug/plog/plog-%d_%s.log" % (pid, f_17(t0)), dbg)
    con = ["[default0]:[W304 10:02:09.118302114 compiler_depend.ts:137] Warning: Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())",
           "[default0]:Epoch 1/300 batch 0",
           "[default0]:Traceback (most recent call last):",
           "[default0]:  File \"/workspace/train.py\", line 412, in <module>",
           "[default0]:    main()",
           "[default0]:  File \"/workspace/utils/loss.py\", line 171, in build_targets",
           "[default0]:    gain = torch.ones(7, device=targets.device)",
           "[default0]:RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:506 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 107020",
           "[default0]:[ERROR] %s (PID:%d, Device:0, RankID:0) ERR00100 PTA call acl api failed." % (tf.strftime("%Y-%m-%d-%H:%M:%S"), pid),
           "[default0]:EH9999: Inner Error!",
           "[default0]:        rtDeviceSynchronizeWithTimeout execute failed, reason=[task timeout][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
           "[default0]:EH9999: [PID: %d] %s wait for compute device to finish failed, runtime result = 107020.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]" % (pid, f_plog(tf)),
           "[default0]:ACL error: 107020"]
    F.put(node + "rank-0.txt", con)
    boot = T("2026-03-01 20:11:40")
    F.put(node + "dmesg", ["[%s] devdrv_device_driver 0000:c1:00.0: enabling device (0000 -> 0002)" % f_ctime(boot + timedelta(seconds=23)),
                           "[%s] [ascend] [devmm] [devmm_alloc_svm_proc_set_to_file 662] <python3:%d,%d> Devmm_set_porcess details. (status=0; proc_idx=3)" % (f_ctime(t0 - timedelta(seconds=4)), pid, pid)])
    F.put(node + "messages", ["%s %s kernel: [%12.6f] devdrv_device_driver 0000:c1:00.0: enabling device (0000 -> 0002)" % (f_sys(boot + timedelta(seconds=23)), host, 23.1),
                              "%s %s systemd[1]: Started Session 12 of user root." % (f_sys(t0 - timedelta(seconds=40)), host)])
    F.put(node + "environment_check/npu_info_before.txt", npu_smi_910b("26.0.rc1", "26.0.rc1", card="910B3", procs={0: (pid, "python3", 9120)}))
    return F


# ----------------------------------------------------------------------------------------------
# 5. seed 002 after the reboot, as one pasted transcript with RHEL prompts (`ls -l` of
#    /lib/modules/$(uname -r)/..., the probes and their `echo $?`) + journalctl -k short output +
#    pip list; rpm host.
# ----------------------------------------------------------------------------------------------
def v_transcript_stale_dkms():
    F = Files()
    host = "ai-train-03"
    K = "5.15.0-131-generic"
    P = "[root@%s ~]# " % host
    boot = T("2026-03-05 09:38:12")
    mods = ["drv_pcie_host", "asdrv_dms", "asdrv_svm", "ascend_adapter", "drv_pcie_hdc_host", "asdrv_trs"]
    L = [P + "uname -r", K,
         P + "lsmod | grep -E 'ascend|drv_pcie|davinci'",
         P + "modinfo -n drv_pcie_host", "/lib/modules/%s/updates/dkms/drv_pcie_host.ko" % K,
         P + "modinfo -F vermagic drv_pcie_host", "%s SMP mod_unload modversions aarch64" % K,
         P + "modprobe -n -v drv_pcie_host", "insmod /lib/modules/%s/updates/dkms/drv_seclib_host.ko " % K, "insmod /lib/modules/%s/updates/dkms/drv_pcie_host.ko " % K,
         P + "ls -l /lib/modules/$(uname -r)/updates/dkms/", "total 0"]
    for m in mods:
        L.append("lrwxrwxrwx 1 root root 40 Nov  4 16:12 %s.ko -> /opt/hdk-25.2.0/driver/kernel/%s.ko" % (m, m))
    L += [P + "ls -l /lib/modules/%s/updates/" % K, "total 9120", "drwxr-xr-x 2 root root    4096 Nov  4 16:12 dkms"]
    for i, m in enumerate(mods):
        L.append("-rw-r--r-- 1 root root %7d Mar  2 11:20 %s.ko" % (812344 + 1000 * i, m))
    L += [P + "ls /dev/davinci*", "ls: cannot access '/dev/davinci*': No such file or directory",
          P + "npu-smi info", "dcmi module initialize failed. ret is -8005",
          P + "journalctl -k -b | grep -E 'Unknown symbol|ascend|drv_pcie|davinci'"]
    for i, m in enumerate(mods):
        L.append("%s %s kernel: %s: Unknown symbol ka_pci_enable_device_mem (err -2)" % (f_jrn(boot + timedelta(seconds=28 + i)), host, m))
    L += [P + "cat /usr/local/Ascend/driver/version.info"] + version_info_driver("26.0.rc1", "V100R001C10SPC001B257")
    # seed 002 section 4: each probe in its own process under timeout, then its exit status
    L += [P + "timeout 60s python3 probe.py matmul", "256.0", P + "echo $?", "0",
          P + "timeout 60s python3 probe.py rng", P + "echo $?", "124"]
    F.put("ai-train-03_diag/session_20260305.txt", L)
    F.put("ai-train-03_diag/pip_list_container.txt", ["Package            Version", "------------------ -----------", "numpy              1.26.4",
                                                      "torch              2.9.0", "torch_npu          2.9.0.post6", "torchvision        0.24.0"])
    # the same kernel lines saved from `journalctl -k -b -o short-precise | grep ...` (no header)
    F.put("ai-train-03_diag/kernel_log_0305.txt", ["%s.%06d %s kernel: %s: Unknown symbol ka_pci_enable_device_mem (err -2)" % (f_jrn(boot + timedelta(seconds=28 + i)), 118302 + 53 * i, host, m) for i, m in enumerate(mods)])
    return F


# ----------------------------------------------------------------------------------------------
# 5b. seed 002 after the reboot, collected as files rather than typed commands (issue 17 items 4
#     and 5): the collector copied /lib/modules/<release>/ with its symbolic links kept as links
#     (tar -C / or cp -a), so updates/dkms/*.ko are link MEMBERS, modules.dep says which file
#     modprobe loads, `lsmod | grep` printed nothing; the training service's unit points
#     ASCEND_HOME_PATH at 8.5.1 while the engineer's shell (printenv) has the installed 8.5.0, and
#     `ls -l` of the toolkit directory is complete (8.5.1 is not there).
# ----------------------------------------------------------------------------------------------
def v_unit_env_module_links():
    F = Files()
    host = "a2-train-11"
    K = "5.15.0-131-generic"
    P = "[root@%s ~]# " % host
    boot = T("2026-03-05 09:38:12")
    d = host + "_20260305"
    mods = ["drv_pcie_host", "drv_seclib_host", "ascend_kernel_open_adapt"]
    for m in mods:
        F.link("%s/lib/modules/%s/updates/dkms/%s.ko" % (d, K, m), "/opt/hdk-25.2.0/driver/kernel/%s.ko" % m)
    F.put("%s/lib/modules/%s/modules.dep" % (d, K), [
        "kernel/drivers/net/ethernet/intel/e1000e/e1000e.ko: kernel/drivers/ptp/ptp.ko kernel/drivers/pps/pps_core.ko",
        "kernel/drivers/ptp/ptp.ko: kernel/drivers/pps/pps_core.ko",
        "kernel/drivers/pps/pps_core.ko:",
        "updates/dkms/ascend_kernel_open_adapt.ko:",
        "updates/dkms/drv_seclib_host.ko: updates/dkms/ascend_kernel_open_adapt.ko",
        "updates/dkms/drv_pcie_host.ko: updates/dkms/drv_seclib_host.ko updates/dkms/ascend_kernel_open_adapt.ko",
    ])
    L = [P + "uname -r", K,
         P + "lsmod | grep drv_pcie_host",
         P + "journalctl -k -b | grep -E 'Unknown symbol|drv_pcie'"]
    for i, m in enumerate(mods[:1]):
        L.append("%s %s kernel: %s: Unknown symbol ka_pci_enable_device_mem (err -2)" % (f_jrn(boot + timedelta(seconds=28 + i)), host, m))
    L += [P + "systemctl cat ascend-train.service",
          "# /etc/systemd/system/ascend-train.service",
          "[Unit]",
          "Description=LLM pretraining launcher",
          "After=network-online.target",
          "",
          "[Service]",
          "Environment=\"ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1\" \"ASCEND_OPP_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1/opp\"",
          "EnvironmentFile=-/etc/default/ascend-train",
          "ExecStart=/usr/bin/torchrun --nproc_per_node 8 /data/job/train.py",
          "",
          "[Install]",
          "WantedBy=multi-user.target",
          P + "printenv | grep ^ASCEND",
          "ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.0",
          "ASCEND_OPP_PATH=/usr/local/Ascend/ascend-toolkit/8.5.0/opp",
          P + "ls -l /usr/local/Ascend/ascend-toolkit/",
          "total 8",
          "drwxr-xr-x 6 root root 4096 Nov  4 16:20 8.5.0",
          "lrwxrwxrwx 1 root root   39 Nov  4 16:20 latest -> /usr/local/Ascend/ascend-toolkit/8.5.0",
          "-rw-r--r-- 1 root root  540 Nov  4 16:20 set_env.sh"]
    F.put(d + "/session_20260305.txt", L)
    return F


# ----------------------------------------------------------------------------------------------
# 6. hostile encodings on a faultline-less ad-hoc folder, seed 000 story: BOM + CRLF install log
#    (the downgrade is on the very first line), GBK bytes in syslog, truncated plog, empty files,
#    journal short-iso with +08:00, pip freeze, dpkg -l.
# ----------------------------------------------------------------------------------------------
def v_hostile_encodings():
    F = Files()
    host = "gpu-a12"
    boot = T("2026-05-18 09:12:40")
    d = T("2026-05-27 14:03:11")
    job = T("2026-05-28 10:41:07.551208")
    pid = 77012
    F.put("bundle/ascend_install.log", inst_driver(d, "24.1.0.3", "24.1.rc3", "5.15.0-105-generic"), eol="\r\n", bom=True)
    F.put("bundle/npu-smi_info.txt", npu_smi_910b("24.1.rc3", "24.1.0.3"), eol="\r\n")
    F.put("bundle/version.info", version_info_driver("24.1.rc3", "V100R001C19SPC001B320"), eol="\r\n", bom=True)
    F.put("bundle/plog-%d_%s.log" % (pid, f_17(job)), [
        "[ERROR] DRV(%d,python3):%s [ascend][curpid: %d, %d][drv][devmm][devmm_svm_init 412]Not support svm mem, because asan is opened or os not support mmap 8T." % (pid, f_plog(job), pid, pid),
        "[ERROR] HCCL(%d,python3):%s [hcom.cc:266] [%d][InitGroupStage][Resource]Communicator of group hccl_world_group inited: failed, ret[4]" % (pid, f_plog(job + timedelta(milliseconds=4)), pid),
        "[ERROR] RUNTIME(%d,python3):%s [api_impl.cc:12" % (pid, f_plog(job + timedelta(milliseconds=5)))], trunc=1)
    # GBK-encoded Chinese in a syslog line (invalid UTF-8)
    F.put("bundle/syslog", "%s %s kernel: [%12.6f] [ascend] [devmm] [ERROR] [devmm_svm_mmap 301] <python3:%d,%d> Svm map va not fixed. (vm_start=0x100000000000; vm_end=0x200000000000; vm_pgoff=0x0; vm_flags=0x400fb)\n" % (f_sys(job), host, (job - boot).total_seconds(), pid, pid) +
          "%s %s sshd[811]: pam_unix(sshd:session): session opened for user \udcd1\udcb5\udcc1\udcb7 by (uid=0)\n" % (f_sys(job + timedelta(seconds=9)), host))
    F.put("bundle/journal_short_iso.txt", ["-- Logs begin at Mon 2026-05-18 09:12:40 CST, end at Thu 2026-05-28 10:50:01 CST. --",
                                           "%s %s systemd[1]: Starting Daily apt download activities..." % ((job - timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M:%S+0800"), host)])
    F.put("bundle/dmesg.txt", "")
    F.put("bundle/uptime_-s.txt", [f_inst(boot)], eol="\r\n")
    F.put("bundle/date.txt", ["Thu May 28 10:50:03 CST 2026", "1779936603+0800"])
    F.put("bundle/pip_freeze.txt", ["mindspore==2.4.0", "numpy==1.26.4", "te @ file:///usr/local/Ascend/ascend-toolkit/8.0.RC3/lib64/te-0.4.0-py3-none-any.whl"])
    F.put("bundle/dpkg_-l.txt", ["Desired=Unknown/Install/Remove/Purge/Hold",
                                 "| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend",
                                 "|/ Err?=(none)/Reconfig-required (Status,Err: uppercase=bad)",
                                 "||/ Name                Version                 Architecture Description",
                                 "+++-===================-=======================-============-===============================",
                                 "ii  linux-image-5.15.0-105-generic 5.15.0-105.115 arm64 Signed kernel image generic"])
    F.put("bundle/worker_0.log", ["[rank3]:Traceback (most recent call last):",
                                  "[rank3]:  File \"/job/pretrain.py\", line 88, in <module>",
                                  "[rank3]:RuntimeError: Communicator of group hccl_world_group inited: failed."])
    return F


# ----------------------------------------------------------------------------------------------
# 7. fleet tar of per-node tar.gz, node archives named by IP, each an ad-hoc flat folder.
#    (/tmp only: binary)
# ----------------------------------------------------------------------------------------------
def v_fleet_ip_targz():
    F = Files()
    for n, h in ((11, "a2pod-n011"), (12, "a2pod-n012")):
        inner = Files()
        inner.put("%s/uname-a.txt" % h, ["Linux %s 5.15.0-105-generic #115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024 aarch64 aarch64 aarch64 GNU/Linux" % h])
        inner.put("%s/npu-smi_info.txt" % h, npu_smi_910b("25.5.1", "25.5.1"))
        inner.put("%s/version.info" % h, version_info_driver("25.5.1", "V100R001C25SPC001B212"))
        F.data["fleet_20260601/10.30.1.%d.tar.gz" % n] = targz(inner.data)
    return {"fleet_20260601.tar": targz(F.data, compress=False)}


# ----------------------------------------------------------------------------------------------
# 8. A3 (Atlas 800 A3, 2 dies per NPU) vLLM server, ad-hoc folder: npu-smi in the A3 `Chip Phy-ID`
#    layout and in the 118-column 26.0 layout, `dmesg -r` with `<N>` level prefixes (heartbeat
#    lost), vLLM multiproc `(VllmWorker rank=N pid=P) ERROR MM-DD ...` lines, Ray `(train pid=P)`
#    and DeepSpeed `worker-N:` prefixes, a 950 table.  (/tmp only)
# ----------------------------------------------------------------------------------------------
def v_a3_vllm_heartbeat():
    F = Files()
    d = "a3-infer-07_20260813/"
    a3 = ["+------------------------------------------------------------------------------------------------+",
          "| npu-smi 25.3.rc1                 Version: 25.3.rc1                                             |",
          "+---------------------------+---------------+----------------------------------------------------+",
          "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
          "| Chip  Phy-ID              | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
          "+===========================+===============+====================================================+"]
    for npu, (bus0, bus1, health) in enumerate([("9D", "9F", "OK"), ("99", "9B", "Alarm")]):
        a3 += ["| %d     Ascend910           | %-13s | 199.1       32                0    / 0             |" % (npu, health),
               "| 0     %d                   | 0000:%s:00.0  | 8           0    / 0          51166/ 65536         |" % (2 * npu, bus0),
               "+------------------------------------------------------------------------------------------------+",
               "| %d     Ascend910           | OK            | -           30                0    / 0             |" % npu,
               "| 1     %d                   | 0000:%s:00.0  | 7           0    / 0          52518/ 65536         |" % (2 * npu + 1, bus1),
               "+===========================+===============+====================================================+"]
    a3 += ["+---------------------------+---------------+----------------------------------------------------+",
           "| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |",
           "+===========================+===============+====================================================+",
           "| 0       0                 | 818           | VLLMWorker_TP            | 58472                   |",
           "+===========================+===============+====================================================+"]
    F.put(d + "npu-smi_info.txt", a3)
    F.put(d + "dmesg_r.txt", ["<6>[   23.118302] devdrv_device_driver 0000:9d:00.0: enabling device (0000 -> 0002)",
                              "<5>[ 2081.843939] [ascend] [devmm] [devmm_alloc_svm_proc_set_to_file 662] <main:818,818> Devmm_set_porcess details. (status=0; proc_idx=3)",
                              "<3>[ 9197.584409] [ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] <kworker/5:1H:39365> Heartbeat lost! (device=2; old_count=1104; new_count=1104; lost_count=4; total_lost_count=4; total_10s_count=0; total_15s_count 0)."])
    t = T("2026-08-13 15:31:21.888208")
    w = "(Worker_DP0_TP5_EP5 pid=818) ERROR 08-13 15:31:21 [multiproc_executor.py:945] "
    F.put(d + "vllm_serve.log", [w + "WorkerProc hit an exception.",
                                 w + "Traceback (most recent call last):",
                                 w + "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048",
                                 w + "[ERROR] %s (PID:818, Device:2, RankID:-1) ERR00100 PTA call acl api failed" % t.strftime("%Y-%m-%d-%H:%M:%S"),
                                 w + "EE9999: Inner Error!",
                                 w + "EE9999[PID: 818] %s (EE9999):  The error from device(chipId:2, dieId:0), serial number is 1, event wait timeout occurred during task execution, stream_id:44, sq_id:5, task_id:61293, event_id=55, timeout=234s.[FUNC:ProcessStarsWaitTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1593]" % f_plog(t),
                                 "RuntimeError: Worker failed with error 'npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048', please check the stack trace above for the root cause"])
    return F


# ----------------------------------------------------------------------------------------------
# 9. asys of a 910B host whose only version and boot evidence is its install history and
#    host_kernel.log (no npu-smi, no version.info, no package list, no uptime/btime): months of
#    driver/firmware runs in the real asys shapes (UserCommand run names, internal builds
#    7.7.t15.0.b092 .. 7.8.t5.0.b028, a failed vermagic check, a failed firmware flash), the boot
#    seen only as `Insmod host driver` by systemd-udevd in host_kernel.log (UTC) and in syslog
#    (host-local +0800, with the kernel uptime), then a driver downgrade after that boot.
# ----------------------------------------------------------------------------------------------
def inst_run(pkg: str, d: datetime, ver: str, base: str, fail: str = "", extra_ok=()) -> list:
    """One driver/firmware .run session as ascend_install.log prints it (real asys shapes)."""
    tag = "[%s]" % pkg
    P = lambda lvl, msg, t=d: "%s [%s] [%s]%s" % (tag, f_inst(t), lvl, msg)  # noqa: E731
    run = "Ascend910B-driver-%s-ubuntu20.04.x86_64.run" % ver if pkg == "Driver" else "Ascend910B-firmware-%s.run" % ver
    end = d + timedelta(seconds=31)
    L = [P("INFO", "Start time: %s" % f_inst(d)), P("INFO", "UserCommand: %s --quiet --full" % run),
         P("INFO", "base version is %s." % base)]
    if pkg == "Driver":
        L += [P("INFO", "uninstall driver success", d + timedelta(seconds=9)) if base != "none" else P("INFO", "parent_dirs_permision_check success"),
              P("INFO", "target path : /usr/local/Ascend/driver", d + timedelta(seconds=9)),
              P("INFO", "upgradePercentage:10%", d + timedelta(seconds=10))]
    else:
        L += [P("INFO", "freeSpace:4049369M"),
              P("INFO", "target path : /usr/local/Ascend", d + timedelta(seconds=1))]
    if fail:
        L += [P("ERROR", fail, end)]
    else:
        L += [P("INFO", m, end) for m in extra_ok]
    L += [P("INFO", "End time: %s" % f_inst(end), end)]
    return L


def v_asys_install_history():
    F = Files()
    host = "a2-n17"
    boot = T("2026-06-01 08:00:10")  # CST
    drv_load = boot + timedelta(seconds=30, microseconds=412345)
    job = T("2026-06-04 10:12:40.118204")
    top = "asys_output_20260604101530123/"
    pid = 61022
    D_OK = ("upgradePercentage:100%", "Driver package installed successfully! Reboot needed for installation/upgrade to take effect!")
    F_OK = ("upgradePercentage: 100%", "firmware upgrade success",
            "Firmware package installed successfully! Reboot now or after driver installation for the installation/upgrade to take effect.")
    inst = []
    inst += inst_run("Firmware", T("2025-11-20 10:00:04"), "7.7.t15.0.b092", "none", extra_ok=F_OK)
    inst += inst_run("Driver", T("2025-11-20 10:03:41"), "7.7.t15.0.b092", "none", extra_ok=D_OK)
    inst += inst_run("Driver", T("2026-01-15 09:30:12"), "7.7.t16.0.b099", "7.7.T15.0.B092",
                     fail="driver vermagic check failed.")
    inst += inst_run("Driver", T("2026-01-15 09:50:33"), "7.7.t16.0.b099", "7.7.T15.0.B092", extra_ok=D_OK)
    inst += inst_run("Firmware", T("2026-05-20 16:02:09"), "7.8.t5.0.b028", "7.7.T15.0.B092", extra_ok=F_OK)
    inst += inst_run("Driver", T("2026-05-20 16:05:47"), "7.8.t5.0.b028", "7.7.T16.0.B099", extra_ok=D_OK)
    # after the 2026-06-01 boot: the driver goes back to 7.7.t16.0.b099 (no reboot since); the
    # firmware upgrade that follows fails and changes nothing
    inst += inst_run("Driver", T("2026-06-03 14:20:05"), "7.7.t16.0.b099", "7.8.T5.0.B028", extra_ok=D_OK)
    inst += inst_run("Firmware", T("2026-06-03 14:30:51"), "7.8.t6.0.b001", "7.8.T5.0.B028",
                     fail="pcie device is missing, please make sure that the firmware package is correct, or cold reset may fix it.")
    F.put(top + "dfx/log/host/install/ascend_install.log", inst)
    insmod = "[ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] <systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"dc\", driver_name=\"devdrv_device_driver\")"
    svm = "[ascend] [devmm] [ERROR] [devmm_svm_mmap 301] <python3:%d,%d> Svm map va not fixed. (vm_start=0x100000000000; vm_end=0x200000000000; vm_pgoff=0x0; vm_flags=0x400fb)" % (pid, pid)
    F.put(top + "dfx/log/host/driver/host_kernel.log", [
        "%s [ascend] [uda] [INFO] [uda_host_ns_init_work 125] <kworker/4:1:231:231:4> Ns info. (ns=ffff968e9f409780; init.task ns=ffff968e9f409780)" % f_hk(drv_load - timedelta(milliseconds=28)),
        "%s [ascend] [vmng_dev] [INFO] [vmngh_vpc_init_module 504] <systemd-udevd:694> Init vmngh vpc module finish." % f_hk(drv_load - timedelta(milliseconds=24)),
        "%s %s" % (f_hk(drv_load), insmod),
        "%s %s" % (f_hk(job + timedelta(milliseconds=2)), svm)])
    up = lambda d: (d - boot).total_seconds()  # noqa: E731
    F.put(top + "dfx/log/host/message/syslog", [
        "%s %s kernel: [%12.6f] pci 0000:c1:00.0: [19e5:d802] type 00 class 0x120000" % (f_sys(boot + timedelta(seconds=2)), host, 1.913483),
        "%s %s kernel: [%12.6f] [ascend] [drv_pcie] [devdrv_init_module 2338] <systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"dc\", driver_name=\"devdrv_device_driver\")" % (f_sys(drv_load), host, up(drv_load)),
        "%s %s systemd[1]: Started Session 12 of user root." % (f_sys(job - timedelta(minutes=3)), host),
        "%s %s kernel: [%12.6f] [ascend] [devmm] [devmm_svm_mmap 301] <python3:%d,%d> Svm map va not fixed. (vm_start=0x100000000000; vm_end=0x200000000000; vm_pgoff=0x0; vm_flags=0x400fb)" % (f_sys(job), host, up(job), pid, pid)])
    dbg = [
        "[ERROR] DRV(%d,python3):%s [ascend][curpid: %d, %d][drv][devmm][devmm_svm_init 412]Not support svm mem, because asan is opened or os not support mmap 8T." % (pid, f_plog(job), pid, pid),
        "[ERROR] HCCL(%d,python3):%s [hcom.cc:266] [%d][InitGroupStage][Resource]Communicator of group hccl_world_group inited: failed, ret[4]" % (pid, f_plog(job + timedelta(milliseconds=41)), pid)]
    F.put(top + "dfx/log/host/cann/debug/plog/plog-%d_%s.log" % (pid, f_17(job - timedelta(seconds=9))), dbg)
    return F


VARIANTS = {
    "asys-ip-reboot-pending": v_asys_ip_reboot_pending,
    "nlc-310p-healthy": v_nlc_310p_healthy,
    "msnpureport-rotated": v_msnpureport_rotated,
    "faultdiag-default-prefix": v_faultdiag_default_prefix,
    "transcript-stale-dkms": v_transcript_stale_dkms,
    "hostile-encodings": v_hostile_encodings,
    "fleet-ip-targz": v_fleet_ip_targz,
    "a3-vllm-heartbeat": v_a3_vllm_heartbeat,
    "asys-install-history": v_asys_install_history,
    "unit-env-module-links": v_unit_env_module_links,
}
# variants kept under samples/ (text only), as samples/variant-<name>
KEPT: list[str] = ["asys-ip-reboot-pending", "transcript-stale-dkms", "faultdiag-default-prefix",
                    "hostile-encodings", "msnpureport-rotated", "asys-install-history",
                    "unit-env-module-links"]


def write_variant(name: str, out: str, text_only=False):
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    fn = VARIANTS[name]
    r = fn(text_only=True) if text_only and "text_only" in fn.__code__.co_varnames else fn()
    if isinstance(r, Files):
        r.write(out)
    else:
        for rel, b in r.items():
            with open(os.path.join(out, rel), "wb") as f:
                f.write(b)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/fl-variants")
    ap.add_argument("--samples", action="store_true")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.check:
        bad = []
        with tempfile.TemporaryDirectory() as tmp:
            for name in KEPT:
                write_variant(name, os.path.join(tmp, name), text_only=True)
                stack = [filecmp.dircmp(os.path.join(tmp, name), os.path.join(SAMPLES, "variant-" + name))]
                while stack:
                    c = stack.pop()
                    if c.left_only or c.right_only or c.diff_files:
                        bad.append("%s: only-new=%s only-committed=%s differ=%s" % (c.left, c.left_only, c.right_only, c.diff_files))
                    stack.extend(c.subdirs.values())
        print("\n".join(bad) if bad else "samples/variant-* are up to date")
        return 1 if bad else 0
    if a.samples:
        for name in KEPT:
            write_variant(name, os.path.join(SAMPLES, "variant-" + name), text_only=True)
        return 0
    for name in VARIANTS:
        write_variant(name, os.path.join(a.out, name))
        print(os.path.join(a.out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
