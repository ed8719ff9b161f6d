// Factories of the command-output and file parsers (src/outputs/*.cpp), registered by
// src/outputs/register.cpp. `path` is the member path inside the bundle (pid / npu id hints).
#pragma once

#include <memory>
#include <string_view>

#include "faultline/parse/parser.hpp"

namespace faultline::parse::outputs {

// npu_smi.cpp — one parser serves both kinds: collectors mix tables and key-value blocks in
// one file (npu_info_log/card_info.log holds `npu-smi info` and `npu-smi info -l`).
std::unique_ptr<Parser> make_npu_smi(std::string_view path);

// versions.cpp
std::unique_ptr<Parser> make_version_info(std::string_view path);
std::unique_ptr<Parser> make_dpkg_list(std::string_view path);
std::unique_ptr<Parser> make_rpm_list(std::string_view path);
std::unique_ptr<Parser> make_pip_list(std::string_view path);

// process.cpp
std::unique_ptr<Parser> make_proc_maps(std::string_view path);
std::unique_ptr<Parser> make_proc_cmdline(std::string_view path);
std::unique_ptr<Parser> make_environ(std::string_view path);
std::unique_ptr<Parser> make_mountinfo(std::string_view path);
std::unique_ptr<Parser> make_lsof(std::string_view path);
std::unique_ptr<Parser> make_dkms_status(std::string_view path);

// modules.cpp
std::unique_ptr<Parser> make_modinfo(std::string_view path);
std::unique_ptr<Parser> make_modprobe(std::string_view path);
std::unique_ptr<Parser> make_lsmod(std::string_view path);
std::unique_ptr<Parser> make_ls_listing(std::string_view path);
std::unique_ptr<Parser> make_modules_dep(std::string_view path);
std::unique_ptr<Parser> make_ldd(std::string_view path);

// link_stat.cpp — `hccn_tool -i N -link_stat -g` (link change history)
std::unique_ptr<Parser> make_link_stat(std::string_view path);

// host.cpp
std::unique_ptr<Parser> make_uname(std::string_view path);
std::unique_ptr<Parser> make_uptime(std::string_view path);
std::unique_ptr<Parser> make_boot_record(std::string_view path);
std::unique_ptr<Parser> make_proc_stat(std::string_view path);
std::unique_ptr<Parser> make_date(std::string_view path);
std::unique_ptr<Parser> make_timedatectl(std::string_view path);
std::unique_ptr<Parser> make_ulimit(std::string_view path);
std::unique_ptr<Parser> make_sysctl(std::string_view path);
std::unique_ptr<Parser> make_lspci(std::string_view path);

// launch.cpp: systemd units, compose files, Kubernetes manifests, Slurm scripts / scontrol
std::unique_ptr<Parser> make_launch_spec(std::string_view path);

// manifest.cpp
std::unique_ptr<Parser> make_manifest(std::string_view path);

// extra.cpp
std::unique_ptr<Parser> make_readlink(std::string_view path);
std::unique_ptr<Parser> make_proc_limits(std::string_view path);
std::unique_ptr<Parser> make_timezone(std::string_view path);
std::unique_ptr<Parser> make_shell_history(std::string_view path);
std::unique_ptr<Parser> make_hostname(std::string_view path);
std::unique_ptr<Parser> make_sys_module(std::string_view path);

}  // namespace faultline::parse::outputs
