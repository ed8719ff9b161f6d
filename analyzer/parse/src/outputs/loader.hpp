// The dynamic loader's "cannot open shared object file" lines as missing-library facts
// (src/outputs/loader.cpp). Internal to the parse library.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "faultline/parse/parser.hpp"

namespace faultline::parse::outputs {

// `<prog>: error while loading shared libraries: <lib>: cannot open shared object file: …` or
// `<anything>: <lib>: cannot open shared object file: …` -> lib (basename) and prog ("" when the
// line does not name one). False for other lines.
bool loader_error(std::string_view line, std::string& lib, std::string& program);

// `inner` plus a `library.<lib>.missing` fact for every such line it is fed (at most 1024).
std::unique_ptr<Parser> with_loader_errors(std::unique_ptr<Parser> inner);

}  // namespace faultline::parse::outputs
