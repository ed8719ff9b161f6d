// Helpers for install.event facts: version comparison and run-package names.
#pragma once

#include <string>
#include <string_view>

namespace faultline::parse::logs {

// Compares Ascend version strings: numeric parts numerically, letter-prefixed parts (T15, B092,
// RC3) by prefix then number, case-insensitive; a release candidate sorts before the release at
// the same position (24.1.rc3 < 24.1.0.3); alpha < beta < rc. Returns <0, 0, >0.
int compare_versions(std::string_view a, std::string_view b);

// "Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run" -> "24.1.rc3";
// "Ascend910B-firmware-7.7.t15.0.b092.run" -> "7.7.t15.0.b092". Empty when none.
std::string version_from_run(std::string_view run);
// "driver", "firmware", "toolkit", ... from a run/rpm file name; "unknown" when none.
std::string package_from_run(std::string_view run);

struct InstallEvent {
  std::string package, action, from, to, time, result;
  std::string path;  // --install-path of the command, "" when the installer's default
  bool reboot_required = false;
  // {"package","action","from","to","time","result","reboot_required"} (COMMON.md contract),
  // plus "path" when the command named an install path (docs/facts.md)
  [[nodiscard]] std::string json() const;
};

}  // namespace faultline::parse::logs
