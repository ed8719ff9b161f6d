// Issue 33 item 2: each diagnosis tested as a family, not as a sample. For the diagnoses whose
// premises issue 33 widened, the generator below builds bundles (in a temporary directory, never
// committed) that state every premise in one of its source forms, in one of the collectors'
// layouts, and analyses each end to end: the diagnosis must be the top root cause whatever the
// combination. The healthy decoys use the same sources stating a healthy state and must stay
// quiet (no finding of the family). Line shapes: the seeds, docs/log-formats.md, the graded
// corpus (argparse Namespace, ascend_install.log sessions, modules.dep, fstab(5), findmnt(8),
// mountinfo(5), ls -lR, find | wc -l).
#include "family_util.hpp"

using namespace fltest_family;
using namespace std::string_literals;

namespace {

// ------------------------------------------------------------------ config.bool_flag_misparsed
const char* kPid = "61342";
std::string cmdline_args(bool bad) {
  return bad ? "--amp False --pin-memory False" : "--amp True --pin-memory True";
}

const std::vector<Named> kFlagSources = {
    {"proc-cmdline-nul",
     [](Files& f, const std::string& p, bool bad) {
       std::string s = "/usr/bin/python3\0-u\0tools/train.py\0--cfg\0configs/r50.yaml\0"s;
       for (const char* a :
            {"--amp", bad ? "False" : "True", "--pin-memory", bad ? "False" : "True"})
         s += std::string(a) + '\0';
       f[p + "proc_" + kPid + "_cmdline"] = {s, ""};
     }},
    {"proc-dir-cmdline-tr",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "proc/" + kPid + "/cmdline"] = {
           "/usr/bin/python3 -u tools/train.py --cfg configs/r50.yaml " + cmdline_args(bad) + "\n",
           ""};
     }},
    {"run-script",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "run_debug.sh"] = {
           "#!/bin/bash\nexport ASCEND_LAUNCH_BLOCKING=1\n"
           "source /usr/local/Ascend/cann-8.5.0/set_env.sh\n"
           "python3 -u tools/train.py --cfg configs/r50.yaml \\\n    " +
               cmdline_args(bad) + " 2>&1 | tee logs/debug.log\n",
           ""};
     }},
    {"ps-ef",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "ps_-ef.txt"] = {
           "UID          PID    PPID  C STIME TTY          TIME CMD\n"
           "root       61342   61301 99 21:14 pts/0    00:12:03 /usr/bin/python3 -u "
           "tools/train.py --cfg configs/r50.yaml " +
               cmdline_args(bad) + "\n",
           ""};
     }},
    {"train-log-command-echo",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "console/train_launch.log"] = {
           "$ python3 -u tools/train.py --cfg configs/r50.yaml --device npu:0 " +
               cmdline_args(bad) + "\n",
           ""};
     }},
};

const std::vector<Named> kEffectiveSources = {
    {"namespace",
     [](Files& f, const std::string& p, bool /*bad*/) {
       // type=bool: bool('False') is True, so the program logs True whatever was passed
       f[p + "logs/debug_0226_2114.log"] = {
           "2026-02-26 21:14:09,227 INFO [train.py:44] args: Namespace(cfg='configs/r50.yaml', "
           "device='npu:0', batch_size=1, amp=True, pin_memory=True, epochs=1)\n"
           "2026-02-26 21:15:02,611 INFO [trainer.py:188] epoch 0 iter 20/118287 loss 23.4485 lr "
           "1.0e-05\n",
           ""};
     }},
    {"args-json",
     [](Files& f, const std::string& p, bool /*bad*/) {
       f[p + "output/r50_amp_off/args.json"] = {
           "{\n  \"cfg\": \"configs/r50.yaml\",\n  \"device\": \"npu:0\",\n  \"amp\": true,\n"
           "  \"pin_memory\": true,\n  \"epochs\": 1\n}\n",
           ""};
     }},
    {"dict",
     [](Files& f, const std::string& p, bool /*bad*/) {
       f[p + "train_rank0.log"] = {
           "args: {'cfg': 'configs/r50.yaml', 'amp': True, 'pin_memory': True, 'epochs': 1}\n"
           "Epoch 0 step 20 loss: 23.4485\n",
           ""};
     }},
};

