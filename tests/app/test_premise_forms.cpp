// Issue 33, round 3: the source forms the first two rounds left unread, each tested as a family
// (family_util.hpp: every combination of one source per premise x layout x {fault, healthy
// decoy}, analysed end to end; the decoys state the healthy state through the same sources and
// must stay quiet). Forms: a wheel's RECORD against the files on disk; a program's own version
// report (vLLM collect_env.py, llamafactory-cli env, `>>> torch_npu.__version__`); NFS/autofs
// mounts over the toolkit; a session listing the toolkit inside a container and without the bind;
// the device's black box (hisi_logs history.log heartbeat-loss record, device OS lockup) as the
// cause of the host's queue stall. Line shapes: PyPA RECORD, vllm-ascend issue reports
// (collect_env), LLaMA-Factory docs (env), fstab(5)/mountinfo(5)/autofs(5), docker(1),
// hicann/oam-tools bbox history.log, log-formats.md §2.3 (device syslog), the seeds.
#include "family_util.hpp"

using namespace fltest_family;

namespace {

// ------------------------------------------------------------------ a wheel's RECORD vs the disk
const std::string kSite = "/usr/local/python3.10/lib/python3.10/site-packages";
const std::vector<std::string> kNpuLibs = {"libtorch_npu.so", "libnpu_profiler.so",
                                           "libop_plugin_atb.so"};

std::string record_text() {
  std::string s =
      "torch_npu/__init__.py,sha256=Qm3Lxk2H0y8N0V6q1uY0u9mYy8bV2o1P8o4b2eW7m1A,10846\n"
      "torch_npu/version.py,sha256=4nKq3mI1Zs8J7bQk0v2xH9wA6cT5eR1uY3oP8lN2dFg,112\n";
  for (const auto& l : kNpuLibs)
    s += "torch_npu/lib/" + l + ",sha256=3n8nH9b1u0kq2gE4b9PqkVq7rVQm7d0oHq3Jp3p9X2U,53348216\n";
  s += "torch_npu-2.1.0.post8.dist-info/RECORD,,\n";
  return s;
}

const std::vector<Named> kRecordSources = {
    {"dist-packages-copy",
     [](Files& f, const std::string& p, bool) {
       f[p +
         "usr/local/python3.10/lib/python3.10/site-packages/torch_npu-2.1.0.post8.dist-info/"
         "RECORD"] = {record_text(), ""};
     }},
    {"conda-env-copy",
     [](Files& f, const std::string& p, bool) {
       f[p +
         "pip_info/root/miniconda3/envs/vllm/lib/python3.11/site-packages/"
         "torch_npu-2.1.0.post8.dist-info/RECORD"] = {record_text(), ""};
     }},
};

const std::vector<Named> kDiskSources = {
    {"ls-l-lib-folder",
     [](Files& f, const std::string& p, bool bad) {
       std::string s = "[root@infer-01 ~]# ls -l " + kSite + "/torch_npu/lib\ntotal 52304\n";
       for (const auto& l : kNpuLibs)
         if (!bad || l != "libtorch_npu.so")
           s += "-rwxr-xr-x 1 root root 53348216 Nov 18 15:31 " + l + "\n";
       f[p + "session.txt"] = {s, ""};
     }},
    {"ls-cannot-access",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "check_torch_npu.txt"] = {
           "[root@infer-01 ~]# ls -l " + kSite + "/torch_npu/lib/libtorch_npu.so\n" +
               (bad ? "ls: cannot access '" + kSite +
                          "/torch_npu/lib/libtorch_npu.so': No such file or directory\n"
                    : "-rwxr-xr-x 1 root root 53348216 Nov 18 15:31 " + kSite +
                          "/torch_npu/lib/libtorch_npu.so\n"),
           ""};
     }},
};

// ------------------------------------------------------------------ the program's version report
// torch_npu 2.8.0.post2 pairs with CANN 8.5.0 (rules/compat/torch_npu.yaml; seed 002 §1): the
// fault runs it with CANN 9.0.0, the decoy with 8.5.0
std::string cann(bool bad) {
  return bad ? "9.0.0" : "8.5.0";
}

