// Command-output and file parsers (npu-smi, version files, package lists, maps, env, modules, ...).
#include "faultline/parse/registry_detail.hpp"

namespace faultline::parse::detail {

void register_output_parsers(std::vector<Entry>& /*out*/) {}

}  // namespace faultline::parse::detail