// ------------------------------------------------------------------ cann.partial_install
std::string install_log(const std::string& ver) {
  return "[Nnal] [2025-11-18 15:31:09] [INFO]: Start Time: 2025-11-18 15:31:09\n"
         "[Nnal] [2025-11-18 15:31:09] [INFO]: InputParams: --install --quiet "
         "--install-path=/usr/local/Ascend\n"
         "[Nnal] [2025-11-18 15:31:09] [INFO]: base version is " +
         ver +
         ".\n"
         "[Nnal] [2025-11-18 15:31:10] [INFO]: install atb begin\n"
         "[Nnal] [2025-11-18 15:31:19] [INFO]: install atb end\n"
         "[Nnal] [2025-11-18 15:31:23] [INFO]: InstallPath: /usr/local/Ascend/nnal\n"
         "[Nnal] [2025-11-18 15:31:23] [INFO]: Nnal package installed successfully! The new "
         "version takes effect immediately.\n"
         "[Nnal] [2025-11-18 15:31:23] [INFO]: End Time: 2025-11-18 15:31:23\n";
}
const std::string kAtb = "/usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_1";
std::string lib_lines(bool bad) {
  return bad ? "total 0\n"
             : "total 18472\n"
               "-rwxr-xr-x 1 root root 14182400 Nov 18 15:31 libatb.so\n";
}

const std::vector<Named> kInstallSources = {
    {"seclog",
     [](Files& f, const std::string& p, bool) {
       f[p + "var_log_ascend_seclog/ascend_install.log"] = {install_log("8.2.RC1"), ""};
     }},
    {"npu-log-collect",
     [](Files& f, const std::string& p, bool) {
       f[p + "ascend_log_20251120103357/install_info/ascend_seclog/ascend_install.log"] = {
           install_log("8.2.RC1"), ""};
     }},
};

const std::vector<Named> kLibListingSources = {
    {"ls-lR",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "ls_atb.txt"] = {"[root@svc-2 ~]# ls -lR " + kAtb + "\n" + kAtb +
                                  ":\ntotal 4\ndrwxr-xr-x 2 root root 4096 Nov 18 15:31 lib\n\n" +
                                  kAtb + "/lib:\n" + lib_lines(bad),
                              ""};
     }},
    {"ls-lR-head",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "ls_atb.txt"] = {"[root@svc-2 ~]# ls -lR " + kAtb + " | head -40\n" + kAtb +
                                  ":\ntotal 4\ndrwxr-xr-x 2 root root 4096 Nov 18 15:31 lib\n\n" +
                                  kAtb + "/lib:\n" + lib_lines(bad),
                              ""};
     }},
    {"find-type-f-wc",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "session.txt"] = {
           "[root@svc-2 ~]# find " + kAtb + "/lib -type f | wc -l\n" + (bad ? "0\n" : "2\n"), ""};
     }},
};

// ------------------------------------------------------------------ driver.stale_module_link
const std::string kRel = "5.10.0-136.12.0.86.oe2203sp1.aarch64";
const std::vector<std::string> kMods = {"drv_pcie_host", "drv_devmm_host"};

