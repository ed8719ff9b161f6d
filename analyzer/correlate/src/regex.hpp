// Small PCRE2 wrapper for rule regexes (fact predicates, path selection). Bounded: match and
// depth limits keep a hostile subject from running away; invalid UTF-8 in subjects is tolerated.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace faultline::correlate::detail {

class Regex {
 public:
  // Throws std::runtime_error with PCRE2's message and offset when the pattern does not compile.
  explicit Regex(const std::string& pattern);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  [[nodiscard]] bool search(std::string_view subject) const;
  // Named groups of the first match ("" key = whole match); nullopt when no match.
  [[nodiscard]] std::optional<std::map<std::string, std::string>> groups(
      std::string_view subject) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Compiled once per distinct pattern (patterns may be built from bound values at evaluation).
std::shared_ptr<const Regex> regex_cached(const std::string& pattern);

// Escapes PCRE2 metacharacters so that a value can be placed literally inside a pattern.
std::string regex_escape(std::string_view s);

}  // namespace faultline::correlate::detail
