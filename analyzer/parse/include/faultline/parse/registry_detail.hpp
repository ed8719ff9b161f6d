// Internal: factory table shared by src/registry.cpp and the parser groups.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/parse/parser.hpp"

namespace faultline::parse::detail {

using Factory = std::function<std::unique_ptr<Parser>(std::string_view path)>;
struct Entry {
  std::string kind;
  Factory make;
};

// Each group of parsers appends its kinds. Groups live in separate files so that log-line parsers
// (src/logs/) and command-output parsers (src/outputs/) can grow independently.
void register_log_parsers(std::vector<Entry>& out);     // src/logs/register.cpp
void register_output_parsers(std::vector<Entry>& out);  // src/outputs/register.cpp

}  // namespace faultline::parse::detail
