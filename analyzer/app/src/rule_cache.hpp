// Parsed signature packs cached in the rule cache directory, next to the compiled Hyperscan
// database. Parsing the packs (YAML) is the largest fixed cost of a run (~35 ms of the ~60 ms an
// analysis of a tiny bundle takes); reading the cached form takes about a millisecond.
//
// The cache key is the sha256 of the signature rule texts (rules_digest: every root, in order,
// with paths), the running executable's identity (path, size, mtime: any rebuild of faultline
// invalidates the cache, so a change of the YAML loader never meets a stale parse) and the layout
// version of the serialized form. The file carries the sha256 of its payload (not verified on read:
// issue 38); a truncated or foreign file is ignored (the packs are parsed again) and rewritten.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "faultline/app/app.hpp"
#include "faultline/classify/classify.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/correlate/codes.hpp"
#include "faultline/tag/tag.hpp"

namespace faultline::app {

// The rules digest (faultline --version, every report): sha256 over the roots in order, each
// file's path inside its root, size and text. Depends on the rule texts only (not on where they
// were read from, nor on the executable); an empty root (an empty --rules DIR) changes nothing.
// Also recorded in a database's meta table (docs/scale-out.md). Declared in faultline/app/app.hpp.
std::string rules_digest(const std::vector<std::vector<RuleFile>>& roots);

// Key of the parsed form of these signature roots (lowest priority first, as for
// tag::load_signature_roots).
std::string rule_cache_key(const std::vector<std::vector<RuleFile>>& roots);
// The same key from the roots' rules_digest (embedded_digests(): no rule text hashed).
std::string rule_cache_key_of(std::string_view digest);

// The cached RuleSet for key, or nullopt (missing, damaged, or another key).
std::optional<tag::RuleSet> load_cached_rules(const std::filesystem::path& dir,
                                              const std::string& key);

// Writes the RuleSet for key (temporary file + rename) and removes all but the 3 newest other
// *.rules files of dir. Failures are ignored: the cache is an optimisation only.
void store_cached_rules(const std::filesystem::path& dir, const std::string& key,
                        const tag::RuleSet& rs);

// The code tables of the codes/ files among `files` (correlate/codes.hpp), from the cache
// (`<key>.codes`, key as rule_cache_key over those files) or parsed and then cached; the 3 newest
// other *.codes files are kept. Without a cache directory: parsed. digest: rules_digest of the
// codes/ files when known (embedded_digests().codes), else computed from `files`.
std::shared_ptr<const correlate::CodeBook> cached_codes(const std::vector<RuleFile>& files,
                                                        const std::filesystem::path& dir,
                                                        std::string_view digest = {});

// The parsed diagnoses, compat and code tables of `rules` (rules.codes must be set), from the cache
// (`<key>.book`, key from rules.digest: every rule the run uses) or parsed and then cached when
// they have no errors; the 3 newest other *.book files are kept.
std::shared_ptr<const correlate::Book> cached_book(const Rules& rules,
                                                   const std::filesystem::path& dir);

// The classify/ table of `classify_rules` (classify::read_kind_table), from the cache
// (`<key>.kinds`, key over those files' texts: ~30 KB hashed) or read and then cached; throws as
// read_kind_table.
std::vector<classify::KindRule> cached_kind_table(const std::vector<RuleFile>& classify_rules,
                                                  const std::filesystem::path& dir);

// Installs the fact shapes' table (parse/fact_shapes.hpp: always the built-in facts/ files) from
// the cache (`<key>.shapes`, key from the built-in rules' digest), or reads their YAML, caches the
// form and installs that; nothing when a table is in use already or there is no cache directory.
void use_cached_fact_shapes(const std::filesystem::path& dir);

// For tests: the serialized form and back.
std::string serialize_rules(const tag::RuleSet& rs);
std::optional<tag::RuleSet> deserialize_rules(std::string_view data);

}  // namespace faultline::app
