// faultline command line: wires the app functions; no analysis logic here.
#include <iostream>

#include <CLI/CLI.hpp>

#include "faultline/app/app.hpp"

int main(int argc, char** argv) {
  CLI::App app{"faultline: offline forensic analyzer for Ascend NPU support bundles"};
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  return 2;
}
