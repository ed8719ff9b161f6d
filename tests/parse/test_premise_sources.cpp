// Issue 33: a premise read from every form a host states it in. Each case below is one more
// source form of a premise a diagnosis reads (docs/diagnoses.md "Premises and their sources"):
// - install state against files: `ls -lR DIR | head -N` (a pasted session usually cuts long
//   listings with head) still says that a library directory is empty;
// - mounts: /etc/fstab bind entries (fstab(5): `/data/x /usr/local/x none bind 0 0`) and
//   findmnt(8) tables (`SOURCE[/root]` for a bind) beside /proc/<pid>/mountinfo;
// - kernel modules: the npu_log_collect `mod_info/` copy of /lib/modules/$(uname -r) (symlink
//   members under mod_info/updates/dkms/ are anchored like the paths its modules.dep names).
#include "faultline/parse/fs_path.hpp"
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
// A pasted session listing an NNAL tree through head (the whole output is shorter than 40).
const char* kHeadLR = R"X($ ls -lR /usr/local/Ascend/nnal/atb/8.2.RC1/atb | head -40
/usr/local/Ascend/nnal/atb/8.2.RC1/atb:
total 8
drwxr-xr-x 6 root root 4096 Nov 18 15:31 cxx_abi_0
drwxr-xr-x 6 root root 4096 Nov 18 15:31 cxx_abi_1

/usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_0:
total 12
drwxr-xr-x 2 root root 4096 Nov 18 15:31 bin
drwxr-xr-x 2 root root 4096 Nov 18 15:31 lib
-rw-r--r-- 1 root root  862 Nov 18 15:31 set_env.sh

/usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_0/lib:
total 0

/usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_1/lib:
total 0
)X";
}  // namespace

TEST_CASE("premises: ls -lR | head -N shorter than N is a complete listing",
          "[parse][outputs][fs][premises]") {
  const auto r = run("ls_listing", kHeadLR);
  INFO(dump(r));
  check_facts(r, {{"dir.entries./usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_0/lib", "0", 14},
                  {"dir.entries./usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_1/lib", "0", 17},
                  {"dir.entries./usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_0", "3", 8}});
  CHECK(r.malformed == 0);
}

TEST_CASE("premises: a listing head may have cut states only its whole sections",
          "[parse][outputs][fs][premises]") {
  // head -6 stops right after the empty-looking `total 0` of the second section: that section
  // may have gone on, the first one was followed by another header and is whole
  const auto r = run("ls_listing",
                     "$ ls -lR /usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_1 | head -6\n"
                     "/usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_1:\n"
                     "total 4\n"
                     "drwxr-xr-x 2 root root 4096 Nov 18 15:31 lib\n"
                     "\n"
                     "/usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_1/lib:\n"
                     "total 0\n");
  INFO(dump(r));
  CHECK(has(r, "dir.entries./usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_1", "1"));
  CHECK_FALSE(has_name(r, "dir.entries./usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_1/lib"));
  SECTION("head -c (bytes) or a grep after head is no plain cut") {
    const auto g = run("ls_listing",
                       "$ ls -lR /opt/x | head -40 | grep -v so\n"
                       "/opt/x/lib:\n"
                       "total 0\n");
    CHECK_FALSE(has_name(g, "dir.entries./opt/x/lib"));
    const auto c = run("ls_listing",
                       "$ ls -lR /opt/x | head -c 4096\n"
                       "/opt/x/lib:\n"
                       "total 0\n");
    CHECK_FALSE(has_name(c, "dir.entries./opt/x/lib"));
  }
}

TEST_CASE("premises: /etc/fstab binds are mounts whose root is the bound directory",
          "[parse][outputs][mountinfo][premises]") {
  const auto r = run("mountinfo",
                     "# /etc/fstab: static file system information.\n"
                     "/dev/disk/by-uuid/0b5c0f8e-7b1d-4c8a-9e53-2f7c1a9e4d11 / ext4 defaults 0 1\n"
                     "UUID=5A1C-3F2E /boot/efi vfat umask=0077 0 1\n"
                     "/dev/mapper/datavg-data /data xfs defaults 0 0\n"
                     "/data/ascend-toolkit  /usr/local/Ascend/ascend-toolkit  none  bind  0 0\n"
                     "nfs01:/export/models /mnt/models nfs rw,hard,_netdev\n",
                     "etc/fstab");
  INFO(dump(r));
  check_facts(
      r, {{"mount./usr/local/Ascend/ascend-toolkit",
           "root=/data/ascend-toolkit source=/data/ascend-toolkit fstype=none opts=bind "
           "scope=fstab",
           5},
          {"mount./data",
           "root=? source=/dev/mapper/datavg-data fstype=xfs opts=defaults scope=fstab", 4},
          {"mount./mnt/models",
           "root=? source=nfs01:/export/models fstype=nfs opts=rw,hard,_netdev scope=fstab", 6}});
  CHECK(r.malformed == 0);
  // the bind over an Ascend path is an event like a mountinfo bind
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].line == 5);
}

