// Log-line parsers (plog, device logs, kernel, syslog, journal, install logs, training stdout).
#include "faultline/parse/registry_detail.hpp"
#include "logs/parsers.hpp"

namespace faultline::parse::detail {

void register_log_parsers(std::vector<Entry>& out) {
  using namespace faultline::parse::logs;
  out.push_back({"plog", make_plog});
  out.push_back({"device_app_log", make_device_app_log});
  out.push_back({"device_os_log", make_device_os_log});
  out.push_back({"device_fw_log", make_device_fw_log});
  out.push_back({"device_event_log", make_device_event_log});
  out.push_back({"device_syslog", make_device_syslog});
  out.push_back({"slogd_log", make_slogd_log});
  out.push_back({"bbox_history", make_bbox_history});
  out.push_back({"host_kernel_log", make_host_kernel_log});
  out.push_back({"dmesg", make_dmesg});
  out.push_back({"dmesg_t", make_dmesg_t});
  out.push_back({"journal", make_journal});
  out.push_back({"syslog", make_syslog});
  out.push_back({"install_log", make_install_log});
  out.push_back({"operation_log", make_operation_log});
  out.push_back({"train_log", make_train_log});
  out.push_back({"probe_output", make_probe_output});
  out.push_back({"mindx_dl_log", make_mindx_dl_log});
  out.push_back({"volcano_log", make_volcano_log});
  out.push_back({"mindie_log", make_mindie_log});
  out.push_back({"mindio_log", make_mindio_log});
  out.push_back({"amct_log", make_amct_log});
  out.push_back({"lcne_log", make_lcne_log});
}

}  // namespace faultline::parse::detail
