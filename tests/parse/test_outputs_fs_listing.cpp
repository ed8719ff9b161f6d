// Issue 17 item 4: what a complete listing says is absent, and the loader's view of libraries.
// Line shapes: GNU coreutils ls(1) (`total N`, -l columns, plain names, -R headers), tree(1)
// (`├── `, `└── `, `│   `, "N directories, M files"), find(1) | wc -l, ldd(1) ("=> not found"),
// lsmod | grep (seed 002 §5 runs `lsmod | rg 'ascend|drv_pcie|drv_devmm|davinci'`), depmod's
// modules.dep ("updates/dkms/x.ko: kernel/…"), ld.so's "error while loading shared libraries"
// (HAMi issue #615: `npu-smi: error while loading shared libraries: libc_sec.so: cannot open
// shared object file: No such file or directory`; vllm-ascend issue #152: `ImportError:
// libatb.so: cannot open shared object file: No such file or directory`).
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
// The NNAL partial install of seed 002 §6: the library directory is listed, and empty.
const char* kNnalLR = R"X($ ls -lR /usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1
/usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1:
total 8
drwxr-xr-x 2 root root 4096 Mar 19 14:55 include
drwxr-xr-x 2 root root 4096 Mar 19 14:55 lib
-rw-r--r-- 1 root root  612 Mar 19 14:55 set_env.sh

/usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/include:
total 0

/usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib:
total 0
)X";
}  // namespace

TEST_CASE("fs listing: ls -lR states each directory's entry count", "[parse][outputs][fs]") {
  for (const std::string& text : {std::string(kNnalLR), crlf(kNnalLR)}) {
    const auto r = run("ls_listing", text);
    check_facts(r, {{"dir.entries./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1", "3", 3},
                    {"dir.entries./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/include", "0", 9},
                    {"dir.entries./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib", "0", 12},
                    {"fs./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib", "dir", 5}});
    CHECK(count(r, "dir.entries./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib") == 1);
    CHECK(r.malformed == 0);
  }
}

TEST_CASE("fs listing: ls -la counts entries without . and ..", "[parse][outputs][fs]") {
  const auto r = run("ls_listing",
                     "[root@node-07 ~]# ls -la /usr/local/Ascend/ascend-toolkit/latest/lib64\n"
                     "total 8\n"
                     "drwxr-xr-x 2 root root 4096 Aug 13 10:02 .\n"
                     "drwxr-xr-x 9 root root 4096 Aug 13 10:02 ..\n");
  check_facts(r, {{"dir.entries./usr/local/Ascend/ascend-toolkit/latest/lib64", "0", 2}});
  CHECK(r.malformed == 0);
}

TEST_CASE("fs listing: filtered or partial listings count nothing", "[parse][outputs][fs]") {
  SECTION("ls -l DIR | grep") {
    const auto r = run("ls_listing",
                       "$ ls -l /lib/modules/5.15.0-91-generic/updates | grep drv\n"
                       "total 2176\n"
                       "-rw-r--r-- 1 root root 1954816 Jun  3  2026 drv_pcie_host.ko\n");
    CHECK(has(r, "fs./lib/modules/5.15.0-91-generic/updates/drv_pcie_host.ko", "file"));
    CHECK_FALSE(has_name(r, "dir.entries./lib/modules/5.15.0-91-generic/updates"));
  }
  SECTION("a glob operand") {
    const auto r = run("ls_listing",
                       "$ ls -l /usr/local/Ascend/driver/lib64/*.so\n"
                       "-rw-r--r-- 1 root root 1954816 Jun  3  2026 "
                       "/usr/local/Ascend/driver/lib64/libascend_hal.so\n");
    CHECK(has(r, "fs./usr/local/Ascend/driver/lib64/libascend_hal.so", "file"));
    for (const auto& f : r.facts) CHECK(f.name.rfind("dir.entries.", 0) != 0);
  }
  SECTION("ls -l without a directory operand or header") {
    const auto r = run("ls_listing",
                       "total 0\nlrwxrwxrwx 1 root root 62 Mar 29 04:11 drv_pcie_host.ko -> "
                       "/usr/local/Ascend.bak/driver_24.1.rc3/kernel/drv_pcie_host.ko\n");
    for (const auto& f : r.facts) CHECK(f.name.rfind("dir.entries.", 0) != 0);
  }
}

TEST_CASE("fs listing: plain ls names and an empty directory", "[parse][outputs][fs]") {
  SECTION("names in columns") {
    const auto r = run("ls_listing",
                       "root@a3-infer-07:~# ls /usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_0\n"
                       "bin  examples  include  lib  set_env.sh  tests\n");
    check_facts(r, {{"fs./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_0/lib", "present", 2},
                    {"fs./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_0/set_env.sh", "present", 2},
                    {"dir.entries./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_0", "6", 1}});
  }
  SECTION("nothing printed") {
    const auto r = run("ls_listing", "$ ls /usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib\n");
    check_facts(r, {{"dir.entries./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib", "0", 1}});
  }
  SECTION("the directory is missing") {
    const auto r = run("ls_listing",
                       "$ ls /usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib\n"
                       "ls: cannot access '/usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib': "
                       "No such file or directory\n");
    CHECK(has(r, "fs./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib", "missing"));
    CHECK_FALSE(has_name(r, "dir.entries./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib"));
  }
  SECTION("ls FILE prints the operand") {
    const auto r = run("ls_listing",
                       "$ ls /usr/local/Ascend/driver/version.info\n"
                       "/usr/local/Ascend/driver/version.info\n");
    CHECK(has(r, "fs./usr/local/Ascend/driver/version.info", "present"));
    CHECK_FALSE(has_name(r, "dir.entries./usr/local/Ascend/driver/version.info"));
  }
}