const std::vector<Named> kResolveSources = {
    {"modules.dep",
     [](Files& f, const std::string& p, bool bad) {
       std::string s;
       for (const auto& m : kMods)
         s += std::string(bad ? "updates/dkms/" : "updates/") + m +
              ".ko: updates/ascend_kernel_adapt.ko updates/drv_seclib_host.ko\n";
       s += "updates/drv_seclib_host.ko: updates/ascend_kernel_adapt.ko\n";
       f[p + "mod_info/modules.dep"] = {s, ""};
     }},
    {"modinfo",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "mod_info/modinfo_drv_pcie_host.log"] = {
           "filename:       /lib/modules/" + kRel + (bad ? "/updates/dkms/" : "/updates/") +
               "drv_pcie_host.ko\n"
               "description:    Ascend host driver module\n"
               "depends:        drv_seclib_host,ascend_kernel_adapt\n"
               "name:           drv_pcie_host\n"
               "vermagic:       " +
               kRel + " SMP mod_unload modversions aarch64\n",
           ""};
     }},
};

const std::vector<Named> kLinkSources = {
    {"symlink-members",
     [](Files& f, const std::string& p, bool bad) {
       for (const auto& m : kMods) {
         f[p + "mod_info/updates/" + m + ".ko"] = {
             "\x7f"
             "ELF",
             ""};
         if (bad)
           f[p + "mod_info/updates/dkms/" + m + ".ko"] = {
               "", "/opt/Ascend-24.1.rc2/driver/host/" + m + ".ko"};
       }
     }},
    {"ls-l-transcript",
     [](Files& f, const std::string& p, bool bad) {
       std::string s = "[root@a2-031 ~]# ls -l /lib/modules/" + kRel + "/updates/dkms/\n";
       if (bad) {
         s += "total 0\n";
         for (const auto& m : kMods)
           s += "lrwxrwxrwx 1 root root 47 Jun 11  2024 " + m +
                ".ko -> /opt/Ascend-24.1.rc2/driver/host/" + m + ".ko\n";
       } else {
         s += "total 0\n";
       }
       f[p + "module_check.txt"] = {s, ""};
     }},
};

// ------------------------------------------------------------------
// install.uninstall_blocked_by_mount (and cann.toolkit_mount_shadowed must not fire: the uninstall
// emptied the mount point)
const std::vector<Named> kUninstallSources = {
    {"seclog-uninstall",
     [](Files& f, const std::string& p, bool bad) {
       std::string s =
           "[Toolkit] [2025-10-14 10:21:02] [INFO]: InputParams: --uninstall --quiet\n"
           "[Toolkit] [2025-10-14 10:21:02] [INFO]: step into run_toolkit_uninstall.sh ...\n";
       if (bad)
         s += "rm: cannot remove '/usr/local/Ascend/ascend-toolkit': Device or resource busy\n"
              "[Toolkit] [2025-10-14 10:21:27] [ERROR]: Toolkit package uninstall failed, please "
              "check the log for details.\n";
       else
         s += "[Toolkit] [2025-10-14 10:21:27] [INFO]: Toolkit package uninstalled "
              "successfully! Uninstallation takes effect immediately.\n";
       f[p + "ascend_log_20251014103357/install_info/ascend_seclog/ascend_install.log"] = {s, ""};
     }},
};

const std::vector<Named> kMountSources = {
    {"mountinfo",
     [](Files& f, const std::string& p, bool bad) {
       if (bad)
         f[p + "proc_self_mountinfo.txt"] = {
             "312 29 253:2 /ascend-toolkit /usr/local/Ascend/ascend-toolkit rw,relatime "
             "shared:170 - xfs /dev/mapper/datavg-data rw,attr2,inode64,noquota\n",
             ""};
     }},
    {"fstab",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "etc/fstab"] = {
           std::string("/dev/mapper/datavg-data /data xfs defaults 0 0\n") +
               (bad ? "/data/ascend-toolkit  /usr/local/Ascend/ascend-toolkit  none  bind  0 0\n"
                    : ""),
           ""};
     }},
    {"findmnt",
     [](Files& f, const std::string& p, bool bad) {
       if (bad)
         f[p + "findmnt.txt"] = {
             "TARGET                           SOURCE                                   FSTYPE "
             "OPTIONS\n"
             "/usr/local/Ascend/ascend-toolkit /dev/mapper/datavg-data[/ascend-toolkit] xfs    "
             "rw,relatime\n",
             ""};
     }},
};

