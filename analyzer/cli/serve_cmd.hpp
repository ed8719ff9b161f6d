// `faultline serve`: options and the function that runs the server (analyzer/serve).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace faultline::cli {

struct ServeArgs {
  std::string listen = "127.0.0.1:8080";
  std::string data_dir;
  std::string max_upload = "4G";
  unsigned jobs = 0;
  std::string token;
  std::vector<std::string> rule_dirs;
  std::string cache_dir;
  bool no_cache = false;
  std::string analysis_memory = "4G";   // "0": no limit
  std::string analysis_timeout = "2h";  // "0": no limit
  size_t max_connections = 512;
  size_t max_per_client = 32;
  std::string request_timeout = "10s";  // a complete request head
};

void add_serve_options(CLI::App& cmd, ServeArgs& a);
int run_serve(const ServeArgs& a);

}  // namespace faultline::cli
