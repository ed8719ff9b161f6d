// Internals shared by the engine and the rule tools (lint, run_examples). Not installed.
#pragma once

#include <string_view>

#include "faultline/tag/tag.hpp"

namespace faultline::tag::detail {

// True when a Hyperscan pattern could match a '\n' (so a match could span lines): \s, \n, [^...],
// (?s) and similar. Over-approximates; such hits are re-checked on their line alone.
bool may_span_lines(std::string_view pattern);

// Hyperscan compile flags of a signature's patterns (HS_FLAG_MULTILINE, HS_FLAG_CASELESS).
unsigned hs_flags(const Signature& s);

}  // namespace faultline::tag::detail