// ------------------------------------------------------------------ dkms status (issue 33)
const std::vector<Named> kDkmsSources = {
    {"dkms-status-3",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "dkms_status.txt"] = {std::string("ascend-driver/") + (bad ? "24.1.rc2" : "25.2.0") +
                                       ", " + kRel + ", aarch64: installed\n",
                                   ""};
     }},
    {"dkms-status-2-in-session",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "session.txt"] = {"[root@a2-031 ~]# dkms status\nascend-driver, " +
                                   std::string(bad ? "24.1.rc2" : "25.2.0") + ", " + kRel +
                                   ", aarch64: installed\n",
                               ""};
     }},
};
const std::vector<Named> kDriverVersionSources = {
    {"version.info",
     [](Files& f, const std::string& p, bool) {
       f[p + "usr/local/Ascend/driver/version.info"] = {
           "Version=25.2.0\nascendhal_version=7.35.23\n", ""};
     }},
};
const std::vector<Named> kKernelLogSources = {
    {"messages",
     [](Files& f, const std::string& p, bool) {
       f[p + "var/log/messages"] = {
           "Aug 30 20:12:41 a2-031 kernel: drv_devmm_host: Unknown symbol "
           "devdrv_manager_register_client (err -22)\n",
           ""};
     }},
    {"dmesg",
     [](Files& f, const std::string& p, bool) {
       f[p + "host_log/dmesg.log"] = {
           "[   21.774310] drv_devmm_host: disagrees about version of symbol "
           "devdrv_manager_register_client\n"
           "[   21.774315] drv_devmm_host: Unknown symbol devdrv_manager_register_client (err "
           "-22)\n",
           ""};
     }},
};

// ------------------------------------------------------------------ process.deleted_libraries
const std::string kLib =
    "/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux/lib64/libascendcl.so";
const std::vector<Named> kDeletedSources = {
    {"maps",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "proc/1830422/maps"] = {"ffff8a200000-ffff8a9e0000 r-xp 00000000 fd:00 3412861    " +
                                         kLib + (bad ? " (deleted)" : "") + "\n",
                                     ""};
     }},
    {"lsof",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "lsof_1830422.txt"] = {
           "COMMAND       PID USER  FD   TYPE DEVICE SIZE/OFF     NODE NAME\n" +
               std::string(bad ? "python3   1830422 root  DEL    REG  253,0           3412861 "
                               : "python3   1830422 root  mem    REG  253,0  2310144  3412861 ") +
               kLib + "\n",
           ""};
     }},
    {"map_files",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "session.txt"] = {
           "[root@infer-01 ~]# ls -l /proc/1830422/map_files/\ntotal 0\n"
           "lr-------- 1 root root 64 Mar  5 17:02 ffff8a200000-ffff8a9e0000 -> " +
               kLib + (bad ? " (deleted)" : "") + "\n",
           ""};
     }},
};

