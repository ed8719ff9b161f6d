// Evaluation of one diagnosis on one host: conditions -> matched or not, a score out of a
// maximum (share of evidence present), the evidence rows, and what was looked for but missing.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "data.hpp"
#include "model.hpp"

namespace faultline::correlate::detail {

struct Evidence {
  std::string host, member, kind, text, signature, fact, time_quality;
  std::string value;  // the fact's value (not stored; used to drop repeated statements)
  int64_t member_id = 0, line = 0, event_id = 0;
  std::optional<int64_t> time_ns;
};

struct Binding {
  std::map<std::string, std::string> fields;  // value, name, star, captures, JSON fields, ...
};

struct Env {
  std::map<std::string, Binding> vars;
  std::vector<size_t> evidence;  // indices into Evaluator::pool()
};

struct Result {
  bool matched = false;
  double score = 0, max = 0;
  std::vector<Env> envs;             // environments that satisfy (when matched)
  std::vector<std::string> missing;  // evidence looked for and not found
  std::vector<std::string> notes;    // why a match counted less (assumed zone, unknown version)
};

struct Outcome {
  bool fired = false;
  double score = 0, max = 0;
  std::vector<size_t> evidence;
  std::vector<std::string> missing, notes;
  Env env;  // first satisfying environment (for the summary template)
};

class Evaluator {
 public:
  Evaluator(const RuleBook& book, const HostData& host, LineSource& lines)
      : book_(book), host_(host), lines_(lines) {}

  Outcome run(const Diagnosis& d);
  std::string fill(const std::string& tmpl, const Env& env);
  [[nodiscard]] const std::vector<Evidence>& pool() const { return pool_; }

 private:
  Result eval(const Node& n, const std::vector<Env>& in);
  Result eval_leaf(const Node& n, const std::vector<Env>& in);

  struct Match {
    Binding binding;
    std::vector<size_t> evidence;
  };
  // One leaf on one environment: the items that satisfy it. `uncertain` is set when a match
  // rests on an assumption (see Result::notes).
  std::vector<Match> leaf_matches(const Node& n, const Env& env, std::vector<std::string>& notes);

  std::vector<Match> m_hit(const Node& n, const Env& env);
  std::vector<Match> m_fact(const Node& n, const Env& env);
  std::vector<Match> m_compare(const Node& n, const Env& env, std::vector<std::string>& notes);
  std::vector<Match> m_compat(const Node& n, const Env& env, std::vector<std::string>& notes);
  std::vector<Match> m_time_order(const Node& n, const Env& env, std::vector<std::string>& notes);
  std::vector<Match> m_series(const Node& n, const Env& env, std::vector<std::string>& notes);
  std::vector<Match> m_range(const Node& n, const Env& env);
  std::vector<Match> m_path(const Node& n, const Env& env, std::vector<std::string>& notes);

  std::optional<std::string> lookup(const Env& env, const std::string& name);
  std::string subst(const std::string& s, const Env& env, bool escape = false);
  bool test(const Predicate& p, const std::optional<std::string>& subject, const Env& env);
  bool pred_ok(const std::vector<Predicate>& ps, const HitRow& h, const Env& env);
  bool pred_ok(const std::vector<Predicate>& ps, const FactRow& f, const Env& env);

  std::vector<const FactRow*> facts_named(const std::string& glob, bool fold,
                                          std::vector<std::string>* stars = nullptr);
  const nlohmann::json& json_of(const FactRow& f);

  size_t ev_hit(const HitRow& h);
  size_t ev_fact(const FactRow& f);
  Binding bind_hit(const HitRow& h);
  Binding bind_fact(const FactRow& f, const std::string& star);

  // A time of a fact: UTC ns, or host-local civil ns (local=true).
  struct When {
    int64_t ns = 0;
    bool local = false;
    std::string quality;
  };
  std::optional<When> fact_time(const FactRow& f);

  std::string describe(const Node& n);

  const RuleBook& book_;
  const HostData& host_;
  LineSource& lines_;
  std::vector<Evidence> pool_;
  std::map<std::string, size_t> pool_index_;
  std::map<int64_t, nlohmann::json> json_cache_;
};

// Time of a fact for the timeline and evidence (shared with the timeline builder).
std::optional<int64_t> parse_local_civil(std::string_view s);  // "YYYY-MM-DD HH:MM:SS" -> ns

}  // namespace faultline::correlate::detail
