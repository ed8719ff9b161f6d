// Fact shapes (rules/facts/*.yaml, docs/facts.md "Fact shapes"): line and record shapes that
// state facts, as data. A shape matches a line of a member of its kinds (or a `path=value` record
// of a JSON/YAML/stanza document, or the member path) with a PCRE2 pattern and states facts named
// and valued by templates over the named groups. The parser of a kind runs its C++ parser (when
// it has one) and the shapes of that kind side by side.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/core/rules.hpp"
#include "faultline/parse/parser.hpp"

namespace faultline::parse {

// The embedded shapes in the rule cache's binary form (core/binio.hpp), before their patterns are
// compiled; the app keeps it in the rule cache (issue 38: parsing their YAML was a sixth of a
// small node's CPU). use_fact_shapes_form installs the table read back from such a form and
// returns true, unless the form is damaged or foreign, or its table has a problem, or a table is
// already in use (the first parser made reads the embedded YAML when nothing was installed).
std::string fact_shapes_form();
bool use_fact_shapes_form(std::string_view form);
bool fact_shapes_loaded();  // a table is in use (installed, or read at a parser's first need)

// Member kinds that have at least one shape in the embedded rules.
std::vector<std::string> fact_shape_kinds();

// A parser running the shapes of `kind` beside `inner` (which may be null). Returns `inner`
// unchanged when the kind has no shape.
std::unique_ptr<Parser> with_fact_shapes(std::string_view kind, std::string_view path,
                                         std::unique_ptr<Parser> inner);

// Lint and example check of rule files (the facts/ ones are read): load errors, bad patterns,
// templates naming no group, and every example: a `match` example must state at least its listed
// facts (through that shape alone), a `no_match` example none. One message per problem.
std::vector<std::string> check_fact_shapes(const std::vector<RuleFile>& files);

}  // namespace faultline::parse
