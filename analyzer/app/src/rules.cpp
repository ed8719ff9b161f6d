// What an analysis needs from the rules: the merged rule files, the knowledge-base pack, the
// parsed signature packs (cached) and the compiled signature database (prepared.hpp).
#include "faultline/core/rules.hpp"

#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "faultline/app/app.hpp"
#include "faultline/classify/classify.hpp"
#include "faultline/core/sha256.hpp"
#include "faultline/tag/tag.hpp"
#include "prepared.hpp"
#include "rule_cache.hpp"

namespace faultline::app {

std::vector<correlate::FaultDef> Rules::fault_defs() const {
  std::vector<correlate::FaultDef> out;
  for (const auto& sig : signatures.signatures) {
    if (!sig.active() || !sig.fault.present) continue;
    correlate::FaultDef d;
    d.signature = sig.id;
    d.title = sig.title;
    d.cls = sig.fault.cls;
    d.component = sig.fault.component;
    d.role = sig.fault.role;
    d.cause = sig.fault.cause;
    d.suggestion = sig.fault.suggestion;
    d.code = sig.fault.code;
    d.code_capture = sig.fault.code_capture;
    d.severity = std::string(to_string(sig.fault.has_severity ? sig.fault.severity : sig.severity));
    d.causes = sig.causes;
    d.caused_by = sig.fault.caused_by;
    d.cleared_by = sig.fault.cleared_by;
    d.clear_key = sig.fault.clear_key;
    d.generic = sig.fault.generic;
    d.last = sig.fault.generic_last;
    d.code_matcher = sig.fault.generic_code;
    d.lookup = sig.fault.lookup;
    d.kb = sig.fault.kb;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<correlate::RestartDef> Rules::restart_defs() const {
  std::vector<correlate::RestartDef> out;
  for (const auto& sig : signatures.signatures) {
    if (!sig.active() || !sig.restart.present) continue;
    correlate::RestartDef d;
    d.signature = sig.id;
    d.process_scope = sig.restart.scope == "process";
    d.from = sig.restart.from;
    d.margin_ns = static_cast<int64_t>(sig.restart.margin_s) * 1000000000;
    d.kinds = sig.restart.kinds;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<RuleFile> Rules::correlate_files() const {
  auto d = rules_under(files, "diagnoses/");
  auto c = rules_under(files, "compat/");
  auto k = rules_under(files, "codes/");
  d.insert(d.end(), c.begin(), c.end());
  d.insert(d.end(), k.begin(), k.end());
  return d;
}

namespace {

// Rule messages start with the file's path inside its rules root ("signatures/svm.yaml:5: ...").
// With --rules DIR that is ambiguous: name the directory the file is in (the last --rules DIR
// holding it, as that one wins), or say it is built in.
void locate_rule_messages(std::vector<std::string>& msgs,
                          const std::vector<std::filesystem::path>& dirs) {
  if (dirs.empty()) return;
  for (auto& m : msgs) {
    const size_t colon = m.find(':');
    if (colon == std::string::npos || colon == 0) continue;
    const std::string rel = m.substr(0, colon);
    std::string where = "(built-in) ";
    for (auto d = dirs.rbegin(); d != dirs.rend(); ++d) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(*d / rel, ec)) {
        where = (*d / "").string();
        break;
      }
    }
    m.insert(0, where);
  }
}

}  // namespace

namespace {

constexpr uintmax_t kMaxKbBytes = 64ULL << 20;  // a kg-config.json is about 1.3 MB

// The signature root of the knowledge base of a run (empty when none), and what the report says
// about it. A --rules DIR that already holds an imported pack wins (no second copy of the
// codes). An explicit --kb / FAULTLINE_KB file that cannot be read or imported is an error; a
// found one is a warning only (a broken installed package must not stop an analysis).
// The import of a knowledge base, cached in the rule cache directory as <key>.kb.yaml, key =
// sha256 of the file's sha256 and the executable's identity (the import depends on both: the
// aliases and native signatures are embedded). Saves the import (~0.1 s) on every run.
std::string cached_import(const std::string& json, const std::string& sha,
                          const std::filesystem::path& cache, tag::ImportStats* st) {
  namespace fs = std::filesystem;
  std::string key;
  if (!cache.empty()) {
    key = rule_cache_key({{RuleFile{"kb/kg-config.json", sha}}});
    std::ifstream in(cache / (key + ".kb.yaml"), std::ios::binary);
    if (in) {
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      // the header says "<n> signatures, <m> entries skipped"
      const size_t at = text.find(" signatures, ");
      const size_t nl = text.find('\n', std::string(tag::kFaultdiagHeader).size() + 1);
      if (text.rfind(tag::kFaultdiagHeader, 0) == 0 && at != std::string::npos && at < nl + 200) {
        st->skipped = std::atoi(text.c_str() + at + 13);
        std::error_code ec;
        fs::last_write_time(cache / (key + ".kb.yaml"), fs::file_time_type::clock::now(), ec);
        return text;
      }
    }
  }
  std::string yaml = import_kb(json, "faultdiag", st);
  if (!key.empty()) {
    const fs::path file = cache / (key + ".kb.yaml");
    const fs::path tmp = file.string() + ".tmp." + std::to_string(::getpid());
    std::error_code ec;
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << yaml;
      if (!out) {
        out.close();
        fs::remove(tmp, ec);
        return yaml;
      }
    }
    fs::rename(tmp, file, ec);
    if (ec) fs::remove(tmp, ec);
    // keep the 3 most recently used imports
    std::vector<std::pair<fs::file_time_type, fs::path>> old;
    for (const auto& e : fs::directory_iterator(cache, ec)) {
      const std::string n = e.path().filename().string();
      if (n.size() < 8 || n.compare(n.size() - 8, 8, ".kb.yaml") != 0 || e.path() == file) continue;
      old.emplace_back(e.last_write_time(ec), e.path());
    }
    std::sort(old.begin(), old.end());
    for (size_t i = 0; i + 3 < old.size(); ++i) fs::remove(old[i].second, ec);
  }
  return yaml;
}

std::vector<RuleFile> kb_root(const std::filesystem::path& kb, const std::string& how,
                              const std::vector<std::vector<RuleFile>>& roots,
                              const std::vector<std::filesystem::path>& dirs,
                              std::optional<KbInfo>* info,
                              const std::filesystem::path& cache = {}) {
  for (size_t r = 1; r < roots.size(); ++r)
    for (const auto& f : roots[r])
      if (f.text.rfind(tag::kFaultdiagHeader, 0) == 0) {
        KbInfo k;
        k.how = "--rules";
        k.file = (r - 1 < dirs.size() ? (dirs[r - 1] / f.path).string() : f.path);
        *info = k;
        return {};
      }
  if (kb.empty()) return {};
  const bool required = how != "found";
  auto fail = [&](const std::string& why) -> std::vector<RuleFile> {
    const std::string msg = kb.string() + ": " + why;
    if (required) throw std::runtime_error("knowledge base " + msg);
    std::fprintf(stderr, "faultline: warning: ascend-fd knowledge base %s; analysing without it\n",
                 msg.c_str());
    return {};
  };
  std::error_code ec;
  const auto size = std::filesystem::file_size(kb, ec);
  if (ec) return fail("cannot be read: " + ec.message());
  if (size > kMaxKbBytes) return fail("larger than 64 MiB: not a kg-config.json");
  std::ifstream in(kb, std::ios::binary);
  if (!in) return fail("cannot be read");
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  tag::ImportStats st;
  std::string yaml;
  const std::string sha = sha256_hex(json);
  try {
    yaml = cached_import(json, sha, cache, &st);
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  KbInfo k;
  k.file = kb.string();
  k.how = how;
  k.sha256 = sha;
  k.skipped = st.skipped;
  *info = k;
  return {RuleFile{"signatures/faultdiag.yaml", std::move(yaml)}};
}

// Rules::digest: the signature roots of the run, then its merged non-signature rule files.
std::string run_digest(std::vector<std::vector<RuleFile>> roots,
                       const std::vector<RuleFile>& files) {
  std::vector<RuleFile> rest;
  for (const auto& f : files)
    if (f.path.rfind("signatures/", 0) != 0) rest.push_back(f);
  roots.push_back(std::move(rest));
  return rules_digest(roots);
}

void count_kb(Rules& r) {
  if (!r.kb) return;
  r.kb->codes = 0;
  for (const auto& s : r.signatures.signatures)
    if (s.active() && s.fault.present && !s.fault.kb.empty()) ++r.kb->codes;
}

}  // namespace

std::string rules_digest_of(const std::vector<std::filesystem::path>& dirs) {
  if (dirs.empty()) return std::string(embedded_digests().all);  // computed at build time
  std::vector<std::vector<RuleFile>> roots;
  roots.push_back(embedded_rules_under("signatures/"));
  for (const auto& d : dirs) roots.push_back(rules_under(read_rule_dir(d), "signatures/"));
  return run_digest(roots, merged_rules(dirs));
}

Rules load_rules(const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& kb,
                 const std::string& how) {
  Rules r;
  r.files = merged_rules(dirs);
  std::vector<std::vector<RuleFile>> roots;
  roots.push_back(embedded_rules_under("signatures/"));
  for (const auto& d : dirs) roots.push_back(rules_under(read_rule_dir(d), "signatures/"));
  if (auto k = kb_root(kb, how, roots, dirs, &r.kb); !k.empty())
    roots.insert(roots.begin() + 1, std::move(k));
  r.signatures = tag::load_signature_roots(roots);
  r.digest = run_digest(roots, r.files);
  locate_rule_messages(r.signatures.errors, dirs);
  locate_rule_messages(r.signatures.warnings, dirs);
  count_kb(r);
  return r;
}

std::filesystem::path default_cache_dir() {
  if (const char* x = std::getenv("FAULTLINE_CACHE_DIR"); x && *x) return x;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::filesystem::path(x) / "faultline";
  if (const char* hm = std::getenv("HOME"); hm && *hm)
    return std::filesystem::path(hm) / ".cache" / "faultline";
  return {};
}

std::unique_ptr<Prepared> prepare(const Options& opts) {
  auto p = std::make_unique<Prepared>();
  pipeline::SpanTimer t(p->span);
  std::error_code ec;
  std::filesystem::path cache = opts.cache_dir;
  if (!cache.empty()) std::filesystem::create_directories(cache, ec);
  if (ec) cache.clear();
  // as load_rules(), with the classifier (PCRE2 compile + JIT) built on a second thread while
  // the signature packs are parsed (YAML: the largest fixed cost of a run)
  p->rules.files = merged_rules(opts.rule_dirs);
  p->classify_rules = rules_under(p->rules.files, "classify/");
  std::exception_ptr cls_error;
  std::thread cls_thread([&] {
    try {
      p->cls = std::make_unique<classify::Classifier>(cached_kind_table(p->classify_rules, cache));
    } catch (...) {
      cls_error = std::current_exception();
    }
  });
  try {
    // roots[0], the built-in packs, is read from the binary only when something needs its text
    std::vector<std::vector<RuleFile>> roots(1);
    for (const auto& d : opts.rule_dirs)
      roots.push_back(rules_under(read_rule_dir(d), "signatures/"));
    // the knowledge base after the built-in packs, before --rules DIRs (they may override it)
    std::string how;
    const std::filesystem::path kb = choose_kb(opts, &how);
    if (auto k = kb_root(kb, how, roots, opts.rule_dirs, &p->rules.kb, cache); !k.empty())
      roots.insert(roots.begin() + 1, std::move(k));
    // Only the built-in rules: their digests were computed at build time (issue 38: hashing
    // 2.3 MB of rule text on every run). Otherwise hashed here.
    const bool builtin = roots.size() == 1;
    std::string sig_digest;
    if (builtin) {
      p->rules.digest = std::string(embedded_digests().all);
      sig_digest = std::string(embedded_digests().signatures);
    } else {
      roots[0] = embedded_rules_under("signatures/");
      p->rules.digest = run_digest(roots, p->rules.files);
      sig_digest = rules_digest(roots);
    }
    // the parsed packs are cached next to the compiled database (rule_cache.hpp)
    const std::string key = cache.empty() ? std::string() : rule_cache_key_of(sig_digest);
    if (auto cached = load_cached_rules(cache, key)) {
      p->rules.signatures = std::move(*cached);
    } else {
      if (roots[0].empty()) roots[0] = embedded_rules_under("signatures/");
      p->rules.signatures = tag::load_signature_roots(roots);
      if (p->rules.signatures.errors.empty()) store_cached_rules(cache, key, p->rules.signatures);
    }
  } catch (...) {
    cls_thread.join();
    throw;
  }
  cls_thread.join();
  if (cls_error) std::rethrow_exception(cls_error);
  p->rules.codes =
      cached_codes(p->rules.files, cache,
                   opts.rule_dirs.empty() ? embedded_digests().codes : std::string_view());
  p->rules.book = cached_book(p->rules, cache);
  use_cached_fact_shapes(cache);
  count_kb(p->rules);
  p->fault_defs = p->rules.fault_defs();
  p->restart_defs = p->rules.restart_defs();
  const tag::RuleSet& ruleset = p->rules.signatures;
  if (!ruleset.errors.empty()) {
    std::vector<std::string> errors = ruleset.errors;
    locate_rule_messages(errors, opts.rule_dirs);
    std::string msg = "rule errors:";
    for (const auto& e : errors) msg += "\n  " + e;
    throw std::runtime_error(msg);
  }
  if (!ruleset.signatures.empty()) {
    std::string err;
    // p->rules outlives p->engine (declared before it in Prepared) and is not changed after
    p->engine = tag::Engine::build_borrowing(ruleset, cache, &err);
    if (!p->engine) throw std::runtime_error(err);
  }
  t.stop();
  return p;
}

}  // namespace faultline::app
