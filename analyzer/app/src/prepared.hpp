// What an analysis needs from the rules, built once and reused: fleet workers prepare once and
// analyse many bundles with it (rule files are YAML: parsing them costs more than reading a small
// node bundle).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "faultline/app/app.hpp"
#include "faultline/classify/classify.hpp"
#include "faultline/pipeline/stats.hpp"

namespace faultline::app {

struct Prepared {
  Rules rules;
  std::vector<RuleFile> classify_rules;
  std::unique_ptr<classify::Classifier> cls;  // members (the reading thread)
  // composite files' sections when the pass runs on two threads (a Classifier keeps PCRE2 match
  // data: one per thread), built by the writing thread at the first composite file
  std::unique_ptr<classify::Classifier> section_cls;
  // rules.fault_defs() and rules.restart_defs(), made once (a fleet worker used to make them
  // for every bundle)
  std::vector<correlate::FaultDef> fault_defs;
  std::vector<correlate::RestartDef> restart_defs;
  // null when there are no signatures; reads rules.signatures (Engine::build_borrowing): declared
  // after `rules`, destroyed before it
  std::unique_ptr<tag::Engine> engine;
  pipeline::Span span;  // what preparing cost
};

// Loads the rules (embedded + opts.rule_dirs), the classifiers and the signature database
// (compiled or from opts.cache_dir). Throws std::runtime_error on rule errors. Not thread-safe
// in use: one Prepared per thread that analyses (the engine scans with its own scratch).
std::unique_ptr<Prepared> prepare(const Options& opts);

// analyze() with prepared rules.
Outcome analyze_prepared(store::Db& db, const std::filesystem::path& bundle, const Options& opts,
                         Prepared& prepared);

}  // namespace faultline::app
