// The per-host pass after the streaming pass (see pipeline.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "faultline/store/store.hpp"
#include "roots.hpp"

namespace faultline::pipeline {

// faultline-collect writes each command's output to its own file and the command into
// manifest.json. A single-directory `ls -l DIR` output names its entries relative to DIR: give
// those fs.* facts their absolute path from the command.
void apply_manifests(store::Db& db, int64_t bundle);

// Gives every host its name and every event its UTC time.
void resolve_hosts_and_clocks(store::Db& db, int64_t bundle, std::map<std::string, RootInfo>& roots,
                              const std::string& bundle_name);

}  // namespace faultline::pipeline