TEST_CASE("fs listing: counts through wc -l and find", "[parse][outputs][fs]") {
  SECTION("find DIR -type f | wc -l printing 0") {
    const auto r = run("ls_listing",
                       "$ find /usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib -type f | wc -l\n"
                       "0\n");
    check_facts(r, {{"dir.files./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib", "0", 2}});
    CHECK(r.malformed == 0);
  }
  SECTION("find DIR | wc -l printing 1 is not a count of entries") {
    const auto r = run("ls_listing", "$ find /opt/empty | wc -l\n1\n");
    for (const auto& f : r.facts) CHECK(f.name.rfind("dir.", 0) != 0);
  }
  SECTION("find with -name selects: no statement about the directory") {
    const auto r =
        run("ls_listing", "$ find /usr/local/Ascend/nnal -name 'libatb*.so' | wc -l\n0\n");
    for (const auto& f : r.facts) CHECK(f.name.rfind("dir.", 0) != 0);
    CHECK(r.malformed == 0);
  }
  SECTION("ls DIR | wc -l") {
    const auto r =
        run("ls_listing", "$ ls /usr/local/Ascend/ascend-toolkit/latest/lib64 | wc -l\n0\n");
    check_facts(r, {{"dir.entries./usr/local/Ascend/ascend-toolkit/latest/lib64", "0", 2}});
  }
  SECTION("find printing paths, and one printing nothing") {
    const auto r = run("ls_listing",
                       "$ find /lib/modules/5.15.0-91-generic/updates -type f\n"
                       "/lib/modules/5.15.0-91-generic/updates/drv_pcie_host.ko\n"
                       "$ find /usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib -type f\n");
    check_facts(r, {{"fs./lib/modules/5.15.0-91-generic/updates/drv_pcie_host.ko", "present", 2},
                    {"dir.files./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib", "0", 3}});
    CHECK_FALSE(has_name(r, "dir.files./lib/modules/5.15.0-91-generic/updates"));
  }
}

TEST_CASE("fs listing: tree", "[parse][outputs][fs]") {
  const auto r = run("ls_listing",
                     "$ tree -F /usr/local/Ascend/nnal/atb/8.5.0/atb\n"
                     "/usr/local/Ascend/nnal/atb/8.5.0/atb/\n"
                     "├── cxx_abi_0/\n"
                     "│   ├── lib/\n"
                     "│   │   └── libatb.so\n"
                     "│   └── set_env.sh\n"
                     "└── cxx_abi_1/\n"
                     "    ├── lib/\n"
                     "    └── set_env.sh\n"
                     "\n"
                     "4 directories, 3 files\n");
  check_facts(r, {{"fs./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_0/lib/libatb.so", "present", 5},
                  {"fs./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib", "dir", 8},
                  {"dir.entries./usr/local/Ascend/nnal/atb/8.5.0/atb", "2", 0},
                  {"dir.entries./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_0", "2", 0},
                  {"dir.entries./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_0/lib", "1", 0},
                  {"dir.entries./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1/lib", "0", 0}});
  CHECK(r.malformed == 0);
  SECTION("tree -L limits depth: counts only with the whole tree") {
    const auto r2 = run("ls_listing",
                        "$ tree -L 1 /usr/local/Ascend/nnal/atb/8.5.0/atb\n"
                        "/usr/local/Ascend/nnal/atb/8.5.0/atb\n"
                        "├── cxx_abi_0\n"
                        "└── cxx_abi_1\n\n2 directories, 0 files\n");
    for (const auto& f : r2.facts) CHECK(f.name.rfind("dir.entries.", 0) != 0);
    CHECK(has(r2, "fs./usr/local/Ascend/nnal/atb/8.5.0/atb/cxx_abi_1", "present"));
  }
}

TEST_CASE("ldd: not found and resolved libraries", "[parse][outputs][ldd]") {
  const auto r = run("ldd",
                     "$ ldd /usr/local/Ascend/driver/tools/npu-smi\n"
                     "\tlinux-vdso.so.1 (0x0000ffffb4a5f000)\n"
                     "\tlibc_sec.so => not found\n"
                     "\tlibdrvdsmi_host.so => not found\n"
                     "\tlibc.so.6 => /lib/aarch64-linux-gnu/libc.so.6 (0x0000ffffb47f0000)\n"
                     "\t/lib/ld-linux-aarch64.so.1 (0x0000ffffb4a26000)\n");
  check_facts(r,
              {{"library.libc_sec.so.missing", "/usr/local/Ascend/driver/tools/npu-smi", 3},
               {"library.libdrvdsmi_host.so.missing", "/usr/local/Ascend/driver/tools/npu-smi", 4},
               {"library.libc.so.6.resolved_path", "/lib/aarch64-linux-gnu/libc.so.6", 5}});
  CHECK(r.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].keep);
}

