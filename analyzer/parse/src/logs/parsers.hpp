// Factories of the log-line parsers, registered by kind in src/logs/register.cpp.
#pragma once

#include <memory>
#include <string_view>

#include "faultline/parse/parser.hpp"

namespace faultline::parse::logs {

// CANN slog grammar (slog_parsers.cpp)
std::unique_ptr<Parser> make_plog(std::string_view path);
std::unique_ptr<Parser> make_device_app_log(std::string_view path);
std::unique_ptr<Parser> make_device_os_log(std::string_view path);
std::unique_ptr<Parser> make_device_fw_log(std::string_view path);
std::unique_ptr<Parser> make_device_event_log(std::string_view path);

// Kernel and system logs (kernel_parsers.cpp)
std::unique_ptr<Parser> make_host_kernel_log(std::string_view path);
std::unique_ptr<Parser> make_dmesg(std::string_view path);
std::unique_ptr<Parser> make_dmesg_t(std::string_view path);
std::unique_ptr<Parser> make_syslog(std::string_view path);
std::unique_ptr<Parser> make_device_syslog(std::string_view path);
std::unique_ptr<Parser> make_journal(std::string_view path);

// Small device-side logs (misc_parsers.cpp)
std::unique_ptr<Parser> make_slogd_log(std::string_view path);
std::unique_ptr<Parser> make_bbox_history(std::string_view path);

// Install logs (install_parsers.cpp)
std::unique_ptr<Parser> make_install_log(std::string_view path);
std::unique_ptr<Parser> make_operation_log(std::string_view path);

// Training / serving stdout and probe outputs (train_parser.cpp, probe_parser.cpp)
std::unique_ptr<Parser> make_train_log(std::string_view path);
std::unique_ptr<Parser> make_probe_output(std::string_view path);

// Cluster components in the vendor's collection layout (component_parsers.cpp)
std::unique_ptr<Parser> make_mindx_dl_log(std::string_view path);
std::unique_ptr<Parser> make_volcano_log(std::string_view path);
std::unique_ptr<Parser> make_mindie_log(std::string_view path);
std::unique_ptr<Parser> make_mindio_log(std::string_view path);
std::unique_ptr<Parser> make_amct_log(std::string_view path);
std::unique_ptr<Parser> make_lcne_log(std::string_view path);

}  // namespace faultline::parse::logs
