// Log line templates: the variable parts of a line (numbers, times, hex, ids, addresses, paths)
// masked as <n>, <hex>, <ip>, <path>, so that lines of one kind from two runs compare equal.
#pragma once

#include <string>
#include <string_view>

namespace faultline::text {

// The template of a line (its first 1000 bytes); whitespace runs become one space.
std::string mask_line(std::string_view line);

}  // namespace faultline::text