// ------------------------------------------------------------------ cann.env_path_missing
// (issue 33 round 2: the environment of the process in every form a host keeps it; the fact
// shapes of rules/facts read the image, runtime, ConfigMap, env-file and ps forms)
std::string cann_dir(bool bad) {
  return std::string("/usr/local/Ascend/cann-") + (bad ? "8.5.1" : "8.5.0");
}
const std::vector<Named> kEnvSources = {
    {"printenv",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "printenv.txt"] = {"HOME=/root\nASCEND_HOME_PATH=" + cann_dir(bad) + "\n", ""};
     }},
    {"proc-environ-nul",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "proc/19334/environ"] = {
           "PATH=/usr/local/bin:/usr/bin\0LD_LIBRARY_PATH="s + cann_dir(bad) +
               "/lib64:/usr/local/Ascend/driver/lib64/driver\0HOME=/root\0"s,
           ""};
     }},
    {"systemd-unit",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "etc/systemd/system/mindie.service"] = {
           "[Unit]\nDescription=MindIE Server\n\n[Service]\nEnvironment=\"ASCEND_HOME_PATH=" +
               cann_dir(bad) +
               "\"\nExecStart=/usr/local/Ascend/mindie/latest/mindie-service/bin/"
               "mindieservice_daemon\n",
           ""};
     }},
    {"dockerfile-env",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "image/Dockerfile"] = {
           "FROM swr.cn-south-1.myhuaweicloud.com/ascendhub/ascend-pytorch:24.0.0-A2\n"
           "ENV ASCEND_TOOLKIT_HOME=" +
               cann_dir(bad) + " \\\n    ASCEND_OPP_PATH=" + cann_dir(bad) +
               "/opp\nWORKDIR /workspace\n",
           ""};
     }},
    {"dockerfile-env-legacy",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "image/Dockerfile.910b"] = {
           "FROM ascendhub/ascend-pytorch:24.0.0-A2\nENV ASCEND_HOME_PATH " + cann_dir(bad) + "\n",
           ""};
     }},
    {"docker-inspect",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "docker_inspect_mindie.json"] = {
           "[\n    {\n        \"Id\": "
           "\"6d1ad3e1c2f4b7a3c0e9d5f8a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e\",\n"
           "        \"Name\": \"/mindie-svc\",\n        \"Config\": {\n"
           "            \"Env\": [\n"
           "                \"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\",\n"
           "                \"ASCEND_HOME_PATH=" +
               cann_dir(bad) + "\"\n            ]\n        }\n    }\n]\n",
           ""};
     }},
    {"crictl-inspect",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "crictl_inspect_4f2a.json"] = {
           "{\n  \"status\": {\n    \"id\": \"4f2a9c1d\",\n    \"metadata\": {\n      "
           "\"attempt\": 0,\n      \"name\": \"mindie\"\n    }\n  },\n  \"info\": {\n    "
           "\"config\": {\n      \"envs\": [\n        {\n          \"key\": "
           "\"ASCEND_HOME_PATH\",\n          \"value\": \"" +
               cann_dir(bad) + "\"\n        }\n      ]\n    }\n  }\n}\n",
           ""};
     }},
    {"configmap-envfrom",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "k8s/configmap-ascend-env.yaml"] = {
           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ascend-env\n  namespace: "
           "mindie\ndata:\n  ASCEND_HOME_PATH: " +
               cann_dir(bad) + "\n  ASCEND_RT_VISIBLE_DEVICES: \"0,1,2,3\"\n",
           ""};
     }},
    {"environment-file",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "etc/default/mindie"] = {
           "# MindIE service environment (EnvironmentFile=)\n"
           "ASCEND_HOME_PATH=\"" +
               cann_dir(bad) + "\"\n",
           ""};
     }},
    {"script-source",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "run_mindie.sh"] = {
           "#!/bin/bash\nsource " + cann_dir(bad) + "/set_env.sh\nmindieservice_daemon\n", ""};
     }},
    {"ps-auxe",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "ps_auxe.txt"] = {
           "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
           "root       19334 98.7  3.1 41234568 8271236 ?   Sl   21:14  61:02 "
           "/usr/local/Ascend/mindie/latest/mindie-service/bin/mindieservice_daemon "
           "HOME=/root ASCEND_HOME_PATH=" +
               cann_dir(bad) + "\n",
           ""};
     }},
};
// what is installed: the version file of the install, or a listing of /usr/local/Ascend
const std::vector<Named> kInstalledSources = {
    {"version.cfg",
     [](Files& f, const std::string& p, bool) {
       f[p + "usr/local/Ascend/cann-8.5.0/version.cfg"] = {
           "# version: 1.0\nruntime_running_version=[8.5.0.1.2:8.5.0]\n"
           "compiler_running_version=[8.5.0.1.2:8.5.0]\n",
           ""};
     }},
    {"ls-l-ascend",
     [](Files& f, const std::string& p, bool) {
       f[p + "ls_ascend.txt"] = {
           "[root@mindie-01 ~]# ls -l /usr/local/Ascend\ntotal 16\n"
           "drwxr-xr-x 9 root root 4096 Nov 18 15:31 cann-8.5.0\n"
           "drwxr-xr-x 6 root root 4096 Nov 18 15:02 driver\n"
           "drwxr-xr-x 3 root root 4096 Nov 18 15:02 firmware\n"
           "drwxr-xr-x 4 root root 4096 Nov 18 15:40 mindie\n",
           ""};
     }},
};