TEST_CASE("premises: findmnt tables give the bind's root from SOURCE[/root]",
          "[parse][outputs][mountinfo][premises]") {
  const auto r = run("mountinfo",
                     "TARGET                           SOURCE                                   "
                     "FSTYPE OPTIONS\n"
                     "/usr/local/Ascend/ascend-toolkit /dev/mapper/datavg-data[/ascend-toolkit] "
                     "xfs    rw,relatime,attr2,inode64,noquota\n",
                     "findmnt_--target__usr_local_Ascend_ascend-toolkit");
  INFO(dump(r));
  check_facts(r, {{"mount./usr/local/Ascend/ascend-toolkit",
                   "root=/ascend-toolkit source=/dev/mapper/datavg-data fstype=xfs "
                   "opts=rw,relatime,attr2,inode64,noquota",
                   2}});
  // the tree form (plain `findmnt`): drawing characters before the target
  const auto t = run("mountinfo",
                     "TARGET                SOURCE    FSTYPE OPTIONS\n"
                     "/                     /dev/sda2 ext4   rw,relatime\n"
                     "\xe2\x94\x9c\xe2\x94\x80/data               /dev/sdb1 xfs    rw,relatime\n"
                     "\xe2\x94\x94\xe2\x94\x80/usr/local/Ascend   /dev/sdb1[/Ascend] xfs rw\n");
  INFO(dump(t));
  CHECK(has(t, "mount./usr/local/Ascend", "root=/Ascend source=/dev/sdb1 fstype=xfs opts=rw"));
  CHECK(has(t, "mount./", "root=/ source=/dev/sda2 fstype=ext4 opts=rw,relatime"));
  CHECK(t.malformed == 0);
}

TEST_CASE("premises: npu_log_collect mod_info/ is the module directory", "[parse][fs][premises]") {
  using faultline::parse::host_path_of_member;
  // symlink members of the collector's module copy: anchored like its modules.dep lines
  CHECK(host_path_of_member(
            "bundle.tar.gz!/npu_log_collect/mod_info/updates/dkms/drv_pcie_host.ko") ==
        "updates/dkms/drv_pcie_host.ko");
  CHECK(host_path_of_member("npu_log_collect/mod_info/extra/drv_devmm_host.ko") ==
        "extra/drv_devmm_host.ko");
  // not a module tree below mod_info/, or another directory of that name: as before
  CHECK(host_path_of_member("npu_log_collect/mod_info/lsmod.log") ==
        "npu_log_collect/mod_info/lsmod.log");
  CHECK(host_path_of_member("case/xmod_info/updates/a.ko") == "case/xmod_info/updates/a.ko");
  // a real root directory still wins when it comes first
  CHECK(host_path_of_member("node07/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko") ==
        "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko");
}

TEST_CASE("premises: lsof DEL and (deleted) rows are deleted mappings of the process",
          "[parse][outputs][lsof][premises]") {
  // lsof(8) columns; a DEL row has no SIZE/OFF, a txt/mem row of a removed file ends in
  // " (deleted)"; sockets, /dev and SysV shared memory are not replaced files
  const auto r = run(
      "lsof",
      "COMMAND       PID USER  FD   TYPE DEVICE SIZE/OFF     NODE NAME\n"
      "python3   1830422 root  DEL    REG  253,0           3412861 "
      "/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux/lib64/libascendcl.so\n"
      "python3   1830422 root  mem    REG  253,0  2310144  3412870 "
      "/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux/lib64/libhccl.so (deleted)\n"
      "python3   1830422 root  DEL    REG    0,1              32771 /SYSV00000000\n"
      "python3   1830422 root  mem    REG  253,0   141872  1048602 /usr/lib64/libpthread-2.28.so\n"
      "python3   1830422 root   12u  IPv4 981234      0t0      TCP *:8080 (LISTEN)\n");
  INFO(dump(r));
  check_facts(r,
              {{"process.1830422.deleted",
                "/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux/lib64/libascendcl.so", 2},
               {"process.1830422.deleted",
                "/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux/lib64/libhccl.so", 3}});
  CHECK(count(r, "process.1830422.deleted") == 2);
  CHECK(r.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].keep);
}

