#!/usr/bin/env python3
"""Deterministic generator of the sample bundles under samples/.

Every sample bundle in samples/ is the committed OUTPUT of this script: plain directory trees in
the layouts of the official Ascend collectors (asys, npu_log_collect / ascend_bug_report,
msnpureport, MindCluster FaultDiag), of scripts/faultline-collect, and of ad-hoc folders.
The benign noise (thousands of INFO lines) is generated from the line shapes of real files
(log-formats.md, corpus/real/asys-aicerror); the signal lines come from the seeds and
log-formats.md.  Times, pids, host names and versions are derived from one model per host so
that all files of a bundle agree (boot time vs install time vs log time, UTC vs local zones).

Usage:
  scripts/gen-sample-noise.py                 # (re)write every bundle in samples/
  scripts/gen-sample-noise.py --only NAME     # one bundle
  scripts/gen-sample-noise.py --check         # regenerate into a temp dir and diff with samples/
Output is byte-for-byte reproducible (fixed seeds, no wall clock).
"""
from __future__ import annotations

import argparse
import filecmp
import json
import os
import random
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
WDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


# --------------------------------------------------------------------------------------------
# time helpers
# --------------------------------------------------------------------------------------------
def tz(hours: int) -> timezone:
    return timezone(timedelta(hours=hours))


def T(s: str, zone: timezone) -> datetime:
    """'2026-05-28 10:20:05[.123456]' in the given zone."""
    fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in s else "%Y-%m-%d %H:%M:%S"
    return datetime.strptime(s, fmt).replace(tzinfo=zone)