// ------------------------------------------------------------------ svm.address_space_limit
const std::vector<Named> kLimitSources = {
    {"ulimit-a",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "ulimit_-a.txt"] = {std::string("core file size              (blocks, -c) 0\n"
                                             "max locked memory           (kbytes, -l) 8192\n"
                                             "open files                          (-n) 1024\n"
                                             "virtual memory              (kbytes, -v) ") +
                                     (bad ? "67108864" : "unlimited") + "\n",
                                 ""};
     }},
    {"proc-limits",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "proc/160233/limits"] = {
           std::string("Limit                     Soft Limit           Hard Limit           Units "
                       "    \n"
                       "Max open files            1048576              1048576              files  "
                       "   \n"
                       "Max address space         ") +
               (bad ? "68719476736          68719476736          bytes"
                    : "unlimited            unlimited            bytes") +
               "     \n",
           ""};
     }},
    {"slurm-ulimit",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "train.sbatch"] = {std::string("#!/bin/bash\n#SBATCH --job-name=r50\n#SBATCH "
                                            "--nodes=1\nulimit -v ") +
                                    (bad ? "67108864" : "unlimited") +
                                    "\nsrun python3 -u tools/train.py --cfg configs/r50.yaml\n",
                                ""};
     }},
    {"systemd-limitas",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "etc/systemd/system/train.service"] = {
           std::string("[Service]\nExecStart=/usr/bin/python3 -u /opt/train/train.py\nLimitAS=") +
               (bad ? "64G" : "infinity") + "\n",
           ""};
     }},
};
const std::vector<Named> kSvmFailureSources = {
    {"kernel-log",
     [](Files& f, const std::string& p, bool) {
       f[p + "host_log/dmesg.log"] = {
           "[ 3412.220871] [ascend] [devmm] [devmm_svm_mmap 1187] <python3:160233,160233> Svm map "
           "va not in range. (vm_start=0x7f2a40000000; vm_end=0x7f2b40000000; vm_pgoff=0x0; "
           "vm_flags=0x400fb)\n",
           ""};
     }},
};

// ------------------------------------------------------------------ device.heartbeat_lost
// seen from the device only (msnpureport / npu_log_collect device logs, the black box)
const std::vector<Named> kDeviceSideSources = {
    {"device-syslog-panic",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "device_log/message/dev-os-3/messages"] = {
           std::string("May  8 17:48:43 (none) kern.info kernel: [50047.252730][    C0] [bbox] "
                       "[device-3] blackbox receive [TS] exception at 1746697723.659997, exception "
                       "id is [0xb4060006], status: atomic[1], irqs disabled[0], irq[0].\n") +
               (bad ? "May  8 17:49:02 (none) kern.emerg kernel: [50066.112233][    C1] Kernel "
                      "panic - not syncing: Fatal exception in interrupt\n"
                    : "May  8 17:49:02 (none) kern.info kernel: [50066.112233][ T3255] [ascend] "
                      "[hdcdrv] session closed\n"),
           ""};
     }},
    {"black-box-vmcore",
     [](Files& f, const std::string& p, bool bad) {
       f[p + "msnpureport/2025-05-08-17-50-01/hisi_logs/device-3/history.log"] = {
           "[2025-05-08-17:49:02.118224] system exception code [0xB4060006]: ModuleName [TS], "
           "ExceptionReason [TS_EXCEPTION], TimeStamp [20250508174902-118224000].\n",
           ""};
       if (bad)
         f[p +
           "msnpureport/2025-05-08-17-50-01/hisi_logs/device-3/20250508174902-118224000/bin/"
           "vmcore"] = {
             "\x7f"
             "ELF\x02\x01\x01",
             ""};
     }},
};

}  // namespace

