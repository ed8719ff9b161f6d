// Command-output and file parsers (npu-smi, version files, package lists, maps, env, modules, ...).
#include "faultline/parse/registry_detail.hpp"
#include "outputs/outputs.hpp"

namespace faultline::parse::detail {

void register_output_parsers(std::vector<Entry>& out) {
  namespace o = faultline::parse::outputs;
  out.push_back({"npu_smi_info", o::make_npu_smi});
  out.push_back({"npu_smi_kv", o::make_npu_smi});
  out.push_back({"version_info", o::make_version_info});
  out.push_back({"dpkg_list", o::make_dpkg_list});
  out.push_back({"rpm_list", o::make_rpm_list});
  out.push_back({"pip_list", o::make_pip_list});
  out.push_back({"proc_maps", o::make_proc_maps});
  out.push_back({"proc_cmdline", o::make_proc_cmdline});
  out.push_back({"environ", o::make_environ});
  out.push_back({"mountinfo", o::make_mountinfo});
  out.push_back({"lsof", o::make_lsof});
  out.push_back({"dkms_status", o::make_dkms_status});
  out.push_back({"modinfo", o::make_modinfo});
  out.push_back({"modprobe", o::make_modprobe});
  out.push_back({"lsmod", o::make_lsmod});
  out.push_back({"ls_listing", o::make_ls_listing});
  out.push_back({"modules_dep", o::make_modules_dep});
  out.push_back({"ldd", o::make_ldd});
  out.push_back({"uname", o::make_uname});
  out.push_back({"uptime", o::make_uptime});
  out.push_back({"boot_record", o::make_boot_record});
  out.push_back({"proc_stat", o::make_proc_stat});
  out.push_back({"date", o::make_date});
  out.push_back({"timedatectl", o::make_timedatectl});
  out.push_back({"ulimit", o::make_ulimit});
  out.push_back({"sysctl", o::make_sysctl});
  out.push_back({"lspci", o::make_lspci});
  out.push_back({"hccn_link_stat", o::make_link_stat});
  out.push_back({"manifest", o::make_manifest});
  out.push_back({"launch_spec", o::make_launch_spec});
  out.push_back({"readlink", o::make_readlink});
  out.push_back({"proc_limits", o::make_proc_limits});
  out.push_back({"timezone", o::make_timezone});
  out.push_back({"shell_history", o::make_shell_history});
  out.push_back({"hostname", o::make_hostname});
  out.push_back({"sys_module", o::make_sys_module});
}

}  // namespace faultline::parse::detail