const std::vector<Named> kTorchNpuSources = {
    {"collect-env-pip",
     [](Files& f, const std::string& p, bool) {
       f[p + "collect_env.txt"] = {
           "PyTorch version: 2.8.0+cpu\nIs debug build: False\n\n"
           "Versions of relevant libraries:\n[pip3] numpy==1.26.4\n[pip3] pyzmq==27.1.0\n"
           "[pip3] torch==2.8.0+cpu\n[pip3] torch_npu==2.8.0.post2\n[pip3] torchvision==0.23.0\n"
           "[pip3] transformers==4.57.3\n[conda] Could not collect\nvLLM Version: 0.13.0\n"
           "vLLM Ascend Version: 0.13.0rc1\n",
           ""};
     }},
    {"collect-env-conda",
     [](Files& f, const std::string& p, bool) {
       f[p + "env/collect_env_output.txt"] = {
           "Versions of relevant libraries:\n[pip3] torch==2.8.0\n[pip3] torch-npu==2.8.0.post2\n"
           "[conda] torch                     2.8.0                    pypi_0    pypi\n"
           "[conda] torch-npu                 2.8.0.post2              pypi_0    pypi\n"
           "vLLM Version: 0.11.0\nvLLM Ascend Version: 0.11.0rc3\n",
           ""};
     }},
    {"python-repl",
     [](Files& f, const std::string& p, bool) {
       f[p + "session_versions.txt"] = {
           "[root@infer-01 ~]# python3\n"
           "Python 3.10.14 (main, Oct 21 2025, 10:02:11) [GCC 9.4.0] on linux\n"
           "Type \"help\", \"copyright\", \"credits\" or \"license\" for more information.\n"
           ">>> import torch\n>>> import torch_npu\n>>> torch.__version__\n'2.8.0'\n"
           ">>> torch_npu.__version__\n'2.8.0.post2'\n",
           ""};
     }},
};

const std::vector<Named> kCannReportSources = {
    {"collect-env-cann-section",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "collect_env_cann.txt"] = {
           "vLLM Ascend Version: 0.13.0rc1\n\nCANN:\npackage_name=Ascend-cann-toolkit\nversion=" +
               cann(bad) +
               "\ninnerversion=V100R001C23SPC002B210\narch=aarch64\nos=linux\n"
               "path=/usr/local/Ascend/ascend-toolkit/" +
               cann(bad) + "/aarch64-linux\n",
           ""};
     }},
    {"llamafactory-env",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "llamafactory_env.txt"] = {
           "- `llamafactory` version: 0.9.2\n"
           "- Platform: Linux-4.19.90-vhulk2211.3.0.h1543.eulerosv2r10.aarch64-aarch64-with-"
           "glibc2.31\n- Python version: 3.10.14\n- PyTorch version: 2.8.0 (NPU)\n"
           "- Transformers version: 4.45.0\n- NPU type: Ascend910B2\n- CANN version: " +
               cann(bad) + "\n",
           ""};
     }},
};

// ------------------------------------------------------------------ NFS / autofs over the toolkit
const std::string kTk = "/usr/local/Ascend/ascend-toolkit";
const std::vector<Named> kNfsSources = {
    {"fstab-nfs4",
     [](Files& f, const std::string& p, bool) {
       f[p + "etc/fstab"] = {
           "/dev/mapper/openeuler-root /                       ext4    "
           "defaults        1 1\n"
           "nas01.example:/export/ascend-toolkit  " +
               kTk + "  nfs4  ro,soft,vers=4.1,_netdev  0 0\n",
           ""};
     }},
    {"mountinfo-nfs4",
     [](Files& f, const std::string& p, bool) {
       f[p + "proc/1/mountinfo"] = {
           "22 1 253:0 / / rw,relatime shared:1 - ext4 /dev/mapper/openeuler-root rw\n"
           "318 22 0:54 / " +
               kTk +
               " ro,relatime shared:170 - nfs4 nas01.example:/export/ascend-toolkit "
               "ro,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,soft,proto=tcp,timeo=600,"
               "retrans=2,sec=sys,clientaddr=10.0.3.17,local_lock=none,addr=10.0.3.2\n",
           ""};
     }},
    {"autofs-direct",
     [](Files& f, const std::string& p, bool) {
       f[p + "etc/auto.direct"] = {
           kTk + "   -fstype=nfs,ro,soft   nas01.example:/export/ascend-toolkit\n", ""};
     }},
    {"mount-output",
     [](Files& f, const std::string& p, bool) {
       f[p + "mount.txt"] = {
           "/dev/mapper/openeuler-root on / type ext4 (rw,relatime)\n"
           "nas01.example:/export/ascend-toolkit on " +
               kTk + " type nfs4 (ro,relatime,vers=4.1,soft,proto=tcp,timeo=600,retrans=2)\n",
           ""};
     }},
};