TEST_CASE("family: config.bool_flag_misparsed over flag sources x config dumps x layouts",
          "[premises][family]") {
  family("config.bool_flag_misparsed", {kFlagSources, kEffectiveSources},
         {"", "amp_off_check_0226/"}, {"config.bool_flag_misparsed"});
}

TEST_CASE("family: cann.partial_install over install logs x listings x layouts",
          "[premises][family]") {
  family("cann.partial_install", {kInstallSources, kLibListingSources},
         {"mindie-svc-2_debug/", "case/"}, {"cann.partial_install"});
}

TEST_CASE("family: driver.stale_module_link over resolvers x link evidence x layouts",
          "[premises][family]") {
  family("driver.stale_module_link", {kResolveSources, kLinkSources},
         {"npu_log_collect/", "node031/npu_log_collect/"}, {"driver.stale_module_link"});
}

TEST_CASE("family: uninstall blocked by a mount (not a shadowing mount) over mount sources",
          "[premises][family]") {
  family("install.uninstall_blocked_by_mount", {kUninstallSources, kMountSources},
         {"npu_log_collect/", "bj-a2-infer-05/"},
         {"install.uninstall_blocked_by_mount", "cann.toolkit_mount_shadowed"},
         {"cann.toolkit_mount_shadowed"});
}

TEST_CASE("family: driver.stale_module_link from dkms status x kernel logs x layouts",
          "[premises][family]") {
  family("driver.stale_module_link", {kDkmsSources, kDriverVersionSources, kKernelLogSources},
         {"", "node031/"}, {"driver.stale_module_link"});
}

TEST_CASE("family: process.deleted_libraries over maps, lsof and map_files x layouts",
          "[premises][family]") {
  family("process.deleted_libraries", {kDeletedSources}, {"extra/", "node-a/extra/"},
         {"process.deleted_libraries"});
}

TEST_CASE("family: cann.env_path_missing over environment sources x installed sets x layouts",
          "[premises][family]") {
  family("cann.env_path_missing", {kEnvSources, kInstalledSources}, {"", "node07/collect/"},
         {"cann.env_path_missing"});
}

TEST_CASE("family: svm.address_space_limit over limit sources x layouts", "[premises][family]") {
  family("svm.address_space_limit", {kLimitSources, kSvmFailureSources}, {"", "node02/"},
         {"svm.address_space_limit"});
}

TEST_CASE("family: device.heartbeat_lost from device-side records x layouts",
          "[premises][family]") {
  family("device.heartbeat_lost", {kDeviceSideSources}, {"", "node05/npu_log_collect/"},
         {"device.heartbeat_lost"});
}

// Sources that disagree: the process's own limit wins over the shell's (svm), and the report
// names the source the premise was read from.
TEST_CASE("premises: the process's own address-space limit wins over the shell's",
          "[premises][family]") {
  Files files;
  kLimitSources[0].add(files, "", true);   // the shell: ulimit -v 64 GiB
  kLimitSources[1].add(files, "", false);  // the process: unlimited
  kSvmFailureSources[0].add(files, "", true);
  CHECK(!has(analyse(files), "svm.address_space_limit"));
  Files unit;
  kLimitSources[3].add(unit, "", true);  // LimitAS=64G only
  kSvmFailureSources[0].add(unit, "", true);
  const auto rc = analyse(unit);
  REQUIRE(!rc.empty());
  CHECK(rc.front() == "svm.address_space_limit");
}
