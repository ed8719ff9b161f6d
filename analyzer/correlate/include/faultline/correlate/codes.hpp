// Code tables (rules/codes/<family>.yaml, docs/codes.md): the documented return and error codes
// of the Ascend stack (aclError / ACL_ERROR_RT_*, aclnn, HcclResult, DRV_ERROR_*, DCMI, torch_npu
// ERRxxxxx, CANN error-message codes, device fault event ids), each with its name, class,
// component and texts in our own words. A fault signature with `lookup: [families]` names the
// table whose texts its hits' codes get; a code in a family's range but not in its table is still
// a fault ("unknown ACL code 5xxxxx").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "faultline/core/rules.hpp"

namespace faultline::correlate {

struct CodeEntry {
  std::string family;  // table (file stem): acl, aclnn, hccl, drv, dcmi, torch_npu, cann_msg, ...
  std::string code;    // canonical code as printed: "507015", "-8005", "ERR00100", "EZ3003",
                       // "0x80CB8002" (hex upper case after 0x)
  std::string name;    // symbolic name (ACL_ERROR_RT_AICORE_EXCEPTION), may be empty
  std::string cls;     // fault class (hardware | os | network | driver | cann | framework |
                       // user_config)
  std::string component;  // one word
  std::string role = "cause";
  std::string severity = "error";
  std::string title, cause, suggestion, source;
  // the fault signature that is this code's own (acl.error_507015 for 507015): a family catch-all
  // or a code matcher that finds the code in another wording reports it under that signature's
  // finding (docs/codes.md "One code, one finding"); empty when the code has none
  std::string signature;
  bool known = true;  // false: in the family's range, not in its table
};

struct CodeRange {
  std::string first, last;  // codes comparable in the family's number space (inclusive)
  std::string cls, component, role = "cause", severity = "error";
  std::string title, cause, suggestion;  // `{code}` is the code
};

struct CodeFamily {
  std::string name, title, file;
  std::string kind;  // number (decimal, maybe negative) | hex | text (ERR00100, EZ3003)
  std::vector<std::string> sources;
  std::vector<CodeEntry> codes;
  std::vector<CodeRange> ranges;
  std::map<std::string, size_t> by_code, by_name;
};

struct CodeBook {
  std::vector<CodeFamily> families;
  std::vector<std::string> errors;  // "<file>:<line>: <family>: <problem>"
  [[nodiscard]] const CodeFamily* family(const std::string& name) const;
  // The entry of `token` (a number, a hex id, a code like EZ3003, or a symbolic name) in the
  // first of `families` that knows it; else a range entry (known = false) of the first family
  // whose range holds it; else nullopt.
  [[nodiscard]] std::optional<CodeEntry> lookup(const std::vector<std::string>& families,
                                                const std::string& token) const;
};

// Parses the codes/ files of `files` (others are ignored). Never throws.
CodeBook load_codes(const std::vector<RuleFile>& files);

// The parsed tables in a compact binary form (core/binio.hpp) and back, for the rule cache
// (app/rule_cache.hpp): parsing the tables' YAML (~850 KB) was a third of a small node's CPU,
// reading them back from JSON a fifth. deserialize_codes returns nullopt on any input it did not
// write (short, foreign, another format version, an index entry out of range).
std::string serialize_codes(const CodeBook& book);
std::optional<CodeBook> deserialize_codes(std::string_view text);

// The canonical form of a code token of a family kind ("0x80cb8002" -> "0x80CB8002", "+507015"
// -> "507015", "ez3003" -> "EZ3003").
std::string canonical_code(const std::string& kind, const std::string& token);

}  // namespace faultline::correlate