def f_plog(d: datetime) -> str:  # 2025-05-08-09:56:18.522.534
    return d.strftime("%Y-%m-%d-%H:%M:%S") + ".%03d.%03d" % (d.microsecond // 1000, d.microsecond % 1000)


def f_17(d: datetime) -> str:  # 20250508095618528
    return d.strftime("%Y%m%d%H%M%S") + "%03d" % (d.microsecond // 1000)


def f_hk(d: datetime) -> str:  # [2025-05-07-19:54:27.371626] (UTC)
    return "[" + d.astimezone(timezone.utc).strftime("%Y-%m-%d-%H:%M:%S") + ".%06d]" % d.microsecond


def f_syslog(d: datetime) -> str:  # May  8 02:28:01
    return "%s %2d %s" % (MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def f_journal(d: datetime) -> str:  # short-iso: 2026-03-05T09:41:02+0800
    return d.strftime("%Y-%m-%dT%H:%M:%S%z")


def f_ctime(d: datetime) -> str:  # Thu May  8 02:28:01 2025
    return "%s %s %2d %s %d" % (WDAYS[d.weekday()], MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def f_inst(d: datetime) -> str:  # 2025-03-29 04:10:34
    return d.strftime("%Y-%m-%d %H:%M:%S")


def f_date(d: datetime, zname: str) -> str:  # Thu May 28 11:05:12 CST 2026
    return "%s %s %2d %s %s %d" % (WDAYS[d.weekday()], MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"), zname, d.year)


def f_rfc2822(d: datetime) -> str:  # Thu, 28 May 2026 11:05:12 +0800
    return "%s, %02d %s %d %s %s" % (WDAYS[d.weekday()], d.day, MONTHS[d.month - 1], d.year, d.strftime("%H:%M:%S"), d.strftime("%z"))


def epoch(d: datetime) -> int:
    return int(d.timestamp())


# --------------------------------------------------------------------------------------------
# host model
# --------------------------------------------------------------------------------------------
@dataclass
class Host:
    name: str
    zone: timezone
    zname: str            # CST / UTC as printed by date
    tzid: str             # Asia/Shanghai / Etc/UTC
    boot: datetime        # aware
    kernel: str           # uname -r
    arch: str = "aarch64"
    os_pretty: str = "Ubuntu 22.04.4 LTS"
    npus: int = 8
    card: str = "910B2"
    hbm: int = 65536
    bus: list = field(default_factory=lambda: ["0000:C1:00.0", "0000:C2:00.0", "0000:81:00.0", "0000:82:00.0",
                                                 "0000:01:00.0", "0000:02:00.0", "0000:41:00.0", "0000:42:00.0"])
    ip: str = "10.0.0.1"
    kbuild: str = "#141-Ubuntu SMP Wed Jan 15 15:13:11 UTC 2026"

    def up(self, d: datetime) -> float:
        return (d - self.boot).total_seconds()

    def local(self, d: datetime) -> datetime:
        return d.astimezone(self.zone)

    def dm(self, d: datetime) -> str:  # dmesg uptime prefix
        return "[%12.6f]" % self.up(d)

    def uname_a(self) -> str:
        return "Linux %s %s %s %s %s %s GNU/Linux" % (self.name, self.kernel, self.kbuild, self.arch, self.arch, self.arch)


class Files:
    """Collects the files of one bundle, written at the end."""

    def __init__(self, root: str):
        self.root = root
        self.data: dict[str, bytes] = {}

    def put(self, rel: str, content, mode: str = "w"):
        if isinstance(content, list):
            content = "\n".join(content) + ("\n" if content else "")
        if isinstance(content, str):
            content = content.encode("utf-8")
        if mode == "a" and rel in self.data:
            self.data[rel] += content
        else:
            self.data[rel] = content

    def write(self):
        for rel, b in sorted(self.data.items()):
            p = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as fh:
                fh.write(b)

    def size(self) -> int:
        return sum(len(b) for b in self.data.values())


class Clock:
    """Monotonic generator of increasing timestamps with random small gaps."""

    def __init__(self, start: datetime, rng: random.Random):
        self.t = start
        self.rng = rng

    def tick(self, lo_us: int = 3, hi_us: int = 900) -> datetime:
        self.t += timedelta(microseconds=self.rng.randint(lo_us, hi_us))
        return self.t

    def jump(self, seconds: float) -> datetime:
        self.t += timedelta(seconds=seconds)
        return self.t


# --------------------------------------------------------------------------------------------
# CANN host plog noise (shapes from corpus/real asys run plog and log-formats.md §1, §8)
# --------------------------------------------------------------------------------------------
GE_ENGINES = ["AIcoreEngine", "VectorEngine", "DNN_VM_AICPU", "DNN_VM_AICPU_ASCEND", "DNN_HCCL", "DNN_VM_RTS",
              "DNN_VM_GE_LOCAL", "DNN_VM_HOST_CPU", "DNN_VM_RTS_FFTS_PLUS", "ffts_plus", "dvpp_ops_kernel"]
GE_SOS = ["libfe.so", "libaicpu_ascend_engine.so", "libaicpu_tf_engine.so", "libhcom_graph_adaptor.so",
          "libge_local_engine.so", "librts_engine.so", "libhost_cpu_engine.so", "libffts.so"]
ACL_STATS = ["ACL_STATISTICS_MALLOC_FREE_HOST", "ACL_STATISTICS_CREATE_DESTROY_TENSOR_DESC",
             "ACL_STATISTICS_CREATE_DESTROY_DVPP_PIC_DESC", "ACL_STATISTICS_CREATE_DESTROY_MODEL_CONFIG",
             "ACL_STATISTICS_CREATE_DESTROY_ALLOCATOR_DESC", "ACL_STATISTICS_CREATE_DESTROY_STREAM",
             "ACL_STATISTICS_CREATE_DESTROY_EVENT", "ACL_STATISTICS_MALLOC_FREE"]


def plog_hdr(level: str, mod: str, pid: int, pname: str, d: datetime) -> str:
    return "[%s] %s(%d,%s):%s " % (level, mod, pid, pname, f_plog(d))


def plog_init_noise(rng: random.Random, clk: Clock, pid: int, pname: str, cann_lib: str, dev: int,
                    work: str, n_perf: int = 60) -> list:
    """Process start: ATRACE/TDT/RUNTIME/ASCENDCL/GE/DRV INFO lines (run/plog)."""
    out = []
    h = lambda lv, m: plog_hdr(lv, m, pid, pname, clk.tick())  # noqa: E731
    out.append(h("INFO", "ATRACE") + "[trace_attr.c:190](tid:%d) attr init success, timeout=0ms." % pid)
    out.append(h("INFO", "ATRACE") + "[trace_recorder.c:52](tid:%d) get path by env ASCEND_WORK_PATH: %s" % (pid, work))
    out.append(h("INFO", "ATRACE") + "[trace_recorder.c:123](tid:%d) use root path: %s" % (pid, work))
    for k in (4, 6, 5, 0, 1, 2, 3):
        out.append(h("INFO", "TDT") + "[package_worker_factory.cpp:40][RegisterPackageWorkerCreator][tid:%d] Register[%d] package worker creator success" % (pid, k))
    out.append(h("INFO", "RUNTIME") + "[task_fail_callback_data_manager.cc:58] %d TaskFailCallBackManager: Constructor." % pid)
    out.append(h("INFO", "HCCL") + "[adapter_rts.cc:2742] [%d][adapter_rts.cc][CallBackInitRts] g_deviceType [7] g_deviceLogicId [-1] g_devicePhyId [-1]" % pid)
    clk.jump(rng.uniform(1.5, 3.5))
    out.append(h("INFO", "ASCENDCL") + "[acl_resource_manager.cpp:132]%d GetRuntimeV2Env: runtime v2 flag : model flag = 1, singleOp flag = 1" % pid)
    out.append(h("INFO", "GE") + "[op_tiling_manager.cc:109]%d ~FuncPerfScope:[GEPERFTRACE] The time cost of OpTilingManager::LoadSo is [%d] micro seconds." % (pid, rng.randint(300000, 480000)))
    clk.jump(rng.uniform(0.4, 0.9))
    out.append(h("INFO", "RUNTIME") + "[runtime_keeper.cc:149] %d CreateRuntimeImpl: Open libruntime_v100.so success" % pid)
    out.append(h("INFO", "RUNTIME") + "[runtime.cc:5408] %d GetVisibleDevices: ASCEND_RT_VISIBLE_DEVICES param was not set" % pid)
    out.append(h("INFO", "IDEDD") + "[adx_server_manager.cpp:203][tid:%d] Run Server(0) Process" % (pid + 31))
    out.append(h("INFO", "DRV") + "[devmm_virt_interface.c:450][ascend][curpid:%d,%d][drv][devmm][devmm_ioctl_init_process]Init_process details. (hostpid=%d)" % (pid, pid, pid))
    out.append(h("INFO", "TDT") + "[version_verify.cpp:36][SetVersionInfo][tid:%d] VersionVerify: send client version to server" % pid)
    out.append(h("INFO", "TDT") + "[process_mode_manager.cpp:631][GetDeviceCheckCodeOnce][tid:%d] [TsdClient][deviceId=%d] [sessionId=1] wait package info respond" % (pid, dev))
    out.append(h("INFO", "TDT") + "[version_verify.cpp:89][ParseVersionInfo][tid:%d] VersionVerify: pass client version info success" % pid)
    out.append(h("INFO", "RUNTIME") + "[engine.cc:80] %d Engine: Constructor." % pid)
    out.append(h("INFO", "GE") + "[ge_api.cc:264]%d GEInitializeImpl:[GEPERFTRACE] The time cost of GEInitialize::ManagerInitialize is [1] micro seconds." % pid)
    for i in range(n_perf):
        r = rng.random()
        if r < 0.35:
            out.append(h("INFO", "GE") + "[dnnengine_manager.cc:128]%d Initialize:[GEPERFTRACE] The time cost of DNNEngineManager::Initialize[%s] is [%d] micro seconds." % (pid, rng.choice(GE_ENGINES), rng.randint(0, 3)))
        elif r < 0.6:
            out.append(h("INFO", "GE") + "[dnnengine_manager.cc:41]%d ~InvokeFuncPerfRecorder:[GEPERFTRACE] The time cost of InvokeAll [%s] in [%s] is [%d] micro seconds." % (pid, rng.choice(["Initialize", "GetOpsKernelInfoStores", "GetGraphOptimizerObjs", "GetCompositeEngines", "GetFFTSPlusSwitch"]), rng.choice(GE_SOS), rng.randint(1, 900)))
        elif r < 0.75:
            so = rng.choice(["librts_engine.so", "libge_local_opskernel_builder.so", "libhcom_gradtune_opskernel_builder.so", "libaicpu_ascend_builder.so", "libfe.so"])
            out.append(h("INFO", "GE") + "[plugin_manager.cc:769]%d LoadSoWithFlags:[GEPERFTRACE] The time cost of PluginManager::Dlopen[%s/lib64/plugin/opskernel/%s] is [%d] micro seconds." % (pid, cann_lib, so, rng.randint(900, 15000)))
        elif r < 0.88:
            out.append(h("INFO", "GE") + "[ops_kernel_manager.cc:176]%d InitOpsKernelInfo:[GEPERFTRACE] The time cost of InitOpsKernelInfo::GetAllOpsKernelInfo[%s] is [%d] micro seconds." % (pid, rng.choice(GE_ENGINES), rng.randint(5, 3000)))
        else:
            out.append(h("INFO", "DRV") + "[devmm_svm.c:113][ascend][curpid:%d,%d][drv][devmm][devmm_set_device_info]Device info. (double_pgtable_offset=17592186044416; support_host_pin_pre_register=0; support_host_mem_pool=0; is_support_giant_page=1)" % (pid, pid))
    out.append(h("INFO", "GE") + "[ge_api.cc:335]%d GEInitializeImpl:[GEPERFTRACE] The time cost of InitializeExecutionRuntime is [%d] micro seconds." % (pid, rng.randint(10, 40)))
    return out


def plog_hccl_env(clk: Clock, pid: int, pname: str, exec_timeout: int = 1836) -> list:
    h = lambda: plog_hdr("INFO", "HCCL", pid, pname, clk.tick(2, 40))  # noqa: E731
    return [
        h() + "[externalinput.cc:598] [%d][HCCL_ENV] HCCL_CONNECT_TIMEOUT set by default to [120]s" % pid,
        h() + "[externalinput.cc:558] [%d][HCCL_ENV] HCCL_EXEC_TIMEOUT set by %s to [%d]s" % (pid, "default" if exec_timeout == 1836 else "environment", exec_timeout),
        h() + "[externalinput.cc:865] [%d][HCCL_ENV] HCCL_IF_BASE_PORT set by default to [60000]" % pid,
        h() + "[externalinput.cc:1250] [%d][HCCL_ENV] HCCL_RDMA_TIMEOUT set by default to [20]" % pid,
        h() + "[externalinput.cc:1284] [%d][HCCL_ENV] HCCL_RDMA_RETRY_CNT set by default to [7]" % pid,
    ]


def plog_steady_noise(rng: random.Random, clk: Clock, pid: int, pname: str, n: int, step_s: float = 2.0) -> list:
    """Repeating INFO lines while a process runs (memory stats, stream create/destroy)."""
    out = []
    for i in range(n):
        clk.jump(rng.uniform(step_s * 0.3, step_s * 1.7))
        r = rng.random()
        d = clk.tick()
        if r < 0.3:
            out.append(plog_hdr("INFO", "ASCENDCL", pid, pname, d) + "[resource_statistics.cpp:113]%d TraverseStatistics: The ResourceType:%s, applyTotal = %d, applySucc = %d, releaseTotal = %d, releaseSucc = %d" % ((pid, rng.choice(ACL_STATS)) + (lambda a: (a, a, a - rng.randint(0, 2), a - rng.randint(0, 2)))(rng.randint(2, 900))))
        elif r < 0.5:
            out.append(plog_hdr("INFO", "DRV", pid, pname, d) + "[svm_mem_statistics.c:152][ascend][curpid:%d,%d][drv][devmm][_svm_mem_stats_show]%s dev0 Cached_size:%dBytes" % (pid, pid, rng.choice(["MEM_DEV_SMALL_DDR", "MEM_DEV_HUGE_DDR", "MEM_DEV_HUGE_HBM", "MEM_DEV_SMALL_HBM"]), 2097152 * rng.randint(1, 64)))
        elif r < 0.7:
            out.append(plog_hdr("INFO", "RUNTIME", pid, pname, d) + "[stream.cc:%d] %d %s: stream_id=%d, sq_id=%d, priority=0." % (rng.choice([428, 566]), pid, rng.choice(["Setup", "TearDown"]), rng.randint(2, 60), rng.randint(1, 40)))
        elif r < 0.85:
            out.append(plog_hdr("INFO", "GE", pid, pname, d) + "[graph_manager.cc:%d]%d %s:[GEPERFTRACE] The time cost of %s is [%d] micro seconds." % (rng.randint(900, 4000), pid, rng.choice(["AddGraph", "BuildGraph", "RunGraph"]), rng.choice(["GraphManager::OptimizeSubgraph", "GraphManager::PreRun", "GraphManager::BuildGraphForUnregisteredOp"]), rng.randint(100, 90000)))
        else:
            out.append(plog_hdr("INFO", "PROFILING", pid, pname, d) + "[prof_acl_mgr.cpp:%d] >>> (tid:%d) Profiling is not enabled, skip report." % (rng.randint(100, 999), pid))
    return out


def plog_finalize(clk: Clock, pid: int, pname: str) -> list:
    out = []
    for s in ACL_STATS[:5]:
        out.append(plog_hdr("INFO", "ASCENDCL", pid, pname, clk.tick()) + "[resource_statistics.cpp:113]%d TraverseStatistics: The ResourceType:%s, applyTotal = 0, applySucc = 0, releaseTotal = 0, releaseSucc = 0" % (pid, s))
    out.append(plog_hdr("INFO", "GE", pid, pname, clk.tick()) + "[execution_runtime.cc:88]%d FinalizeExecutionRuntime:Execution runtime finalized." % pid)
    out.append(plog_hdr("INFO", "DRV", pid, pname, clk.tick()) + "[devmm_svm.c:2345][ascend][curpid:%d,%d][drv][devmm][drvMemDeviceCloseInner]DrvMemDeviceClose. (devid=0)" % (pid, pid))
    out.append(plog_hdr("INFO", "TDT", pid, pname, clk.tick()) + "[process_mode_manager.cpp:161][Close][tid:%d] [TsdClient][logicDeviceId_=0]has recv close hccp and computer process respond" % pid)
    return out


def device_app_log(rng: random.Random, clk: Clock, dpid: int, hostpid: int, dev: int, n: int = 40) -> list:
    """Host-side device-<hostpid>_*.log: aicpu_scheduler lines with device pids (§2.4)."""
    h = lambda: "[INFO] CCECPU(%d,aicpu_scheduler):%s " % (dpid, f_plog(clk.tick(10, 4000)))  # noqa: E731
    out = [h() + "[main.cpp:317][main][tid:%d] Start para. deviceId=%d, hostPid=%d, pidSign=000000000000000000000000000000000000000000000000, profilingMode=0, vfId=0, logLevel=3, ccecpulogLevel=-1, aicpulogLevel=-1, deviceMode=0, aicpuSchedMode=0, hostProcName=, grpNameNum=0, grpNameList=[]" % (dpid, dev, hostpid),
           h() + "[aicpusd_interface_process.cpp:610][GetCurrentRunMode][tid:%d] Current aicpu mode is online (call from host)." % dpid,
           h() + "[aicpusd_drv_manager.cpp:175][GetNormalAicpuInfo][tid:%d] aicpuBitMap[252], aicpuNum[6]." % dpid,
           h() + "[aicpusd_drv_manager.cpp:581][CheckBindHostPid][tid:%d] Query process host pid end, ret=0, hostpid=%d, expect=%d, cpType=0" % (dpid, hostpid, hostpid),
           h() + "[aicpusd_resource_manager.cpp:264][InitBufManager][tid:%d] Aicpu schedule SetBuffCfg successfully!" % dpid]
    for i in range(n):
        clk.jump(rng.uniform(5, 40))
        out.append("[INFO] CCECPU(%d,aicpu_scheduler):%s [aicpusd_period_statistic.cpp:73][DoStatistic][tid:%d] DoStatistic running over" % (dpid, f_plog(clk.tick()), dpid + 18))
    return out


# --------------------------------------------------------------------------------------------
# host kernel: dmesg / host_kernel.log / syslog / journal
# --------------------------------------------------------------------------------------------
def kernel_boot_lines(h: Host, rng: random.Random, cpu="Kunpeng 920", mem_gb=1024) -> list:
    """(uptime_seconds, text) for a plain aarch64 boot (no NPU driver yet)."""
    L = []
    t = 0.0
    def add(txt, dt=0.000012):
        nonlocal t
        t += dt * rng.uniform(0.5, 1.5)
        L.append((t, txt))
    L.append((0.0, "Booting Linux on physical CPU 0x0000080000 [0x481fd010]"))
    L.append((0.0, "Linux version %s (buildd@bos02-arm64-041) (aarch64-linux-gnu-gcc-12 (Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0, GNU ld (GNU Binutils for Ubuntu) 2.38) %s (Ubuntu %s)" % (h.kernel, h.kbuild, h.kernel.replace("-generic", ".8"))))
    for s in ["efi: EFI v2.70 by EDK II", "efi: ACPI 2.0=0x2ffb0000 SMBIOS 3.0=0x2f940000 MEMATTR=0x2c4ab018 RNG=0x2ffb1f98 MEMRESERVE=0x2bfa3e98",
              "random: crng init done", "secureboot: Secure boot disabled", "ACPI: Early table checksum verification disabled",
              "ACPI: RSDP 0x000000002FFB0000 000024 (v02 HISI  )", "ACPI: SRAT 0x000000002F9C0000 0007D0 (v03 HISI   HIP08    00000000 HISI 20151124)",
              "NUMA: NODE_DATA [mem 0x20ffffe600-0x20ffffffff]", "Zone ranges:", "  DMA      [mem 0x0000000000000000-0x00000000ffffffff]",
              "  Normal   [mem 0x0000000100000000-0x000000a0ffffffff]", "psci: probing for conduit method from ACPI.", "psci: PSCIv1.1 detected in firmware.",
              "percpu: Embedded 31 pages/cpu s86360 r8192 d32424 u126976", "Detected PIPT I-cache on CPU0", "CPU features: detected: Data cache clean to the PoU not required for I/D coherence",
              "Built 4 zonelists, mobility grouping on.  Total pages: %d" % (mem_gb * 258000),
              "Kernel command line: BOOT_IMAGE=/vmlinuz-%s root=/dev/mapper/ubuntu--vg-ubuntu--lv ro iommu.passthrough=1 default_hugepagesz=2M hugepagesz=2M hugepages=0" % h.kernel,
              "Memory: %dK/%dK available (16640K kernel code, 4486K rwdata, 11592K rodata, 7040K init, 1109K bss, 4561228K reserved, 0K cma-reserved)" % (mem_gb * 1040000, mem_gb * 1048576),
              "rcu: Hierarchical RCU implementation.", "GICv3: 640 SPIs implemented", "arch_timer: cp15 timer(s) running at 100.00MHz (phys).",
              "Console: colour dummy device 80x25", "Calibrating delay loop (skipped), value calculated using timer frequency.. 200.00 BogoMIPS (lpj=400000)",
              "smp: Bringing up secondary CPUs ...", "smp: Brought up 4 nodes, 192 CPUs", "devtmpfs: initialized",
              "ACPI: PCI Root Bridge [PCI0] (domain 0000 [bus 00-3f])", "pci 0000:00:00.0: [19e5:a120] type 01 class 0x060400"]:
        add(s, 0.03)
    for b in h.bus[: h.npus]:
        add("pci %s: [19e5:d802] type 00 class 0x120000" % b.lower(), 0.002)
        add("pci %s: reg 0x10: [mem 0x%x-0x%x 64bit pref]" % (b.lower(), 0x80000000000 + rng.randint(1, 200) * 0x10000000, 0x80000000000 + rng.randint(201, 400) * 0x10000000), 0.0004)
    for s in ["iommu: Default domain type: Passthrough (set via kernel command line)", "SCSI subsystem initialized", "NetLabel: Initializing",
              "clocksource: Switched to clocksource arch_sys_counter", "NET: Registered PF_INET protocol family", "Trying to unpack rootfs image as initramfs...",
              "Freeing initrd memory: 98304K", "Initialise system trusted keyrings", "Key type asymmetric registered", "Block layer SCSI generic (bsg) driver version 0.4 loaded (major 242)",
              "ipmi_si IPI0001:00: IPMI kcs interface initialized", "hns3: Hisilicon Ethernet Network Driver for Hip08 Family - version", "megaraid_sas 0000:83:00.0: FW now in Ready state",
              "EXT4-fs (dm-0): mounted filesystem with ordered data mode. Opts: (null). Quota mode: none.", "systemd[1]: systemd 249.11-0ubuntu3.12 running in system mode",
              "systemd[1]: Detected architecture arm64.", "systemd[1]: Hostname set to <%s>." % h.name, "EXT4-fs (dm-0): re-mounted. Opts: (null). Quota mode: none.",
              "hns3 0000:7d:00.0 enp125s0f0: link up", "IPv6: ADDRCONF(NETDEV_CHANGE): enp125s0f0: link becomes ready", "bridge: filtering via arp/ip/ip6tables is no longer available by default. Update your scripts to load br_netfilter if you need this.",
              "Bridge firewalling registered", "Initializing XFRM netlink socket", "loop0: detected capacity change from 0 to 130960"]:
        add(s, rng.uniform(0.05, 1.2))
    return L


ASCEND_MODS = ["drv_seclib_host", "ascend_kernel_open_adapt", "asdrv_pbl", "asdrv_trsbase", "ascend_adapter", "ascend_ub_drv",
               "asdrv_dpa", "asdrv_vpc", "drv_pcie_host", "asdrv_vnic", "asdrv_vmng", "asdrv_fms", "asdrv_dms", "asdrv_esched",
               "drv_pcie_hdc_host", "asdrv_svm", "asdrv_trs", "asdrv_queue", "asdrv_buff", "drv_vascend", "drv_vascend_stub",
               "ts_agent", "asdrv_vvpc", "ascend_soc_platform", "drv_dvpp_cmdlist"]


def ascend_load_lines(h: Host, rng: random.Random, t0: float, ring: bool) -> list:
    """Driver insmod at boot: (uptime, text). ring=True -> host_kernel.log style (with [INFO])."""
    L = []
    t = t0
    def add(mod, lvl, func, line, task, msg, dt=0.0002):
        nonlocal t
        t += dt * rng.uniform(0.5, 1.5)
        if ring:
            L.append((t, "[ascend] [%s] [%s] [%s %d] <%s> %s" % (mod, lvl, func, line, task, msg)))
        else:
            L.append((t, "[ascend] [%s] [%s %d] <%s> %s" % (mod, func, line, task, msg)))
    add("uda", "INFO", "uda_host_ns_init_work", 125, "kworker/4:1:231:231:4", "Ns info. (ns=ffff968e9f409780; init.task ns=ffff968e9f409780)")
    add("drv_pcie", "INFO", "devdrv_init_module", 2338, "systemd-udevd:694:694", 'Insmod host driver. (type="normal", product="dc", driver_name="devdrv_device_driver")', 0.02)
    add("drv_pcie", "INFO", "devdrv_init_dev_num", 2261, "systemd-udevd:694:694", "Findout total device. (dev_num=%d)" % h.npus)
    for i, b in enumerate(h.bus[: h.npus]):
        add("drv_pcie", "INFO", "devdrv_probe", 1719, "kworker/%d:1:%d" % (i, 300 + i), "Probe device. (bdf=%s; dev_id=%d)" % (b.lower(), i), 0.01)
    for i in range(h.npus):
        add("devdrv", "INFO", "devdrv_manager_device_ready_info", 4405, "kworker/%d:3:%d,%d" % (i, 650 + i, 650 + i), "Initialize chip info. (chip_name=6529; chip_version=1; nominal_osc_freq=50000000)", rng.uniform(5, 9))
        add("devdrv", "INFO", "devdrv_manager_device_ready_info", 4363, "kworker/%d:3:%d,%d" % (i, 650 + i, 650 + i), "Set aicore bitmap. (devid=%d; aicore_num=24; bitmap=ffffff; ret=0)" % i)
        add("hdcdrv", "INFO", "hdcdrv_set_device_para", 3679, "kworker/%d:3:%d" % (i, 650 + i), "Set normal chan number ok.(dev_id=%d; normal_chan_num=1)" % i)
        add("trs_drv", "INFO", "trs_set_ts_status", 42, "kworker/%d:3:%d:2" % (i, 650 + i), "Set ts status success. (devid=%d; tsid=0; status=1)" % i)
    return L


def devmm_proc_lines(pid: int, comm: str, devs, ring: bool, open_=True) -> list:
    out = []
    for d in devs:
        if open_:
            msg = ("devmm", "devmm_ioctl_open_device", 2115, "<%s:%d,%d> Open logical_device. (logical_devid=%d; phyid=%d; vfid=0; hostpid=%d)" % (comm, pid, pid, d, d, pid))
        else:
            msg = ("devmm", "devmm_ioctl_close_device", 2201, "<%s:%d,%d> Close logical_device. (logical_devid=%d; phyid=%d; vfid=0; hostpid=%d; devpid=%d)" % (comm, pid, pid, d, d, pid, 3000 + d * 7))
        if ring:
            out.append("[ascend] [%s] [INFO] [%s %d] %s" % msg)
        else:
            out.append("[ascend] [%s] [%s %d] %s" % msg)
    return out


class KernelLog:
    """One host's kernel events (uptime-based); renders dmesg, dmesg -T, journal -k, kern.log, host_kernel.log."""

    def __init__(self, h: Host):
        self.h = h
        self.ev = []  # (uptime, text, ascend_ring_text or None)

    def add(self, up: float, text: str, ring: str | None = None):
        self.ev.append((up, text, ring))

    def add_at(self, d: datetime, text: str, ring: str | None = None):
        self.add(self.h.up(d), text, ring)

    def sorted(self):
        return sorted(self.ev, key=lambda e: e[0])

    def dmesg(self) -> list:
        return ["[%12.6f] %s" % (u, t) for u, t, _ in self.sorted()]

    def dmesg_T(self) -> list:
        return ["[%s] %s" % (f_ctime(self.h.local(self.h.boot + timedelta(seconds=u))), t) for u, t, _ in self.sorted()]

    def journal(self) -> list:
        out = []
        for u, t, _ in self.sorted():
            d = self.h.local(self.h.boot + timedelta(seconds=u))
            out.append("%s %s kernel: %s" % (f_journal(d), self.h.name, t))
        return out

    def syslog(self, since: datetime | None = None) -> list:
        out = []
        for u, t, _ in self.sorted():
            d = self.h.local(self.h.boot + timedelta(seconds=u))
            if since is not None and d < since:
                continue
            out.append((d, "%s %s kernel: [%12.6f] %s" % (f_syslog(d), self.h.name, u, t)))
        return out

    def host_kernel(self) -> list:
        out = []
        for u, t, r in self.sorted():
            if r is None:
                continue
            d = self.h.boot + timedelta(seconds=u)
            out.append("%s %s" % (f_hk(d), r))
        return out


def ascend_ring(text: str) -> str | None:
    """printk text '[ascend] [mod] [func n] ...' -> ring text '[ascend] [mod] [INFO] [func n] ...'."""
    if not text.startswith("[ascend] ["):
        return None
    rest = text[len("[ascend] "):]
    if rest.startswith("[ERROR] "):
        parts = rest[len("[ERROR] "):].split("] ", 1)
        return "[ascend] %s] [ERROR] %s" % (parts[0], parts[1])
    parts = rest.split("] ", 1)
    return "[ascend] %s] [INFO] %s" % (parts[0], parts[1])


def syslog_noise(h: Host, rng: random.Random, start: datetime, end: datetime, extra: list | None = None) -> list:
    """rsyslog syslog of one host between start and end (local); extra = [(dt, line)] merged in."""
    ev = list(extra or [])
    d = start.replace(minute=17, second=1, microsecond=0)
    if d < start:
        d += timedelta(hours=1)
    pid = rng.randint(3000, 9000)
    while d < end:  # hourly cron
        pid += rng.randint(20, 400)
        ev.append((d, "%s %s CRON[%d]: (root) CMD (   cd / && run-parts --report /etc/cron.hourly)" % (f_syslog(d), h.name, pid)))
        d += timedelta(hours=1)
    d = start + timedelta(minutes=rng.randint(1, 20))
    while d < end:  # timesyncd / containerd / dockerd chatter
        r = rng.random()
        if r < 0.35:
            ev.append((d, "%s %s systemd-timesyncd[1009]: Initial synchronization to time server 10.%d.0.10:123 (ntp.internal)." % (f_syslog(d), h.name, rng.randint(1, 9)) if rng.random() < 0.1 else
                       "%s %s systemd-timesyncd[1009]: Timed out waiting for reply from 10.%d.0.%d:123 (ntp.internal)." % (f_syslog(d), h.name, rng.randint(1, 9), rng.randint(10, 12))))
        elif r < 0.55:
            ev.append((d, '%s %s containerd[1551]: time="%s" level=info msg="cleaning up dead shim" namespace=moby' % (f_syslog(d), h.name, d.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z")))
        elif r < 0.7:
            ev.append((d, "%s %s systemd[1]: Started Session %d of User root." % (f_syslog(d), h.name, rng.randint(100, 9000))))
        elif r < 0.8:
            ev.append((d, "%s %s systemd[1]: sysstat-collect.service: Deactivated successfully." % (f_syslog(d), h.name)))
        elif r < 0.9:
            ev.append((d, "%s %s systemd-logind[1288]: New session %d of user root." % (f_syslog(d), h.name, rng.randint(100, 9000))))
        else:
            ev.append((d, "%s %s sshd[%d]: Accepted publickey for root from 10.%d.%d.%d port %d ssh2: RSA SHA256:Qm9vdHN0cmFwS2V5Rm9yU2FtcGxlczEyMzQ1Ng" % (f_syslog(d), h.name, rng.randint(10000, 90000), rng.randint(1, 9), rng.randint(0, 9), rng.randint(2, 250), rng.randint(30000, 65000))))
        d += timedelta(seconds=rng.randint(60, 900))
    ev.sort(key=lambda e: e[0])
    return [l for _, l in ev]


# --------------------------------------------------------------------------------------------
# ascend_install.log blocks (shapes from corpus/real ascend_install.log and log-formats.md §6)
# --------------------------------------------------------------------------------------------
DRIVER_KOS = sorted(ASCEND_MODS)


def inst_driver(d: datetime, pkg: str, base: str, new: str, kernel: str, rng: random.Random, path="/usr/local/Ascend",
                dkms=False, old: str | None = None, bdfs="0000:c1:00.0 0000:c2:00.0 0000:81:00.0 0000:82:00.0 0000:01:00.0 0000:02:00.0 0000:41:00.0 0000:42:00.0") -> tuple:
    """A successful driver install (.run --full). Returns (lines, end_time)."""
    c = Clock(d, rng)
    P = lambda lv, msg, s=0: "[Driver] [%s] [%s]%s" % (f_inst(c.jump(s)), lv, msg)  # noqa: E731
    L = [P("INFO", "runPackagePath =/root/pkgs"), P("INFO", "Start time: %s" % f_inst(c.t)),
         P("INFO", "UserCommand: %s --full --quiet" % pkg), P("INFO", "base version is %s." % base)]
    if old:
        L.append(P("INFO", "Driver package has been installed on the path %s, the version is %s, and the version of this package is %s,do you want to continue?  [y/n] " % (path, old, new)))
    for feat in ["HOT_RESET", "CRL_CHECK", "NVCNT_CHECK", "DKMS_COMPILE", "VIRT_SCENE"]:
        L.append(P("INFO", "FEATURE_%s is : FEATURE_%s=y" % (feat, feat)))
        L.append(P("INFO", "set feature_%s=y" % feat.lower()))
    L.append(P("INFO", "g_dev_nums=[8] and g_bdfs=[%s]" % bdfs))
    L.append(P("INFO", "Install_Path_Param=%s" % path))
    L.append(P("INFO", "freeSpace:%dM" % rng.randint(300000, 900000)))
    for parent, child in [("/usr/local", "Ascend"), ("/usr", "local"), ("/", "usr")]:
        L.append(P("INFO", "parent_dir value is [%s] and children_dir value is [%s]" % (parent, child)))
        L.append(P("INFO", "[%s] belongs to root." % child))
        L.append(P("INFO", "[%s] permission is ok." % child))
    L.append(P("INFO", "parent_dirs_permision_check success"))
    L.append(P("INFO", "Flash version check success. package_flash_version=237, max_device_flash_version=237", 1))
    L.append(P("INFO", "driver and firmware version relationship check success"))
    if old:
        L.append(P("INFO", "target path : %s" % path, 1))
        L.append(P("INFO", "unchattr for driver package"))
        for ko in DRIVER_KOS:
            L.append(P("INFO", "rm %s.ko" % ko))
        L.append(P("WARNING", "Kernel modules can not be removed, reboot needed for installation/upgrade to take effect! ", 6))
        L.append(P("INFO", "rm -rf %s/driver success" % path, 2))
        L.append(P("INFO", "uninstall driver success"))
    L.append(P("INFO", "target path : %s/driver" % path))
    L.append(P("INFO", "dkms environment check..."))
    if dkms:
        L.append(P("INFO", "driver install type: DKMS"))
    else:
        L.append(P("WARNING", "The program 'dkms' is currently not installed."))
        L.append(P("INFO", "not detect driver dkms dependence "))
    L.append(P("INFO", "config_modversions is : CONFIG_MODVERSIONS=y"))
    L.append(P("INFO", "driver in run packet could load ok, no need rebuild"))
    L.append(P("INFO", "upgradePercentage:10%"))
    L.append(P("INFO", "upgradePercentage:30%", 5))
    L.append(P("INFO", "show /lib/davinci.conf :DAVINCI_HOME_PATH=%s" % path))
    L.append(P("INFO", "set /lib/davinci.conf success"))
    L.append(P("INFO", "upgradePercentage:40%"))
    L.append(P("INFO", "ko default put-path /lib/modules/%s/updates" % kernel))
    L.append(P("INFO", "driver ko auto insmod config success", 3))
    L.append("[Server] [%s] [INFO]server load start..." % f_inst(c.t))
    L.append("[Server] [%s] [INFO]server(/etc/init.d/host_sys_init.sh) setup success" % f_inst(c.jump(1)))
    L.append("[Server] [%s] [INFO]server load end..." % f_inst(c.t))
    L.append(P("INFO", "upgradePercentage:90%"))
    L.append(P("INFO", "some files in /etc/ change success"))
    if old:
        L.append(P("INFO", "Driver package installed successfully! Reboot needed for installation/upgrade to take effect!", 2))
    else:
        L.append(P("INFO", "install ko, hot reset status: unknown, first_time:y", 1))
        for ko in DRIVER_KOS:
            L.append(P("INFO", "%s modprobe success" % ko))
        L.append(P("INFO", "Driver package installed successfully! Reboot needed for installation/upgrade to take effect!", 20))
    L.append(P("INFO", "upgradePercentage:100%"))
    L.append(P("INFO", "End time: %s" % f_inst(c.t)))
    return L, c.t


def inst_firmware(d: datetime, pkg: str, base: str, comp: str, rng: random.Random, chips=8) -> tuple:
    c = Clock(d, rng)
    P = lambda lv, msg, s=0: "[Firmware] [%s] [%s]%s" % (f_inst(c.jump(s)), lv, msg)  # noqa: E731
    L = [P("INFO", "Start time: %s" % f_inst(c.t)), P("INFO", "UserCommand: %s --full --quiet" % pkg), P("INFO", "base version is %s." % base),
         P("INFO", "FEATURE_NVCNT_CHECK is : FEATURE_NVCNT_CHECK=y"), P("INFO", "set feature_nvcnt_check=y"),
         P("INFO", "g_dev_nums=[%d] and g_bdfs=[0000:c1:00.0 0000:c2:00.0 0000:81:00.0 0000:82:00.0 0000:01:00.0 0000:02:00.0 0000:41:00.0 0000:42:00.0]" % chips),
         P("INFO", "[%d] mini pcie devices are scanned." % chips), P("INFO", "chips [0 1 2 3 4 5 6 7] are up."),
         P("INFO", "Firmware flash version check success. package_version=237, max_firmware_version=237", 1),
         P("INFO", "rm -rf /usr/local/Ascend/firmware success"), P("INFO", "uninstall firmware success"),
         P("INFO", "mkdir and copy files success", 1), P("INFO", "%d mini devices are all loaded up" % chips),
         P("INFO", "upgradePercentage: 91%", 2)]
    L.append("{")
    for dev in range(chips):
        L.append("Get component version(%s) succeed for deviceId(%d), componentType(0)." % (comp, dev))
        L.append('\t{"device_id":%d, "component":nve, "version":%s}' % (dev, comp))
    L.append("}")
    L += [P("INFO", "upgradePercentage: 100%", 40), P("INFO", "firmware upgrade success"),
          P("INFO", "The firmware of [%d] chips are successfully upgraded." % chips),
          P("INFO", "Firmware package installed successfully! Reboot now or after driver installation for the installation/upgrade to take effect."),
          P("INFO", "End time: %s" % f_inst(c.t))]
    return L, c.t


def inst_cann(d: datetime, tag: str, pkg_word: str, path: str, rng: random.Random, params="--quiet --full", n_whl=3) -> tuple:
    """A CANN sub-package install ([Toolkit] style with colon)."""
    c = Clock(d, rng)
    P = lambda lv, msg, s=0: "[%s] [%s] [%s]: %s" % (tag, f_inst(c.jump(s)), lv, msg)  # noqa: E731
    L = [P("INFO", "Start Time: %s" % f_inst(c.t)), P("INFO", "LogFile: /var/log/ascend_seclog/ascend_install.log"),
         P("INFO", "OperationLogFile: /var/log/ascend_seclog/operation.log"), P("INFO", "InputParams: %s" % params),
         P("INFO", "All chip types are checked successfully [all]."), P("INFO", "parent_dirs_permision check successfully"),
         P("INFO", "step into run_%s_install.sh ..." % tag.lower(), 1)]
    for w in ["op_gen-0.1", "hccl_parser-0.1", "msobjdump-0.1.0", "show_kernel_debug_data-0.1.0"][:n_whl]:
        name = w.split("-")[0]
        L += ["Looking in indexes: https://pypi.internal/simple", "Processing %s/toolkit/tools/%s-py3-none-any.whl" % (path, w),
              "Installing collected packages: %s" % name.replace("_", "-"), "Successfully installed %s" % w.replace("_", "-"),
              "WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with the system package manager. It is recommended to use a virtual environment instead: https://pip.pypa.io/warnings/venv",
              P("INFO", "install %s/toolkit/tools/%s-py3-none-any.whl succeed." % (path, w), rng.randint(1, 3))]
    L += [P("INFO", "upgradePercentage: 100%", rng.randint(5, 20)), P("INFO", "InstallPath: %s" % path),
          P("INFO", "%s package installed successfully! The new version takes effect immediately." % pkg_word),
          P("INFO", "End Time: %s" % f_inst(c.t))]
    return L, c.t


def oplog(op: str, d: datetime, run: str, ok=True, cmd="--full --quiet") -> str:
    lvl = {"Install": "SUGGESTION", "Upgrade": "MINOR", "Uninstall": "MAJOR"}[op]
    extra = "install_type=full; " if op == "Install" else ""
    return "%s %s root %s 127.0.0.1 %s %s %scmdlist=%s." % (op, lvl, f_inst(d), run, "success" if ok else "failed", extra, cmd)


# --------------------------------------------------------------------------------------------
# command outputs
# --------------------------------------------------------------------------------------------
def npu_smi_info(h: Host, tool_ver: str, drv_ver: str, procs: dict | None = None, rng=None, hbm_used=None, health=None) -> list:
    """98-column A2 layout (log-formats.md §5.1). procs: {npu: [(pid, name, mem)]}; the header shows the
    npu-smi tool version and, after `Version:`, the driver version reported by the loaded driver."""
    rng = rng or random.Random(1)
    sep = "+===========================+===============+====================================================+"
    def row(s):
        return "| " + s.ljust(95) + "|"
    def cells(a, b, c):
        return "| " + a.ljust(25) + " | " + b.ljust(13) + " | " + c.ljust(51) + "|"
    L = ["+" + "-" * 96 + "+", row(("npu-smi %s" % tool_ver).ljust(33) + "Version: %s" % drv_ver),
         "+---------------------------+---------------+----------------------------------------------------+",
         "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
         "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |", sep]
    for i in range(h.npus):
        used = hbm_used[i] if hbm_used else rng.randint(2800, 3400)
        busy = bool(procs) and i in procs
        pw = "%.1f" % (rng.uniform(180, 380) if busy else rng.uniform(88, 99))
        L.append(cells("%-5d %s" % (i, h.card), (health or {}).get(i, "OK"), pw.ljust(12) + str(rng.randint(38, 52)).ljust(18) + "0    / 0"))
        hb = ("%-4d / %d" % (used, h.hbm)) if used < 10000 else ("%d/ %d" % (used, h.hbm))
        L.append(cells("0", h.bus[i], str(rng.randint(20, 95) if busy else 0).ljust(12) + "0    / 0".ljust(18) + hb))
        L.append(sep)
    L.append("+---------------------------+---------------+----------------------------------------------------+")
    L.append("| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |")
    L.append(sep)
    for i in range(h.npus):
        if procs and i in procs:
            for pid, name, mem in procs[i]:
                L.append("| " + ("%-7d %d" % (i, 0)).ljust(25) + " | " + str(pid).ljust(13) + " | " + name.ljust(24) + " | " + str(mem).ljust(24) + "|")
        else:
            L.append(row("No running processes found in NPU %d" % i))
        L.append(sep)
    assert all(len(l) == 98 for l in L), [l for l in L if len(l) != 98]
    return L


def npu_smi_l(h: Host) -> list:
    L = ["        Total Count                    : %d" % h.npus, ""]
    for i in range(h.npus):
        L += ["        NPU ID                         : %d" % i, "        Chip Count                     : 1", ""]
    return L


def npu_smi_board(h: Host, i: int, sw: str, fw: str, serial: str) -> list:
    return ["        NPU ID                         : %d" % i,
            "        Product Name                   : IT21HMDC_Bin5",
            "        Model                          : NA",
            "        Manufacturer                   : Huawei",
            "        Serial Number                  : %s" % serial,
            "        Software Version               : %s" % sw,
            "        Firmware Version               : %s" % fw,
            "        Compatibility                  : OK",
            "        Board ID                       : 0x60",
            "        PCB ID                         : A",
            "        BOM ID                         : 1",
            "        PCIe Bus Info                  : %s" % h.bus[i],
            "        Slot ID                        : %d" % i,
            "        Class ID                       : NA",
            "        PCI Vendor ID                  : 0x19E5",
            "        PCI Device ID                  : 0xD802",
            "        Subsystem Vendor ID            : 0x19E5",
            "        Subsystem Device ID            : 0x3003",
            "        Chip Count                     : 1"]


def npu_smi_health(code="NA", info="NA", status="OK") -> list:
    return ["         Health Status                  : %s" % status,
            "         Error Code                     : %s" % code,
            "         Error Information              : %s" % info]


def driver_version_info(ver: str, inner: str, compat: str, fw_compat: str, hal="7.35.23") -> list:
    return ["Version=%s" % ver, "ascendhal_version=%s" % hal, "aicpu_version=1.0", "tdt_version=1.0", "log_version=1.0",
            "prof_version=2.0", "dvppkernels_version=1.1", "tsfw_version=1.0", "Innerversion=%s" % inner,
            "compatible_version=%s" % compat, "compatible_version_fw=%s" % fw_compat, "package_version=%s" % ver]


def firmware_version_info(ver: str, pkg: str, compat: str) -> list:
    return ["Version=%s" % ver, "firmware_version=1.0", "package_version=%s" % pkg, "compatible_version_drv=%s" % compat]


def toolkit_install_info(ver: str, inner: str, compat: str, path: str, arch="aarch64") -> list:
    return ["package_name=Ascend-cann-toolkit", "version=%s" % ver, "innerversion=%s" % inner, "compatible_version=%s" % compat,
            "arch=%s" % arch, "os=linux", "path=%s" % path]


def ascend_install_info(path="/usr/local/Ascend") -> list:
    return ["UserName=HwHiAiUser", "UserGroup=HwHiAiUser", "Driver_Install_Type=full", "Driver_Install_Path_Param=%s" % path,
            "Driver_Install_For_All=no", "Driver_Install_Mode=normal"]


def pip_list(pkgs: dict) -> list:
    w = max(len(k) for k in pkgs) + 1
    w = max(w, 8)
    L = ["Package".ljust(w) + " Version", "-" * w + " " + "-" * 12]
    for k in sorted(pkgs, key=str.lower):
        L.append(k.ljust(w) + " " + pkgs[k])
    return L


BASE_PIP = {"absl-py": "2.1.0", "attrs": "24.2.0", "certifi": "2024.8.30", "cloudpickle": "3.1.0", "decorator": "5.1.1",
            "filelock": "3.16.1", "fsspec": "2024.10.0", "Jinja2": "3.1.4", "MarkupSafe": "3.0.2", "ml-dtypes": "0.5.0",
            "mpmath": "1.3.0", "networkx": "3.4.2", "numpy": "1.26.4", "packaging": "24.2", "pip": "24.3.1",
            "protobuf": "5.28.3", "psutil": "6.1.0", "PyYAML": "6.0.2", "scipy": "1.14.1", "setuptools": "75.6.0",
            "sympy": "1.13.3", "tornado": "6.4.2", "typing_extensions": "4.12.2", "wheel": "0.45.1"}

CANN_PIP = {"te": "0.4.0", "op-gen": "0.1", "hccl-parser": "0.1", "msobjdump": "0.1.0", "show-kernel-debug-data": "0.1.0",
            "op-compile-tool": "0.1.0", "schedule-search": "0.0.1", "auto-tune": "0.1.0", "dataflow": "0.0.1", "llm-datadist": "0.0.1"}


def dpkg_list(extra: list | None = None) -> list:
    L = ["Desired=Unknown/Install/Remove/Purge/Hold",
         "| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend",
         "|/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)",
         "||/ Name                                 Version                                 Architecture Description",
         "+++-====================================-=======================================-============-================================================================================"]
    pk = [("adduser", "3.118ubuntu5", "all", "add and remove users and groups"), ("apt", "2.4.13", "arm64", "commandline package manager"),
          ("bash", "5.1-6ubuntu1.1", "arm64", "GNU Bourne Again SHell"), ("build-essential", "12.9ubuntu3", "arm64", "Informational list of build-essential packages"),
          ("coreutils", "8.32-4.1ubuntu1.2", "arm64", "GNU core utilities"), ("dkms", "2.8.7-2ubuntu2.2", "all", "Dynamic Kernel Module Support Framework"),
          ("docker-ce", "5:27.3.1-1~ubuntu.22.04~jammy", "arm64", "Docker: the open-source application container engine"),
          ("gcc", "4:11.2.0-1ubuntu1", "arm64", "GNU C compiler"), ("kmod", "29-1ubuntu1", "arm64", "tools for managing Linux kernel modules"),
          ("libc6", "2.35-0ubuntu3.8", "arm64", "GNU C Library: Shared libraries"), ("linux-headers-5.15.0-131-generic", "5.15.0-131.141", "arm64", "Linux kernel headers for version 5.15.0 on ARMv8 SMP"),
          ("openssh-server", "1:8.9p1-3ubuntu0.10", "arm64", "secure shell (SSH) server, for secure access from remote machines"),
          ("pciutils", "1:3.7.0-6", "arm64", "PCI utilities"), ("python3", "3.10.6-1~22.04.1", "arm64", "interactive high-level object-oriented language (default python3 version)"),
          ("rsyslog", "8.2112.0-2ubuntu2.2", "arm64", "reliable system and kernel logging daemon"), ("systemd", "249.11-0ubuntu3.12", "arm64", "system and service manager"),
          ("tar", "1.34+dfsg-1ubuntu0.1.22.04.2", "arm64", "GNU version of the tar archiving utility"), ("zstd", "1.4.8+dfsg-3build1", "arm64", "fast lossless compression algorithm -- CLI tool")]
    pk += extra or []
    for n, v, a, desc in sorted(pk):
        L.append("ii  %-36s %-39s %-12s %s" % (n, v, a, desc))
    return L


def maps_lines(entries) -> list:
    """entries: (start, end, perms, offset, dev, inode, path)."""
    out = []
    for s, e, p, off, dev, ino, path in entries:
        line = "%012x-%012x %s %08x %s %-10d" % (s, e, p, off, dev, ino)
        out.append((line + " " * 16 + path) if path else line.rstrip() + " ")
    return [l.rstrip() if not l.endswith(" ") else l[:-1] for l in out]


class Maps:
    """Builds a plausible /proc/PID/maps of an aarch64 python process."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.e = []
        self.ino = 1_000_000 + rng.randint(0, 900000)
        self.next_lib = 0xfffd00000000

    def lib(self, path: str, size_kb=2048, dev="fd:00", deleted=False, at=None):
        base = at if at is not None else self.next_lib
        self.ino += self.rng.randint(1, 5000)
        p = path + (" (deleted)" if deleted else "")
        sz = size_kb * 1024 // 4096 * 4096
        tx = max(4096, sz * 3 // 4 // 4096 * 4096)
        self.e.append((base, base + tx, "r-xp", 0, dev, self.ino, p))
        self.e.append((base + tx, base + tx + 0x10000, "---p", tx, dev, self.ino, p))
        self.e.append((base + tx + 0x10000, base + tx + 0x20000, "r--p", tx, dev, self.ino, p))
        self.e.append((base + tx + 0x20000, base + tx + 0x30000, "rw-p", tx + 0x10000, dev, self.ino, p))
        if at is None:
            self.next_lib = (base + tx + 0x30000 + 0x100000) & ~0xffff
        return self

    def anon(self, s, e, perms="rw-p", name=""):
        self.e.append((s, e, perms, 0, "00:00", 0, name))
        return self

    def raw(self, s, e, perms, off, dev, ino, path):
        self.e.append((s, e, perms, off, dev, ino, path))
        return self

    def render(self) -> list:
        out = []
        for s, e, p, off, dev, ino, path in sorted(self.e, key=lambda x: x[0]):
            base = "%x-%x %s %08x %s %d" % (s, e, p, off, dev, ino)
            out.append(base.ljust(73) + path if path else base)
        return out


def python_maps(rng: random.Random, py_bin: str, site: str, cann: str | None, drv="/usr/local/Ascend/driver",
                torch=True, extra_libs=(), deleted=(), svm=True, svm_end=0x180000000000, pre=None) -> Maps:
    m = Maps(rng)
    m.raw(0x400000, 0x401000, "r-xp", 0, "fd:00", 2621601, py_bin)
    m.raw(0x410000, 0x411000, "r--p", 0, "fd:00", 2621601, py_bin)
    m.raw(0x411000, 0x412000, "rw-p", 0x1000, "fd:00", 2621601, py_bin)
    m.anon(0x2a8f1000, 0x2b5ce000, "rw-p", "[heap]")
    if pre:
        pre(m)
    if svm:
        # the 8 TB SVM window reserved by the driver (devmm) in every ACL process
        m.raw(0x100000000000, svm_end, "---p", 0, "00:05", 1035, "/dev/devmm_svm")
    m.next_lib = 0xfffc40000000
    libs = []
    if torch:
        libs += [(site + "/torch/lib/libc10.so", 1400), (site + "/torch/lib/libtorch_cpu.so", 190000), (site + "/torch/lib/libtorch_python.so", 26000),
                 (site + "/torch/lib/libgomp-6e1a1d1b.so.1.0.0", 400), (site + "/torch_npu/lib/libtorch_npu.so", 98000),
                 (site + "/torch_npu/lib/libop_plugin_atb.so", 2400), (site + "/torch_npu/_C.cpython-311-aarch64-linux-gnu.so", 300)]
    if cann:
        for l, kb in [("libascendcl.so", 3600), ("libruntime.so", 9800), ("libge_runner.so", 60000), ("libge_executor.so", 9000),
                      ("libhccl.so", 24000), ("libopapi.so", 240000), ("libacl_op_compiler.so", 1200), ("libgraph.so", 9000),
                      ("libregister.so", 3400), ("libascend_hal.so", 0), ("libprofapi.so", 900), ("libmsprofiler.so", 2900),
                      ("libascendalog.so", 420), ("libplatform.so", 1500), ("libtiling_api.so", 2900), ("libopp_registry.so", 300)]:
            if l == "libascend_hal.so":
                continue
            d = l in deleted
            m.lib("%s/lib64/%s" % (cann, l), kb, deleted=d)
    for l in extra_libs:
        m.lib(l[0], l[1], deleted=l[0] in deleted)
    m.lib(drv + "/lib64/driver/libascend_hal.so", 1800, deleted="libascend_hal.so" in deleted)
    m.lib(drv + "/lib64/driver/libdrvdsmi_host.so", 300)
    m.lib(drv + "/lib64/common/libc_sec.so", 120)
    m.lib(drv + "/lib64/common/libmmpa.so", 160)
    for l, kb in [("/usr/lib/aarch64-linux-gnu/libstdc++.so.6.0.30", 2000), ("/usr/lib/aarch64-linux-gnu/libm.so.6", 700),
                  ("/usr/lib/aarch64-linux-gnu/libc.so.6", 1700), ("/usr/lib/aarch64-linux-gnu/libgcc_s.so.1", 120),
                  ("/usr/lib/aarch64-linux-gnu/libz.so.1.2.11", 110), ("/usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1", 200)]:
        m.lib(l, kb)
    m.anon(0xffffcd8e0000, 0xffffcd901000, "rw-p", "[stack]")
    m.raw(0xffffb7f80000, 0xffffb7f81000, "r-xp", 0, "00:00", 0, "[vdso]")
    m.raw(0xffffb7f7e000, 0xffffb7f80000, "r--p", 0, "00:00", 0, "[vvar]")
    return m


def environ_bytes(env: dict) -> bytes:
    return b"".join(("%s=%s" % (k, v)).encode() + b"\0" for k, v in env.items())


def cmdline_bytes(argv: list) -> bytes:
    return b"".join(a.encode() + b"\0" for a in argv)


def cann_env(cann_root: str, ver_dir: str, drv="/usr/local/Ascend/driver", py="/usr/local/python3.11.10") -> dict:
    """What set_env.sh of a CANN install exports (values verbatim paths)."""
    home = "%s/%s" % (cann_root, ver_dir) if ver_dir else cann_root
    arch = "aarch64-linux"
    return {
        "ASCEND_TOOLKIT_HOME": home,
        "ASCEND_HOME_PATH": home,
        "ASCEND_OPP_PATH": home + "/opp",
        "ASCEND_AICPU_PATH": home,
        "TOOLCHAIN_HOME": home + "/toolkit",
        "LD_LIBRARY_PATH": "%s/lib64:%s/lib64/plugin/opskernel:%s/lib64/plugin/nnengine:%s/opp/built-in/op_impl/ai_core/tbe/op_tiling/lib/linux/aarch64:%s/lib64/driver:%s/lib64/common:%s/tools/aml/lib64:%s/tools/aml/lib64/plugin" % (home, home, home, home, drv, drv, home, home),
        "PYTHONPATH": "%s/python/site-packages:%s/opp/built-in/op_impl/ai_core/tbe:" % (home, home),
        "PATH": "%s/bin:%s/compiler/ccec_compiler/bin:%s/tools/ccec_compiler/bin:%s/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" % (home, home, home, py),
    }


def ulimit_a(vmem="unlimited", stack="8192", nofile=1048576) -> list:
    return ["real-time non-blocking time  (microseconds, -R) unlimited",
            "core file size              (blocks, -c) 0",
            "data seg size               (kbytes, -d) unlimited",
            "scheduling priority                 (-e) 0",
            "file size                   (blocks, -f) unlimited",
            "pending signals                     (-i) 4126479",
            "max locked memory           (kbytes, -l) 8192",
            "max memory size             (kbytes, -m) unlimited",
            "open files                          (-n) %d" % nofile,
            "pipe size                (512 bytes, -p) 8",
            "POSIX message queues         (bytes, -q) 819200",
            "real-time priority                  (-r) 0",
            "stack size                  (kbytes, -s) %s" % stack,
            "cpu time                   (seconds, -t) unlimited",
            "max user processes                  (-u) 4126479",
            "virtual memory              (kbytes, -v) %s" % vmem,
            "file locks                          (-x) unlimited"]


def mountinfo_host(extra=()) -> list:
    L = ["22 28 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw",
         "23 28 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:14 - proc proc rw",
         "24 28 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=526914176k,nr_inodes=131728544,mode=755,inode64",
         "25 24 0:23 / /dev/pts rw,nosuid,noexec,relatime shared:3 - devpts devpts rw,gid=5,mode=620,ptmxmode=000",
         "26 28 0:24 / /run rw,nosuid,nodev,noexec,relatime shared:5 - tmpfs tmpfs rw,size=105391876k,mode=755,inode64",
         "28 1 253:0 / / rw,relatime shared:1 - ext4 /dev/mapper/ubuntu--vg-ubuntu--lv rw",
         "29 22 0:6 / /sys/kernel/security rw,nosuid,nodev,noexec,relatime shared:8 - securityfs securityfs rw",
         "30 24 0:25 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,inode64",
         "33 22 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot",
         "41 24 0:36 / /dev/hugepages rw,relatime shared:16 - hugetlbfs hugetlbfs rw,pagesize=2M",
         "43 28 8:2 / /boot rw,relatime shared:31 - ext4 /dev/sda2 rw",
         "45 43 8:1 / /boot/efi rw,relatime shared:33 - vfat /dev/sda1 rw,fmask=0077,dmask=0077,codepage=437,iocharset=iso8859-1,shortname=mixed,errors=remount-ro",
         "47 28 259:1 / /data rw,relatime shared:35 - xfs /dev/nvme0n1p1 rw,attr2,inode64,logbufs=8,logbsize=32k,noquota"]
    return L + list(extra)


def lsmod(mods: list) -> list:
    L = ["Module                  Size  Used by"]
    for name, size, used in mods:
        L.append("%-19s %8d  %s" % (name, size, used))
    return L


GENERIC_MODS = [("xt_conntrack", 262144, "1"), ("nft_chain_nat", 262144, "3"), ("xt_MASQUERADE", 262144, "2"), ("nf_nat", 327680, "2 nft_chain_nat,xt_MASQUERADE"),
                ("nf_conntrack", 393216, "3 xt_conntrack,nf_nat,xt_MASQUERADE"), ("bridge", 458752, "0"), ("stp", 262144, "1 bridge"),
                ("overlay", 327680, "4"), ("ipmi_ssif", 262144, "0"), ("hns_roce_hw_v2", 393216, "0"), ("ib_uverbs", 393216, "1 hns_roce_hw_v2"),
                ("hclge", 589824, "0"), ("hns3", 393216, "1 hclge"), ("hnae3", 262144, "3 hns3,hclge,hns_roce_hw_v2"),
                ("megaraid_sas", 327680, "4"), ("ipmi_si", 262144, "0"), ("sch_fq_codel", 262144, "17"), ("dm_multipath", 262144, "0"), ("ip_tables", 262144, "0"), ("x_tables", 262144, "4 ip_tables,xt_conntrack,xt_MASQUERADE,nft_chain_nat")]

ASCEND_LSMOD_SIZES = {m: 65536 * (3 + (i * 7) % 40) for i, m in enumerate(ASCEND_MODS)}
ASCEND_USED = {"drv_seclib_host": "21 asdrv_pbl,drv_pcie_host,asdrv_dms,asdrv_svm,asdrv_trs,ts_agent,drv_pcie_hdc_host",
               "ascend_kernel_open_adapt": "20 asdrv_pbl,drv_pcie_host,asdrv_svm,asdrv_trs",
               "drv_pcie_host": "9 asdrv_vnic,asdrv_vmng,asdrv_dms,drv_pcie_hdc_host,asdrv_svm,asdrv_trs",
               "asdrv_pbl": "15 drv_pcie_host,asdrv_dms,asdrv_svm,asdrv_trs,asdrv_esched,asdrv_queue"}


def ascend_lsmod(loaded=None) -> list:
    out = []
    for m in reversed(ASCEND_MODS):
        if loaded is not None and m not in loaded:
            continue
        used = ASCEND_USED.get(m, "%d" % (0 if m in ("drv_dvpp_cmdlist", "ts_agent", "asdrv_vvpc") else 1))
        out.append((m, ASCEND_LSMOD_SIZES[m], used))
    return out


def lspci(h: Host, driver_bound=True) -> list:
    L = ["00:00.0 PCI bridge: Huawei Technologies Co., Ltd. HiSilicon PCIe Root Port with Gen4 (rev 21)",
         "74:02.0 Serial Attached SCSI controller: Huawei Technologies Co., Ltd. HiSilicon SAS 3.0 HBA (rev 21)",
         "7d:00.0 Ethernet controller: Huawei Technologies Co., Ltd. HNS GE/10GE/25GE RDMA Network Controller (rev 21)",
         "83:00.0 RAID bus controller: Broadcom / LSI MegaRAID SAS-3 3108 [Invader] (rev 02)"]
    for b in h.bus[: h.npus]:
        L.append("%s Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)" % b[5:].lower())
    return sorted(L)


# --------------------------------------------------------------------------------------------
# device side (msnpureport / asys): device-os, event, firmware TSCH, slogd, history
# --------------------------------------------------------------------------------------------
def device_side(files: Files, base: str, h: Host, rng: random.Random, devs, start_utc: datetime, end_utc: datetime,
                layout: str, extra_os=None, extra_fw=None, extra_hist=None, n=250, msg_tz=8):
    """Writes device logs of devices `devs` under base in the msnpureport ('slog') or asys ('asys') layout.
    Device slog wall clock is UTC (as in the real asys sample), device `messages` are UTC+msg_tz."""
    boot = h.boot + timedelta(seconds=38)  # device OS comes up ~38 s after the host
    for dev in devs:
        if layout == "asys":
            root = "%s/device/dev-os-%d" % (base, dev)
            fw_dir, os_run, os_dbg, ev_dir, msg_dir, slogd = (root + "/firmware/debug/device-%d" % dev, root + "/system/run/device-os",
                                                              root + "/system/debug/device-os", root + "/system/run/event", root + "/system/message", root + "/slogd")
        else:
            root = "%s/slog/dev-os-%d" % (base, dev)
            fw_dir, os_run, os_dbg, ev_dir, msg_dir, slogd = (root + "/debug/device-%d" % dev, root + "/run/device-os", root + "/debug/device-os",
                                                              root + "/run/event", "%s/message/dev-os-%d" % (base, dev), root + "/slogd")
        dup = lambda d: (d - boot).total_seconds()  # noqa: E731
        # firmware / TSCH: starts at 1970 (clock not yet set), then real UTC dates
        fw = []
        seq = 2121
        for k, s in enumerate(["[dfx_resource_detect.c:363] stars_pcie_dma_abnormal_detect: pcie dma abnormal detect get start_chan_id=13, end_chan_id=24.",
                               "[stars_aic_util.c:75] stars_freq_sharemem_timeout_call_back: timer_count=0",
                               "[stars_aic_util.c:53] stars_get_freq_sharemem_addr: send msg to lp, chip=0",
                               "[ipc_plat.c:326] tsch_ipc_deal_lpfreq_info: type=1, sharemem_addr=102923d000, sharemem_size=2040, aic_freq=0, aiv_freq=0"]):
            fw.append("[INFO] TSCH(-1,null):%s %d (dieid:0,cpuid:0) %s" % (f_plog(datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=1 + k * 3, microseconds=rng.randint(0, 999999))), seq, s))
            seq += 1
        c = Clock(start_utc, rng)
        pid = 98000 + rng.randint(0, 900)
        while c.t < end_utc and len(fw) < n:
            c.jump(rng.uniform(60, 900))
            pid += rng.randint(1, 40)
            r = rng.random()
            if r < 0.45:
                fw.append("[EVENT] TSCH(-1,null):%s %d (dieid:0,cpuid:0) [ringbuffer.c:317] create_ringbuffer: last_Id=%d, vf_id=0, pid=%d, support_log_tohost=1,runtime_version=7" % (f_plog(c.tick()), seq, rng.randint(1, 60), pid))
                seq += 1
                fw.append("[EVENT] TSCH(-1,null):%s %d (dieid:0,cpuid:0) [ringbuffer.c:177] delete_ringbuffer: pid=%d, vf_id=0" % (f_plog(c.jump(rng.uniform(30, 600))), seq, pid))
            elif r < 0.7:
                fw.append("[EVENT] LPM(-1,null):%s (dieid:0) [acg_ascend910b.c 710] aic[%d]:[27][26]-[26][25]|[27][27]-[26][25]|[25][25]-[24][23]|[25][24]-[23][23]" % (f_plog(c.tick()), rng.randint(0, 23)))
            else:
                fw.append("[EVENT] LPM(-1,null):%s (dieid:0) [sys_dfx_smmu.c %d] AICORE smmu[%d]" % (f_plog(c.tick()), rng.choice([86, 124]), rng.randint(0, 23)))
            seq += 1
        fw += (extra_fw or {}).get(dev, [])
        files.put("%s/device-%d_%s.log" % (fw_dir, dev, f_17(boot + timedelta(seconds=16))), fw)
        # device-os run log (tsdaemon), with KERNEL(sklogd) lines
        osl = []
        c = Clock(start_utc, rng)
        while c.t < end_utc and len(osl) < n:
            c.jump(rng.uniform(40, 700))
            sess = rng.randint(10, 300)
            fmk = rng.randint(20000, 99999)
            osl.append("[INFO] TDT(4866,tsdaemon):%s [tsd_common.cpp:918][StartRspProc][tid:1201] [TSDaemon] device index in os[%d] sessId[%d] fmkPid[%d] StartRspProc() [subProcPid=%d][procType=1(0:HCCP,1:COMPUTE,2:CUSTOM_COMPUTE,3.QUEUE_SCHEDULE)]." % (f_plog(c.tick()), dev, sess, fmk, rng.randint(1000, 9000)))
            osl.append("[INFO] PROCMGR(4866,tsdaemon):%s [ProcMgrSysOperatorAgent.cpp:223]ProcMgrSetScheduler done. ret=0" % f_plog(c.tick()))
            osl.append("[INFO] TDT(4866,tsdaemon):%s [tsd_common.cpp:1206][SendRspMsgToFmk][tid:1201] [TsdEVENT] #### Start Rsp TSD->FMK device index in os[%d] sessionID[%d] realDeviceId[%d] vfId[0]####" % (f_plog(c.tick()), dev, sess, dev))
            if rng.random() < 0.15:
                d = c.tick()
                osl.append("[ERROR] KERNEL(4723,sklogd):%s [klogd.c:247][%.6f] OOM_NOTIFIER: oom type 2" % (f_plog(d), dup(d)))
        osl += (extra_os or {}).get(dev, [])
        files.put("%s/device-os_%s.log" % (os_run, f_17(boot + timedelta(seconds=300))), osl)
        files.put("%s/device-os_%s.log" % (os_dbg, f_17(boot + timedelta(seconds=301))), [l for l in osl if "KERNEL" in l] or
                  ["[ERROR] KERNEL(4723,sklogd):%s [klogd.c:247][%.6f] OOM_NOTIFIER: oom type 2" % (f_plog(boot + timedelta(seconds=700)), 700.0)])
        # event log
        ev = ["[EVENT] DRV(3423,dms_poll_task):1970-01-01-00:00:08.876.153 [dms_event.c:1399][fault_manager][    7.932713] event_id=0x8c2fa009; device_id=%d; node_type=0x617[OS_Linux]; node_id=1; sub_node_id=0; event_type=0x9[OS init]; severity=0[OK]; assertion=2[One time event]; description=[OS init]; os_id=0; event_serial_num=1; notify_serial_num=0; event_raised_time=7876 ms." % dev,
              "[EVENT] DRV(4898,drv_tsd_daemon):%s [drv_tsd_hdc_server.c:339][common] [hlt_server_main] [339] hlt_tsd process start" % f_plog(boot + timedelta(seconds=17.2)),
              "[EVENT] DRV(4902,drv_tsd_daemon):%s [drv_tsd_hdc_server.c:221][common] [start_hlt_server_daemon] [221] hlt server daemon 0 start" % f_plog(boot + timedelta(seconds=17.21))]
        files.put("%s/event_%s.log" % (ev_dir, f_17(boot + timedelta(seconds=16))), ev)
        # device syslog (UTC+msg_tz), hostname (none)
        msg = []
        c = Clock(max(start_utc, end_utc - timedelta(hours=6)), rng)
        cpid = 9500
        while c.t < end_utc:
            c.jump(60)
            cpid += rng.randint(40, 60)
            d = c.t.astimezone(tz(msg_tz))
            msg.append('%s (none) cron.info crond[4829]: USER root pid %d cmd ps -ef | grep -v grep | grep -Eq "process-manager/process-manager|pm_child" || /usr/bin/mdc/base-plat/process-manager/pm_child' % (f_syslog(d), cpid))
        files.put("%s/messages" % msg_dir, msg)
        sl = ["%s[INFO] log_path_mgr.c:123: logWorkspace = /usr/slog." % (boot + timedelta(seconds=16)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3],
              "%s[INFO] slogd_config_mgr.c:71: get global level succeed, level=ERROR." % (boot + timedelta(seconds=16)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3],
              "%s[INFO] log_config_list.c:226: get config DeviceAppMaxFileNum=2" % (boot + timedelta(seconds=16)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3],
              "%s[INFO] log_config_list.c:226: get config DeviceAppMaxFileSize=524288" % (boot + timedelta(seconds=16)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3],
              "%s[INFO] slogd_thread_mgr.c:67: slogd create thread for device %d success." % ((boot + timedelta(seconds=16.01)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], dev)]
        files.put("%s/slogdlog" % slogd, sl)
    if layout != "asys" and extra_hist is not None:
        for dev in devs:
            files.put("%s/hisi_logs/device-%d/history.log" % (base, dev), extra_hist.get(dev, []))


# --------------------------------------------------------------------------------------------
# training / framework output
# --------------------------------------------------------------------------------------------
def ms_log(level: str, mod: str, pid: int, tid: str, d: datetime, src: str, func: str, msg: str) -> str:
    """MindSpore log grammar: [WARNING] DEVICE(pid,tid,python):ts [file:line] Func] msg (log-formats.md §9.3)."""
    return "[%s] %s(%d,%s,python):%s [%s] %s] %s" % (level, mod, pid, tid, f_plog(d), src, func, msg)


def md_block(title: str, body: list) -> list:
    return ["", "# %s" % title, "---", "```"] + body + ["```"]


def proc_stat(h: Host, rng: random.Random) -> list:
    up = 1000
    return ["cpu  %d %d %d %d %d 0 %d 0 0 0" % (rng.randint(10**8, 10**9), 9021, rng.randint(10**7, 10**8), rng.randint(10**10, 10**11), 88231, 40213)] + \
           ["cpu%d %d 47 %d %d 412 0 %d 0 0 0" % (i, rng.randint(10**6, 10**7), rng.randint(10**5, 10**6), rng.randint(10**8, 10**9), rng.randint(10, 900)) for i in range(4)] + \
           ["intr %d 0 0 0 0" % rng.randint(10**9, 10**10), "ctxt %d" % rng.randint(10**9, 10**11), "btime %d" % epoch(h.boot),
            "processes %d" % rng.randint(10**5, 10**7), "procs_running 3", "procs_blocked 0", "softirq %d 0 %d 42 %d 0 0 %d %d 0 %d" % tuple(rng.randint(10**6, 10**9) for _ in range(6))]


def timedatectl(h: Host, now: datetime) -> list:
    return ["               Local time: %s %s" % (f_date(h.local(now), h.zname)[:3], h.local(now).strftime("%Y-%m-%d %H:%M:%S ") + h.zname),
            "           Universal time: %s" % now.astimezone(timezone.utc).strftime("%a %Y-%m-%d %H:%M:%S UTC"),
            "                 RTC time: %s" % now.astimezone(timezone.utc).strftime("%a %Y-%m-%d %H:%M:%S"),
            "                Time zone: %s (%s, %s)" % (h.tzid, h.zname, h.local(now).strftime("%z")),
            "System clock synchronized: yes",
            "              NTP service: active",
            "          RTC in local TZ: no"]


# ============================================================================================
# bundle: seed-driver-reboot-pending  (seed 000)
# ============================================================================================
def bundle_seed_driver_reboot_pending(out: str):
    rng = random.Random(1000)
    CST = tz(8)
    h = Host(name="a2pod-n042", zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-05-18 09:12:40.318000", CST),
             kernel="5.15.0-105-generic", kbuild="#115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024", ip="10.20.3.42")
    F = Files(out)
    collect = T("2026-05-28 11:05:12", CST)
    top = "npu_log_collect"
    al = top + "/ascend_log_20260528110514"
    DRV_INSTALLED, DRV_LOADED, FW = "24.1.rc3", "24.1.0.3", "7.5.0.3.220"
    CANN = "/usr/local/Ascend/ascend-toolkit/8.0.RC3"
    CANN_LIB = CANN + "/aarch64-linux"

    # ---------------- kernel log of this boot ----------------
    K = KernelLog(h)
    for u, t in kernel_boot_lines(h, rng):
        K.add(u, t)
    for u, t in ascend_load_lines(h, rng, 31.4, ring=False):
        K.add(u, t, ascend_ring(t))
    # an earlier healthy job on 05-26 (open/close of all devices)
    for day_job, pid0 in [(T("2026-05-26 21:03:11", CST), 201877)]:
        for r in range(8):
            for l in devmm_proc_lines(pid0 + r, "python", [r], ring=False):
                K.add_at(day_job + timedelta(milliseconds=37 * r), l, ascend_ring(l))
            for l in devmm_proc_lines(pid0 + r, "python", [r], ring=False, open_=False):
                K.add_at(day_job + timedelta(hours=11, minutes=2, milliseconds=53 * r), l, ascend_ring(l))
    # the failing job: 8 ranks, SVM mapping not fixed (seed 000 §3)
    job = T("2026-05-28 10:20:07.412000", CST)
    pids = list(range(48213, 48221))
    svm_times = {}
    for r, pid in enumerate(pids):
        d = job + timedelta(seconds=4, milliseconds=611 + 13 * r, microseconds=rng.randint(0, 999))
        svm_times[pid] = d
        t = "[ascend] [ERROR] [devmm] [devmm_svm_mmap 528] <python:%d,%d> Svm map va not fixed, vm_start=0x100000000000, vm_end=0x200000000000" % (pid, pid)
        K.add_at(d, t, ascend_ring(t))
        t = "[ascend] [ERROR] [devmm] [devmm_svm_mmap 561] <python:%d,%d> Svm mmap failed. (hostpid=%d; ret=-22)" % (pid, pid, pid)
        K.add_at(d + timedelta(microseconds=41), t, ascend_ring(t))
    # single-node stress tests after the failure (hccl_test all_reduce + p2p)
    hccl_t = T("2026-05-28 10:41:52.230000", CST)
    for r in range(8):
        pid = 51102 + r
        t = "[ascend] [ERROR] [devmm] [devmm_svm_mmap 528] <all_reduce_test:%d,%d> Svm map va not fixed, vm_start=0x100000000000, vm_end=0x200000000000" % (pid, pid)
        K.add_at(hccl_t + timedelta(milliseconds=9 * r), t, ascend_ring(t))
    F.put(al + "/host_log/dmesg.log", K.dmesg())
    F.put(al + "/host_log/dmesg_T.log", K.dmesg_T())
    since = T("2026-05-27 00:00:01", CST)
    ksys = K.syslog(since)
    extra = list(ksys)
    # install of the downgrade shows in syslog too (systemd reload after the .run)
    dg = T("2026-05-27 14:03:11", CST)
    extra.append((dg + timedelta(seconds=44), "%s %s systemd[1]: Reloading." % (f_syslog(dg + timedelta(seconds=44)), h.name)))
    extra.append((dg + timedelta(seconds=45), "%s %s systemd[1]: Started host_sys_init.service." % (f_syslog(dg + timedelta(seconds=45)), h.name)))
    for r, pid in enumerate(pids):
        d = job + timedelta(seconds=1, milliseconds=r)
        extra.append((d, "%s %s python: (%d)dlog_level_env.c:69: set default global log level (3), debug log level (3), run log level (1)." % (f_syslog(d), h.name, pid)))
    F.put(al + "/host_log/syslog", syslog_noise(h, rng, since, collect, extra))
    F.put(al + "/host_log/kern.log", [l for _, l in ksys])

    # host_kernel.log exported by msnpureport (UTC ring buffer)
    msr = "2026-05-28-11-05-20"
    F.put(al + "/device_log/%s/slog/host/host_kernel.log" % msr, K.host_kernel())
    device_side(F, al + "/device_log/" + msr, h, rng, [0, 1], h.boot + timedelta(days=7), collect.astimezone(timezone.utc), "slog",
                extra_hist={0: [], 1: []}, n=160)
    F.put(al + "/device_log/npureportlog.log", ["msnpureport start, please wait...", "Export finished. The log path is %s/device_log/%s" % ("/root/" + al, msr)])
    F.put(al + "/device_log/npureportlog1.log", ["start to set log level. Please wait...", "set log level success."])

    # ---------------- install history ----------------
    L = []
    l, e = inst_driver(T("2025-12-02 10:31:05", CST), "Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run", "none", "24.1.rc3", h.kernel, rng); L += l
    l, e = inst_firmware(T("2025-12-02 10:36:40", CST), "Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run", "7.3.0.1.231", "7.5.0.1.129", rng); L += l
    l, e = inst_cann(T("2025-12-02 11:02:17", CST), "Toolkit", "Toolkit", CANN, rng); L += l
    l, e = inst_cann(T("2025-12-02 11:19:40", CST), "Opp_Kernel", "Opp_kernel", CANN, rng, n_whl=0); L += l
    l, e = inst_firmware(T("2026-03-09 15:40:11", CST), "Ascend-hdk-910b-npu-firmware_7.5.0.3.220.run", "7.5.0.1.129", FW, rng); L += l
    l, e = inst_driver(T("2026-03-09 15:47:02", CST), "Ascend-hdk-910b-npu-driver_24.1.0.3_linux-aarch64.run", "24.1.rc3", "24.1.0.3", h.kernel, rng, old="24.1.rc3"); L += l
    # the downgrade of seed 000 (after this boot, never followed by a reboot)
    l, e_dg = inst_driver(dg, "Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run", "24.1.0.3", "24.1.rc3", h.kernel, rng, old="24.1.0.3"); L += l
    F.put(al + "/install_info/ascend_seclog/ascend_install.log", L)
    F.put(al + "/install_info/ascend_seclog/operation.log", [
        oplog("Install", T("2025-12-02 10:31:05", CST), "Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run"),
        oplog("Install", T("2025-12-02 10:36:40", CST), "Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run"),
        oplog("Install", T("2025-12-02 11:02:17", CST), "Ascend-cann-toolkit_8.0.RC3_linux-aarch64.run"),
        oplog("Upgrade", T("2026-03-09 15:40:11", CST), "Ascend-hdk-910b-npu-firmware_7.5.0.3.220.run"),
        oplog("Upgrade", T("2026-03-09 15:47:02", CST), "Ascend-hdk-910b-npu-driver_24.1.0.3_linux-aarch64.run"),
        oplog("Upgrade", dg, "Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run")])
    mods = ascend_lsmod()
    imd = ["[toc]"] + md_block("install path", ["DAVINCI_HOME_PATH=/usr/local/Ascend"]) + \
        md_block("driver info", ascend_install_info() + ["cat: /etc/ascend_filelist.info: No such file or directory"]) + \
        md_block("driver version", ['{"device_id":%d, "component":nve, "version":%s}' % (i, FW) for i in range(8)]) + \
        ["", "```"] + ["Get component version(%s) succeed for deviceId(%d), componentType(0)." % (FW, i) for i in range(8)] + ["```"] + \
        md_block("module info", [l for l in lsmod(mods)[1:] if "drv" in l])
    for m in ["drv_pcie_host", "drv_seclib_host", "drv_pcie_hdc_host"]:
        imd += ["```", "filename:       /lib/modules/%s/updates/%s.ko" % (h.kernel, m), "version:        %s" % DRV_LOADED, "license:        GPL v2",
                "description:    %s driver" % m, "author:         Huawei Tech. Co., Ltd.", "srcversion:     %s" % "".join(rng.choice("0123456789ABCDEF") for _ in range(23)),
                "depends:        %s" % ("drv_seclib_host,ascend_kernel_open_adapt,asdrv_pbl" if m != "drv_seclib_host" else ""),
                "name:           %s" % m, "vermagic:       %s SMP mod_unload modversions aarch64" % h.kernel, "```"]
    F.put(al + "/install_info/install_info.md", imd)

    # ---------------- host_info ----------------
    env_md = ["[toc]"] + md_block("ascend chip", ["Asecnd910B nums: 8"] + [l for l in lspci(h) if "d802" in l]) + \
        md_block("PATH", ["PATH=%s/bin:/usr/local/python3.9.2/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" % CANN,
                          "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/driver/lib64/common:%s/lib64" % CANN]) + \
        md_block("OS info", [h.uname_a(), h.kernel, 'DISTRIB_ID=Ubuntu', 'DISTRIB_RELEASE=22.04', 'DISTRIB_CODENAME=jammy', 'DISTRIB_DESCRIPTION="Ubuntu 22.04.4 LTS"',
                             'PRETTY_NAME="Ubuntu 22.04.4 LTS"', 'NAME="Ubuntu"', 'VERSION_ID="22.04"', 'VERSION="22.04.4 LTS (Jammy Jellyfish)"', "bookworm/sid"]) + \
        md_block("last reboot", ["reboot   system boot  5.15.0-105-gener Mon May 18 09:12   still running",
                                 "reboot   system boot  5.15.0-105-gener Mon Mar  9 16:02 - 09:08 (69+17:05)",
                                 "reboot   system boot  5.15.0-105-gener Tue Dec  2 10:40 - 15:58 (97+05:18)", "",
                                 "wtmp begins Tue Dec  2 10:40:05 2025"]) + \
        md_block("ps", ["UID          PID    PPID  C STIME TTY          TIME CMD", "root           1       0  0 May18 ?        00:01:44 /sbin/init",
                        "root        1551       1  0 May18 ?        00:12:31 /usr/bin/containerd", "root        1721       1  0 May18 ?        00:03:02 /usr/bin/dockerd -H fd://",
                        "HwHiAiU+    2210       1  0 May18 ?        00:00:41 /usr/local/Ascend/driver/tools/slogd",
                        "root       61022   60988  0 11:05 pts/0    00:00:00 bash npu_log_collect.sh -f", "root       61377   61022  0 11:05 pts/0    00:00:00 ps -ef"])
    F.put(al + "/host_info/env_info.md", env_md)
    F.put(al + "/host_info/meminfo", ["MemTotal:       1055384592 kB", "MemFree:        1001223048 kB", "MemAvailable:   1032911704 kB", "Buffers:          812344 kB",
                                      "Cached:         28112220 kB", "HugePages_Total:       0", "HugePages_Free:        0", "Hugepagesize:       2048 kB"])

    # ---------------- npu_log_collect top-level files ----------------
    card = npu_smi_info(h, DRV_INSTALLED, DRV_LOADED, rng=rng) + npu_smi_l(h)
    for i in range(8):
        card += ["########### collect npu id %d product info ###########" % i, "npu-smi info -t product -i %d -c 0 1" % i,
                 "        NPU ID                         : %d" % i, "        Product Name                   : Atlas 800T A2"]
        card += ["############ collect npu id %d chip id 0 board info ############" % i, "npu-smi info -t board -i %d -c 0" % i] + \
            npu_smi_board(h, i, DRV_LOADED, FW, "1025C90487%02d" % (40 + i))
        card += ["########### collect npu id %d chip id 0 health info #############" % i, "npu-smi info -t health -i %d -c 0" % i] + npu_smi_health()
        card += ["########### collect npu id %d chip id 0 ecc info #############" % i, "npu-smi info -t ecc -i %d -c 0" % i,
                 "        NPU ID                                   : %d" % i, "        Chip Count                               : 1", "        ",
                 "        DDR Single Bit Error Count               : 0", "        DDR Double Bit Error Count               : 0",
                 "        HBM Single Bit Error Count               : 0", "        HBM Double Bit Error Count               : 0",
                 "        HBM Single Bit Isolated Pages Count      : 0", "        Chip ID                                  : 0"]
    F.put(top + "/npu_info_log/card_info.log", card)
    F.put(top + "/version_info.log", npu_smi_info(h, DRV_INSTALLED, DRV_LOADED, rng=random.Random(7)) +
          ["Get component version(%s) succeed for deviceId(%d), componentType(0)." % (FW, i) for i in range(8)] +
          ['\t{"device_id":%d, "component":nve, "version":%s}' % (i, FW) for i in range(8)])
    os_info = ["uname -a output:", h.uname_a(), "uname -r output:", h.kernel,
               "BOOT_IMAGE=/vmlinuz-%s root=/dev/mapper/ubuntu--vg-ubuntu--lv ro iommu.passthrough=1" % h.kernel,
               " Static hostname: %s" % h.name, "       Icon name: computer-server", "         Chassis: server", "Operating System: Ubuntu 22.04.4 LTS",
               "          Kernel: Linux %s" % h.kernel, "    Architecture: arm64",
               "Content of /etc/os-release:", 'PRETTY_NAME="Ubuntu 22.04.4 LTS"', 'NAME="Ubuntu"', 'VERSION_ID="22.04"',
               "--------------- last reboot ---------------", "reboot   system boot  5.15.0-105-gener Mon May 18 09:12   still running",
               "reboot   system boot  5.15.0-105-gener Mon Mar  9 16:02 - 09:08 (69+17:05)", "",
               "--------------- lsmod ko info ---------------"] + lsmod(mods + GENERIC_MODS)
    F.put(top + "/OS_info.log", os_info)
    F.put(top + "/mod_info/lsmod.log", lsmod(mods + GENERIC_MODS))
    env = {"SHELL": "/bin/bash", "HOSTNAME": h.name, "PWD": "/root", "LOGNAME": "root", "HOME": "/root", "LANG": "en_US.UTF-8", "TERM": "xterm", "USER": "root"}
    env.update(cann_env("/usr/local/Ascend/ascend-toolkit", "8.0.RC3", py="/usr/local/python3.9.2"))
    F.put(top + "/env.log", ["%s=%s" % kv for kv in env.items()] + ["_=/usr/bin/env"])
    F.put(top + "/collect_scripts_running_log", ["\x1b[1;32m Thu May 28 11:05:12 CST 2026 start collect ascend_bug_report log \x1b[0m",
                                                  "\x1b[1;32m Thu May 28 11:05:12 CST 2026 start collect npu info log \x1b[0m",
                                                  "\x1b[1;32m Thu May 28 11:05:13 CST 2026 End collect npu info log \x1b[0m",
                                                  "\x1b[1;32m Thu May 28 11:05:41 CST 2026 End collect ascend_bug_report log \x1b[0m"])

    # ---------------- CANN plogs of the failing job (~/ascend copied by npu_log_collect -f) ----------------
    for r, pid in enumerate(pids):
        rank = 336 + r
        c = Clock(job + timedelta(milliseconds=r * 3), rng)
        run = plog_init_noise(rng, c, pid, "python", CANN_LIB, r, "/home/work/pangu_alpha/output/rank_%d" % rank, n_perf=70 if r == 0 else 25)
        run += plog_hccl_env(c, pid, "python")
        dsv = svm_times[pid]
        c2 = Clock(dsv - timedelta(microseconds=220), rng)
        dbg = [plog_hdr("ERROR", "DRV", pid, "python", c2.tick(20, 60)) + "[devmm_svm.c:281][ascend][curpid:%d,%d][drv][devmm][devmm_svm_map_va_space]Not support svm mem, because asan is opened or os not support mmap 8T." % (pid, pid),
               plog_hdr("ERROR", "DRV", pid, "python", c2.tick(20, 60)) + "[devmm_svm.c:316][ascend][curpid:%d,%d][drv][devmm][devmm_svm_init]Svm mmap va failed. (start=0x100000000000; size=0x80000000000; errno=22)" % (pid, pid),
               plog_hdr("ERROR", "DRV", pid, "python", c2.tick(300, 900)) + "[devmm_virt_interface.c:466][ascend][curpid:%d,%d][drv][devmm][devmm_ioctl_init_process]Init process failed. (hostpid=%d; ret=6)" % (pid, pid, pid),
               plog_hdr("ERROR", "RUNTIME", pid, "python", c2.tick(100, 400)) + "[npu_driver.cc:1203]%d DevMemAlloc:[INIT][DEFAULT]report error module_type=7, module_name=EL9999" % pid,
               plog_hdr("ERROR", "RUNTIME", pid, "python", c2.tick(5, 30)) + "[npu_driver.cc:1203]%d DevMemAlloc:[INIT][DEFAULT][drv api] halMemAlloc failed: device_id=%d, size=67108864, type=2, env_type=3, drvRetCode=6!" % (pid, r),
               plog_hdr("ERROR", "RUNTIME", pid, "python", c2.tick(5, 30)) + "[device.cc:421]%d Init:[INIT][DEFAULT]Failed to alloc device memory for runtime, device_id=%d, retCode=0x7020010." % (pid, r),
               plog_hdr("ERROR", "RUNTIME", pid, "python", c2.tick(5, 30)) + "[api_impl.cc:1872]%d SetDevice:[INIT][DEFAULT]Set device failed, device_id=%d, retCode=0x7020010." % (pid, r),
               plog_hdr("ERROR", "ASCENDCL", pid, "python", c2.tick(5, 30)) + "[device.cpp:59]%d aclrtSetDevice: [INIT][DEFAULT]open device %d failed, runtime result = 507033." % (pid, r),
               plog_hdr("ERROR", "HCCL", pid, "python", c2.tick(100, 300)) + "[adapter_rts.cc:246] [%d][InitGroupStage][Resource]call rtSetDevice failed, devId[%d], ret[507033]" % (pid, r),
               plog_hdr("ERROR", "HCCL", pid, "python", c2.tick(5, 30)) + "[op_base.cc:1468] [%d][InitGroupStage][Resource]HcclCommInitClusterInfoConfig failed, rankTable[/user/config/jobstart_hccl.json], rank[%d], group[hccl_world_group], ret[0x0000000005000004]" % (pid, rank),
               plog_hdr("ERROR", "HCCL", pid, "python", c2.tick(5, 30)) + "[op_base.cc:1470] [%d][hccl_world_group]call trace: hcclRet -> 4" % pid]
        run += [plog_hdr("INFO", "HCCL", pid, "python", c.tick()) + "[op_base.cc:1402] [%d]Entry-HcclCommInitClusterInfoConfig:ranktable[/user/config/jobstart_hccl.json], rank_id[%d], group[hccl_world_group], deviceLogicId[%d]" % (pid, rank, r)]
        c.t = max(c.t, c2.t)
        run += plog_finalize(c, pid, "python")
        F.put(top + "/ascend/log/run/plog/plog-%d_%s.log" % (pid, f_17(job + timedelta(milliseconds=r * 3))), run)
        F.put(top + "/ascend/log/debug/plog/plog-%d_%s.log" % (pid, f_17(dsv - timedelta(microseconds=190))), dbg)

    # ---------------- engineer's additions: boot/clock, msrun worker logs, single-node tests ----------------
    now = T("2026-05-28 11:07:02", CST)
    F.put("extra/uptime_-s.txt", [h.local(h.boot).strftime("%Y-%m-%d %H:%M:%S")])
    F.put("extra/proc_stat.txt", proc_stat(h, rng))
    F.put("extra/date.txt", [f_date(now, "CST"), "%d%s" % (epoch(now), now.strftime("%z"))])
    F.put("extra/timedatectl.txt", timedatectl(h, now))
    for r, pid in enumerate(pids):
        rank = 336 + r
        d0 = job - timedelta(milliseconds=900)
        c = Clock(d0, rng)
        w = ["%s [INFO] msrun: RANK_ID=%d, DEVICE_ID=%d, RANK_SIZE=1024, MS_SCHED_HOST=10.20.0.11, MS_SCHED_PORT=8118" % (f_inst(d0), rank, r),
             ms_log("WARNING", "ME", pid, "ffff8f7ff120", c.tick(), "mindspore/python/mindspore/context.py:1242", "set_context", "For 'context.set_context', the parameter 'device_target' will be deprecated and removed in a future version. Please use the api mindspore.set_device() instead."),
             ms_log("INFO", "DISTRIBUTED", pid, "ffff8f7ff120", c.jump(1.2), "mindspore/ccsrc/distributed/collective/collective_manager.cc:312", "Initialize", "Start initializing collective communication for backend: Ascend..."),
             ms_log("INFO", "DISTRIBUTED", pid, "ffff8f7ff120", c.jump(0.3), "mindspore/ccsrc/plugin/device/ascend/hal/hccl_adapter/hccl_adapter.cc:412", "InitKernelInfoStore", "Start init hccl kernel info store."),
             ms_log("ERROR", "DEVICE", pid, "ffff237ee1a0", svm_times[pid] + timedelta(milliseconds=3), "mindspore/ccsrc/plugin/res_manager/ascend/hal_manager/ascend_hal_manager.cc:88", "InitDevice",
                    "Call aclrtSetDevice failed, ret[507033]. Got device count[8] and device id[%d], please check if device id is valid." % r),
             ms_log("ERROR", "DISTRIBUTED", pid, "ffff237ee1a0", svm_times[pid] + timedelta(milliseconds=5), "mindspore/ccsrc/distributed/collective/collective_manager.cc:1057", "RunInitCommTasks",
                    "Init communicator for group hccl_world_group exception info: HcclCommInitClusterInfoConfig failed. Error code: 4. The details refer to 'Ascend Error Message'."),
             "Traceback (most recent call last):",
             '  File "/home/work/pangu_alpha/train.py", line 512, in <module>',
             "    run_train(opt)",
             '  File "/home/work/pangu_alpha/train.py", line 203, in run_train',
             "    init()",
             '  File "/usr/local/python3.9.2/lib/python3.9/site-packages/mindspore/communication/management.py", line 198, in init',
             "    init_hccl()",
             "RuntimeError: Communicator of group hccl_world_group inited: failed. Result: Init communicator for group hccl_world_group exception info: HcclCommInitClusterInfoConfig failed. Error code: 4. The details refer to 'Ascend Error Message'.",
             "",
             "----------------------------------------------------",
             "- Ascend Error Message:",
             "----------------------------------------------------",
             "EL9999: Inner Error!",
             "EL9999[PID: %d] %s (EL9999):  Not support svm mem, because asan is opened or os not support mmap 8T.[FUNC:devmm_svm_map_va_space][FILE:devmm_svm.c][LINE:281]" % (pid, f_plog(svm_times[pid])),
             "        TraceBack (most recent call last):",
             "       [drv api] halMemAlloc failed: device_id=%d, size=67108864, type=2, env_type=3, drvRetCode=6![FUNC:DevMemAlloc][FILE:npu_driver.cc][LINE:1203]" % r,
             "       open device %d failed, runtime result = 507033.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]" % r,
             "",
             "(Please search \"CANN Common Error Analysis\" at https://www.mindspore.cn for error code description)",
             "",
             "----------------------------------------------------",
             "- C++ Call Stack: (For framework developers)",
             "----------------------------------------------------",
             "mindspore/ccsrc/distributed/collective/collective_manager.cc:1057 WaitCommInitDone",
             ""]
        F.put("extra/msrun_log/worker_%d.log" % r, w)
    # single-node HCCL test (prints plog to stdout via ASCEND_SLOG_PRINT_TO_STDOUT=1)
    ht = ["root@%s:/usr/local/Ascend/ascend-toolkit/latest/tools/hccl_test# export ASCEND_SLOG_PRINT_TO_STDOUT=1" % h.name,
          "root@%s:/usr/local/Ascend/ascend-toolkit/latest/tools/hccl_test# mpirun -n 8 ./bin/all_reduce_test -b 8K -e 64M -f 2 -d fp32 -o sum -p 8" % h.name]
    for r in range(8):
        pid = 51102 + r
        d = hccl_t + timedelta(milliseconds=9 * r)
        ht.append(plog_hdr("ERROR", "DRV", pid, "all_reduce_test", d - timedelta(microseconds=80)) + "[devmm_svm.c:281][ascend][curpid:%d,%d][drv][devmm][devmm_svm_map_va_space]Not support svm mem, because asan is opened or os not support mmap 8T." % (pid, pid))
        ht.append(plog_hdr("ERROR", "DRV", pid, "all_reduce_test", d + timedelta(milliseconds=2)) + "[devmm_host_mem.c:733][ascend][curpid:%d,%d][drv][devmm][devmm_host_mem_alloc]Host mem gotgo malloc, errstr=Invalid argument" % (pid, pid))
        ht.append(plog_hdr("ERROR", "HCCL", pid, "all_reduce_test", d + timedelta(milliseconds=3)) + "[hccl_test_common.cc:218] [%d]call aclrtMallocHost failed, ret[207001]" % pid)
    ht += ["-------------------------------------------------------",
           "Primary job  terminated normally, but 1 process returned",
           "a non-zero exit code. Per user-direction, the job has been aborted.",
           "-------------------------------------------------------",
           "--------------------------------------------------------------------------",
           "mpirun detected that one or more processes exited with non-zero status, thus causing",
           "the job to be terminated. The first process to do so was:",
           "", "  Process name: [[31207,1],0]", "  Exit code:    1",
           "--------------------------------------------------------------------------"]
    F.put("extra/hccl_test_all_reduce_8p.log", ht)
    p2 = ["root@%s:~# ascend-dmi --bw -t p2p -s 0 -d 1 -q" % h.name]
    d = T("2026-05-28 10:47:31.802000", CST)
    p2.append(plog_hdr("ERROR", "DRV", 52871, "ascend-dmi", d) + "[devmm_host_mem.c:733][ascend][curpid:52871,52871][drv][devmm][devmm_host_mem_alloc]Host mem gotgo malloc, errstr=Invalid argument")
    p2 += ["[ERROR] P2P bandwidth test failed, src device 0, dst device 1, ret = 207001.", "root@%s:~# echo $?" % h.name, "1"]
    F.put("extra/p2p_test_dev0_dev1.log", p2)

    # installed driver / firmware / toolkit files as kept by the engineer (cat outputs)
    F.put("extra/usr/local/Ascend/driver/version.info", driver_version_info(DRV_INSTALLED, "V100R001C19SPC001B225", "[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19]", "[7.0.0,7.5.99]", hal="7.35.21"))
    F.put("extra/usr/local/Ascend/firmware/version.info", firmware_version_info(FW, "24.1.0.3", "[23.0.0,23.0.0.],[24.0,24.0.],[24.1,24.1.]"))
    F.put("extra/pip_list.txt", pip_list(dict(BASE_PIP, **CANN_PIP, mindspore="2.4.0", **{"numpy": "1.23.5"})))
    F.put("extra/dpkg_-l.txt", dpkg_list())
    F.write()
    return F




# --------------------------------------------------------------------------------------------
# faultline-collect layout (must match scripts/faultline-collect)
# --------------------------------------------------------------------------------------------
class FC:
    def __init__(self, F: Files, h: Host, now: datetime, rng: random.Random, prefix: str = ""):
        self.F, self.h, self.now, self.rng = F, h, now, rng
        self.name = "faultline_%s_%s" % (h.name, h.local(now).strftime("%Y%m%d%H%M%S"))
        self.root = (prefix + "/" if prefix else "") + self.name
        self.cmds, self.files, self.procs, self.warnings = [], [], [], []

    def cmd(self, name, cmdline, lines, exit=0, missing=False, secs=None):
        if missing:
            self.cmds.append({"cmd": cmdline, "file": None, "exit": 127, "seconds": 0, "missing": True})
            return
        f = "cmd/%s.txt" % name
        self.F.put(self.root + "/" + f, lines)
        s = secs if secs is not None else round(self.rng.uniform(0.002, 0.09), 3)
        self.cmds.append({"cmd": cmdline, "file": f, "exit": exit, "seconds": s, "missing": False, "timed_out": exit == 124})

    def file(self, path, content, status="copied"):
        if content is None:
            self.files.append({"path": path, "file": None, "status": "missing"})
            return
        rel = "files" + path
        self.F.put(self.root + "/" + rel, content)
        self.files.append({"path": path, "file": rel, "status": status})

    def log(self, rel, content):
        self.F.put(self.root + "/logs/" + rel, content)

    def proc(self, pid, comm, exe, maps, environ: dict, argv, limits=None, redact=True):
        base = "%s/proc/%d/" % (self.root, pid)
        self.F.put(base + "maps", maps)
        env = {}
        for k, v in environ.items():
            up = k.upper()
            secret = any(s in up for s in ("TOKEN", "PASSWORD", "PASSWD", "SECRET", "KEY", "CREDENTIAL")) or \
                any(p == part for part in up.split("_") for p in ("AK", "SK"))
            env[k] = "<redacted>" if (secret and redact) else v
        self.F.put(base + "environ", environ_bytes(env))
        self.F.put(base + "cmdline", cmdline_bytes(argv))
        self.F.put(base + "limits", limits or proc_limits())
        self.procs.append({"pid": pid, "comm": comm, "exe": exe})

    def manifest(self, since_days=7, seconds=None):
        loc = self.h.local(self.now)
        m = {"collector": "faultline-collect", "collector_version": "1.0.0", "host": self.h.name,
             "collected_at": loc.strftime("%Y-%m-%dT%H:%M:%S%z"), "collected_at_epoch": epoch(self.now),
             "timezone": loc.strftime("%z"), "timezone_name": self.h.zname, "kernel": self.h.kernel, "user": "root",
             "options": {"since": (loc - timedelta(days=since_days)).strftime("%Y-%m-%dT%H:%M:%S%z"), "since_days": since_days,
                         "redact": True, "timeout_seconds": 30, "max_file_mb": 64},
             "seconds": seconds or round(sum(c["seconds"] for c in self.cmds) + 2.4, 3),
             "commands": self.cmds, "files": self.files, "processes": self.procs, "warnings": self.warnings}
        # same shape as the shell collector: one JSON object per line inside the arrays
        out = ["{"]
        keys = list(m)
        for i, k in enumerate(keys):
            comma = "," if i < len(keys) - 1 else ""
            v = m[k]
            if isinstance(v, list):
                out.append('  "%s": [' % k)
                for j, e in enumerate(v):
                    out.append("    " + json.dumps(e, separators=(",", ":"), ensure_ascii=False) + ("," if j < len(v) - 1 else ""))
                out.append("  ]" + comma)
            elif isinstance(v, dict):
                out.append('  "%s": %s%s' % (k, json.dumps(v, separators=(", ", ": ")), comma))
            else:
                out.append('  "%s": %s%s' % (k, json.dumps(v), comma))
        out.append("}")
        self.F.put(self.root + "/manifest.json", out)


def proc_limits(vmem="unlimited", stack="8388608") -> list:
    L = ["Limit                     Soft Limit           Hard Limit           Units     "]
    for n, s, hh, u in [("Max cpu time", "unlimited", "unlimited", "seconds"), ("Max file size", "unlimited", "unlimited", "bytes"),
                        ("Max data size", "unlimited", "unlimited", "bytes"), ("Max stack size", stack, "unlimited", "bytes"),
                        ("Max core file size", "0", "unlimited", "bytes"), ("Max resident set", "unlimited", "unlimited", "bytes"),
                        ("Max processes", "4126479", "4126479", "processes"), ("Max open files", "1048576", "1048576", "files"),
                        ("Max locked memory", "8388608", "8388608", "bytes"), ("Max address space", vmem, vmem, "bytes"),
                        ("Max file locks", "unlimited", "unlimited", "locks"), ("Max pending signals", "4126479", "4126479", "signals"),
                        ("Max msgqueue size", "819200", "819200", "bytes"), ("Max nice priority", "0", "0", ""),
                        ("Max realtime priority", "0", "0", ""), ("Max realtime timeout", "unlimited", "unlimited", "us")]:
        L.append("%-26s%-21s%-21s%-10s" % (n, s, hh, u))
    return L


FC_MODS = ["drv_pcie_host", "drv_seclib_host", "ascend_kernel_open_adapt", "asdrv_pbl", "drv_pcie_hdc_host", "asdrv_dms", "asdrv_svm",
           "asdrv_trs", "ts_agent", "drv_devmng_host", "drv_devdrv_host", "drv_devmm_host", "drv_davinci_intf_host"]
MOD_DEPS = {"drv_seclib_host": [], "ascend_kernel_open_adapt": ["drv_seclib_host"], "asdrv_pbl": ["drv_seclib_host", "ascend_kernel_open_adapt"],
            "drv_pcie_host": ["drv_seclib_host", "ascend_kernel_open_adapt", "asdrv_pbl"],
            "drv_pcie_hdc_host": ["drv_seclib_host", "ascend_kernel_open_adapt", "asdrv_pbl", "drv_pcie_host"],
            "asdrv_dms": ["drv_seclib_host", "ascend_kernel_open_adapt", "asdrv_pbl", "drv_pcie_host"],
            "asdrv_svm": ["drv_seclib_host", "ascend_kernel_open_adapt", "asdrv_pbl", "drv_pcie_host", "asdrv_dms"],
            "asdrv_trs": ["drv_seclib_host", "ascend_kernel_open_adapt", "asdrv_pbl", "drv_pcie_host", "asdrv_dms"],
            "ts_agent": ["drv_seclib_host", "ascend_kernel_open_adapt", "asdrv_pbl", "drv_pcie_host", "asdrv_trs"]}


def ls_l(entries, total=None) -> list:
    """entries: (mode, size, mtime datetime, name, target|None)."""
    L = ["total %d" % (total if total is not None else sum(e[1] for e in entries) // 1024)]
    for mode, size, mt, name, tgt in entries:
        ts = "%s %2d %s" % (MONTHS[mt.month - 1], mt.day, mt.strftime("%H:%M"))
        L.append("%s 1 root root %7d %s %s%s" % (mode, size, ts, name, (" -> " + tgt) if tgt else ""))
    return L


def fc_node(fc: FC, st: dict):
    """Fills a faultline-collect bundle for one host from the state dict st (healthy defaults)."""
    h, now, rng = fc.h, fc.now, fc.rng
    loc = h.local(now)
    kr = h.kernel
    fc.cmd("date_epoch_zone", "date +%s%z", ["%d%s" % (epoch(now), loc.strftime("%z"))])
    fc.cmd("date_-R", "date -R", [f_rfc2822(loc)])
    fc.cmd("date", "date", [f_date(loc, h.zname)])
    fc.cmd("timedatectl", "timedatectl", timedatectl(h, now))
    fc.cmd("hostname", "hostname", [h.name])
    fc.cmd("uname_-a", "uname -a", [h.uname_a()])
    fc.cmd("uname_-r", "uname -r", [kr])
    fc.cmd("uptime_-s", "uptime -s", [h.local(h.boot).strftime("%Y-%m-%d %H:%M:%S")])
    up = now - h.boot
    fc.cmd("uptime", "uptime", [" %s up %d days, %2d:%02d,  2 users,  load average: 3.41, 3.12, 2.87" % (loc.strftime("%H:%M:%S"), up.days, up.seconds // 3600, up.seconds % 3600 // 60)])
    fc.file("/proc/stat", proc_stat(h, rng))
    fc.file("/proc/cmdline", ["BOOT_IMAGE=/vmlinuz-%s root=/dev/mapper/ubuntu--vg-ubuntu--lv ro iommu.passthrough=1" % kr])
    fc.file("/proc/uptime", ["%.2f %.2f" % (up.total_seconds(), up.total_seconds() * 180)])
    fc.file("/etc/os-release", ['PRETTY_NAME="%s"' % h.os_pretty, 'NAME="Ubuntu"', 'VERSION_ID="22.04"', 'VERSION="22.04.4 LTS (Jammy Jellyfish)"', 'ID=ubuntu', 'ID_LIKE=debian'])
    fc.file("/etc/timezone", [h.tzid])
    fc.cmd("ls_-l_etc_localtime", "ls -l /etc/localtime", ["lrwxrwxrwx 1 root root 33 Jan 10  2025 /etc/localtime -> /usr/share/zoneinfo/%s" % h.tzid])
    # NPU
    if st.get("npu_smi") is not None:
        fc.cmd("npu-smi_info", "npu-smi info", st["npu_smi"], exit=st.get("npu_smi_exit", 0), secs=round(rng.uniform(0.3, 1.2), 3))
        if st.get("npu_smi_exit", 0) == 0:
            fc.cmd("npu-smi_info_-l", "npu-smi info -l", npu_smi_l(h))
            fc.cmd("npu-smi_-v", "npu-smi -v", ["npu-smi version: %s" % st["npu_tool"]])
            for i in range(h.npus):
                fc.cmd("npu-smi_info_-t_board_-i_%d" % i, "npu-smi info -t board -i %d" % i, npu_smi_board(h, i, st["drv_loaded"], st["fw"], "1025C9%06d" % (rng.randint(0, 999999))))
                fc.cmd("npu-smi_info_-t_health_-i_%d" % i, "npu-smi info -t health -i %d" % i, npu_smi_health())
                fc.cmd("npu-smi_info_-t_usages_-i_%d" % i, "npu-smi info -t usages -i %d" % i,
                       ["        DDR Capacity(MB)               : 13553", "        DDR Usage Rate(%)              : 6", "        HBM Capacity(MB)               : %d" % h.hbm,
                        "        HBM Usage Rate(%%)              : %d" % rng.randint(4, 90), "        Aicore Usage Rate(%%)           : %d" % rng.randint(0, 90), "        Chip ID                        : 0"])
        else:
            fc.cmd("npu-smi_info_-l", "npu-smi info -l", st["npu_smi"], exit=st["npu_smi_exit"])
            fc.cmd("npu-smi_-v", "npu-smi -v", ["npu-smi version: %s" % st["npu_tool"]])
    fc.cmd("lspci", "lspci", lspci(h))
    if st.get("dev_nodes", True):
        dl = ["crw-rw---- 1 HwHiAiUser HwHiAiUser 236, %d %s /dev/davinci%d" % (i, h.local(h.boot + timedelta(seconds=60)).strftime("%b %e %H:%M"), i) for i in range(h.npus)]
        dl += ["crw-rw---- 1 HwHiAiUser HwHiAiUser 237, 0 %s /dev/davinci_manager" % h.local(h.boot + timedelta(seconds=60)).strftime("%b %e %H:%M"),
               "crw-rw---- 1 HwHiAiUser HwHiAiUser 238, 0 %s /dev/devmm_svm" % h.local(h.boot + timedelta(seconds=60)).strftime("%b %e %H:%M"),
               "crw-rw---- 1 HwHiAiUser HwHiAiUser 239, 0 %s /dev/hisi_hdc" % h.local(h.boot + timedelta(seconds=60)).strftime("%b %e %H:%M")]
        fc.cmd("ls_-l_dev_davinci", "sh -c ls -l /dev/davinci* /dev/davinci_manager /dev/devmm_svm /dev/hisi_hdc", dl)
    else:
        fc.cmd("ls_-l_dev_davinci", "sh -c ls -l /dev/davinci* /dev/davinci_manager /dev/devmm_svm /dev/hisi_hdc",
               ["ls: cannot access '/dev/davinci*': No such file or directory", "ls: cannot access '/dev/davinci_manager': No such file or directory",
                "ls: cannot access '/dev/devmm_svm': No such file or directory", "ls: cannot access '/dev/hisi_hdc': No such file or directory"], exit=2)
    # versions and install records
    fc.file("/lib/davinci.conf", ["DAVINCI_HOME_PATH=/usr/local/Ascend"])
    fc.file("/etc/ascend_install.info", ascend_install_info())
    fc.file("/usr/local/Ascend/driver/version.info", st["drv_version_info"])
    fc.file("/usr/local/Ascend/firmware/version.info", st["fw_version_info"])
    for path, content in st.get("version_files", {}).items():
        fc.file(path, content)
    fc.cmd("ls_-l_ascend_root", "ls -l /usr/local/Ascend /usr/local/Ascend/ascend-toolkit /usr/local/Ascend/driver /usr/local/Ascend/driver/lib64/driver", st["ls_ascend"])
    fc.cmd("ls_-l_set_env", "ls -l /usr/local/Ascend/ascend-toolkit/set_env.sh /usr/local/Ascend/ascend-toolkit/latest/set_env.sh /usr/local/Ascend/nnal/atb/set_env.sh",
           st["ls_set_env"], exit=st.get("ls_set_env_exit", 0))
    fc.cmd("readlink_-f_ascend-toolkit_latest", "readlink -f /usr/local/Ascend/ascend-toolkit/latest", [st["latest"]], exit=0 if st["latest"] else 1)
    fc.file("/var/log/ascend_seclog/ascend_install.log", st["install_log"])
    fc.file("/var/log/ascend_seclog/operation.log", st["operation_log"])
    fc.cmd("grep_set_env_profiles", "sh -c for f in /etc/profile /etc/profile.d/*.sh /etc/bash.bashrc /root/.bashrc /root/.profile /home/*/.bashrc; do ...; done",
           st.get("profiles", ["/root/.bashrc:118:source /usr/local/Ascend/ascend-toolkit/set_env.sh"]))
    fc.cmd("dpkg_-l", "dpkg -l", dpkg_list([("linux-headers-%s" % kr, kr.split("-generic")[0].replace("-", "."), "arm64", "Linux kernel headers for version 5.15.0 on ARMv8 SMP")]), secs=0.21)
    fc.cmd("pip_list", "python3 -m pip list", pip_list(st["host_pip"]), secs=0.74)
    fc.cmd("pip_freeze", "python3 -m pip freeze", ["%s==%s" % kv for kv in sorted(st["host_pip"].items(), key=lambda kv: kv[0].lower()) if kv[0] not in ("pip", "setuptools", "wheel")], secs=0.69)
    # kernel / modules
    K = st["klog"]
    fc.cmd("dmesg", "dmesg", K.dmesg())
    fc.cmd("dmesg_-T", "dmesg -T", K.dmesg_T())
    fc.cmd("journalctl_-k_-b", "journalctl -k -b -o short-iso --no-pager", ["-- Journal begins at %s. --" % f_journal(h.local(h.boot - timedelta(days=40)))] + K.journal(), secs=0.31)
    fc.cmd("journalctl_-k_-b_-1", "journalctl -k -b -1 -o short-iso --no-pager", st.get("journal_prev", ["-- No entries --"]), exit=0, secs=0.22)
    fc.cmd("lsmod", "lsmod", lsmod(st["lsmod"]))
    mods = st.get("modinfo", {})
    for m in FC_MODS:
        info = mods.get(m)
        if info is None:
            fc.cmd("modinfo_-n_%s" % m, "modinfo -n %s" % m, ["modinfo: ERROR: Module %s not found." % m], exit=1)
            fc.cmd("modinfo_-F_vermagic_%s" % m, "modinfo -F vermagic %s" % m, ["modinfo: ERROR: Module %s not found." % m], exit=1)
            fc.cmd("modprobe_-n_-v_%s" % m, "modprobe -n -v %s" % m, ["modprobe: FATAL: Module %s not found in directory /lib/modules/%s" % (m, kr)], exit=1)
            fc.cmd("modprobe_--show-depends_%s" % m, "modprobe --show-depends %s" % m, ["modprobe: FATAL: Module %s not found in directory /lib/modules/%s" % (m, kr)], exit=1)
            continue
        fc.cmd("modinfo_-n_%s" % m, "modinfo -n %s" % m, [info["path"]])
        fc.cmd("modinfo_-F_vermagic_%s" % m, "modinfo -F vermagic %s" % m, ["%s SMP mod_unload modversions aarch64" % kr])
        deps = [mods[d]["path"] for d in MOD_DEPS.get(m, []) if d in mods] + [info["path"]]
        loaded_names = {n for n, _, _ in st["lsmod"]}
        todo = [p for d, p in zip(MOD_DEPS.get(m, []) + [m], deps) if d not in loaded_names]
        fc.cmd("modprobe_-n_-v_%s" % m, "modprobe -n -v %s" % m, ["insmod %s " % p for p in todo])
        fc.cmd("modprobe_--show-depends_%s" % m, "modprobe --show-depends %s" % m, ["insmod %s " % p for p in deps])
    if "drv_pcie_host" in mods:
        i = mods["drv_pcie_host"]
        fc.cmd("modinfo_drv_pcie_host", "modinfo drv_pcie_host", ["filename:       %s" % i["path"], "version:        %s" % i["version"], "license:        GPL v2",
                                                                   "description:    Ascend PCIe host driver", "author:         Huawei Tech. Co., Ltd.",
                                                                   "srcversion:     %s" % i.get("srcversion", "8D1C2F1A3B5E7D9C0A2B4C6"),
                                                                   "depends:        drv_seclib_host,ascend_kernel_open_adapt,asdrv_pbl", "retpoline:      Y",
                                                                   "name:           drv_pcie_host", "vermagic:       %s SMP mod_unload modversions aarch64" % kr])
    fc.cmd("ls_-l_lib_modules_updates", "ls -l /lib/modules/%s/updates/" % kr, st["ls_updates"])
    fc.cmd("ls_-l_lib_modules_updates_dkms", "ls -l /lib/modules/%s/updates/dkms/" % kr, st["ls_updates_dkms"], exit=st.get("ls_updates_dkms_exit", 0))
    if st.get("modules_dep"):
        fc.file("/lib/modules/%s/modules.dep" % kr, st["modules_dep"])
    fc.cmd("ls_-l_sys_module_drv", "sh -c for d in /sys/module/drv_* /sys/module/asdrv_* /sys/module/ascend_*; do ...; done",
           ["/sys/module/%s version=%s srcversion=%s" % (n, st.get("drv_loaded", ""), "8D1C2F1A3B5E7D9C0A2B4C6") for n, _, _ in st["lsmod"] if n.startswith(("drv_", "asdrv_", "ascend_"))])
    # limits, mounts, env
    fc.cmd("ulimit_-a", "sh -c if command -v bash >/dev/null 2>&1; then exec bash -c \"ulimit -a\"; else ulimit -a; fi", st.get("ulimit", ulimit_a()))
    fc.cmd("sysctl_vm.max_map_count", "sysctl vm.max_map_count vm.overcommit_memory kernel.randomize_va_space",
           ["vm.max_map_count = %d" % st.get("max_map_count", 1048576), "vm.overcommit_memory = 0", "kernel.randomize_va_space = 2"])
    fc.file("/proc/1/mountinfo", st.get("mountinfo", mountinfo_host()))
    fc.file("/proc/self/mountinfo", st.get("mountinfo", mountinfo_host()))
    fc.file("/proc/meminfo", ["MemTotal:       1055384592 kB", "MemFree:        %d kB" % rng.randint(600000000, 1000000000), "MemAvailable:   %d kB" % rng.randint(900000000, 1030000000),
                              "HugePages_Total:       0", "Hugepagesize:       2048 kB"])
    fc.cmd("printenv", "printenv", ["%s=%s" % kv for kv in st["shell_env"].items()])
    for p in st.get("procs", []):
        fc.proc(**p)
        py = p["exe"]
        if "python" in py and st.get("proc_pip"):
            fc.cmd("pip_list_pid%d" % p["pid"], "%s -m pip list" % py, pip_list(st["proc_pip"]), secs=0.81)
    # logs
    for path, content in st.get("host_files", {}).items():
        fc.file(path, content)
    for rel, content in st.get("logs", {}).items():
        fc.log(rel, content)
    fc.cmd("msnpureport_-f", "msnpureport -f", st.get("msnpureport", ["msnpureport start, please wait...", "Export finished."]), secs=round(rng.uniform(8, 20), 3))
    fc.manifest()


# --------------------------------------------------------------------------------------------
# a consistent node state for fc_node (healthy unless a sample changes it)
# --------------------------------------------------------------------------------------------
DRV_META = {  # driver version -> (Innerversion, compatible_version, compatible_version_fw, ascendhal)
    "25.2.0": ("V100R001C23SPC001B225", "[V100R001C19],[V100R001C20],[V100R001C21],[V100R001C22],[V100R001C23]", "[7.0.0,7.8.99]", "7.35.23"),
    "25.5.1": ("V100R001C25SPC001B230", "[V100R001C21],[V100R001C22],[V100R001C23],[V100R001C25]", "[7.0.0,8.9.9]", "7.35.25"),
    "26.0.rc1": ("V100R001C10SPC001B257", "[V100R001C23],[V100R001C25],[V100R001C26],[V100R001C27]", "[7.0.0,9.9.99]", "7.35.26"),
}
CANN_META = {  # CANN -> (innerversion, compatible_version, version.cfg inner)
    "8.0.RC3": ("V100R001C19SPC001B180", "[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19]", "7.5.0.1.129"),
    "8.5.0": ("V100R001C25SPC001B212", "[V100R001C21],[V100R001C22],[V100R001C23],[V100R001C25]", "7.8.0.5.212"),
    "9.0.0": ("V100R001C26SPC001B105", "[V100R001C23],[V100R001C25],[V100R001C26]", "8.0.0.1.105"),
    "9.1.0": ("V100R001C27SPC001B131", "[V100R001C25],[V100R001C26],[V100R001C27]", "8.1.0.1.131"),
}


def cann_home(ver: str) -> str:
    """CANN >= 9 installs to /usr/local/Ascend/cann-<ver>; older ones under ascend-toolkit/<ver>."""
    return "/usr/local/Ascend/cann-%s" % ver if ver.startswith("9") else "/usr/local/Ascend/ascend-toolkit/%s" % ver


def base_state(h: Host, rng: random.Random, now: datetime, *, drv="25.5.1", fw="7.8.0.6.201", fw_pkg=None, canns=("8.5.0",), latest="8.5.0",
               drv_installed_at: datetime | None = None, history=None, jobs=()) -> dict:
    fw_pkg = fw_pkg or drv
    inner, compat, fwc, hal = DRV_META[drv]
    st = {"drv_loaded": drv, "npu_tool": drv, "fw": fw}
    st["npu_smi"] = npu_smi_info(h, drv, drv, rng=rng)
    st["drv_version_info"] = driver_version_info(drv, inner, compat, fwc, hal)
    st["fw_version_info"] = firmware_version_info(fw, fw_pkg, "[23.0.0,23.0.0.],[24.0,24.0.],[24.1,24.1.],[25.0,25.0.],[25.2,25.2.],[25.5,25.5.],[26.0,26.0.]")
    vf = {}
    for c in canns:
        home = cann_home(c)
        ci, cc, cfg = CANN_META[c]
        vf[home + "/aarch64-linux/ascend_toolkit_install.info"] = toolkit_install_info(c, ci, cc, home + "/aarch64-linux")
        vf[home + "/version.cfg"] = ["# version: 1.0", "runtime_running_version=[%s:%s]" % (cfg, c), "compiler_running_version=[%s:%s]" % (cfg, c),
                                     "opp_running_version=[%s:%s]" % (cfg, c), "toolkit_running_version=[%s:%s]" % (cfg, c)]
    st["version_files"] = vf
    lt = cann_home(latest) if latest else ""
    st["latest"] = lt
    d0 = drv_installed_at or (h.boot - timedelta(days=3, hours=2))
    st["ls_ascend"] = ["/usr/local/Ascend:", "total 28"] + \
        ["drwxr-xr-x  %d root root 4096 %s %s" % (3, h.local(d0).strftime("%b %e %H:%M"), n) for n in (["ascend-toolkit"] + ["cann-%s" % c for c in canns if c.startswith("9")] + ["driver", "firmware"])] + \
        ["", "/usr/local/Ascend/ascend-toolkit:", "total 12"] + \
        ["drwxr-xr-x 6 root root 4096 %s %s" % (h.local(d0).strftime("%b %e %H:%M"), c) for c in canns if not c.startswith("9")] + \
        (["lrwxrwxrwx 1 root root   %d %s latest -> %s" % (len(lt), h.local(d0).strftime("%b %e %H:%M"), lt)] if lt else []) + \
        ["-rw-r--r-- 1 root root  412 %s set_env.sh" % h.local(d0).strftime("%b %e %H:%M"),
         "", "/usr/local/Ascend/driver:", "total 36", "drwxr-xr-x 2 root root 4096 %s bin" % h.local(d0).strftime("%b %e %H:%M"),
         "drwxr-xr-x 4 root root 4096 %s lib64" % h.local(d0).strftime("%b %e %H:%M"), "drwxr-xr-x 4 root root 4096 %s tools" % h.local(d0).strftime("%b %e %H:%M"),
         "-r--r--r-- 1 root root  345 %s version.info" % h.local(d0).strftime("%b %e %H:%M"),
         "", "/usr/local/Ascend/driver/lib64/driver:", "total 9420",
         "-r-xr-xr-x 1 root root 1843200 %s libascend_hal.so" % h.local(d0).strftime("%b %e %H:%M"),
         "-r-xr-xr-x 1 root root  305664 %s libdrvdsmi_host.so" % h.local(d0).strftime("%b %e %H:%M")]
    st["ls_set_env"] = ["-rw-r--r-- 1 root root 412 %s /usr/local/Ascend/ascend-toolkit/set_env.sh" % h.local(d0).strftime("%b %e %H:%M"),
                        "-rw-r--r-- 1 root root 389 %s /usr/local/Ascend/ascend-toolkit/latest/set_env.sh" % h.local(d0).strftime("%b %e %H:%M"),
                        "ls: cannot access '/usr/local/Ascend/nnal/atb/set_env.sh': No such file or directory"]
    st["ls_set_env_exit"] = 2
    # install history: driver+firmware and CANN before this boot
    L, O = [], []
    if history:
        L, O = history
    else:
        t = d0 - timedelta(minutes=14)
        l, e = inst_firmware(t, "Ascend-hdk-910b-npu-firmware_%s.run" % fw, "7.7.0.1.231", fw, rng); L += l
        O.append(oplog("Upgrade", t, "Ascend-hdk-910b-npu-firmware_%s.run" % fw))
        l, e = inst_driver(d0, "Ascend-hdk-910b-npu-driver_%s_linux-aarch64.run" % drv, "25.2.0", drv, h.kernel, rng, old="25.2.0"); L += l
        O.append(oplog("Upgrade", d0, "Ascend-hdk-910b-npu-driver_%s_linux-aarch64.run" % drv))
        for k, c in enumerate(canns):
            t = d0 - timedelta(days=20 + 10 * k)
            l, e = inst_cann(t, "Toolkit", "Toolkit", cann_home(c), rng); L = l + L
            O.insert(0, oplog("Install", t, "Ascend-cann-toolkit_%s_linux-aarch64.run" % c))
    st["install_log"], st["operation_log"] = L, O
    # kernel
    K = KernelLog(h)
    for u, t in kernel_boot_lines(h, rng):
        K.add(u, t)
    for u, t in ascend_load_lines(h, rng, 29.7, ring=False):
        K.add(u, t, ascend_ring(t))
    for (start, pid0, n, comm, end) in jobs:
        for r in range(n):
            for l in devmm_proc_lines(pid0 + r, comm, [r], ring=False):
                K.add_at(start + timedelta(milliseconds=31 * r), l, ascend_ring(l))
            if end:
                for l in devmm_proc_lines(pid0 + r, comm, [r], ring=False, open_=False):
                    K.add_at(end + timedelta(milliseconds=47 * r), l, ascend_ring(l))
    st["klog"] = K
    st["lsmod"] = ascend_lsmod() + GENERIC_MODS
    kr = h.kernel
    st["modinfo"] = {m: {"path": "/lib/modules/%s/updates/%s.ko" % (kr, m), "version": drv} for m in FC_MODS if m in ASCEND_MODS}
    mt = h.local(d0 + timedelta(seconds=40))
    st["ls_updates"] = ls_l([("-rw-r--r--", 65536 * (2 + (i * 5) % 31) + 4096 * i, mt, "%s.ko" % m, None) for i, m in enumerate(sorted(ASCEND_MODS))])
    st["ls_updates_dkms"] = ["ls: cannot access '/lib/modules/%s/updates/dkms/': No such file or directory" % kr]
    st["ls_updates_dkms_exit"] = 2
    st["modules_dep"] = ["updates/%s.ko: %s" % (m, " ".join("updates/%s.ko" % d for d in reversed(MOD_DEPS.get(m, [])))) for m in sorted(ASCEND_MODS)] + \
        ["kernel/drivers/net/ethernet/hisilicon/hns3/hns3.ko: kernel/drivers/net/ethernet/hisilicon/hns3/hnae3.ko",
         "kernel/drivers/net/ethernet/hisilicon/hns3/hnae3.ko:", "kernel/net/bridge/bridge.ko: kernel/net/802/stp.ko kernel/net/llc/llc.ko"]
    env = cann_env(*(("/usr/local/Ascend", "cann-%s" % latest) if latest and latest.startswith("9") else ("/usr/local/Ascend/ascend-toolkit", "latest")))
    st["shell_env"] = {k: env[k] for k in ("PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH")}
    st["host_pip"] = dict(BASE_PIP, **CANN_PIP)
    return st


def torch_job_env(st_env: dict, extra: dict) -> dict:
    e = {"HOSTNAME": "trainer-0", "HOME": "/root", "LANG": "C.UTF-8", "TERM": "xterm", "SHLVL": "1", "PWD": "/workspace"}
    e.update(st_env)
    e.update(extra)
    return e


# ============================================================================================
# bundle: seed-stale-dkms-module  (seed 002, faultline-collect layout + the engineer's case/ folder)
# ============================================================================================
def bundle_seed_stale_dkms_module(out: str):
    rng = random.Random(2002)
    CST = tz(8)
    h = Host(name="ai-train-03", zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-03-05 09:38:12.520000", CST),
             kernel="5.15.0-131-generic", ip="10.8.2.13")
    now = T("2026-03-05 10:15:22", CST)
    F = Files(out)
    kr = h.kernel
    drv_at = T("2026-03-02 14:20:31", CST)
    st = base_state(h, rng, now, drv="26.0.rc1", fw="9.0.0.0.205", fw_pkg="26.0.rc1", canns=("8.5.0",), latest="8.5.0", drv_installed_at=drv_at)
    # install history: old 25.2.0 from /opt/hdk-25.2.0 with DKMS (2025-11), CANN 8.5.0 (2026-01), fw + driver 26.0.rc1 (2026-03-02)
    L, O = [], []
    t = T("2025-11-04 10:02:40", CST)
    l, e = inst_driver(t, "Ascend-hdk-910b-npu-driver_25.2.0_linux-aarch64.run", "none", "25.2.0", kr, rng, path="/opt/hdk-25.2.0", dkms=True); L += l
    O.append(oplog("Install", t, "Ascend-hdk-910b-npu-driver_25.2.0_linux-aarch64.run", cmd="--full --install-path=/opt/hdk-25.2.0"))
    t = T("2026-01-12 16:41:09", CST)
    l, e = inst_cann(t, "Toolkit", "Toolkit", cann_home("8.5.0"), rng); L += l
    O.append(oplog("Install", t, "Ascend-cann-toolkit_8.5.0_linux-aarch64.run"))
    t = T("2026-03-02 14:12:05", CST)
    l, e = inst_firmware(t, "Ascend-hdk-910b-npu-firmware_9.0.0.0.205.run", "7.8.0.6.201", "9.0.0.0.205", rng); L += l
    O.append(oplog("Upgrade", t, "Ascend-hdk-910b-npu-firmware_9.0.0.0.205.run"))
    l, e = inst_driver(drv_at, "Ascend-hdk-910b-npu-driver_26.0.rc1_linux-aarch64.run", "none", "26.0.rc1", kr, rng); L += l
    O.append(oplog("Install", drv_at, "Ascend-hdk-910b-npu-driver_26.0.rc1_linux-aarch64.run"))
    st["install_log"], st["operation_log"] = L, O
    # modules: fresh files in updates/, stale links in updates/dkms/ that modules.dep and modprobe prefer
    stale = ["drv_pcie_host", "drv_pcie_hdc_host", "asdrv_dms", "asdrv_svm", "asdrv_trs", "ts_agent"]
    old_dir = "/opt/hdk-25.2.0/driver/kernel"
    for m in stale:
        st["modinfo"][m] = {"path": "/lib/modules/%s/updates/dkms/%s.ko" % (kr, m), "version": "25.2.0", "srcversion": "3C1E07A2D94F5B6A8E0D1F7"}
    mt_old = h.local(T("2025-11-04 10:03:55", CST))
    st["ls_updates"][0:0] = []
    st["ls_updates"].insert(1, "drwxr-xr-x 2 root root    4096 %s dkms" % mt_old.strftime("%b %e %H:%M"))
    st["ls_updates_dkms"] = ls_l([("lrwxrwxrwx", len(old_dir) + len(m) + 4, mt_old, "%s.ko" % m, "%s/%s.ko" % (old_dir, m)) for m in sorted(stale)], total=0)
    st["ls_updates_dkms_exit"] = 0
    st["modules_dep"] = [("updates/dkms/%s.ko: " % m if m in stale else "updates/%s.ko: " % m) +
                         " ".join(("updates/dkms/%s.ko" % d if d in stale else "updates/%s.ko" % d) for d in reversed(MOD_DEPS.get(m, []))) for m in sorted(ASCEND_MODS)]
    loaded = ["drv_seclib_host", "ascend_kernel_open_adapt", "asdrv_pbl"]
    st["lsmod"] = [(m, ASCEND_LSMOD_SIZES[m], "0") for m in reversed(loaded)] + GENERIC_MODS
    st["npu_smi"] = ["dcmi module initialize failed. ret is -8005"]
    st["npu_smi_exit"] = 255
    st["dev_nodes"] = False
    # kernel log of this boot: fresh modules load, stale ones fail with Unknown symbol
    K = KernelLog(h)
    for u, t in kernel_boot_lines(h, rng):
        K.add(u, t)
    u = 28.91
    K.add(u, "[ascend] [drv_seclib] [drv_seclib_init 88] <systemd-udevd:702:702> seclib init success.")
    K.add(u + 0.01, "[ascend] [ka_adapt] [ka_init 61] <systemd-udevd:702:702> kernel open adapt init success.")
    syms = {"drv_pcie_host": ["ka_pci_enable_device_mem", "ka_dma_alloc_coherent_attr", "pbl_register_dev_ops", "asdrv_pbl_get_res_info"],
            "drv_pcie_hdc_host": ["devdrv_pcimsg_register_client", "devdrv_get_pdev_by_devid"],
            "asdrv_dms": ["devdrv_get_pdev_by_devid", "devdrv_register_rao_client", "ka_kthread_create_on_node"],
            "asdrv_svm": ["devdrv_get_dev_num", "dms_get_dev_topology"], "asdrv_trs": ["devdrv_get_dev_num", "dms_register_notifier"],
            "ts_agent": ["trs_register_ops"]}
    for m in stale:
        for s in syms[m]:
            u += rng.uniform(0.0001, 0.002)
            K.add(u, "%s: Unknown symbol %s (err -2)" % (m, s))
        u += 0.4
    K.add(u + 1.2, "systemd-modules-load[688]: Failed to insert module 'drv_pcie_host': Unknown symbol in module")
    st["klog"] = K
    st["journal_prev"] = ["-- Journal begins at 2026-01-24T06:12:09+0800, ends at 2026-03-05T09:37:40+0800. --"] + \
        ["2026-03-04T15:%02d:%02d+0800 %s kernel: [ascend] [devmm] [devmm_ioctl_open_device 2115] <python3:38291,38291> Open logical_device. (logical_devid=0; phyid=0; vfid=0; hostpid=38291)" % (2, 11, h.name),
         "2026-03-05T09:36:58+0800 %s kernel: reboot: Restarting system" % h.name]
    st["host_pip"] = dict(BASE_PIP)
    # pre-reboot CANN plogs of the hanging run (container mounted /root/ascend from the host)
    pid = 38291
    start = T("2026-03-04 15:02:07.318000", CST)
    c = Clock(start, rng)
    home = cann_home("9.1.0")
    run = plog_init_noise(rng, c, pid, "python3", home + "/aarch64-linux", 0, "/workspace/det", n_perf=90)
    run += plog_steady_noise(rng, c, pid, "python3", 260, step_s=1.4)
    stall = T("2026-03-04 15:06:41.733102", CST)
    dbg = []
    for k in range(9):
        d = stall + timedelta(seconds=180 * (k + 1), microseconds=rng.randint(0, 4000))
        dbg.append(plog_hdr("ERROR", "RUNTIME", pid, "python3", d) + "[stream.cc:1607]%d SynchronizeExecutedTask: report three minutes timeout!" % pid)
        dbg.append(plog_hdr("ERROR", "RUNTIME", pid, "python3", d + timedelta(microseconds=16)) + "[stream.cc:1611]%d SynchronizeExecutedTask: stream_id=47, task_id=1280, sqHead=500, pendingNum=781" % pid)
    fail = T("2026-03-04 15:36:02.117530", CST)
    c3 = Clock(fail, rng)
    dbg += [plog_hdr("ERROR", "RUNTIME", pid, "python3", c3.tick()) + "[stream.cc:1632]%d SynchronizeExecutedTask: Stream synchronize timeout, device_id=0, stream_id=47, timeout=1800000, tryCount=10." % pid,
            plog_hdr("ERROR", "RUNTIME", pid, "python3", c3.tick()) + "[api_c.cc:2143]%d rtStreamSynchronize: [EXEC][DEFAULT]rtStreamSynchronize execution failed, reason=task timeout" % pid,
            plog_hdr("ERROR", "RUNTIME", pid, "python3", c3.tick()) + "[error_message_manage.cc:65]%d FuncErrorReason: report error module_type=1, module_name=EE9999" % pid,
            plog_hdr("ERROR", "ASCENDCL", pid, "python3", c3.tick()) + "[stream.cpp:107]%d aclrtSynchronizeStreamWithTimeout: [EXEC][DEFAULT]synchronize stream failed, runtime result = 107020" % pid]
    F.put("case/plog_from_container/debug/plog/plog-%d_%s.log" % (pid, f_17(stall + timedelta(seconds=180))), dbg)
    st["logs"] = {"ascend/root/log/run/plog/plog-%d_%s.log" % (pid, f_17(start)): run,
                  "ascend/root/log/debug/plog/plog-%d_%s.log" % (pid, f_17(stall + timedelta(seconds=180))): dbg,
                  "ascend/root/log/run/device-0/device-%d_%s.log" % (pid, f_17(start + timedelta(seconds=5))): device_app_log(rng, Clock(start + timedelta(seconds=4), rng), 1187, pid, 0, n=30)}
    F.data.pop("case/plog_from_container/debug/plog/plog-%d_%s.log" % (pid, f_17(stall + timedelta(seconds=180))))
    st["host_files"] = {"/var/log/syslog": syslog_noise(h, rng, T("2026-03-05 00:00:01", CST), now, [(d, l) for d, l in K.syslog(h.local(h.boot))])}
    st["msnpureport"] = ["msnpureport start, please wait...", "[ERROR] dsmi_get_device_count failed, ret = -8005.", "msnpureport failed."]
    fc = FC(F, h, now, rng)
    fc_node(fc, st)
    # ------------- case/: what the engineer saved before the reboot (container side) -------------
    F.put("case/container_pip_list.txt", pip_list(dict(BASE_PIP, torch="2.9.0", torchvision="0.24.0", **{"torch-npu": "2.9.0.post6"}, ultralytics="8.3.40", opencv_python_headless="4.10.0.84")))
    ce = cann_env("/usr/local/Ascend", "cann-9.1.0", py="/usr/local/python3.11.10")
    F.put("case/container_printenv_ascend.txt", ["%s=%s" % (k, ce[k]) for k in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH", "LD_LIBRARY_PATH", "PATH", "PYTHONPATH")] +
          ["ASCEND_LAUNCH_BLOCKING=1", "TASK_QUEUE_ENABLE=0"])
    F.put("case/readlink_-f_ascend-toolkit_latest_container.txt", [home])
    tr = ["$ python3 train.py --data data/coco.yaml --weights yolov8s.pt --batch 1 --workers 0 --device npu:0 --epochs 100",
          "Ultralytics 8.3.40 Python-3.11.10 torch-2.9.0 NPU:0 (Ascend910B2, 62432MiB)",
          "engine/trainer: task=detect, mode=train, model=yolov8s.pt, data=data/coco.yaml, epochs=100, batch=1, workers=0, amp=False, cache=False, device=npu:0",
          "Starting training for 100 epochs...",
          "",
          "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size",
          "      1/100         0G          0          0          0          3        640:   0%|          | 0/117266 [00:00<?, ?it/s]",
          "[W304 15:36:02.118204321 compiler_depend.ts:159] Warning: NPU warning, error code is 107020[Error]: .",
          "Traceback (most recent call last):",
          '  File "/workspace/det/train.py", line 41, in <module>',
          "    model.train(**vars(opt))",
          '  File "/usr/local/python3.11.10/lib/python3.11/site-packages/ultralytics/engine/trainer.py", line 380, in _do_train',
          "    self.loss, self.loss_items = self.model(batch)",
          '  File "/workspace/det/utils/loss.py", line 188, in build_targets',
          "    gain = torch.ones(7, device=targets.device)",
          "RuntimeError: copy_between_host_and_device_opapi:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:56 NPU function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(stream), error code is 107020",
          "[ERROR] 2026-03-04-15:36:02 (PID:%d, Device:0, RankID:-1) ERR00100 PTA call acl api failed" % pid,
          "[Error]: The execution of the internal task times out. ",
          "        Rectify the fault based on the error information in the ascend log.",
          "EE9999: Inner Error!",
          "EE9999[PID: %d] 2026-03-04-15:36:02.117.530 (EE9999):  rtStreamSynchronize execution failed, reason=task timeout[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:65]" % pid,
          "        TraceBack (most recent call last):",
          "       synchronize stream failed, runtime result = 107020[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]",
          "",
          "ERROR: training aborted at epoch 1 batch 0: ACL error: 107020"]
    F.put("case/train_stdout_20260304.log", tr)
    probes = []
    pt = T("2026-03-04 16:10:05", CST)
    results = [("ones", "pass", "1.0"), ("fill", "pass", "3.0"), ("copy", "pass", "tensor([1., 1., 1., 1.])"), ("cpu_rand_to_npu", "pass", "0.4962566494941711"),
               ("rand", "timeout", None), ("randn", "timeout", None), ("randint", "timeout", None), ("matmul", "pass", "256.0")]
    for name, res, val in results:
        probes.append("$ date; timeout 60s python3 probe.py %s; echo \"exit=$?\"" % name)
        probes.append(f_date(pt, "CST"))
        if res == "pass":
            probes.append(val)
            probes.append("exit=0")
            pt += timedelta(seconds=rng.randint(9, 14))
        else:
            probes.append("exit=124")
            pt += timedelta(seconds=61 + rng.randint(5, 20))
    F.put("case/probe_transcript_20260304.txt", probes)
    F.put("case/probe_summary.txt", ["probe %s: %s" % (n, r) for n, r, _ in results])
    F.put("case/probe.py", ["# probe.py: one branch per process (seed 002 section 4)", "import sys", "import torch", "import torch_npu", "",
                            "op = sys.argv[1]", 'dev = "npu:0"', 'if op == "ones":', "    y = torch.ones((4,), device=dev)", 'elif op == "fill":',
                            "    y = torch.empty((4,), device=dev).fill_(3.0)", 'elif op == "copy":', "    y = torch.ones((4,)).to(dev)",
                            'elif op == "cpu_rand_to_npu":', "    y = torch.rand((4,)).to(dev)", 'elif op == "rand":', "    y = torch.rand((1,), device=dev)",
                            'elif op == "randn":', "    y = torch.randn((1,), device=dev)", 'elif op == "randint":', "    y = torch.randint(0, 10, (1,), device=dev)",
                            'elif op == "matmul":', "    x = torch.ones((256, 256), device=dev)", "    y = x @ x", "else:", '    raise ValueError("unknown probe")', "",
                            "torch.npu.synchronize()", "print(y.flatten()[0].cpu().item() if y.numel() == 1 or op != 'copy' else y.cpu())"])
    F.write()
    return F



# ============================================================================================
# helpers for a running torch job
# ============================================================================================
TORCH_SITE = "/usr/local/python3.11.10/lib/python3.11/site-packages"


def torch_procs(h: Host, rng: random.Random, st: dict, pids, cann_ver: str, argv_fn, extra_env=None, deleted=(), pre=None, svm=True, n_shm=2):
    home = cann_home(cann_ver)
    procs = []
    for r, pid in enumerate(pids):
        def pre_fn(m, r=r, pid=pid):
            for k in range(n_shm):
                m.raw(0xfffd80000000 + k * 0x2000000, 0xfffd80000000 + k * 0x2000000 + 0x1000000, "rw-s", 0, "00:19", 4100 + k + r * 10,
                      "/dev/shm/torch_%d_%d_%d (deleted)" % (pid, 3021847 + k, k))
            if pre:
                pre(m)
        m = python_maps(rng, "/usr/local/python3.11.10/bin/python3.11", TORCH_SITE, home + "/aarch64-linux", deleted=deleted, pre=pre_fn, svm=svm)
        env = torch_job_env(cann_env(*(("/usr/local/Ascend", "cann-%s" % cann_ver) if cann_ver.startswith("9") else ("/usr/local/Ascend/ascend-toolkit", cann_ver))),
                            dict({"RANK": str(r), "LOCAL_RANK": str(r), "WORLD_SIZE": str(len(pids)), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500",
                                  "HCCL_CONNECT_TIMEOUT": "1200", "TORCH_NPU_DISABLED_WARNING": "1", "WANDB_API_KEY": "9f3b2c7d1e0a4b6c8d2e1f3a5b7c9d0e1f2a3b4c"}, **(extra_env or {})))
        procs.append({"pid": pid, "comm": "python3", "exe": "/usr/local/python3.11.10/bin/python3.11", "maps": m.render(), "environ": env, "argv": argv_fn(r)})
    return procs


def healthy_job_plogs(rng, h, pids, start, cann_ver, n=120, pname="python3"):
    out = {}
    home = cann_home(cann_ver)
    for r, pid in enumerate(pids):
        c = Clock(start + timedelta(milliseconds=11 * r), rng)
        run = plog_init_noise(rng, c, pid, pname, home + "/aarch64-linux", r, "/workspace", n_perf=40 if r == 0 else 12)
        run += plog_hccl_env(c, pid, pname)
        run.append(plog_hdr("INFO", "HCCL", pid, pname, c.tick()) + "[op_base.cc:1292] [%d]Entry-HcclCommInitRootInfoInner:ranks[%d], rank[%d], rootinfo: host ip[127.0.0.1] port[60000] nicDeploy[1] identifier[127.0.0.1%%enp125s0f0_60000_0_%d], deviceLogicId[%d]" % (pid, len(pids), r, epoch(start) * 1000000 + 318211, r))
        run += plog_steady_noise(rng, c, pid, pname, n if r == 0 else n // 4)
        out["run/plog/plog-%d_%s.log" % (pid, f_17(start + timedelta(milliseconds=11 * r)))] = run
    return out


# ============================================================================================
# bundle: healthy-node  (faultline-collect; running 8-rank torch job, everything consistent)
# ============================================================================================
def bundle_healthy_node(out: str):
    rng = random.Random(3003)
    h = Host(name="npu-node-11", zone=tz(0), zname="UTC", tzid="Etc/UTC", boot=T("2026-04-02 07:51:09.110000", tz(0)), kernel="5.15.0-131-generic", ip="10.9.0.11")
    now = T("2026-04-09 13:22:47", tz(0))
    job = T("2026-04-09 08:02:13.551000", tz(0))
    pids = list(range(71402, 71410))
    st = base_state(h, rng, now, drv="25.5.1", fw="7.8.0.6.201", canns=("8.5.0",), latest="8.5.0", jobs=[(job, 71402, 8, "python3", None)])
    st["npu_smi"] = npu_smi_info(h, "25.5.1", "25.5.1", procs={i: [(pids[i], "python3", 51211 + i * 7)] for i in range(8)}, rng=rng,
                                 hbm_used=[54120 + i * 3 for i in range(8)])
    st["proc_pip"] = dict(BASE_PIP, torch="2.8.0", torchvision="0.23.0", **{"torch-npu": "2.8.0.post2"}, transformers="4.57.1", accelerate="1.10.1")
    st["procs"] = torch_procs(h, rng, st, pids, "8.5.0", lambda r: ["/usr/local/python3.11.10/bin/python3.11", "-u", "pretrain_gpt.py", "--tensor-model-parallel-size", "8",
                                                                   "--micro-batch-size", "1", "--bf16", "--local_rank=%d" % r])
    st["logs"] = {"ascend/root/log/" + k: v for k, v in healthy_job_plogs(rng, h, pids, job, "8.5.0").items()}
    st["host_files"] = {"/var/log/syslog": syslog_noise(h, rng, T("2026-04-09 00:00:01", tz(0)), now, st["klog"].syslog(T("2026-04-09 00:00:00", tz(0))))}
    F = Files(out)
    fc_node(FC(F, h, now, rng), st)
    F.write()
    return F


# ============================================================================================
# bundle: process-deleted-libraries  (faultline-collect; CANN reinstalled under a running server)
# ============================================================================================
def bundle_process_deleted_libraries(out: str):
    rng = random.Random(4004)
    CST = tz(8)
    h = Host(name="infer-srv-05", zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-02-14 22:10:31.004000", CST), kernel="5.15.0-131-generic", ip="10.12.0.5")
    now = T("2026-02-27 17:40:03", CST)
    job = T("2026-02-25 09:12:44.820000", CST)
    pids = [22761]
    st = base_state(h, rng, now, drv="25.5.1", fw="7.8.0.6.201", canns=("8.5.0",), latest="8.5.0", jobs=[(job, 22761, 1, "python3", None)])
    # CANN 8.5.0 toolkit re-installed (--upgrade) this afternoon while the server kept running
    re = T("2026-02-27 15:02:19", CST)
    l1, e = inst_cann(re, "Toolkit", "Toolkit", cann_home("8.5.0"), rng, params="--quiet --upgrade", n_whl=2)
    st["install_log"] += ["[Toolkit] [%s] [INFO]: Start Time: %s" % (f_inst(re - timedelta(seconds=50)), f_inst(re - timedelta(seconds=50))),
                          "[Toolkit] [%s] [INFO]: step into run_toolkit_uninstall.sh ..." % f_inst(re - timedelta(seconds=49)),
                          "[Toolkit] [%s] [INFO]: Uninstall toolkit files succeed in %s!" % (f_inst(re - timedelta(seconds=8)), cann_home("8.5.0")),
                          "[Toolkit] [%s] [INFO]: Toolkit package uninstalled successfully! Uninstallation takes effect immediately." % f_inst(re - timedelta(seconds=8))] + l1
    st["operation_log"].append(oplog("Upgrade", re, "Ascend-cann-toolkit_8.5.0_linux-aarch64.run", cmd="--quiet --upgrade"))
    st["npu_smi"] = npu_smi_info(h, "25.5.1", "25.5.1", procs={0: [(22761, "python3", 30514)]}, rng=rng, hbm_used=[31872] + [2870 + i for i in range(1, 8)])
    st["proc_pip"] = dict(BASE_PIP, torch="2.8.0", **{"torch-npu": "2.8.0.post2"}, fastapi="0.115.6", uvicorn="0.32.1")
    deleted = ("libascendcl.so", "libruntime.so", "libge_runner.so", "libhccl.so", "libopapi.so", "libgraph.so")
    st["procs"] = torch_procs(h, rng, st, pids, "8.5.0", lambda r: ["python3", "serve.py", "--model", "/models/qwen2.5-7b", "--port", "8080", "--device", "npu:0"], deleted=deleted, n_shm=1)
    st["logs"] = {"ascend/root/log/" + k: v for k, v in healthy_job_plogs(rng, h, pids, job, "8.5.0", n=200).items()}
    st["host_files"] = {"/var/log/syslog": syslog_noise(h, rng, T("2026-02-27 00:00:01", CST), now, st["klog"].syslog(T("2026-02-27 00:00:00", CST)))}
    F = Files(out)
    fc_node(FC(F, h, now, rng), st)
    F.write()
    return F


# ============================================================================================
# bundle: svm-address-conflict  (faultline-collect; JDK 21 ZGC heap inside the 8 TB SVM window)
# ============================================================================================
def bundle_svm_address_conflict(out: str):
    rng = random.Random(5005)
    h = Host(name="ocr-svc-02", zone=tz(8), zname="CST", tzid="Asia/Shanghai", boot=T("2026-01-20 08:30:02.500000", tz(8)), kernel="5.15.0-131-generic", ip="10.15.0.2", npus=8)
    now = T("2026-01-21 10:05:40", tz(8))
    start = T("2026-01-21 09:58:12.004000", tz(8))
    pid = 9321
    st = base_state(h, rng, now, drv="25.5.1", fw="7.8.0.6.201", canns=("8.5.0",), latest="8.5.0", jobs=[(start + timedelta(seconds=6), 9321, 1, "java", None)])
    st["npu_smi"] = npu_smi_info(h, "25.5.1", "25.5.1", procs={0: [(pid, "java", 0)]}, rng=rng)
    K = st["klog"]
    d = start + timedelta(seconds=6, milliseconds=412)
    t = "[ascend] [ERROR] [devmm] [devmm_svm_mmap 528] <java:%d,%d> Svm map va not fixed, vm_start=0xf7fec0000000, vm_end=0xffffc0000000" % (pid, pid)
    K.add_at(d, t, ascend_ring(t))
    m = Maps(rng)
    jdk = "/usr/lib/jvm/jdk-21.0.5"
    m.raw(0xaaaad4a10000, 0xaaaad4a11000, "r-xp", 0, "fd:00", 4721002, jdk + "/bin/java")
    m.raw(0xaaaad4a20000, 0xaaaad4a21000, "r--p", 0, "fd:00", 4721002, jdk + "/bin/java")
    m.anon(0xaaaaf1c3e000, 0xaaaaf1c5f000, "rw-p", "[heap]")
    # ZGC reserves its heap views from 0x100000000000 (16 TB); the first 2 GB are committed through a memfd
    m.raw(0x100000000000, 0x100080000000, "rw-s", 0, "00:01", 2049, "/memfd:java_heap (deleted)")
    m.raw(0x100080000000, 0x140000000000, "---p", 0, "00:00", 0, "")
    m.raw(0x140000000000, 0x180000000000, "---p", 0, "00:00", 0, "")
    m.raw(0xf7fec0000000, 0xffffc0000000, "---p", 0, "00:05", 1035, "/dev/devmm_svm")
    m.next_lib = 0xfffc40000000
    for l, kb in [(jdk + "/lib/server/libjvm.so", 23000), (jdk + "/lib/libjava.so", 200), (jdk + "/lib/libnio.so", 90), (jdk + "/lib/libzip.so", 80),
                  ("/opt/ocr-service/native/libocr_acl_jni.so", 900)]:
        m.lib(l, kb)
    for l, kb in [("libascendcl.so", 3600), ("libruntime.so", 9800), ("libge_runner.so", 60000), ("libopapi.so", 240000), ("libascendalog.so", 420)]:
        m.lib("%s/aarch64-linux/lib64/%s" % (cann_home("8.5.0"), l), kb)
    m.lib("/usr/local/Ascend/driver/lib64/driver/libascend_hal.so", 1800)
    for l, kb in [("/usr/lib/aarch64-linux-gnu/libc.so.6", 1700), ("/usr/lib/aarch64-linux-gnu/libstdc++.so.6.0.30", 2000), ("/usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1", 200)]:
        m.lib(l, kb)
    m.anon(0xffffe2a10000, 0xffffe2a31000, "rw-p", "[stack]")
    env = torch_job_env(cann_env("/usr/local/Ascend/ascend-toolkit", "latest"), {"JAVA_HOME": jdk, "OCR_DB_PASSWORD": "Ocr#2026!prod"})
    argv = [jdk + "/bin/java", "-XX:+UseZGC", "-XX:+ZGenerational", "-Xms2g", "-Xmx64g", "-Djava.library.path=/opt/ocr-service/native", "-jar", "/opt/ocr-service/ocr-service-3.2.1.jar", "--npu.device=0"]
    st["procs"] = [{"pid": pid, "comm": "java", "exe": jdk + "/bin/java", "maps": m.render(), "environ": env, "argv": argv}]
    c = Clock(start + timedelta(seconds=5), rng)
    run = plog_init_noise(rng, c, pid, "java", cann_home("8.5.0") + "/aarch64-linux", 0, "/opt/ocr-service", n_perf=30)
    dd = d - timedelta(microseconds=180)
    dbg = [plog_hdr("ERROR", "DRV", pid, "java", dd) + "[devmm_svm.c:281][ascend][curpid:%d,%d][drv][devmm][devmm_svm_map_va_space]Not support svm mem, because asan is opened or os not support mmap 8T." % (pid, pid),
           plog_hdr("ERROR", "DRV", pid, "java", dd + timedelta(microseconds=55)) + "[devmm_svm.c:309][ascend][curpid:%d,%d][drv][devmm][devmm_svm_map_va_space]Svm map va not fixed, vm_start=0xf7fec0000000, vm_end=0xffffc0000000" % (pid, pid),
           plog_hdr("ERROR", "RUNTIME", pid, "java", dd + timedelta(microseconds=900)) + "[npu_driver.cc:1203]%d DevMemAlloc:[INIT][DEFAULT][drv api] halMemAlloc failed: device_id=0, size=67108864, type=2, env_type=3, drvRetCode=6!" % pid,
           plog_hdr("ERROR", "ASCENDCL", pid, "java", dd + timedelta(microseconds=1400)) + "[device.cpp:59]%d aclrtSetDevice: [INIT][DEFAULT]open device 0 failed, runtime result = 507033." % pid]
    st["logs"] = {"ascend/root/log/run/plog/plog-%d_%s.log" % (pid, f_17(start + timedelta(seconds=5))): run,
                  "ascend/root/log/debug/plog/plog-%d_%s.log" % (pid, f_17(dd)): dbg}
    svc = T("2026-01-21 09:58:12", tz(8))
    st["host_files"] = {"/var/log/syslog": syslog_noise(h, rng, T("2026-01-21 00:00:01", tz(8)), now, st["klog"].syslog(T("2026-01-21 00:00:00", tz(8))) + [
        (svc, "%s %s systemd[1]: Started OCR inference service (ACL, NPU 0)." % (f_syslog(svc), h.name)),
        (d + timedelta(seconds=1), "%s %s ocr-service[%d]: 2026-01-21 09:58:19.431 ERROR [main] c.h.ocr.npu.AclRuntime - aclrtSetDevice(0) failed: 507033" % (f_syslog(d + timedelta(seconds=1)), h.name, pid))])}
    F = Files(out)
    fc_node(FC(F, h, now, rng), st)
    F.write()
    return F


# ============================================================================================
# bundle: cann-toolkit-mount-shadowed  (faultline-collect; empty host dir bind-mounted over the image's toolkit)
# ============================================================================================
def bundle_cann_toolkit_mount_shadowed(out: str):
    rng = random.Random(6006)
    CST = tz(8)
    h = Host(name="ai-train-07", zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-03-10 19:02:44.300000", CST), kernel="5.15.0-131-generic", ip="10.8.2.17")
    now = T("2026-03-12 11:31:09", CST)
    job = T("2026-03-12 10:48:03.117000", CST)
    pids = list(range(1402, 1404))
    st = base_state(h, rng, now, drv="26.0.rc1", fw="9.0.0.0.205", fw_pkg="26.0.rc1", canns=(), latest=None, jobs=[(job, 1402, 2, "python3", None)])
    # host has only driver + firmware; CANN 9.1.0 lives in the image at /usr/local/Ascend/cann-9.1.0
    st["ls_set_env"] = ["ls: cannot access '/usr/local/Ascend/ascend-toolkit/set_env.sh': No such file or directory",
                        "ls: cannot access '/usr/local/Ascend/ascend-toolkit/latest/set_env.sh': No such file or directory",
                        "ls: cannot access '/usr/local/Ascend/nnal/atb/set_env.sh': No such file or directory"]
    st["latest"] = ""
    st["shell_env"] = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LD_LIBRARY_PATH": "/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/driver/lib64/common"}
    st["profiles"] = []
    st["npu_smi"] = npu_smi_info(h, "26.0.rc1", "26.0.rc1", procs={0: [(41877, "", 28110)], 1: [(41878, "", 28096)]}, rng=rng)
    ctr = "/var/lib/docker/overlay2/5b0d7c2e91a4f3c8d6e7a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a/merged"
    mi = ["1411 1340 0:211 / / rw,relatime master:612 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/Q3ZT7LJ4U2KXGQ:/var/lib/docker/overlay2/l/WM5H2BPO7YF3IA,upperdir=%s/diff,workdir=%s/work" % (ctr[:-7], ctr[:-7]),
          "1412 1411 0:214 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw",
          "1413 1411 0:215 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755,inode64",
          "1418 1411 0:213 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro",
          "1421 1411 253:0 /usr/local/Ascend/driver /usr/local/Ascend/driver ro,relatime - ext4 /dev/mapper/ubuntu--vg-ubuntu--lv rw",
          "1422 1411 259:1 /ascend/ascend-toolkit /usr/local/Ascend/ascend-toolkit rw,relatime - xfs /dev/nvme0n1p1 rw,attr2,inode64,logbufs=8,logbsize=32k,noquota",
          "1423 1411 259:1 /datasets /data rw,relatime - xfs /dev/nvme0n1p1 rw,attr2,inode64,logbufs=8,logbsize=32k,noquota",
          "1424 1411 253:0 /root/ascend /root/ascend rw,relatime - ext4 /dev/mapper/ubuntu--vg-ubuntu--lv rw",
          "1425 1413 0:5 /davinci0 /dev/davinci0 rw,nosuid,relatime master:2 - devtmpfs udev rw,size=526914176k,nr_inodes=131728544,mode=755,inode64",
          "1426 1413 0:5 /davinci1 /dev/davinci1 rw,nosuid,relatime master:2 - devtmpfs udev rw,size=526914176k,nr_inodes=131728544,mode=755,inode64",
          "1427 1413 0:5 /davinci_manager /dev/davinci_manager rw,nosuid,relatime master:2 - devtmpfs udev rw,size=526914176k,nr_inodes=131728544,mode=755,inode64",
          "1428 1413 0:5 /devmm_svm /dev/devmm_svm rw,nosuid,relatime master:2 - devtmpfs udev rw,size=526914176k,nr_inodes=131728544,mode=755,inode64",
          "1429 1413 0:5 /hisi_hdc /dev/hisi_hdc rw,nosuid,relatime master:2 - devtmpfs udev rw,size=526914176k,nr_inodes=131728544,mode=755,inode64",
          "1430 1413 0:216 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=67108864k,inode64"]
    st["mountinfo"] = mountinfo_host(["1339 28 0:211 / %s rw,relatime - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/Q3ZT7LJ4U2KXGQ" % ctr])
    st["proc_pip"] = None
    procs = torch_procs(h, rng, st, [41877, 41878], "9.1.0", lambda r: ["python3", "-m", "torch.distributed.run", "--nproc_per_node=2", "train.py"][:1] + ["train.py", "--local_rank=%d" % r])
    for p in procs:
        p["environ"]["HOSTNAME"] = "b61c0e3d9a2f"
    st["procs"] = procs
    F = Files(out)
    fc = FC(F, h, now, rng)
    st["logs"] = {"ascend/root/log/" + k: v for k, v in healthy_job_plogs(rng, h, [41877, 41878], job, "9.1.0", n=160).items()}
    st["host_files"] = {"/var/log/syslog": syslog_noise(h, rng, T("2026-03-12 00:00:01", CST), now, st["klog"].syslog(T("2026-03-12 00:00:00", CST)) + [
        (job - timedelta(seconds=40), '%s %s dockerd[1721]: time="%s" level=info msg="Container b61c0e3d9a2f started" image=registry.local/ai/yolo-train:cann9.1-torch2.9 mounts="/data/ascend/ascend-toolkit:/usr/local/Ascend/ascend-toolkit,/usr/local/Ascend/driver:/usr/local/Ascend/driver:ro"' % (f_syslog(job - timedelta(seconds=40)), h.name, (job - timedelta(seconds=40)).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f000Z")))])}
    fc_node(fc, st)
    for p in procs:
        F.put("%s/proc/%d/mountinfo" % (fc.root, p["pid"]), mi)
    # what the engineer saw inside the container
    F.put("case/docker_exec_bash_-l.txt", ["$ docker exec -it b61c0e3d9a2f bash -l",
                                            "-bash: /usr/local/Ascend/ascend-toolkit/set_env.sh: No such file or directory",
                                            "root@b61c0e3d9a2f:/workspace# ls -la /usr/local/Ascend/ascend-toolkit/", "total 8",
                                            "drwxr-xr-x 2 root root 4096 Mar 11 17:20 .", "drwxr-xr-x 1 root root 4096 Mar  9 21:14 ..",
                                            "root@b61c0e3d9a2f:/workspace# ls /usr/local/Ascend/", "ascend-toolkit  cann-9.1.0  driver",
                                            "root@b61c0e3d9a2f:/workspace# cat /usr/local/Ascend/cann-9.1.0/aarch64-linux/ascend_toolkit_install.info"] +
          toolkit_install_info("9.1.0", CANN_META["9.1.0"][0], CANN_META["9.1.0"][1], "/usr/local/Ascend/cann-9.1.0/aarch64-linux") +
          ["root@b61c0e3d9a2f:/workspace# msprof --help", "bash: msprof: command not found"])
    F.put("case/docker_inspect_mounts.json", json.dumps([{"Type": "bind", "Source": "/data/ascend/ascend-toolkit", "Destination": "/usr/local/Ascend/ascend-toolkit", "Mode": "", "RW": True, "Propagation": "rprivate"},
                                                         {"Type": "bind", "Source": "/usr/local/Ascend/driver", "Destination": "/usr/local/Ascend/driver", "Mode": "ro", "RW": False, "Propagation": "rprivate"},
                                                         {"Type": "bind", "Source": "/data/datasets", "Destination": "/data", "Mode": "", "RW": True, "Propagation": "rprivate"},
                                                         {"Type": "bind", "Source": "/root/ascend", "Destination": "/root/ascend", "Mode": "", "RW": True, "Propagation": "rprivate"}], indent=4))
    F.write()
    return F



# ============================================================================================
# official-collector layouts: ascend_bug_report (ascend_log_<ts>), asys (asys_output_<17>)
# ============================================================================================
def write_ascend_bug_report(F: Files, root: str, h: Host, rng, now: datetime, K: KernelLog, inst: list, oplines: list, drv: str, fw: str,
                            syslog_since: datetime, syslog_extra=(), mods=None, cann_path="/usr/local/Ascend/ascend-toolkit/latest", last_reboot=None, dev_logs=True, ps=None):
    F.put(root + "/host_log/dmesg.log", K.dmesg())
    F.put(root + "/host_log/dmesg_T.log", K.dmesg_T())
    ks = K.syslog(syslog_since)
    F.put(root + "/host_log/syslog", syslog_noise(h, rng, syslog_since, now, ks + list(syslog_extra)))
    F.put(root + "/host_log/kern.log", [l for _, l in ks])
    F.put(root + "/install_info/ascend_seclog/ascend_install.log", inst)
    F.put(root + "/install_info/ascend_seclog/operation.log", oplines)
    mods = mods if mods is not None else ascend_lsmod()
    imd = ["[toc]"] + md_block("install path", ["DAVINCI_HOME_PATH=/usr/local/Ascend"]) + \
        md_block("driver info", ascend_install_info() + ["cat: /etc/ascend_filelist.info: No such file or directory"]) + \
        md_block("driver version", ["Get component version(%s) succeed for deviceId(%d), componentType(0)." % (fw, i) for i in range(h.npus)] +
                 ['\t{"device_id":%d, "component":nve, "version":%s}' % (i, fw) for i in range(h.npus)]) + \
        md_block("module info", [l for l in lsmod(mods)[1:] if "drv" in l])
    for m in ["drv_pcie_host", "drv_seclib_host"]:
        if any(n == m for n, _, _ in mods):
            imd += ["```", "filename:       /lib/modules/%s/updates/%s.ko" % (h.kernel, m), "version:        %s" % drv, "license:        GPL v2",
                    "name:           %s" % m, "vermagic:       %s SMP mod_unload modversions aarch64" % h.kernel, "```"]
    F.put(root + "/install_info/install_info.md", imd)
    lr = last_reboot or ["reboot   system boot  %s %s   still running" % (h.kernel[:16], h.local(h.boot).strftime("%a %b %e %H:%M"))]
    env_md = ["[toc]"] + md_block("ascend chip", ["Asecnd910B nums: %d" % h.npus] + [l for l in lspci(h) if "d802" in l]) + \
        md_block("PATH", ["PATH=%s/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" % cann_path,
                          "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/driver/lib64/common:%s/lib64" % cann_path]) + \
        md_block("OS info", [h.uname_a(), h.kernel, 'PRETTY_NAME="%s"' % h.os_pretty, 'NAME="Ubuntu"', 'VERSION_ID="22.04"']) + \
        md_block("last reboot", lr + ["", "wtmp begins %s" % f_ctime(h.local(h.boot - timedelta(days=90)))]) + \
        md_block("ps", ps or ["UID          PID    PPID  C STIME TTY          TIME CMD", "root           1       0  0 %s ?        00:01:02 /sbin/init" % h.local(h.boot).strftime("%b%d"),
                              "HwHiAiU+    2210       1  0 %s ?        00:00:12 /usr/local/Ascend/driver/tools/slogd" % h.local(h.boot).strftime("%b%d")])
    F.put(root + "/host_info/env_info.md", env_md)
    if dev_logs:
        ts = h.local(now + timedelta(seconds=9)).strftime("%Y-%m-%d-%H-%M-%S")
        F.put(root + "/device_log/%s/slog/host/host_kernel.log" % ts, K.host_kernel())
        device_side(F, root + "/device_log/" + ts, h, rng, [0], max(h.boot + timedelta(minutes=2), now - timedelta(days=2)).astimezone(timezone.utc), now.astimezone(timezone.utc), "slog", extra_hist={0: []}, n=120)
        F.put(root + "/device_log/npureportlog.log", ["msnpureport start, please wait...", "Export finished. The log path is /root/%s/device_log/%s" % (root.split("/")[-1], ts)])


def write_asys(F: Files, root: str, h: Host, rng, now: datetime, K: KernelLog, inst: list, plogs: dict, syslog_since: datetime, syslog_extra=()):
    base = root + "/dfx/log"
    F.put(base + "/host/driver/host_kernel.log", K.host_kernel())
    F.put(base + "/host/install/ascend_install.log", inst)
    F.put(base + "/host/message/syslog", syslog_noise(h, rng, syslog_since, now, K.syslog(syslog_since) + list(syslog_extra)))
    for rel, content in plogs.items():
        F.put(base + "/host/cann/" + rel, content)
    device_side(F, base, h, rng, [0], max(h.boot + timedelta(minutes=2), now - timedelta(days=1)).astimezone(timezone.utc), now.astimezone(timezone.utc), "asys", n=150)
    F.put(root + "/status_info.txt", [" +----------------------------------+------------------------+",
                                      " | Device ID: 0                     | INFORMATION            |",
                                      " +==================================+========================+",
                                      " | Chip Name                        | Ascend %-15s |" % h.card,
                                      " | Power (W)                        | %-22s |" % "96",
                                      " | Temperature (C)                  | %-22s |" % "44",
                                      " | health                           | %-22s |" % "Healthy",
                                      " +--- Memory Information -----------+------------------------+",
                                      " | HBM Total (MB)                   | %-22s |" % h.hbm,
                                      " | HBM Used (MB)                    | %-22s |" % "3382.52",
                                      " +----------------------------------+------------------------+"])


def simple_history(h, rng, drv, fw, canns, d0, old_drv="25.2.0"):
    L, O = [], []
    for k, c in enumerate(canns):
        t = d0 - timedelta(days=20 + 10 * k)
        l, e = inst_cann(t, "Toolkit", "Toolkit", cann_home(c), rng); L += l
        O.append(oplog("Install", t, "Ascend-cann-toolkit_%s_linux-aarch64.run" % c))
    t = d0 - timedelta(minutes=14)
    l, e = inst_firmware(t, "Ascend-hdk-910b-npu-firmware_%s.run" % fw, "7.7.0.1.231", fw, rng); L += l
    O.append(oplog("Upgrade", t, "Ascend-hdk-910b-npu-firmware_%s.run" % fw))
    l, e = inst_driver(d0, "Ascend-hdk-910b-npu-driver_%s_linux-aarch64.run" % drv, old_drv, drv, h.kernel, rng, old=old_drv); L += l
    O.append(oplog("Upgrade", d0, "Ascend-hdk-910b-npu-driver_%s_linux-aarch64.run" % drv))
    return L, O


def boot_klog(h, rng, jobs=()):
    K = KernelLog(h)
    for u, t in kernel_boot_lines(h, rng):
        K.add(u, t)
    for u, t in ascend_load_lines(h, rng, 30.2, ring=False):
        K.add(u, t, ascend_ring(t))
    for (start, pid0, n, comm, end) in jobs:
        for r in range(n):
            for l in devmm_proc_lines(pid0 + r, comm, [r], ring=False):
                K.add_at(start + timedelta(milliseconds=29 * r), l, ascend_ring(l))
            if end:
                for l in devmm_proc_lines(pid0 + r, comm, [r], ring=False, open_=False):
                    K.add_at(end + timedelta(milliseconds=41 * r), l, ascend_ring(l))
    return K


# ============================================================================================
# bundle: healthy-after-driver-upgrade-reboot  (ascend_bug_report; install 25.5.1 -> 26.0.rc1, then reboot)
# ============================================================================================
def bundle_healthy_after_driver_upgrade_reboot(out: str):
    rng = random.Random(7007)
    CST = tz(8)
    up_at = T("2026-04-16 14:10:22", CST)
    h = Host(name="a2-node-23", zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-04-16 14:31:55.802000", CST), kernel="5.15.0-131-generic", ip="10.20.1.23")
    now = T("2026-04-16 16:02:30", CST)
    F = Files(out)
    root = "ascend_log_%s" % h.local(now).strftime("%Y%m%d%H%M%S")
    L, O = simple_history(h, rng, "25.5.1", "7.8.0.6.201", ["8.5.0"], T("2026-01-08 10:00:12", CST))
    l, e = inst_firmware(up_at - timedelta(minutes=9), "Ascend-hdk-910b-npu-firmware_9.0.0.0.205.run", "7.8.0.6.201", "9.0.0.0.205", rng); L += l
    O.append(oplog("Upgrade", up_at - timedelta(minutes=9), "Ascend-hdk-910b-npu-firmware_9.0.0.0.205.run"))
    l, e = inst_driver(up_at, "Ascend-hdk-910b-npu-driver_26.0.rc1_linux-aarch64.run", "25.5.1", "26.0.rc1", h.kernel, rng, old="25.5.1"); L += l
    O.append(oplog("Upgrade", up_at, "Ascend-hdk-910b-npu-driver_26.0.rc1_linux-aarch64.run"))
    job = T("2026-04-16 15:20:41.009000", CST)
    K = boot_klog(h, rng, jobs=[(job, 90311, 8, "python3", T("2026-04-16 15:51:02.300000", CST))])
    K.add(-0.0001, "Booting Linux on physical CPU 0x0000080000 [0x481fd010]")
    K.ev = [e for e in K.ev if not (e[0] < 0)]
    write_ascend_bug_report(F, root, h, rng, now, K, L, O, "26.0.rc1", "9.0.0.0.205", T("2026-04-16 00:00:01", CST),
                            syslog_extra=[(up_at + timedelta(minutes=20), "%s %s systemd-logind[1288]: The system will reboot now!" % (f_syslog(up_at + timedelta(minutes=20)), h.name)),
                                          (up_at + timedelta(minutes=20, seconds=3), "%s %s kernel: [%12.6f] reboot: Restarting system" % (f_syslog(up_at + timedelta(minutes=20, seconds=3)), h.name, 2331291.551302))],
                            last_reboot=["reboot   system boot  5.15.0-131-gener Thu Apr 16 14:31   still running",
                                         "reboot   system boot  5.15.0-131-gener Thu Jan  8 10:31 - 14:30 (98+04:59)"])
    F.put("extra/uptime_-s.txt", [h.local(h.boot).strftime("%Y-%m-%d %H:%M:%S")])
    F.put("extra/proc_stat.txt", proc_stat(h, rng))
    F.put("extra/date_-R.txt", [f_rfc2822(h.local(now + timedelta(seconds=40)))])
    F.put("extra/npu-smi_info.txt", npu_smi_info(h, "26.0.rc1", "26.0.rc1", rng=rng))
    F.put("extra/usr/local/Ascend/driver/version.info", driver_version_info("26.0.rc1", *DRV_META["26.0.rc1"]))
    F.put("extra/usr/local/Ascend/firmware/version.info", firmware_version_info("9.0.0.0.205", "26.0.rc1", "[25.0,25.0.],[25.2,25.2.],[25.5,25.5.],[26.0,26.0.]"))
    F.write()
    return F


# ============================================================================================
# bundle: install-uninstall-blocked-by-mount  (ascend_bug_report; /usr/local/Ascend/driver is a bind mount)
# ============================================================================================
def bundle_install_uninstall_blocked_by_mount(out: str):
    rng = random.Random(8008)
    CST = tz(8)
    h = Host(name="gpu-a2-31", zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-02-03 20:15:09.100000", CST), kernel="5.15.0-131-generic", ip="10.20.1.31")
    now = T("2026-02-20 11:26:44", CST)
    F = Files(out)
    root = "ascend_log_%s" % h.local(now).strftime("%Y%m%d%H%M%S")
    L, O = simple_history(h, rng, "25.5.1", "7.8.0.6.201", ["8.5.0"], T("2026-01-15 09:40:02", CST))
    t = T("2026-02-20 11:02:17", CST)
    c = Clock(t, rng)
    P = lambda lv, msg, sec=0: "[Driver] [%s] [%s]%s" % (f_inst(c.jump(sec)), lv, msg)  # noqa: E731
    L += [P("INFO", "runPackagePath =/root/pkgs"), P("INFO", "Start time: %s" % f_inst(c.t)),
          P("INFO", "UserCommand: Ascend-hdk-910b-npu-driver_25.5.1_linux-aarch64.run --uninstall"), P("INFO", "base version is 25.5.1."),
          "[Server] [%s] [INFO]server unload start..." % f_inst(c.t), "[Server] [%s] [INFO]server unload end..." % f_inst(c.jump(1)),
          P("INFO", "target path : /usr/local/Ascend"), P("INFO", "unchattr for driver package")] + \
        [P("INFO", "rm %s.ko" % ko) for ko in DRIVER_KOS] + \
        [P("INFO", "driver auto insmod unload success", 7),
         "rm: cannot remove '/usr/local/Ascend/driver': Device or resource busy",
         P("ERROR", "rm -rf /usr/local/Ascend/driver failed"),
         "umount: /usr/local/Ascend/driver: target is busy.",
         P("ERROR", "ERR_NO:0x0090;ERR_DES:uninstall driver failed, details in : /var/log/ascend_seclog/ascend_install.log"),
         P("INFO", "End time: %s" % f_inst(c.t))]
    O.append(oplog("Uninstall", t, "Ascend-hdk-910b-npu-driver_25.5.1_linux-aarch64.run", ok=False, cmd="--uninstall"))
    K = boot_klog(h, rng)
    write_ascend_bug_report(F, root, h, rng, now, K, L, O, "25.5.1", "7.8.0.6.201", T("2026-02-20 00:00:01", CST))
    F.put("extra/console_uninstall.txt", ["root@%s:~/pkgs# ./Ascend-hdk-910b-npu-driver_25.5.1_linux-aarch64.run --uninstall" % h.name,
                                           "Verifying archive integrity...  100%   SHA256 checksums are OK. All good.",
                                           "Uncompressing ASCEND DRIVER RUN PACKAGE  100%",
                                           "rm: cannot remove '/usr/local/Ascend/driver': Device or resource busy",
                                           "[Driver] [%s] [ERROR]ERR_NO:0x0090;ERR_DES:uninstall driver failed, details in : /var/log/ascend_seclog/ascend_install.log" % f_inst(c.t),
                                           "root@%s:~/pkgs# echo $?" % h.name, "1"])
    F.put("extra/proc_1_mountinfo.txt", mountinfo_host(["318 28 259:1 /ascend/driver /usr/local/Ascend/driver rw,relatime shared:35 - xfs /dev/nvme0n1p1 rw,attr2,inode64,logbufs=8,logbsize=32k,noquota",
                                                        "321 28 259:1 /ascend/ascend-toolkit /usr/local/Ascend/ascend-toolkit rw,relatime shared:35 - xfs /dev/nvme0n1p1 rw,attr2,inode64,logbufs=8,logbsize=32k,noquota"]))
    F.put("extra/etc/fstab", ["# /etc/fstab: static file system information.", "/dev/disk/by-id/dm-uuid-LVM-l7Xh0 / ext4 defaults 0 1",
                              "/dev/disk/by-uuid/6C2B-91F4 /boot/efi vfat defaults 0 1", "/dev/nvme0n1p1 /data xfs defaults 0 0",
                              "/data/ascend/driver /usr/local/Ascend/driver none bind 0 0", "/data/ascend/ascend-toolkit /usr/local/Ascend/ascend-toolkit none bind 0 0"])
    F.put("extra/npu-smi_info.txt", npu_smi_info(h, "25.5.1", "25.5.1", rng=rng))
    F.put("extra/usr/local/Ascend/driver/version.info", driver_version_info("25.5.1", *DRV_META["25.5.1"]))
    F.write()
    return F


# ============================================================================================
# bundle: cann-partial-install-nnal  (ascend_bug_report; NNAL "installed successfully" but ATB libraries absent)
# ============================================================================================
def bundle_cann_partial_install_nnal(out: str):
    rng = random.Random(9009)
    CST = tz(8)
    h = Host(name="llm-infer-09", zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-03-18 08:02:11.700000", CST), kernel="5.15.0-131-generic", ip="10.12.0.9")
    now = T("2026-03-19 15:48:10", CST)
    F = Files(out)
    root = "ascend_log_%s" % h.local(now).strftime("%Y%m%d%H%M%S")
    L, O = simple_history(h, rng, "25.5.1", "7.8.0.6.201", ["8.5.0"], T("2026-03-01 10:21:40", CST))
    t = T("2026-03-19 14:55:03", CST)
    c = Clock(t, rng)
    P = lambda lv, msg, sec=0: "[Nnal] [%s] [%s]: %s" % (f_inst(c.jump(sec)), lv, msg)  # noqa: E731
    L += [P("INFO", "Start time: %s" % f_inst(c.t)), P("INFO", "LogFile: /var/log/ascend_seclog/ascend_install.log"),
          P("INFO", "InputParams: --install --quiet"), P("INFO", "install path: /usr/local/Ascend/nnal"),
          P("WARNING", "ASCEND_HOME_PATH is not set, please source the set_env.sh of the cann toolkit before installing nnal."),
          P("INFO", "step into run_nnal_install.sh ..."), P("INFO", "install atb begin, cxx_abi=1", 1),
          P("WARNING", "atb: can not find toolkit runtime libraries, skip installing atb cxx_abi_1 libraries."),
          P("INFO", "install SiP begin", 2), P("INFO", "SiP install success.", 3),
          P("INFO", "upgradePercentage: 100%"), P("INFO", "Nnal package installed successfully! The new version takes effect immediately."),
          P("INFO", "End time: %s" % f_inst(c.t))]
    O.append(oplog("Install", t, "Ascend-cann-nnal_8.5.0_linux-aarch64.run", cmd="--install --quiet"))
    K = boot_klog(h, rng, jobs=[(T("2026-03-19 15:40:02.100000", CST), 60233, 1, "python3", T("2026-03-19 15:40:19.900000", CST))])
    write_ascend_bug_report(F, root, h, rng, now, K, L, O, "25.5.1", "7.8.0.6.201", T("2026-03-19 00:00:01", CST))
    F.put("extra/nnal_version.info", ["    Ascend-cann-atb : 8.5.0", "    Ascend-cann-atb Version : 8.5.0.B102", "    Platform : aarch64", "    branch : 8.5.0"])
    atb = "/usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1"
    F.put("extra/ls_-lR_nnal_atb.txt", ["%s:" % atb, "total 8", "drwxr-xr-x 2 root root 4096 Mar 19 14:55 include", "drwxr-xr-x 2 root root 4096 Mar 19 14:55 lib",
                                         "-rw-r--r-- 1 root root  612 Mar 19 14:55 set_env.sh", "", "%s/include:" % atb, "total 0", "", "%s/lib:" % atb, "total 0"])
    F.put("extra/ls_-l_libatb.txt", ["ls: cannot access '%s/lib/libatb.so': No such file or directory" % atb,
                                     "ls: cannot access '%s/lib/libasdops.so': No such file or directory" % atb])
    d = T("2026-03-19 15:40:19", CST)
    F.put("extra/serve_stdout.log", ["INFO 03-19 15:40:03 [__init__.py:244] Automatically detected platform npu.",
                                     "Traceback (most recent call last):",
                                     '  File "/workspace/serve/app.py", line 17, in <module>',
                                     "    import torch_npu",
                                     '  File "/usr/local/python3.11.10/lib/python3.11/site-packages/torch_npu/__init__.py", line 62, in <module>',
                                     "    from torch_npu._C._distributed_c10d import ParallelStore",
                                     "ImportError: libatb.so: cannot open shared object file: No such file or directory",
                                     "%s [ERROR] serve exited with code 1" % f_inst(d)])
    F.put("extra/pip_list.txt", pip_list(dict(BASE_PIP, torch="2.8.0", **{"torch-npu": "2.8.0.post2"}, vllm="0.10.1", **{"vllm-ascend": "0.10.1rc1"})))
    F.put("extra/npu-smi_info.txt", npu_smi_info(h, "25.5.1", "25.5.1", rng=rng))
    F.write()
    return F



# ============================================================================================
# bundle: cann-env-path-missing  (ad-hoc flat folder; env names CANN 8.5.1, only 8.5.0 installed)
# ============================================================================================
def bundle_cann_env_path_missing(out: str):
    rng = random.Random(10010)
    CST = tz(8)
    h = Host(name="ai-train-03", zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-02-27 18:40:02.000000", CST), kernel="5.15.0-131-generic", ip="10.8.2.13")
    now = T("2026-03-03 09:12:51", CST)
    F = Files(out)
    bad = cann_env("/usr/local/Ascend/ascend-toolkit", "8.5.1")
    F.put("printenv.txt", ["HOSTNAME=2f8e61c0d3b7", "HOME=/root", "LANG=C.UTF-8"] + ["%s=%s" % (k, bad[k]) for k in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH", "TOOLCHAIN_HOME", "LD_LIBRARY_PATH", "PYTHONPATH", "PATH")] +
          ["ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7", "TASK_QUEUE_ENABLE=1"])
    F.put("ls_-l_usr_local_Ascend_ascend-toolkit.txt", ["total 8", "drwxr-xr-x 8 root root 4096 Jan 12 16:44 8.5.0",
                                                         "lrwxrwxrwx 1 root root   40 Jan 12 16:44 latest -> /usr/local/Ascend/ascend-toolkit/8.5.0",
                                                         "-rw-r--r-- 1 root root  412 Jan 12 16:44 set_env.sh"])
    F.put("ascend_toolkit_install.info", toolkit_install_info("8.5.0", *CANN_META["8.5.0"][:2], "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux"))
    F.put("readlink_-f_latest.txt", ["/usr/local/Ascend/ascend-toolkit/8.5.0"])
    F.put("npu-smi_info.txt", npu_smi_info(h, "25.5.1", "25.5.1", rng=rng))
    F.put("version.info", driver_version_info("25.5.1", *DRV_META["25.5.1"]))
    F.put("pip_list.txt", pip_list(dict(BASE_PIP, torch="2.8.0", torchvision="0.23.0", **{"torch-npu": "2.8.0.post2"}, ultralytics="8.3.40")))
    F.put("uname-a.txt", [h.uname_a()])
    K = boot_klog(h, rng)
    F.put("dmesg.txt", K.dmesg())
    F.put("train.log", ["$ python3 train.py --data data/coco.yaml --weights yolov8s.pt --batch 16 --device npu:0",
                        "Traceback (most recent call last):",
                        '  File "/workspace/det/train.py", line 9, in <module>',
                        "    import torch_npu",
                        '  File "/usr/local/python3.11.10/lib/python3.11/site-packages/torch_npu/__init__.py", line 48, in <module>',
                        "    import torch_npu.npu",
                        '  File "/usr/local/python3.11.10/lib/python3.11/site-packages/torch_npu/npu/__init__.py", line 116, in <module>',
                        "    from torch_npu._C import _npu_getDeviceCount",
                        "ImportError: libhccl.so: cannot open shared object file: No such file or directory"])
    F.put("ls_-l_8.5.1.txt", ["ls: cannot access '/usr/local/Ascend/ascend-toolkit/8.5.1': No such file or directory"])
    F.write()
    return F


# ============================================================================================
# bundle: framework-version-mismatch  (asys layout + extras; torch_npu 2.8.0.post4 with CANN 8.5.0 mapped)
# ============================================================================================
def bundle_framework_version_mismatch(out: str):
    rng = random.Random(11011)
    CST = tz(8)
    h = Host(name="ai-train-03", zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-02-27 18:40:02.000000", CST), kernel="5.15.0-131-generic", ip="10.8.2.13")
    now = T("2026-03-03 17:21:09", CST)
    F = Files(out)
    root = "asys_output_%s" % f_17(h.local(now) + timedelta(milliseconds=87))
    pid = 52210
    start = T("2026-03-03 16:58:40.271000", CST)
    cann = cann_home("8.5.0")
    c = Clock(start, rng)
    run = plog_init_noise(rng, c, pid, "python3", cann + "/aarch64-linux", 0, "/workspace/det", n_perf=80)
    run += plog_steady_noise(rng, c, pid, "python3", 120, step_s=1.1)
    d = c.jump(2)
    dbg = [plog_hdr("ERROR", "OP", pid, "python3", d) + "[opapi_handle.cpp:91]%d GetOpApiFuncAddr: can not find function aclnnIndexPutImplV2GetWorkspaceSize in %s/aarch64-linux/lib64/libopapi.so" % (pid, cann),
           plog_hdr("ERROR", "RUNTIME", pid, "python3", d + timedelta(microseconds=300)) + "[api_impl.cc:7464] %d PeekLastErr: level=0 err=507899." % pid]
    L, O = simple_history(h, rng, "25.5.1", "7.8.0.6.201", ["8.5.0"], T("2026-01-12 16:20:02", CST))
    K = boot_klog(h, rng, jobs=[(start + timedelta(seconds=5), pid, 1, "python3", d + timedelta(seconds=3))])
    write_asys(F, root, h, rng, now, K, L, {"run/plog/plog-%d_%s.log" % (pid, f_17(start)): run, "debug/plog/plog-%d_%s.log" % (pid, f_17(d)): dbg,
                                          "run/device-0/device-%d_%s.log" % (pid, f_17(start + timedelta(seconds=4))): device_app_log(rng, Clock(start + timedelta(seconds=3), rng), 3371, pid, 0, n=25)},
               T("2026-03-03 00:00:01", CST))
    F.put("extra/pip_list.txt", pip_list(dict(BASE_PIP, torch="2.8.0", torchvision="0.23.0", **{"torch-npu": "2.8.0.post4"}, ultralytics="8.3.40")))
    m = python_maps(rng, "/usr/local/python3.11.10/bin/python3.11", TORCH_SITE, cann + "/aarch64-linux")
    F.put("extra/proc_%d_maps.txt" % pid, m.render())
    F.put("extra/train.log", ["$ python3 train.py --data data/coco.yaml --weights yolov8s.pt --batch 16 --device npu:0",
                              "Ultralytics 8.3.40 Python-3.11.10 torch-2.8.0 NPU:0 (Ascend910B2, 62432MiB)",
                              "Starting training for 100 epochs...",
                              "Traceback (most recent call last):",
                              '  File "/workspace/det/utils/loss.py", line 161, in build_targets',
                              "    out[matches, :n] = t[matches, 1:]",
                              "RuntimeError: InnerRunOpApi:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:281 OPS function error: aclnnIndexPutImplV2, error code is 561103",
                              "[ERROR] %s (PID:%d, Device:0, RankID:-1) ERR01100 OPS call acl api failed" % (h.local(d).strftime("%Y-%m-%d-%H:%M:%S"), pid),
                              "[Error]: The dynamic library of the operator API cannot be found.",
                              "        Rectify the fault based on the error information in the ascend log."])
    F.put("extra/readlink_-f_latest.txt", [cann])
    F.write()
    return F


# ============================================================================================
# bundle: svm-asan-enabled  (ad-hoc flat folder; MindSpore job started with LD_PRELOAD=libasan)
# ============================================================================================
def bundle_svm_asan_enabled(out: str):
    rng = random.Random(12012)
    CST = tz(8)
    h = Host(name="dev-a2-04", zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-01-05 09:00:41.000000", CST), kernel="5.15.0-131-generic", ip="10.30.0.4")
    now = T("2026-01-06 14:52:20", CST)
    F = Files(out)
    pid = 48811
    start = T("2026-01-06 14:40:02.552000", CST)
    cann = cann_home("8.5.0")
    asan = "/usr/lib/aarch64-linux-gnu/libasan.so.6.0.0"
    def pre(m):
        # ASan shadow memory (aarch64, 48-bit VA): low/high shadow and the shadow gap
        m.anon(0x1000000000, 0x1200000000, "rw-p")
        m.anon(0x1200000000, 0x2000000000, "---p")
        m.anon(0x2000000000, 0x10000000000, "rw-p")
        m.anon(0x10000000000, 0x200000000000, "rw-p")
    m = python_maps(rng, "/usr/local/python3.9.2/bin/python3.9", "/usr/local/python3.9.2/lib/python3.9/site-packages", cann + "/aarch64-linux",
                    torch=False, extra_libs=[(asan, 7400), ("/usr/local/python3.9.2/lib/python3.9/site-packages/mindspore/lib/libmindspore_backend.so", 90000),
                                             ("/home/dev/custom_ops/build/libcustom_rmsnorm.so", 1200)], svm=False, pre=pre)
    F.put("proc_%d_maps.txt" % pid, m.render())
    env = cann_env("/usr/local/Ascend/ascend-toolkit", "latest", py="/usr/local/python3.9.2")
    env.update({"LD_PRELOAD": asan, "ASAN_OPTIONS": "detect_leaks=0:protect_shadow_gap=0:allow_user_segv_handler=1", "RANK_ID": "0", "DEVICE_ID": "0", "RANK_SIZE": "8",
                "MS_WORKER_NUM": "8", "MS_SCHED_HOST": "127.0.0.1", "MS_SCHED_PORT": "8118"})
    F.put("proc_%d_environ.txt" % pid, ["%s=%s" % kv for kv in env.items()])
    F.put("proc_%d_cmdline.txt" % pid, ["python train_rmsnorm.py --config configs/llama2_7b.yaml --use_custom_op True"])
    c = Clock(start, rng)
    run = plog_init_noise(rng, c, pid, "python", cann + "/aarch64-linux", 0, "/home/dev", n_perf=40)
    d = c.jump(1.8)
    dbg = [plog_hdr("ERROR", "DRV", pid, "python", d) + "[devmm_svm.c:281][ascend][curpid:%d,%d][drv][devmm][devmm_svm_map_va_space]Not support svm mem, because asan is opened or os not support mmap 8T." % (pid, pid),
           plog_hdr("ERROR", "DRV", pid, "python", d + timedelta(microseconds=61)) + "[devmm_svm.c:316][ascend][curpid:%d,%d][drv][devmm][devmm_svm_init]Svm mmap va failed. (start=0x100000000000; size=0x80000000000; errno=17)" % (pid, pid),
           plog_hdr("ERROR", "ASCENDCL", pid, "python", d + timedelta(microseconds=900)) + "[device.cpp:59]%d aclrtSetDevice: [INIT][DEFAULT]open device 0 failed, runtime result = 507033." % pid,
           plog_hdr("ERROR", "HCCL", pid, "python", d + timedelta(microseconds=1300)) + "[adapter_rts.cc:246] [%d][InitGroupStage][Resource]call rtSetDevice failed, devId[0], ret[507033]" % pid]
    F.put("ascend_log/run/plog/plog-%d_%s.log" % (pid, f_17(start)), run)
    F.put("ascend_log/debug/plog/plog-%d_%s.log" % (pid, f_17(d)), dbg)
    F.put("worker_0.log", [ms_log("WARNING", "ME", pid, "ffff9a0f1120", start + timedelta(seconds=1), "mindspore/python/mindspore/context.py:1242", "set_context", "For 'context.set_context', the parameter 'device_target' will be deprecated and removed in a future version."),
                           ms_log("ERROR", "DEVICE", pid, "ffff337ee1a0", d + timedelta(milliseconds=2), "mindspore/ccsrc/plugin/res_manager/ascend/hal_manager/ascend_hal_manager.cc:88", "InitDevice",
                                  "Call aclrtSetDevice failed, ret[507033]. Got device count[8] and device id[0], please check if device id is valid."),
                           "Traceback (most recent call last):",
                           '  File "/home/dev/train_rmsnorm.py", line 77, in <module>',
                           "    init()",
                           '  File "/usr/local/python3.9.2/lib/python3.9/site-packages/mindspore/communication/management.py", line 198, in init',
                           "    init_hccl()",
                           "RuntimeError: Communicator of group hccl_world_group inited: failed. Result: Init communicator for group hccl_world_group exception info: HcclCommInitRootInfoConfig failed. Error code: 4. The details refer to 'Ascend Error Message'.",
                           "",
                           "----------------------------------------------------",
                           "- C++ Call Stack: (For framework developers)",
                           "----------------------------------------------------",
                           "mindspore/ccsrc/distributed/collective/collective_manager.cc:1057 WaitCommInitDone", "",
                           "==%d==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0xffff8a1c2f30 bp 0xffffd1e3a2c0 sp 0xffffd1e3a2c0 T0)" % pid,
                           "==%d==The signal is caused by a READ memory access." % pid,
                           "==%d==Hint: address points to the zero page." % pid,
                           "    #0 0xffff8a1c2f30  (/usr/local/Ascend/driver/lib64/driver/libascend_hal.so+0x1c2f30)",
                           "    #1 0xffff8f3d0a1c in __libc_start_main (/usr/lib/aarch64-linux-gnu/libc.so.6+0x2a1c)",
                           "AddressSanitizer can not provide additional info.",
                           "SUMMARY: AddressSanitizer: SEGV (/usr/local/Ascend/driver/lib64/driver/libascend_hal.so+0x1c2f30)",
                           "==%d==ABORTING" % pid])
    F.put("npu-smi_info.txt", npu_smi_info(h, "25.5.1", "25.5.1", rng=rng))
    F.put("ulimit-a.txt", ulimit_a())
    K = boot_klog(h, rng)
    F.put("dmesg.txt", K.dmesg())
    F.put("pip_list.txt", pip_list(dict(BASE_PIP, mindspore="2.7.0", numpy="1.26.4")))
    F.write()
    return F


# ============================================================================================
# bundle: svm-address-space-limit  (msnpureport output dir + plogs + engineer extras; ulimit -v in the container)
# ============================================================================================
def bundle_svm_address_space_limit(out: str):
    rng = random.Random(13013)
    UTC = tz(0)
    h = Host(name="k8s-npu-w14", zone=UTC, zname="UTC", tzid="Etc/UTC", boot=T("2026-02-09 03:11:20.000000", UTC), kernel="5.15.0-131-generic", ip="10.40.1.14")
    now = T("2026-02-11 16:20:44", UTC)
    F = Files(out)
    pids = list(range(2301, 2309))
    start = T("2026-02-11 16:11:05.002000", UTC)
    cann = cann_home("8.5.0")
    ts = h.local(now).strftime("%Y-%m-%d-%H-%M-%S")
    K = boot_klog(h, rng)
    F.put(ts + "/slog/host/host_kernel.log", K.host_kernel())
    device_side(F, ts, h, rng, [0, 1], (now - timedelta(days=1)).astimezone(timezone.utc), now.astimezone(timezone.utc), "slog", extra_hist={0: [], 1: []}, n=120, msg_tz=0)
    for r, pid in enumerate(pids):
        c = Clock(start + timedelta(milliseconds=7 * r), rng)
        run = plog_init_noise(rng, c, pid, "python3", cann + "/aarch64-linux", r, "/workspace", n_perf=30 if r == 0 else 8)
        d = c.jump(0.6)
        dbg = [plog_hdr("ERROR", "DRV", pid, "python3", d) + "[devmm_svm.c:281][ascend][curpid:%d,%d][drv][devmm][devmm_svm_map_va_space]Not support svm mem, because asan is opened or os not support mmap 8T." % (pid, pid),
               plog_hdr("ERROR", "DRV", pid, "python3", d + timedelta(microseconds=48)) + "[devmm_svm.c:316][ascend][curpid:%d,%d][drv][devmm][devmm_svm_init]Svm mmap va failed. (start=0x100000000000; size=0x80000000000; errno=12)" % (pid, pid),
               plog_hdr("ERROR", "ASCENDCL", pid, "python3", d + timedelta(microseconds=870)) + "[device.cpp:59]%d aclrtSetDevice: [INIT][DEFAULT]open device %d failed, runtime result = 507033." % (pid, r)]
        F.put("ascend/log/run/plog/plog-%d_%s.log" % (pid, f_17(start + timedelta(milliseconds=7 * r))), run)
        F.put("ascend/log/debug/plog/plog-%d_%s.log" % (pid, f_17(d)), dbg)
        if r == 0:
            derr = d
    F.put("extra/ulimit_-a_in_pod.txt", ulimit_a(vmem="67108864"))
    F.put("extra/proc_2301_limits.txt", proc_limits(vmem="68719476736"))
    F.put("extra/pod_trainer-0.yaml", ["apiVersion: v1", "kind: Pod", "metadata:", "  name: trainer-0", "  namespace: llm", "spec:", "  containers:",
                                       "  - name: trainer", "    image: registry.local/ai/llm-train:cann8.5.0-torch2.8", "    command: [\"/bin/bash\", \"-c\"]",
                                       "    args: [\"ulimit -v 67108864 && torchrun --nproc_per_node=8 pretrain.py --config cfg/7b.yaml\"]",
                                       "    resources:", "      limits:", "        huawei.com/Ascend910: 8", "        memory: 512Gi"])
    F.put("extra/rank0.log", ["[rank0]: Traceback (most recent call last):",
                              '[rank0]:   File "/workspace/pretrain.py", line 58, in <module>',
                              "[rank0]:     torch.npu.set_device(local_rank)",
                              "[rank0]: RuntimeError: Initialize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:217 NPU function error: c10_npu::SetDevice(device_id_), error code is 507033",
                              "[rank0]: [ERROR] %s (PID:2301, Device:0, RankID:0) ERR00100 PTA call acl api failed" % h.local(derr).strftime("%Y-%m-%d-%H:%M:%S"),
                              "[rank0]: [Error]: Failed to start the device. ",
                              "[rank0]:         Rectify the fault based on the error information in the ascend log.",
                              "E0211 16:11:09.412000 281473330003968 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 2301) of binary: /usr/local/python3.11.10/bin/python3.11"])
    F.put("extra/npu-smi_info.txt", npu_smi_info(h, "25.5.1", "25.5.1", rng=rng))
    F.put("extra/pip_list.txt", pip_list(dict(BASE_PIP, torch="2.8.0", **{"torch-npu": "2.8.0.post2"})))
    F.write()
    return F


# ============================================================================================
# bundle: config-bool-flag-misparsed  (ad-hoc; --amp False parsed by argparse type=bool -> True)
# ============================================================================================
def bundle_config_bool_flag_misparsed(out: str):
    rng = random.Random(14014)
    CST = tz(8)
    h = Host(name="ai-train-03", zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-02-27 18:40:02.000000", CST), kernel="5.15.0-131-generic", ip="10.8.2.13")
    F = Files(out)
    pid = 44102
    start = T("2026-03-03 20:04:11", CST)
    F.put("cmdline_44102.txt", ["python3 train.py --data data/coco.yaml --weights yolov8s.pt --batch 1 --workers 0 --amp False --cache False --pin-memory False --device npu:0"])
    F.put("train_args_snippet.py", ["parser = argparse.ArgumentParser()", "parser.add_argument('--batch', type=int, default=16)", "parser.add_argument('--workers', type=int, default=8)",
                                    "parser.add_argument('--amp', type=bool, default=True)", "parser.add_argument('--cache', type=bool, default=False)",
                                    "parser.add_argument('--pin-memory', type=bool, default=True)", "opt = parser.parse_args()"])
    F.put("train.log", ["$ python3 train.py --data data/coco.yaml --weights yolov8s.pt --batch 1 --workers 0 --amp False --cache False --pin-memory False --device npu:0",
                        "Namespace(data='data/coco.yaml', weights='yolov8s.pt', batch=1, workers=0, amp=True, cache=True, pin_memory=True, device='npu:0', epochs=100)",
                        "Effective config:",
                        "  batch = 1", "  workers = 0", "  amp = True", "  cache = True", "  pin_memory = True", "  device = npu:0",
                        "%s AMP: running Automatic Mixed Precision (AMP) checks..." % f_inst(start + timedelta(seconds=9)),
                        "%s AMP: checks passed" % f_inst(start + timedelta(seconds=15)),
                        "Starting training for 100 epochs..."])
    F.put("pip_list.txt", pip_list(dict(BASE_PIP, torch="2.9.0", **{"torch-npu": "2.9.0.post6"}, ultralytics="8.3.40")))
    F.put("npu-smi_info.txt", npu_smi_info(h, "26.0.rc1", "26.0.rc1", procs={0: [(pid, "python3", 9310)]}, rng=rng))
    F.write()
    return F



# ============================================================================================
# bundle: fleet-hccl-cascade  (8 nodes x 8 ranks, MindCluster FaultDiag layout per node)
# node05 device 3 loses its heartbeat; every other rank times out in HCCL naming 10.30.1.15/35
# ============================================================================================
def bundle_fleet_hccl_cascade(out: str):
    CST = tz(8)
    rng0 = random.Random(15015)
    job = T("2026-03-14 00:12:03.402000", CST)
    issue = T("2026-03-14 02:41:16.508112", CST)      # the AllReduce every rank issued
    hb_lost = T("2026-03-14 02:41:17.204000", CST)     # node05 driver: device 3 heartbeat lost
    arrival = T("2026-03-14 02:41:47", CST)            # HCCL heartbeat LOST broadcast (30 s later)
    tmo = issue + timedelta(seconds=1836)              # HCCL_EXEC_TIMEOUT default
    root_ip, culprit_node, culprit_dev = "10.30.1.11", 5, 3
    culprit_rank = (culprit_node - 1) * 8 + culprit_dev
    culprit_ip = "10.30.1.%d" % (10 + culprit_node)
    cann = cann_home("8.5.0")
    group = "hccl_world_group"
    size = 0
    for n in range(1, 9):
        rng = random.Random(15015 + n)
        ip = "10.30.1.%d" % (10 + n)
        h = Host(name="node%02d" % n, zone=CST, zname="CST", tzid="Asia/Shanghai", boot=T("2026-03-10 21:%02d:%02d.000000" % (10 + n, 7 * n), CST),
                 kernel="5.15.0-131-generic", ip=ip)
        F = Files(os.path.join(out, "node%02d" % n))
        base_pid = 30000 + 1000 * n
        pids = [base_pid + r for r in range(8)]
        K = boot_klog(h, rng, jobs=[(job + timedelta(seconds=2), base_pid, 8, "python3", None)])
        culprit = n == culprit_node
        if culprit:
            t = "[ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] <kworker/5:1H:39365> Heartbeat lost! (device=%d; old_count=%d; new_count=%d; lost_count=4; total_lost_count=4; total_10s_count=0; total_15s_count 0)." % (culprit_dev, 8931, 8931)
            K.add_at(hb_lost, t, ascend_ring(t))
            t = "[ascend] [ERROR] [devdrv] [devdrv_heart_beat_broken 1733] <kworker/5:1H:39365> Device heartbeat broken, set device status abnormal. (dev_id=%d)" % culprit_dev
            K.add_at(hb_lost + timedelta(microseconds=812), t, ascend_ring(t))
        F.put("dmesg", K.dmesg_T())
        F.put("messages", syslog_noise(h, rng, T("2026-03-14 00:00:01", CST), tmo + timedelta(minutes=20), K.syslog(T("2026-03-14 00:00:00", CST))))
        console = []
        for r, pid in enumerate(pids):
            rank = (n - 1) * 8 + r
            c = Clock(job + timedelta(milliseconds=13 * r), rng)
            run = plog_init_noise(rng, c, pid, "python3", cann + "/aarch64-linux", r, "/workspace/llm", n_perf=12)
            run += plog_hccl_env(c, pid, "python3")
            run.append(plog_hdr("INFO", "HCCL", pid, "python3", c.jump(14)) + "[op_base.cc:1292] [%d]Entry-HcclCommInitRootInfoInner:ranks[64], rank[%d], rootinfo: host ip[%s] port[60000] nicDeploy[1] identifier[%s], deviceLogicId[%d]" % (pid, rank, root_ip, group, r))
            run.append(plog_hdr("INFO", "HCCL", pid, "python3", c.tick()) + "[hccl_communicator_attrs.cc:330] [%d][LocalRank Key Info]userRank[%d] hostIp[%s] devicePhyId[%d] server[%s] deviceIp[192.168.%d.%d] superPodId[0] useSuperPodMode[0] isStandardCard[0]" % (pid, rank, ip, r, ip, 100 + r, n))
            run += plog_steady_noise(rng, c, pid, "python3", 40, step_s=60)
            dbg = []
            if culprit and r == culprit_dev:
                d = hb_lost + timedelta(milliseconds=1900)
                dbg += [plog_hdr("ERROR", "DRV", pid, "python3", d) + "[ascend][curpid: %d, %d][drv][tsdrv][share_log_read 552]hdc connect down, devid(%d) fid(0) tsid(0) hdc connect down, devid(%d) fid(0) tsid(0)" % (pid, pid, r, r),
                        plog_hdr("ERROR", "RUNTIME", pid, "python3", d + timedelta(microseconds=410)) + "[device_error_proc.cc:1402]%d ProcessDeviceHeartBeatLost:[EXEC][DEFAULT]Device %d heartbeat lost, device status is abnormal, retCode=0x7150050." % (pid, r),
                        plog_hdr("ERROR", "RUNTIME", pid, "python3", d + timedelta(microseconds=560)) + "[stream.cc:1172]%d GetError:[EXEC][DEFAULT]Stream Synchronize failed, stream_id=2, retCode=0x7150050, [task scheduler lost heartbeat]." % pid]
                console += ["[rank%d]: Traceback (most recent call last):" % rank,
                            '[rank%d]:   File "/workspace/llm/pretrain.py", line 311, in train_step' % rank,
                            "[rank%d]:     torch.npu.synchronize()" % rank,
                            "[rank%d]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507010" % rank,
                            "[rank%d]: [ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed" % (rank, h.local(d).strftime("%Y-%m-%d-%H:%M:%S"), pid, r, rank),
                            "[rank%d]: [Error]: The task scheduler on the device loses heartbeat. " % rank,
                            "[rank%d]:         Rectify the fault based on the error information in the ascend log." % rank,
                            "E0314 02:41:25.118000 281473330003968 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: %d (pid: %d) of binary: /usr/local/python3.11.10/bin/python3.11" % (r, pid)]
            else:
                d = arrival + timedelta(milliseconds=rng.randint(100, 2900))
                run.append(plog_hdr("INFO", "HCCL", pid, "python3", d) + "[heartbeat.cc:951] [%d][TaskExecStage][HeartbeatAbnormal]local rank [%s/%d]: crimer rank [%s/%d] status[LOST] by informer rank [%s/%d]" % (pid + 7, ip, rank, culprit_ip, culprit_rank, "10.30.1.%d" % (10 + culprit_node), culprit_rank - 1 if culprit_dev else culprit_rank + 1))
                d2 = tmo + timedelta(milliseconds=rng.randint(10, 800))
                tag = "AllReduce_%s" % group
                dbg += [plog_hdr("ERROR", "HCCL", pid, "python3", d2) + "[task_exception_handler.cc:908] [%d][TaskExecStage][Timeout][Host]Task run failed, base information is streamID:[2], taskID[418211], tag[%s], AlgType(level 0-1-2):[fullmesh-ring-NHR]." % (pid, tag),
                        plog_hdr("ERROR", "HCCL", pid, "python3", d2 + timedelta(microseconds=12)) + "[task_exception_handler.cc:771] [%d][TaskExecStage][Timeout][Host]Task run failed, groupRank information is group:[%s], user define information[], rankSize[64], rankId[%d]." % (pid, group, rank),
                        plog_hdr("ERROR", "HCCL", pid, "python3", d2 + timedelta(microseconds=48)) + "[task_exception_handler.cc:704] [%d][TaskExecStage][Timeout][Host]Task run failed, opData information is timeStamp:[%s], deviceId[%d], index[418211], count[262144], reduceType[sum], src[0x12c0c0013000], dst[0x12c0c0014000], dataType[bfloat16]." % (pid, f_plog(issue + timedelta(microseconds=rng.randint(0, 90000))), r),
                        plog_hdr("ERROR", "HCCL", pid, "python3", d2 + timedelta(microseconds=95)) + "[task_exception_handler.cc:610] [%d][TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[%s/%d], Arrival Time:[%s], Discoverer:[%s/%d], ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited, 2. Network Disconnected" % (pid, culprit_ip, culprit_rank, f_ctime(arrival), ip, rank)]
                if r == 0:
                    console += ["[rank%d]: Traceback (most recent call last):" % rank,
                                '[rank%d]:   File "/workspace/llm/pretrain.py", line 297, in train_step' % rank,
                                "[rank%d]:     dist.all_reduce(grad_norm)" % rank,
                                "[rank%d]: RuntimeError: InnerRunOpApi:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:281 OPS function error: HcclAllreduce, error code is 9" % rank,
                                "[rank%d]: [ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR01200 OPS call hccl api failed" % (rank, h.local(d2).strftime("%Y-%m-%d-%H:%M:%S"), pid, r, rank),
                                "[rank%d]: EI0002: [PID: %d] %s The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank [%d].base information: [streamID:[2], taskID[418211], tag[AllReduce_%s], AlgType(level 0-1-2):[fullmesh-ring-NHR].] task information: [" % (rank, pid, f_plog(d2), culprit_rank, group),
                                "[rank%d]: there are(is) 1 abnormal device(s):" % rank,
                                "[rank%d]:     Cluster Exception Location[IP/ID]:[%s/%d], Arrival Time:[%s], Discoverer:[%s/%d], ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited, 2. Network Disconnected" % (rank, culprit_ip, culprit_rank, f_ctime(arrival), ip, rank),
                                "[rank%d]: ]" % rank,
                                "[rank%d]:         Possible Cause: 1. An exception occurs during the execution on some NPUs in the cluster. As a result, collective communication operation failed.2. The execution speed on some NPU in the cluster is too slow to complete a communication operation within the timeout interval. (default 1800s, You can set the interval by using HCCL_EXEC_TIMEOUT.)3. The number of training samples of each NPU is inconsistent.4. Packet loss or other connectivity problems occur on the communication link." % rank]
            F.put("process_log/run/plog/plog-%d_%s.log" % (pid, f_17(job + timedelta(milliseconds=13 * r))), run)
            if dbg:
                F.put("process_log/debug/plog/plog-%d_%s.log" % (pid, f_17(min(x for x in [hb_lost, tmo] if x > job) if culprit and r == culprit_dev else tmo)), dbg)
        head = ["%s INFO torchrun --nnodes=8 --node_rank=%d --nproc_per_node=8 --master_addr=%s --master_port=29500 pretrain.py --config cfg/llama3_70b.yaml" % (f_inst(job - timedelta(seconds=3)), n - 1, root_ip),
                "[rank%d]: HCCL group %s initialized, rank_size=64" % ((n - 1) * 8, group),
                "iteration     3400/  200000 | consumed samples:      3481600 | elapsed time per iteration (ms): 2612.4 | learning rate: 2.997E-04 | lm loss: 2.214471E+00 | grad norm: 0.812 |",
                "iteration     3410/  200000 | consumed samples:      3491840 | elapsed time per iteration (ms): 2609.8 | learning rate: 2.997E-04 | lm loss: 2.209315E+00 | grad norm: 0.794 |"]
        F.put("rank-%d.txt" % ((n - 1) * 8), head + console)
        hs = {}
        if culprit:
            du = (hb_lost - (h.boot + timedelta(seconds=38))).total_seconds()
            hs[culprit_dev] = ["[%s] system exception code [0xA8028802]: ModuleName [DRIVER], ExceptionReason [DRIVER_EXCEPTION], TimeStamp [%s-118000011]." % (hb_lost.astimezone(timezone.utc).strftime("%Y-%m-%d-%H:%M:%S.%f"), hb_lost.astimezone(timezone.utc).strftime("%Y%m%d%H%M%S"))]
            ev = {culprit_dev: ["[EVENT] DRV(3423,dms_poll_task):%s [dms_event.c:1399][fault_manager][%.6f] event_id=0x80e18401; device_id=%d; node_type=0x5f[DEVMNG]; node_id=0; sub_node_id=0; event_type=0x8[heartbeat lost]; severity=3[Critical]; assertion=1[Event occur]; description=[device heartbeat lost]; os_id=0; event_serial_num=41; notify_serial_num=0; event_raised_time=%d ms." % (f_plog(hb_lost.astimezone(timezone.utc) - timedelta(milliseconds=900)), du - 0.9, culprit_dev, epoch(hb_lost) * 1000 - 900)]}
            device_side(F, "device_log", h, rng, [0, culprit_dev], (job - timedelta(hours=1)).astimezone(timezone.utc), hb_lost.astimezone(timezone.utc), "slog", extra_hist={0: [], culprit_dev: hs[culprit_dev]}, n=40, extra_os=None)
            for dv, lines in ev.items():
                key = [k for k in F.data if k.startswith("device_log/slog/dev-os-%d/run/event/" % dv)][0]
                F.put(key, "\n".join(lines) + "\n", mode="a")
        else:
            device_side(F, "device_log", h, rng, [0], (job - timedelta(hours=1)).astimezone(timezone.utc), (tmo + timedelta(minutes=10)).astimezone(timezone.utc), "slog", extra_hist={0: []}, n=40)
        F.put("environment_check/npu_info_before.txt", npu_smi_info(h, "25.5.1", "25.5.1", rng=rng))
        F.put("environment_check/npu_info_after.txt", npu_smi_info(h, "25.5.1", "25.5.1", rng=rng, health={culprit_dev: "UNKNOWN"} if culprit else None))
        F.put("dmidecode.txt", ["# dmidecode 3.3", "Getting SMBIOS data from sysfs.", "SMBIOS 3.2.0 present.", "", "Handle 0x0001, DMI type 1, 27 bytes", "System Information",
                                "\tManufacturer: Huawei", "\tProduct Name: Atlas 800T A2", "\tVersion: V1", "\tSerial Number: 2102314NQS10P30000%02d" % n, "\tUUID: 3f6c2a10-8b1e-11ef-9c3a-a0b2c3d4e5%02d" % n])
        F.write()
        size += F.size()
    class _S:  # noqa: N801
        def size(self):
            return size
    return _S()


# ============================================================================================
# driver
# ============================================================================================
BUNDLES: dict = {}


def register():
    g = globals()
    for k, v in g.items():
        if k.startswith("bundle_") and callable(v):
            BUNDLES[k[len("bundle_"):].replace("_", "-")] = v


def generate(dest: str, only=None) -> dict:
    sizes = {}
    for name, fn in sorted(BUNDLES.items()):
        if only and name not in only:
            continue
        out = os.path.join(dest, name)
        if os.path.isdir(out):
            shutil.rmtree(out)
        F = fn(out)
        sizes[name] = F.size() if F else 0
    return sizes


def main() -> int:
    register()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", help="bundle name (repeatable)")
    ap.add_argument("--check", action="store_true", help="verify samples/ equals the generator output")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print("\n".join(sorted(BUNDLES)))
        return 0
    if a.check:
        with tempfile.TemporaryDirectory() as tmp:
            generate(tmp, a.only)
            bad = []
            for name in sorted(os.listdir(tmp)):
                cmp = filecmp.dircmp(os.path.join(tmp, name), os.path.join(SAMPLES, name))
                stack = [cmp]
                while stack:
                    c = stack.pop()
                    if c.left_only or c.right_only or c.diff_files:
                        bad.append("%s: only-new=%s only-committed=%s differ=%s" % (c.left, c.left_only, c.right_only, c.diff_files))
                    stack.extend(c.subdirs.values())
            if bad:
                print("\n".join(bad))
                return 1
            print("samples/ is up to date")
            return 0
    sizes = generate(SAMPLES, a.only)
    for k, v in sizes.items():
        print("%-45s %9d bytes" % (k, v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