TEST_CASE("loader errors in logs give missing-library facts", "[parse][outputs][ldd]") {
  SECTION("ld.so at program start, in a shell session dump") {
    const auto r = run("npu_smi_info",
                       "npu-smi: error while loading shared libraries: libc_sec.so: cannot open "
                       "shared object file: No such file or directory\n");
    check_facts(r, {{"library.libc_sec.so.missing", "npu-smi", 1}});
  }
  SECTION("a service's journal line") {
    const auto r = run("journal",
                       "2026-03-19T14:58:02+0800 a3-infer-07 k8s-device-plugin[2211]: "
                       "/root/k8s-device-plugin: error while loading shared libraries: "
                       "libdrvdsmi_host.so: cannot open shared object file: No such file or "
                       "directory\n");
    check_facts(r, {{"library.libdrvdsmi_host.so.missing", "/root/k8s-device-plugin", 1}});
  }
  SECTION("Python's ImportError names no program") {
    const auto r = run("train_log",
                       "Traceback (most recent call last):\n"
                       "ImportError: libatb.so: cannot open shared object file: No such file or "
                       "directory\n");
    check_facts(r, {{"library.libatb.so.missing", "", 2}});
  }
  SECTION("other lines say nothing") {
    const auto r = run("train_log", "loading shared object file list done\n");
    for (const auto& f : r.facts) CHECK(f.name.rfind("library.", 0) != 0);
  }
}

TEST_CASE("lsmod | grep printing nothing records modules not loaded", "[parse][outputs][lsmod]") {
  SECTION("seed 002's rg with alternatives, one printed") {
    const auto r = run("lsmod",
                       "$ lsmod | rg 'ascend|drv_pcie|drv_devmm|davinci'\n"
                       "drv_pcie_host         466944  0\n");
    check_facts(
        r, {{"module.drv_pcie_host.loaded", "size=466944 used_by=", 2},
            {"module.drv_devmm.not_loaded", "lsmod | rg 'ascend|drv_pcie|drv_devmm|davinci'", 1},
            {"module.davinci.not_loaded", "lsmod | rg 'ascend|drv_pcie|drv_devmm|davinci'", 1},
            {"module.ascend.not_loaded", "lsmod | rg 'ascend|drv_pcie|drv_devmm|davinci'", 1}});
    CHECK_FALSE(has_name(r, "module.drv_pcie.not_loaded"));
  }
  SECTION("grep printing nothing, then another command") {
    const auto r = run("lsmod",
                       "[root@node-07 ~]# lsmod | grep drv_pcie_host\n"
                       "[root@node-07 ~]# lsmod | grep drv_devmm_host\n"
                       "drv_devmm_host        368640  2 drv_devdrv_host\n");
    check_facts(r, {{"module.drv_pcie_host.not_loaded", "lsmod | grep drv_pcie_host", 1},
                    {"module.drv_devmm_host.loaded", "size=368640 used_by=drv_devdrv_host", 3}});
    CHECK_FALSE(has_name(r, "module.drv_devmm_host.not_loaded"));
  }
  SECTION("grep -v says nothing") {
    const auto r = run("lsmod", "$ lsmod | grep -v drv_pcie_host\n");
    CHECK(r.facts.empty());
  }
}

TEST_CASE("modules.dep: out-of-tree modules resolve like modinfo -n",
          "[parse][outputs][modules_dep]") {
  const std::string text =
      "kernel/drivers/net/ethernet/intel/e1000e/e1000e.ko.zst: kernel/drivers/ptp/ptp.ko.zst\n"
      "updates/dkms/drv_pcie_host.ko: updates/dkms/drv_seclib_host.ko "
      "updates/ascend_kernel_open_adapt.ko\n"
      "updates/dkms/drv_seclib_host.ko:\n";
  const auto r = run("modules_dep", text, "host/lib/modules/5.15.0-91-generic/modules.dep");
  check_facts(r, {{"module.drv_pcie_host.resolved_path",
                   "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko", 2},
                  {"module.drv_pcie_host.depends", "drv_seclib_host,ascend_kernel_open_adapt", 2},
                  {"module.drv_seclib_host.depends", "", 3}});
  CHECK_FALSE(has_name(r, "module.e1000e.resolved_path"));
  CHECK(r.malformed == 0);
  SECTION("grep over modules.dep in a session names the release") {
    const auto r2 = run("modules_dep",
                        "$ grep drv_pcie /lib/modules/5.15.0-91-generic/modules.dep\n"
                        "updates/dkms/drv_pcie_host.ko: updates/dkms/drv_seclib_host.ko\n");
    check_facts(r2, {{"module.drv_pcie_host.resolved_path",
                      "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko", 2}});
  }
}