std::string toolkit_listing(bool bad) {
  return bad ? "total 0\n"
             : "total 12\n"
               "drwxr-xr-x 10 root root 4096 Nov 18 15:31 8.5.0\n"
               "lrwxrwxrwx  1 root root    5 Nov 18 15:31 latest -> 8.5.0\n"
               "-rwxr-xr-x  1 root root  612 Nov 18 15:31 set_env.sh\n";
}

const std::vector<Named> kToolkitStateSources = {
    {"ls-la-toolkit",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "session.txt"] = {"[root@a2-031 ~]# ls -la " + kTk + "\n" + toolkit_listing(bad), ""};
     }},
    {"ls-set-env",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "check_toolkit.txt"] = {
           "[root@a2-031 ~]# ls -l " + kTk + "/set_env.sh\n" +
               (bad ? "ls: cannot access '" + kTk + "/set_env.sh': No such file or directory\n"
                    : "-rwxr-xr-x 1 root root 612 Nov 18 15:31 " + kTk + "/set_env.sh\n"),
           ""};
     }},
};

// ------------------------------------------------------------------ a session listing the toolkit
// inside the container and without the bind (seed 002 §2: the host's empty toolkit directory
// mounted over the image's)
const std::string kImage = "swr.cn-south-1.myhuaweicloud.com/ascendhub/ascend-pytorch:24.0.0-A2";
const std::vector<Named> kInsideSources = {
    {"docker-exec-ls",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "docker_inspect_train.json"] = {
           "[\n    {\n        \"Name\": \"/train\",\n        \"Mounts\": [\n            {\n"
           "                \"Type\": \"bind\",\n"
           "                \"Source\": \"/data/ascend/ascend-toolkit\",\n"
           "                \"Destination\": \"" +
               kTk +
               "\",\n                \"Mode\": \"\",\n                \"RW\": true,\n"
               "                \"Propagation\": \"rprivate\"\n            }\n        ]\n    "
               "}\n]\n",
           ""};
       // the host lists its own (complete) toolkit; inside the container the same path is the bind
       f[p + "session.txt"] = {"[root@a2-031 ~]# ls -la " + kTk + "\n" + toolkit_listing(false) +
                                   "[root@a2-031 ~]# docker exec -it train ls -la " + kTk + "\n" +
                                   toolkit_listing(bad),
                               ""};
     }},
    {"docker-run-v-ls",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "session.txt"] = {
           "[root@a2-031 ~]# docker run --rm -v /data/ascend/ascend-toolkit:" + kTk + " " + kImage +
               " ls -la " + kTk + "\n" + toolkit_listing(bad),
           ""};
     }},
    {"kubectl-exec-ls",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "k8s/pod-train-0.yaml"] = {
           "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train-0\n"
           "spec:\n  containers:\n  - name: main\n    image: " +
               kImage +
               "\n    volumeMounts:\n    - name: toolkit\n"
               "      mountPath: " +
               kTk +
               "\n  volumes:\n  - name: toolkit\n    hostPath:\n"
               "      path: /data/ascend/ascend-toolkit\n",
           ""};
       f[p + "session.txt"] = {"root@master01:~# kubectl exec -it train-0 -c main -- ls -la " +
                                   kTk + "\n" + toolkit_listing(bad),
                               ""};
     }},
};
// the image's own toolkit, listed without the bind (what the mount hides)
const std::vector<Named> kWithoutBindSources = {
    {"docker-run-image-ls",
     [](Files& f, const std::string& p, bool) {
       f[p + "image_check.txt"] = {"[root@a2-031 ~]# docker run --rm " + kImage + " ls -la " + kTk +
                                       "\n" + toolkit_listing(false),
                                   ""};
     }},
    {"none", [](Files&, const std::string&, bool) {}},
};

