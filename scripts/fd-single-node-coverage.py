#!/usr/bin/env python3
"""Which faults of ascend-fd's single-node test does faultline recognise natively?

For every code that the vendor tool's single-node test (Ascend/mind-cluster
component/ascend-faultdiag/test/dt/test_kg_parse.py) expects, this script builds a one-node bundle
in the vendor's collection layout holding one line of that fault (a real-format line where one is
known, else a line built from the code's ordered substrings in the knowledge base (`regex.in`), in
the line shape of the code's source log kind), runs `faultline analyze --format json` on it with
faultline's own rules only, and reports:

  native   a fault finding whose external code is the ascend-fd code
  fault    a fault finding, under another code (or none)
  missed   no fault finding
  no-line  no line shape is known for this code (parser-computed by ascend-fd, or not in the KB)

The knowledge base (kg-config.json, default ../shared/corpus/peer/kb/kg-config.json) is read at run
time only, to build lines; nothing of it is written anywhere. Exit 77 (skip) when it is absent.

  scripts/fd-single-node-coverage.py [--kb FILE] [--binary build/faultline] [--verbose]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Codes test_kg_parse.py asserts (in its order).
TEST_CODES = [
    "AISW_CANN_ERRMSG_Custom_01", "AISW_CANN_ERRCODE_Custom_E30003", "AISW_TRACEBACK_RuntimeError",
    "AISW_PyTorch_Init_02", "AISW_PyTorch_ERRCODE_Common_ERR00002",
    "AISW_SEG_InitException", "AISW_SEG_UnknownError", "AISW_TRACEBACK_UnknownError",
    "AISW_TRACEBACK_DataError", "AISW_TRACEBACK_InitError",
    "AISW_TRACEBACK_ray.exceptions.RayTaskError", "AISW_TRACEBACK_TimeException",
    "Comp_OS_Kernel_FS_02", "0x40F84E00", "Comp_OS_Kernel_CPU_04",
    "AISW_CANN_Runtime_039", "AISW_CANN_Memory_Info_Custom", "AISW_CANN_Runtime_054",
    "Comp_Network_Custom_01", "0x8C03A000", "0x8C084E00", "0xA4025021", "AISW_CANN_DRV_Custom_01",
    "Comp_Network_Custom_07", "Comp_NPU_DRV_Custom_01", "Comp_NPU_DRV_Custom_02",
    "Comp_Network_Custom_05", "Comp_Network_Custom_08", "Comp_Network_Custom_09",
    "Comp_Network_Custom_10", "Comp_Network_Custom_02", "Comp_Network_Custom_03",
    "0x8C17A005", "Comp_Network_Custom_11", "Test_NPU_History_Code_1", "AISW_CANN_DRV_PCIE_046",
    "AISW_MindIE_MS_HttpServer_01", "AISW_MindIE_ERRCODE_Common_MIE03E400008",
    "Comp_Switch_L1_05", "AISW_MindX_Volcano_03", "AISW_MindX_Volcano_10",
    "AISW_MindX_Docker_Runtime_02", "AISW_MindX_Npu_Exporter_03", "AISW_MindX_Npu_Exporter_01",
    "0x0000001D", "0x2C000031", "AISW_MindIO_TTP_01", "AISW_CANN_AMCT_ALL_001",
    "Comp_Switch_L1_21",
]

# Real-format lines where one is known (vendor test inputs, public pastes), by code:
# (bundle path, lines). Cited in the rule files that match them.
KNOWN = {
    "Comp_OS_Kernel_FS_02": ("messages", [
        "May 27 14:03:11 node1 kernel: EXT4-fs error (device dm-3): dx_probe:740: inode "
        "#22288562: comm git: Directory index failed checksum"]),
    "Comp_OS_Kernel_CPU_04": ("crash/127.0.0.1-2024-09-23-11:25:29/vmcore-dmesg.txt", [
        "[  293.039556] NMI watchdog: Watchdog detected hard LOCKUP on cpu 34"]),
    "0x40F84E00": ("messages_0x40F84E00", [
        "Aug  1 09:41:00 node1 kernel: [ 5123.184409] [ascend] [drv_soft_fault] [ERROR] "
        "[heart_beat_judge 318] <kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; "
        "new_count=1104; lost_count=4; total_lost_count=4; total_10s_count=0; "
        "total_15s_count 0)."]),
    "AISW_CANN_DRV_PCIE_046": ("slog/host/host_kernel.log", [
        "[2025-04-16-03:08:13.704312] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2248] "
        "<systemd-udevd:4853:4853> Findout device. (index=7; device=d105; dev_num=0)",
        "[2025-04-16-03:08:13.704360] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2248] "
        "<systemd-udevd:4853:4853> DMA copy failed"]),
    "Comp_Network_Custom_11": ("device-1/device-1_20241204162140159.log", [
        "[EVENT] IMP(-2,IMP): 2024-12-04-08:21:54.994.714 70 (device_id:1 die_id:0) [IMP] "
        "present 1, mac_link 1, pcs_link 1, rf_lf 1, pcs_err_cnt 5, pcs_64_66b 4681"]),
    "Comp_Network_Custom_02": ("npu_info_before.txt", [
        "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -fec -g", "fec mode: no FEC mode"]),
    "Comp_Network_Custom_03": ("npu_info_before.txt", [
        "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -net_health -g",
        "net health status: Fault"]),
    "Comp_Network_Custom_01": ("npu_info_before.txt", [
        "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link_stat -g",
        "[device 0]current time        : Tue Jun  6 16:40:00 2023",
        "[device 0]link up count       : 1",
        "[device 0]link change records :",
        "[device 0]    Tue Jun  6 16:33:10 2023    LINK UP",
        "[device 0]    Tue Jun  6 16:32:10 2023    LINK DOWN"]),
    # answers of the vendor environment check judged across sections (src/env_check.cpp)
    "Comp_Network_Custom_05": ("npu_info_before.txt", [
        "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -optical -g", "optical info:",
        "present              : not present"]),
    "Comp_Network_Custom_08": ("npu_info_before.txt", [
        "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -optical -g", "optical info:",
        "Rx Power0            : 0.0054 mW", "RxPower High Thres   : 3.5481 mW",
        "RxPower Low Thres    : 0.1445 mW"]),
    "Comp_Network_Custom_09": ("npu_info_before.txt", [
        "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -optical -g", "optical info:",
        "Tx Los Flag          : 0x0", "Rx Los Flag          : 0xff"]),
    "Comp_Network_Custom_10": ("npu_info_before.txt", [
        "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -optical -g", "optical info:",
        "Tx LoL Flag          : 0x0", "Rx LoL Flag          : 0xff"]),
    "Comp_Network_Custom_07": ("npu_info_before.txt", [
        "/usr/local/Ascend/driver/tools/hccn_tool -i 2 -ip -g", "", "",
        "/usr/local/Ascend/driver/tools/hccn_tool -i 3 -ip -g", "ipaddr:192.161.203.10",
        "netmask:255.255.255.0"]),
    "Comp_NPU_DRV_Custom_02": ("npu_info_after.txt", [
        "/usr/local/bin/npu-smi info -i 0 -t board", "Invalid card id.", "Error parameter of -i"]),
    "Comp_NPU_DRV_Custom_01": ("npu_info_after.txt", [
        "/usr/local/bin/npu-smi info -i 0 -t board",
        "\tPCIe Bus Info                  : 0000:61:00.0", "",
        "lspci | grep acce",
        "60:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d801 (rev 20)"]),
    "AISW_CANN_DRV_Custom_01": ("npu_info_before.txt", [
        "/usr/local/bin/npu-smi info -i 0 -c 0 -t board",
        "\tChip Name                      : 910A", "",
        "/usr/local/bin/npu-smi info -i 0 -t usages",
        "\tHBM Capacity(MB)               : 31129"]),
    "0xA4025021": ("npu_info_after.txt", [
        "/usr/local/bin/npu-smi info -i 0 -c 0 -t health",
        "\tHealth Status                  : Alarm",
        "\tError Code                     : A4025021 8C03A000 8C084E00"]),
    # real-format lines of faultline's own rule examples (runtime.yaml, cann.yaml) in plog /
    # train-log shape, where the KB substrings alone do not make a line
    "AISW_CANN_Runtime_054": ("plog/plog-27271_20260227162415595.log", [
        "[ERROR] RUNTIME(27271,ker_DP7_EP7):2026-02-27-16:24:15.595.677 [npu_driver.cc:1534]34603 "
        "DevMemAllocHugePageManaged:[drv api] halMemAlloc failed:size=2122688(bytes), type=2, "
        "moduleId=3, drvFlag=216172782123369479, drvRetCode=6, device_id 7, ErrCode=207001, "
        "desc=[driver error:out of memory], InnerCode=0x7020016"]),
    "AISW_CANN_Runtime_039": ("plog/plog-10972_20230131024824126.log", [
        "[ERROR] RUNTIME(10972,python3):2023-01-31-02:48:24.126.521 [stream.cc:1188]10972 "
        "Memory async copy failed, device_id=0, stream_id=2, task_id=17983, flip_num=0, "
        "copy_type=2"]),
    "AISW_CANN_ERRMSG_Custom_01": ("rank-0.txt", [
        "E30008: [PID: 9120] 2025-04-10-14:20:11.555.666 AI CPU operator execution timed out. "
        "op name [GatherV2], timeout [28s]"]),
    "AISW_PyTorch_ERRCODE_Common_ERR00002": ("rank-1.txt", [
        "[ERROR] 2024-12-04-08:21:54 (PID:1041251, Device:0, RankID:0) ERR00002 PTA invalid type"]),
    "AISW_PyTorch_Init_02": ("rank-1.txt", [
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.9/site-packages/torch_npu/npu/utils.py", line 58, in '
        "set_device",
        "    torch_npu._C._npu_setDevice(device_id)",
        "RuntimeError: Initialize:torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:215 NPU "
        "error, error code is 507033"]),
    "AISW_TRACEBACK_RuntimeError": ("rank-0.txt", [
        "Traceback (most recent call last):",
        '  File "train.py", line 12, in <module>',
        "    main()",
        "RuntimeError: ACL stream synchronize failed, error code:507014"]),
    "AISW_MindIE_MS_HttpServer_01": ("mindie/log/debug/mindie-ms_11_202411061400.log", [
        "[2024-11-05 12:00:00.123456] [11] [1] [MS] [1] [ERROR] : [MIE03E400008] [HttpServer] "
        "Http server on timeout"]),
    "AISW_MindIE_ERRCODE_Common_MIE03E400008": (
        "mindie/log/debug/mindie-ms_11_202411061400.log", [
            "[2024-11-05 12:00:00.123456] [11] [1] [MS] [1] [ERROR] : [MIE03E400008] "
            "[HttpServer] Http server on timeout"]),
    "AISW_MindX_Volcano_03": ("dl_log/volcano-scheduler/volcano-scheduler.log", [
        "E0111 03:29:15.991928       1 reschedule.go:533]    Failed to get plugin "
        "volcano-npu_xxx_linux-xxx"]),
    "AISW_MindX_Docker_Runtime_02": ("dl_log/ascend-docker-runtime/runtime-run.log", [
        "[INFO]     2024/01/10 03:29:09.354927 1       hwlog/api.go:108    failed to check "
        "files, owner not right /usr/bin/runc xxxx"]),
    "AISW_MindX_Npu_Exporter_01": ("dl_log/npu-exporter/npu-exporter.log", [
        "[ERROR]    2024/01/10 02:29:39.034681 60      collector/npu_collector.go:1924    "
        "deviceManager init failed, prepare dcmi failed, err: cannot found valid driver lib, "
        "fromEnv: lib path is invalid, [/usr/local/Ascend/driver/lib64/driver/libdcmi.so: check "
        "uid or mode failed; /usr/local/dcmi/libdcmi.so: check uid or mode failed;]"]),
    "0x2C000031": ("dl_log/noded/noded.log", [
        "[INFO]     2999/10/01 03:39:17.760916 305     ipmimonitor/ipmi_monitor.go:206    get "
        "fault event, [device type: BMC]-[device id: 255]-[error code: 2C000031]"]),
    "AISW_CANN_AMCT_ALL_001": ("amct_log/amct_onnx.log", [
        "2024-10-23 10:47:11,976 - INFO - [AMCT]:[AMCT]: Layer batchmatmul_2 does not support "
        "asymmetric quant, set symmetric, No layer support in the graph"]),
}

SWITCH = ('[WARN]     2024/01/10 03:30:38.643330 17      deviceswitch/ascend_switch.go:190    '
          'switch subscribe got fault:deviceswitch.SwitchFaultEvent{{EventType:0x4, FaultID:0x0, '
          'AssembledFaultCode:"{c}", PeerPortDevice:0x1, PeerPortId:0x2, SwitchChipId:0x0, '
          'SwitchPortId:0x0, Severity:0x0, Assertion:0x1, EventSerialNum:0, NotifySerialNum:0, '
          'AlarmRaisedTime:0, AdditionalParam:"", AdditionalInfo:""}}, faultCode:{c}')


def substrings(entry):
    """The first ordered substring list of a KB entry's regex.in (a list of str); for a
    regex.opt line group (lines within N lines) the longest of its lines, as the importer
    reads it."""
    regex = entry.get("regex") or {}
    rin = regex.get("in") or []
    if not rin and regex.get("opt"):
        groups = [g for o in regex["opt"] if isinstance(o, dict) for g in (o.get("all") or [])
                  if isinstance(g, list)]
        groups = [[s for s in g if isinstance(s, str)] for g in groups]
        return max(groups, key=lambda g: len("".join(g))) if groups else None
    if not rin:
        return None
    first = rin[0]
    if isinstance(first, str):
        return [s for s in rin if isinstance(s, str)]
    return [s for s in first if isinstance(s, str)]


def built_line(code, entry):
    """(path, lines) built from the KB substrings in the line shape of the source kind."""
    subs = substrings(entry)
    if not subs:
        return None
    text = " ".join(subs)
    src = entry.get("source_file", "")
    # "CANN_Plog | OS": a code read from either source is built in the first one's shape (the
    # component sources keep their joint names: "NodeDLog | BMCLogDumpLog", "DL_DevicePlugin | ...")
    if src.startswith("CANN_Plog |"):
        src = "CANN_Plog"
    if src == "MindIE":
        return ("mindie/log/debug/mindie-ms_11_202411061400.log",
                ["[2024-11-05 12:00:00.123456] [11] [1] [MS] [1] [ERROR] : " + text])
    if src == "CANN_Amct":
        return ("amct_log/amct_onnx.log",
                ["2024-10-23 10:47:11,976 - ERROR - [AMCT]:[AMCT]: " + text])
    if src == "LCNE_LOG":
        return ("lcne_log/log_1_20250814013158.log",
                ["Jul 31 2025 18:36:19+08:00 sw1 %%01CLI/5/CMDRECORD(s):CID=0x80ca2713;" + text])
    if src.startswith("DL_DevicePlugin"):
        code_sub = next((s for s in subs if s.startswith("[0x")), None)
        if code_sub:
            return ("dl_log/devicePlugin/devicePlugin.log", [SWITCH.format(c=code_sub)])
        return ("dl_log/devicePlugin/devicePlugin.log",
                ["[ERROR]    2024/01/10 03:30:38.643330 17      main.go:1    " + text])
    if src == "DL_Npu_Exporter":
        return ("dl_log/npu-exporter/npu-exporter.log",
                ["[ERROR]    2024/01/10 02:29:39.034681 60      hccn/hccn.go:1    " + text])
    if src == "DL_Volcano_Controller" or src == "DL_Volcano_Scheduler":
        name = "volcano-controller" if src.endswith("Controller") else "volcano-scheduler"
        # "Failed to create pod" "for Job": the pod and job names sit between the parts
        return ("dl_log/%s/%s.log" % (name, name),
                ["E0111 03:29:16.002107       1 job.go:1] " + " x ".join(subs) + " y, err z"])
    if src.startswith("NodeDLog"):
        hexcode = code[2:] if code.startswith("0x") else code
        return ("dl_log/noded/noded.log",
                ["[INFO]     2999/10/01 03:39:17.760916 305     ipmimonitor/ipmi_monitor.go:206"
                 "    get fault event, [device type: CPU]-[device id: 0]-[error code: %s]"
                 % hexcode])
    if src == "MindIO":
        return ("dl_log/ttp_log/ttp_log.log.1",
                ["2024-06-18 17:25:32,167 - WARNING - [TTP controller.cpp:1] " + text])
    if src == "CANN_Plog":
        return ("plog/plog-10972_20230131024824126.log",
                ["[ERROR] RUNTIME(10972,python3):2023-01-31-02:48:24.126.521 [stream.cc:1]10972 "
                 + text])
    if src == "NPU_OS":
        # a device event as the device OS kernel log prints it through sklogd: the dms sensor
        # report line of a real asys collection (corpus/real, dev-os-0 messages), carrying the
        # event id and the code's node/sensor substrings
        event = code.lower() if code.lower().startswith("0x") else None
        if event:
            node = next((x for x in subs if x.startswith("Node Type=")), "Node Type=0x0;")
            sensor = next((x for x in subs if x.startswith("Sensor Type=")), "Sensor Type=0x0;")
            state = next((x for x in subs if x.startswith("event_state=")), "event_state=0)")
            text = ("[ascend] [dms_module] [dms_sensor_report_event 677] <dms_sensor_scan:3424:3424> "
                    "Event Process Success. (Event id=%s; %s Sensor num=0x0; name=\"x\"; %s %s"
                    % (event, node, sensor, state))
        return ("slog/dev-os-0/debug/device-os/device-os_20231031164139951.log",
                ["[ERROR] KERNEL(3551,sklogd):2023-10-31-16:41:39.951.235 "
                 "[klogd.c:242][583733.716915] " + text])
    if src == "PyMotor_vLLM_Log":
        # the stdout of vllm serve: the process prefix and the vLLM logger head
        return ("vllm_serve.log",
                ["(APIServer pid=2056) ERROR 12-03 10:12:01 [api_server.py:1] " + text])
    if src == "TrainLog":
        return ("rank-0.txt", [text])
    if src == "OS":
        return ("messages", ["May 27 14:03:11 node1 kernel: " + text])
    if src == "NPU_Host":
        return ("slog/host/host_kernel.log",
                ["[2025-04-16-03:08:13.704360] [ascend] [drv_pcie] [ERROR] [f 1] <x:1:1> " + text])
    return None


def run(binary, files, workdir):
    bundle = os.path.join(workdir, "bundle")
    os.makedirs(bundle)
    for path, lines in files.items():
        p = os.path.join(bundle, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n")
    out = subprocess.run([binary, "analyze", bundle, "--format", "json", "--no-kb"],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1) and "--no-kb" in out.stderr:
        out = subprocess.run([binary, "analyze", bundle, "--format", "json"],
                             capture_output=True, text=True)
    doc = json.loads(out.stdout)
    faults = []
    for f in doc.get("findings", []):
        if f.get("kind") == "fault":
            faults.append((f.get("id"), (f.get("fault") or {}).get("code")))
    return faults


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", default=os.path.join(ROOT, "..", "shared", "corpus", "peer", "kb",
                                                 "kg-config.json"))
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "faultline"))
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--components", action="store_true",
                    help="instead: every KB code of the component sources (MindX DL, Volcano, "
                         "noded, LCNE, MindIE, MindIO, AMCT, vLLM), each with a line built from its "
                         "substrings")
    ap.add_argument("--sources", default="",
                    help="instead: every KB code whose source_file starts with one of these "
                         "comma-separated sources (CANN_Plog, CANN_Device, OS, NPU_OS, ...), each "
                         "with a line built from its substrings")
    a = ap.parse_args()
    if not os.path.exists(a.kb):
        print("skip: no knowledge base at", a.kb)
        return 77
    kb = json.load(open(a.kb, encoding="utf-8")).get("knowledge-repository", {})
    by_lower = {k.lower(): k for k in kb}
    rows = []
    codes = TEST_CODES
    if a.components:
        comp = ("DL_", "NodeDLog", "LCNE_LOG", "MindIE", "MindIO", "CANN_Amct",
                "PyMotor_vLLM_Log")
        codes = [k for k, v in kb.items() if str(v.get("source_file", "")).startswith(comp)]
    elif a.sources:
        comp = tuple(x for x in a.sources.split(",") if x)
        codes = [k for k, v in kb.items() if str(v.get("source_file", "")).startswith(comp)]
    for code in codes:
        key = by_lower.get(code.lower())
        entry = kb.get(key) if key else None
        src = None if a.components or a.sources else KNOWN.get(code)
        origin = "real-format"
        if src is None and entry is not None:
            src = built_line(key, entry)
            origin = "built from KB substrings"
        if src is None:
            rows.append((code, "no-line", "in KB" if entry else "not in KB", ""))
            continue
        with tempfile.TemporaryDirectory(prefix="fd-cov-") as d:
            faults = run(a.binary, {src[0]: src[1]}, d)
        want = (key or code).lower()
        native = [i for i, c in faults if c and c.lower() == want]
        if native:
            rows.append((code, "native", origin, native[0]))
        elif faults:
            rows.append((code, "fault", origin, ",".join(i for i, _ in faults)))
        else:
            rows.append((code, "missed", origin, ""))
    width = max(len(r[0]) for r in rows)
    for code, status, origin, detail in rows:
        print("%-*s  %-7s  %-24s  %s" % (width, code, status, origin, detail))
    n = len(rows)
    counts = {s: sum(1 for r in rows if r[1] == s) for s in ("native", "fault", "missed",
                                                             "no-line")}
    with_line = n - counts["no-line"]
    print()
    print("codes of %s: %d (with a known line shape: %d)"
          % ("the component sources of the KB" if a.components else
             "sources " + a.sources if a.sources else "test_kg_parse.py", n,
             with_line))
    for s in ("native", "fault", "missed", "no-line"):
        print("  %-8s %d" % (s, counts[s]))
    if with_line:
        print("native share: %d/%d = %.0f%% of the codes with a line; any fault finding: %d/%d"
              % (counts["native"], with_line, 100.0 * counts["native"] / with_line,
                 counts["native"] + counts["fault"], with_line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