TEST_CASE("premises: /proc/<pid>/map_files links to removed files",
          "[parse][outputs][fs][premises]") {
  const auto r = run("ls_listing",
                     "$ ls -l /proc/1830422/map_files/\n"
                     "total 0\n"
                     "lr-------- 1 root root 64 Mar  5 17:02 ffff8a200000-ffff8a9e0000 -> "
                     "/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux/lib64/libge_runner.so "
                     "(deleted)\n"
                     "lr-------- 1 root root 64 Mar  5 17:02 ffff8b000000-ffff8b020000 -> "
                     "/usr/lib64/libm-2.28.so\n"
                     "lr-------- 1 root root 64 Mar  5 17:02 ffff8c000000-ffff8c001000 -> "
                     "/dev/zero (deleted)\n");
  INFO(dump(r));
  CHECK(has(r, "process.1830422.deleted",
            "/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux/lib64/libge_runner.so"));
  CHECK(count(r, "process.1830422.deleted") == 1);
}

TEST_CASE("premises: dkms status lines of dkms 2 and 3", "[parse][outputs][dkms][premises]") {
  const auto r = run("dkms_status",
                     "ascend-driver/24.1.rc2, 5.10.0-136.12.0.86.oe2203sp1.aarch64, aarch64: "
                     "installed\n"
                     "nvidia, 535.104.05, 5.15.0-91-generic, x86_64: installed (original_module "
                     "exists)\n"
                     "ascend-driver/25.2.0: added\n");
  INFO(dump(r));
  CHECK(has(
      r, "dkms.ascend-driver",
      R"({"module":"ascend-driver","version":"24.1.rc2","kernel":"5.10.0-136.12.0.86.oe2203sp1.aarch64","arch":"aarch64","status":"installed"})"));
  CHECK(has(
      r, "dkms.nvidia",
      R"({"module":"nvidia","version":"535.104.05","kernel":"5.15.0-91-generic","arch":"x86_64","status":"installed"})"));
  CHECK(has(
      r, "dkms.ascend-driver",
      R"({"module":"ascend-driver","version":"25.2.0","kernel":"","arch":"","status":"added"})"));
  CHECK(r.malformed == 0);
}

TEST_CASE("premises: a launch script's flags, exports and sourced environment",
          "[parse][outputs][launch][premises]") {
  // a debug run script as engineers write them: exports, `source set_env.sh`, and a python launch
  // line continued with backslashes and piped into tee
  const auto r = run("launch_spec",
                     "#!/bin/bash\n"
                     "# minimal reproduction: single card, no AMP\n"
                     "export ASCEND_LAUNCH_BLOCKING=1\n"
                     "source /usr/local/Ascend/cann-8.5.0/set_env.sh\n"
                     "cd /workspace/rtdetr\n"
                     "python3 -u tools/train.py --cfg configs/rtdetr_r50.yaml --lr -0.5 \\\n"
                     "    --amp False --pin-memory=False --resume 2>&1 | tee logs/x.log\n",
                     "amp_off_check/run_debug.sh");
  INFO(dump(r));
  check_facts(r, {{"job.run_debug.env.ASCEND_LAUNCH_BLOCKING", "1", 3},
                  {"job.run_debug.source", "/usr/local/Ascend/cann-8.5.0/set_env.sh", 4},
                  {"args.amp", "False", 6},
                  {"args.pin-memory", "False", 6},
                  {"args.lr", "-0.5", 6},
                  {"args.resume", "true", 6},
                  {"args.cfg", "configs/rtdetr_r50.yaml", 6}});
  CHECK_FALSE(has_name(r, "args.u"));  // options before the script are the interpreter's
  SECTION("srun and torchrun launch lines of a job script") {
    const auto j = run("launch_spec",
                       "#!/bin/bash\n#SBATCH --job-name=det\n"
                       "srun --ntasks=8 torchrun --nproc_per_node 8 train.py --amp false\n",
                       "det.sbatch");
    INFO(dump(j));
    CHECK(has(j, "args.amp", "false"));
    CHECK_FALSE(has_name(j, "args.nproc_per_node"));
  }
}
