// Helpers for the log-parser tests: reading the real asys bundle (tests only; parsers do no I/O).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/core/types.hpp"
#include "faultline/parse/parser.hpp"

namespace fltest {

inline std::filesystem::path asys_root() {
  return std::filesystem::path(FAULTLINE_CORPUS_DIR) / "asys-aicerror" /
         "asys_output_20250508095626087";
}
inline bool have_asys() {
  return std::filesystem::is_directory(asys_root());
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The kind of each log file of the asys bundle (the classify stage's job; fixed here).
inline std::string asys_kind(const std::string& rel) {
  auto has = [&](std::string_view s) { return rel.find(s) != std::string::npos; };
  const std::string name = std::filesystem::path(rel).filename().string();
  if (has("/plog/") && name.rfind("plog-", 0) == 0) return "plog";
  if (has("host/cann/") && name.rfind("device-", 0) == 0) return "device_app_log";
  if (has("/application/") && name.rfind("device-app-", 0) == 0) return "device_app_log";
  if (has("/firmware/")) return "device_fw_log";
  if (name == "slogdlog") return "slogd_log";
  if (name.rfind("device-os_", 0) == 0) return "device_os_log";
  if (has("system/message/") && name.rfind("messages", 0) == 0) return "device_syslog";
  if (name.rfind("event_", 0) == 0) return "device_event_log";
  if (name == "host_kernel.log") return "host_kernel_log";
  if (name == "ascend_install.log") return "install_log";
  if (has("host/message/") && name == "syslog") return "syslog";
  return "";
}

struct KindFile {
  std::string rel, kind;
  std::filesystem::path path;
};

inline std::vector<KindFile> asys_log_files() {
  std::vector<KindFile> out;
  const auto root = asys_root();
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = std::filesystem::relative(e.path(), root).generic_string();
    const std::string kind = asys_kind(rel);
    if (!kind.empty()) out.push_back({rel, kind, e.path()});
  }
  return out;
}

inline faultline::parse::ParseResult parse_asys(const std::string& rel_contains,
                                                std::string* kind_out = nullptr) {
  for (const auto& f : asys_log_files()) {
    if (f.rel.find(rel_contains) == std::string::npos) continue;
    if (kind_out) *kind_out = f.kind;
    return faultline::parse::parse_text(f.kind, read_file(f.path), f.rel);
  }
  return {};
}

inline std::vector<faultline::OwnedEvent> parse_lines(std::string_view kind, std::string_view text,
                                                      std::string_view path = {}) {
  return faultline::parse::parse_text(kind, text, path).events;
}

}  // namespace fltest