// ------------------------------------------------------------------ device-side evidence and the
// host's queue stall (two three-minute reports of one stream/task with sqHead/pendingNum unchanged)
const std::vector<Named> kBlackBoxSources = {
    {"history-hbl",
     [](Files& f, const std::string& p, bool bad) {
       std::string s =
           "[2025-05-08-17:48:43.659997] system exception code [0xB4060006]: ModuleName [TS], "
           "ExceptionReason [TS_EXCEPTION], TimeStamp [20250508174843-659997000].\n";
       if (bad)
         s += "[2025-05-08-17:49:35.118224] system exception code [0x68020002]: ModuleName "
              "[DRIVER], ExceptionReason [DEVICE_HBL_EXCEPTION], TimeStamp "
              "[20250508174935-118224000].\n";
       f[p + "msnpureport/2025-05-08-17-50-01/hisi_logs/device-3/history.log"] = {s, ""};
     }},
    {"device-syslog-hard-lockup",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "device_log/message/dev-os-3/messages"] = {
           std::string("May  8 17:48:43 (none) kern.info kernel: [50047.252730][    C0] [bbox] "
                       "[device-3] blackbox receive [TS] exception at 1746697723.659997, "
                       "exception id is [0xb4060006], status: atomic[1], irqs disabled[0], "
                       "irq[0].\n") +
               (bad ? "May  8 17:48:58 (none) kern.emerg kernel: [50062.004411][    C1] NMI "
                      "watchdog: Watchdog detected hard LOCKUP on cpu 1\n"
                    : "May  8 17:48:58 (none) kern.info kernel: [50062.004411][ T3255] [ascend] "
                      "[hdcdrv] session closed\n"),
           ""};
     }},
};
const std::vector<Named> kStallSources = {
    {"plog-three-minutes",
     [](Files& f, const std::string& p, bool) {
       f[p + "ascend/log/debug/plog/plog-31337_20260312101007118.log"] = {
           "[ERROR] RUNTIME(31337,python3):2026-03-12-10:14:07.118.245 [stream.cc:1402]31420 "
           "SynchronizeExecutedTask:report three minutes timeout! stream_id=47, task_id=1280, "
           "sqHead=500, pendingNum=781\n"
           "[ERROR] RUNTIME(31337,python3):2026-03-12-10:17:07.118.502 [stream.cc:1402]31420 "
           "SynchronizeExecutedTask:report three minutes timeout! stream_id=47, task_id=1280, "
           "sqHead=500, pendingNum=781\n",
           ""};
     }},
};

}  // namespace

TEST_CASE("family: cann.partial_install from a wheel's RECORD x the files on disk x layouts",
          "[premises][family]") {
  family("cann.partial_install", {kRecordSources, kDiskSources}, {"", "infer-01/collect/"},
         {"cann.partial_install"});
}

TEST_CASE("family: framework.version_mismatch from the program's own version report",
          "[premises][family]") {
  family("framework.version_mismatch", {kTorchNpuSources, kCannReportSources}, {"", "node02/vllm/"},
         {"framework.version_mismatch"});
}

TEST_CASE("family: cann.toolkit_mount_shadowed by NFS and autofs mounts x toolkit state",
          "[premises][family]") {
  family("cann.toolkit_mount_shadowed", {kNfsSources, kToolkitStateSources}, {"", "a2-031/"},
         {"cann.toolkit_mount_shadowed"});
}

TEST_CASE(
    "family: cann.toolkit_mount_shadowed from listings inside the container and without "
    "the bind",
    "[premises][family]") {
  family("cann.toolkit_mount_shadowed", {kInsideSources, kWithoutBindSources},
         {"", "a2-031/debug/"}, {"cann.toolkit_mount_shadowed"});
}

// A mount shadows only what was there: the image listed without the bind holds nothing at the
// path either, so the empty toolkit inside the container is not the mount's doing.
TEST_CASE("premises: a bind over a path the image leaves empty hides nothing",
          "[premises][family]") {
  for (const auto& inside : kInsideSources) {
    INFO(inside.name);
    Files files;
    inside.add(files, "", true);  // the container lists the path empty
    files["image_check.txt"] = {
        "[root@a2-031 ~]# docker run --rm " + kImage + " ls -la " + kTk + "\ntotal 0\n", ""};
    CHECK(!has(analyse(files), "cann.toolkit_mount_shadowed"));
  }
}

TEST_CASE("family: device.heartbeat_lost from the black box explains the host's queue stall",
          "[premises][family]") {
  family("device.heartbeat_lost", {kBlackBoxSources, kStallSources},
         {"", "node05/npu_log_collect/"}, {"device.heartbeat_lost"});
  for (const auto& src : kBlackBoxSources) {
    INFO(src.name);
    Files files;
    src.add(files, "", true);
    kStallSources[0].add(files, "", true);
    std::map<std::string, std::string> symptoms;
    const auto rc = analyse(files, &symptoms);
    REQUIRE(!rc.empty());
    CHECK(rc.front() == "device.heartbeat_lost");
    CHECK(symptoms["runtime.device_queue_stalled"] == "device.heartbeat_lost");
  }
}
