// Summary templates and placeholders: "{driver.version.loaded}", "{svm.map_va_not_fixed.vm_end}",
// "{link.value}" (a bound item), "{host}"; fallbacks "{c.cann|cann.version.installed|=unknown}"
// (first alternative that resolves; "=text" is literal). "{{" and "}}" stand for literal braces.
// Text in braces that is not a valid placeholder (a regex quantifier such as {2,5}) stays as is.
// Conditional sections: "{?name}...{/?}" is kept only when name resolves, "{!name}...{/!}" only
// when it does not (not nested).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::correlate::detail {

// Placeholder names (every name alternative) in order of appearance.
std::vector<std::string> placeholders(std::string_view s);
bool has_placeholder(std::string_view s);
// Every placeholder replaced by "x" (to check a regex that holds placeholders).
std::string strip_placeholders(std::string_view s);

// Problems of a template: unbalanced braces, bad names, names that cannot resolve (not a bind
// name, not a referenced signature's capture, not a fact namespace).
std::vector<std::string> template_problems(std::string_view s, const std::set<std::string>& binds,
                                           const std::vector<std::string>& signatures);

// Replaces placeholders using lookup; unresolved ones become `missing`. With escape, values are
// regex-escaped (for patterns built from bound values).
std::string substitute(std::string_view s,
                       const std::function<std::optional<std::string>(const std::string&)>& lookup,
                       bool escape, std::string_view missing = "?");

// "0x100000000000", "4096", "-1.5" -> number; nullopt otherwise.
std::optional<long double> parse_number(std::string_view s);

}  // namespace faultline::correlate::detail
