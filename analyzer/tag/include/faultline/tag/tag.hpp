// tag: signature rules (rules/signatures/*.yaml) compiled into one Hyperscan database, scanned
// over whole-line chunks; values are captured by re-running a PCRE2 pattern on the matched line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "faultline/core/rules.hpp"
#include "faultline/core/types.hpp"

namespace faultline::tag {

struct Example {
  std::string line;
  std::vector<std::pair<std::string, std::string>> captures;  // name -> expected value
};

struct Signature {
  std::string id;        // <family>.<name>, stable and unique
  std::string family;    // file stem
  std::string title;
  std::vector<std::string> kinds;  // member kinds it applies to; empty = all text kinds
  Severity severity = Severity::error;
  std::vector<std::string> patterns;  // Hyperscan syntax; any may match
  std::string capture;                // PCRE2 pattern with named groups (optional)
  std::string status = "stable";      // experimental | stable | deprecated
  std::vector<std::string> references;
  std::vector<Example> match;     // lines that must match (with expected captures)
  std::vector<std::string> no_match;  // lines that must not match
  std::string file;               // where it was defined (for error messages)
  int file_line = 0;
};

struct RuleSet {
  std::vector<Signature> signatures;
  std::vector<std::string> errors;  // "<file>:<line>: <rule id>: <problem>"
};

// Parses signature packs. Later files override earlier ones with the same id (--rules DIR
// overrides the embedded packs).
RuleSet load_signatures(const std::vector<RuleFile>& files);

struct Hit {
  uint32_t signature = 0;  // index into Engine::signatures()
  size_t end = 0;          // offset in the scanned chunk just past the match
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Compiles (or loads from cache_dir, keyed by the rule texts and the library version) the
  // database. Empty cache_dir disables caching. On error returns nullptr and sets *error to a
  // message naming the rule id, its file and line.
  static std::unique_ptr<Engine> build(const RuleSet& rules, const std::filesystem::path& cache_dir,
                                       std::string* error);

  [[nodiscard]] virtual const std::vector<Signature>& signatures() const = 0;

  // Scans a chunk of complete lines of a member of `kind`; hits of signatures that do not apply
  // to the kind are dropped. Calls fn for each hit, in order of end offset.
  virtual void scan(std::string_view chunk, std::string_view kind,
                    const std::function<void(const Hit&)>& fn) const = 0;

  // Named captures of signature `sig` on one line (empty when it has no capture pattern or it
  // does not match). Bounded by PCRE2 match and depth limits.
  [[nodiscard]] virtual std::vector<std::pair<std::string, std::string>> captures(
      uint32_t sig, std::string_view line) const = 0;
};

}  // namespace faultline::tag
