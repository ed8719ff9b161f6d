// `faultline rules list|test|lint|coverage|suggest|import-faultdiag`.
#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "commands.hpp"
#include "faultline/classify/classify.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/zones.hpp"
#include "faultline/correlate/compare.hpp"
#include "faultline/correlate/correlate.hpp"
#include "faultline/parse/fact_shapes.hpp"
#include "faultline/report/report.hpp"
#include "faultline/store/store.hpp"
#include "faultline/tag/tag.hpp"
#include "shared.hpp"

namespace faultline::cli {

namespace fs = std::filesystem;

void add_rules_options(CLI::App& cmd, RulesArgs& a) {
  cmd.require_subcommand(1);
  auto add_dirs = [&](CLI::App* sub) {
    sub->add_option("--rules", a.rule_dirs, "Extra rules directory overriding the built-in rules")
        ->check(CLI::ExistingDirectory)
        ->allow_extra_args(false);  // one DIR per --rules: `--rules DIR BUNDLE` works
  };
  auto* list = cmd.add_subcommand("list", "List signatures, diagnoses and member kinds");
  add_dirs(list);
  auto* test =
      cmd.add_subcommand("test", "Run every rule's own example lines; exits 2 on any failure");
  add_dirs(test);
  auto* lint = cmd.add_subcommand(
      "lint",
      "Check ids, file names, duplicates, kinds and that each pattern matches its examples");
  add_dirs(lint);
  auto* cov = cmd.add_subcommand(
      "coverage",
      "Fault catalog coverage: fault signatures and those with cited real example lines, per "
      "fault class, signature pack and log kind; with --kb, the KB codes a native signature "
      "recognises; with --samples, the recognised share of error-level lines");
  add_dirs(cov);
  for (auto* sub : {list, test, lint, cov})
    sub->add_option("--kb", a.kb,
                    "Add this ascend-fd knowledge base (kg-config.json) as a pack (coverage: "
                    "count the KB codes native signatures recognise)")
        ->check(CLI::ExistingFile);
  cov->add_option("--samples", a.samples,
                  "Analyse each bundle under DIR and print the share of its error-level lines "
                  "that a signature recognises")
      ->check(CLI::ExistingDirectory);
  auto* sug = cmd.add_subcommand(
      "suggest",
      "Draft signatures (YAML) from the unrecognised error templates of an analysis (--db)");
  sug->add_option("ID", a.templates, "Template ids of the report's Unrecognised errors section");
  sug->add_option("--db", a.db, "Database written by analyze --db")->required();
  sug->add_option("--bundle", a.bundle, "Bundle id of a database holding several");
  sug->add_option("--top", a.top, "Without ids: the first N templates (default 5)");
  auto* imp = cmd.add_subcommand(
      "import-faultdiag",
      "Turn an ascend-fd (MindCluster FaultDiag) knowledge base into a rule directory usable as "
      "--rules DIR (every code a fault signature with the KB's cause and suggestion)");
  imp->add_option("FILE", a.import_file, "FaultDiag knowledge-base file (kg-config.json style)")
      ->required();
  imp->add_option("--family", a.family,
                  "Family (file stem) of the generated pack (default faultdiag)");
  imp->add_option("-o,--output", a.output,
                  "Rule directory to write (DIR/signatures/<family>.yaml, created), or a .yaml "
                  "file; default stdout");
  cmd.footer(
      "Examples:\n"
      "  faultline rules list\n"
      "  faultline rules test --rules my-rules/\n"
      "  faultline rules coverage --kb kg-config.json --samples samples/\n"
      "  faultline rules suggest --db case.db u3f2a9c01be\n"
      "  faultline rules import-faultdiag kg-config.json -o kb-rules/\n"
      "  faultline analyze --rules kb-rules/ node07.tar.gz");
}

namespace {

// `rules` output holds text of rule files (titles, example lines): shown terminal-safe.
void say(const std::string& s) {
  const std::string t = text::terminal_safe(s);
  std::fwrite(t.data(), 1, t.size(), stdout);
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

namespace {

// `rules coverage --kb FILE` (docs/faults.md): how many knowledge-base codes a native signature
// recognises on a line built from the code's own ordered substrings, scanned as the code's kinds.
std::string kb_coverage(const std::vector<fs::path>& dirs, const std::string& kb) {
  std::ifstream in(kb, std::ios::binary);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<tag::KbCode> codes;
  try {
    codes = tag::read_faultdiag(json);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(kb + ": " + without_library_tags(e.what()));
  }
  const app::Rules native = app::load_rules(dirs);
  std::string err;
  const auto engine = tag::Engine::build(native.signatures, app::default_cache_dir(), &err);
  if (!engine) throw std::runtime_error(err);
  const auto& sigs = engine->signatures();
  struct Row {
    int codes = 0, lines = 0, fault = 0, any = 0;
  };
  std::map<std::string, Row> by_source;
  Row all;
  std::map<std::string, int> counterpart;  // native fault signature -> codes it recognises
  for (const auto& c : codes) {
    Row& r = by_source[c.source.empty() ? "(none)" : c.source];
    ++r.codes;
    ++all.codes;
    if (c.lines.empty()) continue;
    ++r.lines;
    ++all.lines;
    bool fault = false, any = false;
    std::set<std::string> natives;
    std::vector<std::string> kinds = c.kinds;
    if (kinds.empty()) kinds.emplace_back();
    for (const auto& line : c.lines)
      for (const auto& k : kinds)
        engine->scan(line, k == "text" ? std::string_view() : std::string_view(k),
                     [&](const tag::Hit& h) {
                       const auto& s = sigs[h.signature];
                       if (!s.fault.kb.empty()) return;
                       any = true;
                       if (s.fault.present) {
                         fault = true;
                         natives.insert(s.id);
                       }
                     });
    for (const auto& n : natives) ++counterpart[n];
    if (fault) ++r.fault, ++all.fault;
    if (any) ++r.any, ++all.any;
  }
  auto pct = [](int n, int d) {
    char b[32];
    std::snprintf(b, sizeof b, "%5.1f%%", d > 0 ? 100.0 * n / d : 0.0);
    return std::string(b);
  };
  std::string out = "\nascend-fd knowledge base " + kb + ": " + std::to_string(all.codes) +
                    " codes, " + std::to_string(all.lines) +
                    " with a line built from their own ordered substrings\n";
  out += "  a native fault signature fires on it: " + std::to_string(all.fault) + " (" +
         pct(all.fault, all.codes) + " of the codes, " + pct(all.fault, all.lines) +
         " of those with a line)\n";
  out += "  any native signature fires on it:     " + std::to_string(all.any) + " (" +
         pct(all.any, all.codes) + ", " + pct(all.any, all.lines) + ")\n";
  out += "\n" + pad("KB SOURCE_FILE", 30) + " CODES  LINES  NATIVE_FAULT  SHARE   ANY_NATIVE\n";
  for (const auto& [src, r] : by_source)
    out += pad(src, 30) + " " + pad(std::to_string(r.codes), 6) + " " +
           pad(std::to_string(r.lines), 6) + " " + pad(std::to_string(r.fault), 13) + " " +
           pct(r.fault, r.codes) + "  " + std::to_string(r.any) + "\n";
  std::vector<std::pair<int, std::string>> top;
  for (const auto& [id, n] : counterpart) top.emplace_back(-n, id);
  std::sort(top.begin(), top.end());
  out += "\nnative fault signatures standing for the most KB codes:\n";
  for (size_t i = 0; i < top.size() && i < 10; ++i)
    out += "  " + pad(top[i].second, 40) + " " + std::to_string(-top[i].first) + "\n";
  return out;
}

// `rules coverage --samples DIR`: every bundle of DIR analysed (temporary database); the
// error-level lines (error, critical) and how many of them a signature recognises (has a hit),
// and how many a finding cites.
std::string samples_coverage(const std::string& dir, const std::vector<fs::path>& dirs,
                             const std::string& kb) {
  app::Options o;
  o.rule_dirs = dirs;
  o.cache_dir = app::default_cache_dir();
  o.kb_file = kb;
  o.no_kb = kb.empty();
  // each sub-directory is a bundle (samples/<name>/), else DIR itself
  std::vector<fs::path> bundles;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) bundles.push_back(it->path());
  std::sort(bundles.begin(), bundles.end());
  if (bundles.empty()) bundles.emplace_back(dir);
  std::string out = "\nerror-level lines of the bundles in " + dir +
                    (kb.empty() ? " (built-in signatures)" : " (with the knowledge base)") + "\n";
  out += pad("BUNDLE", 40) + " ERRORS  RECOGNISED  SHARE   IN_A_FINDING\n";
  int64_t tot = 0, rec = 0, cited = 0;
  for (const auto& b : bundles) {
    DbFile dbf("");
    auto db = store::Db::open(dbf.path(), dbf.durability());
    const app::Outcome res = app::analyze(*db, b, o);
    if (res.exit_code != 0) continue;
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(
        db->handle(),
        "SELECT COUNT(*), SUM(EXISTS(SELECT 1 FROM hits h WHERE h.event_id = e.id)), "
        "SUM(EXISTS(SELECT 1 FROM finding_evidence fe JOIN findings f ON f.id = "
        "fe.finding_id JOIN members m ON m.path = fe.member AND m.bundle_id = "
        "f.bundle_id WHERE f.bundle_id = e.bundle_id AND m.id = e.member_id AND "
        "fe.line = e.line)) FROM events e WHERE e.bundle_id = ? AND e.sev_rank >= 4",
        -1, &s, nullptr);
    sqlite3_bind_int64(s, 1, res.bundle_id);
    int64_t n = 0, r = 0, c = 0;
    if (sqlite3_step(s) == SQLITE_ROW) {
      n = sqlite3_column_int64(s, 0);
      r = sqlite3_column_int64(s, 1);
      c = sqlite3_column_int64(s, 2);
    }
    sqlite3_finalize(s);
    tot += n;
    rec += r;
    cited += c;
    char share[32];
    std::snprintf(share, sizeof share, "%5.1f%%",
                  n > 0 ? 100.0 * static_cast<double>(r) / static_cast<double>(n) : 0.0);
    out += pad(b.filename().string(), 40) + " " + pad(std::to_string(n), 7) + " " +
           pad(std::to_string(r), 11) + " " + share + "  " + std::to_string(c) + "\n";
  }
  char share[32];
  std::snprintf(share, sizeof share, "%.1f%%",
                tot > 0 ? 100.0 * static_cast<double>(rec) / static_cast<double>(tot) : 0.0);
  out += "total: " + std::to_string(tot) + " error-level lines, " + std::to_string(rec) +
         " recognised by a signature (" + share + "), " + std::to_string(cited) +
         " cited by a finding\n";
  return out;
}

}  // namespace

namespace {

// `rules suggest` (docs/faults.md): draft signatures from unrecognised error templates, as a
// pack `family: draft` on stdout, checked by the engine (its examples) with the result on stderr.
int run_suggest(const RulesArgs& a) {
  std::string why;
  if (probe_db(a.db, &why) != DbKind::faultline) {
    std::cerr << "faultline: " << a.db << ": not a database written by faultline analyze --db\n";
    return 3;
  }
  auto db = store::Db::open(a.db);
  auto ids = store::bundle_ids(db->handle(), false);
  int64_t bundle = ids.empty() ? -1 : ids.back();
  if (!a.bundle.empty()) {
    const auto n = text::to_int<int64_t>(a.bundle);
    if (!n || std::find(ids.begin(), ids.end(), *n) == ids.end())
      throw UsageError("--bundle: no complete bundle " + a.bundle + " in " + a.db);
    bundle = *n;
  }
  if (bundle < 0) {
    std::cerr << "faultline: " << a.db << ": no complete analysis in this database\n";
    return 3;
  }
  std::string name;
  {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db->handle(), "SELECT name FROM bundles WHERE id = ?", -1, &s, nullptr);
    sqlite3_bind_int64(s, 1, bundle);
    if (sqlite3_step(s) == SQLITE_ROW)
      if (const auto* t = sqlite3_column_text(s, 0)) name = reinterpret_cast<const char*>(t);
    sqlite3_finalize(s);
  }
  const auto all = report::unrecognised_errors(db->handle(), bundle, 1000);
  std::vector<const report::UnknownTemplate*> chosen;
  for (const auto& id : a.templates) {
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& t) { return t.id == id; });
    if (it == all.end())
      throw UsageError("no unrecognised error template " + id + " in bundle " +
                       std::to_string(bundle) + " of " + a.db);
    chosen.push_back(&*it);
  }
  if (a.templates.empty())
    for (size_t i = 0; i < all.size() && i < a.top; ++i) chosen.push_back(&all[i]);
  if (chosen.empty()) {
    std::cerr << "faultline: no unrecognised error in bundle " << bundle << " of " << a.db << "\n";
    return 0;
  }
  std::string yaml = "family: draft\nsignatures:\n";
  for (const auto* t : chosen) {
    // negative examples: the other templates' lines (of the same bundle)
    std::vector<std::string> others;
    for (const auto& o : all)
      if (&o != t && !o.examples.empty()) others.push_back(o.examples.front().text);
    yaml += report::suggest_signature(*t, name, others);
  }
  say(yaml);
  std::fflush(stdout);
  const auto rs = tag::load_signatures({{"signatures/draft.yaml", yaml}});
  for (const auto& e : rs.errors) std::cerr << "draft: " << text::terminal_safe(e) << "\n";
  std::string err;
  const auto engine = rs.signatures.empty() ? nullptr : tag::Engine::build(rs, {}, &err);
  if (!engine) {
    std::cerr << "faultline: the drafts do not compile: " << err << "\n";
    return rs.errors.empty() ? 0 : 2;
  }
  const auto rep = tag::run_examples(rs, *engine);
  std::cerr << "faultline: " << rs.signatures.size()
            << " draft signature(s); their examples: " << (rep.checked - rep.failures)
            << " passed, " << rep.failures << " failed\n";
  if (rep.failures) std::cerr << text::terminal_safe(rep.text);
  return 0;
}

}  // namespace

int run_rules(CLI::App& cmd, const RulesArgs& a) {
  std::vector<fs::path> dirs(a.rule_dirs.begin(), a.rule_dirs.end());
  if (cmd.got_subcommand("import-faultdiag")) {
    // -o: a .yaml/.yml file (the pack alone), else a rule directory
    std::string out_file = a.output;
    const std::string ext = fs::path(a.output).extension().string();
    const bool to_dir = !a.output.empty() && a.output != "-" && ext != ".yaml" && ext != ".yml";
    const std::string family = a.family.empty() ? "faultdiag" : a.family;
    if (to_dir) {
      std::error_code ec;
      if (fs::exists(a.output, ec) && !fs::is_directory(a.output, ec))
        throw UsageError("-o: " + a.output + " exists and is not a directory");
      const fs::path parent = fs::path(a.output).lexically_normal().parent_path();
      if (!parent.empty() && !fs::is_directory(parent, ec))
        throw UsageError("-o: " + a.output + ": the directory " + parent.string() +
                         " does not exist");
      out_file = (fs::path(a.output) / "signatures" / (family + ".yaml")).string();
    } else {
      check_output(a.output);
    }
    std::error_code ec;
    if (!fs::exists(a.import_file, ec)) {
      std::cerr << "faultline: " << a.import_file << ": no such file\n";
      return 3;
    }
    if (fs::is_directory(a.import_file, ec)) {
      std::cerr << "faultline: " << a.import_file
                << ": is a directory, not a FaultDiag JSON file\n";
      return 3;
    }
    std::ifstream in(a.import_file, std::ios::binary);
    if (!in) {
      std::cerr << "faultline: " << a.import_file << ": cannot be read: " << std::strerror(errno)
                << "\n";
      return 3;
    }
    const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    tag::ImportStats st;
    std::string yaml;
    try {
      yaml = app::import_kb(json, family, &st);
    } catch (const std::invalid_argument& e) {
      std::cerr << "faultline: " << a.import_file << ": " << without_library_tags(e.what()) << "\n";
      return 3;
    }
    if (to_dir) {
      fs::create_directories(fs::path(out_file).parent_path(), ec);
      if (ec)
        throw std::runtime_error(fs::path(out_file).parent_path().string() +
                                 ": cannot be created: " + ec.message());
    }
    write_output(out_file, yaml);
    std::cerr << "faultline: " << a.import_file << ": " << st.codes << " code(s): imported "
              << st.imported << " as fault signatures (" << st.aliased
              << " through a native counterpart, " << st.full_regex << " full regex, "
              << st.captures << " with captures), skipped " << st.skipped << "\n";
    for (const auto& n : st.skipped_codes)
      std::cerr << "  skipped " << text::terminal_safe(n) << "\n";
    for (const auto& n : st.notes) std::cerr << "  note: " << text::terminal_safe(n) << "\n";
    if (to_dir)
      std::cerr << "faultline: wrote " << out_file << "; use it with --rules " << a.output << "\n";
    return 0;
  }
  if (cmd.got_subcommand("suggest")) return run_suggest(a);
  const app::Rules rules = app::load_rules(dirs, a.kb, a.kb.empty() ? "" : "--kb");
  for (const auto& w : rules.signatures.warnings) std::cerr << "warning: " << w << "\n";
  if (!rules.signatures.errors.empty()) {
    for (const auto& e : rules.signatures.errors) std::cerr << "error: " << e << "\n";
    return 2;
  }
  // kinds known to the classifier (rules/classify)
  std::vector<std::string> kinds;
  {
    const classify::Classifier cls(rules_under(rules.files, "classify/"));
    for (const auto& [k, d] : cls.kinds()) kinds.push_back(k);
    kinds.emplace_back("text");
    kinds.emplace_back("binary");
  }
  std::vector<std::string> sig_ids;
  for (const auto& s : rules.signatures.signatures) sig_ids.push_back(s.id);

  if (cmd.got_subcommand("list")) {
    say(tag::list_text(rules.signatures));
    say("\n" + pad("DIAGNOSIS", 40) + " " + pad("KIND", 11) + " " + pad("SEVERITY", 9) +
        " TITLE\n");
    for (const auto& d : correlate::list(rules.correlate_files()))
      say(pad(d.id, 40) + " " + pad(d.kind, 11) + " " + pad(d.severity, 9) + " " + d.title + "\n");
    say("\n" + pad("KIND", 22) + " DESCRIPTION\n");
    const classify::Classifier cls(rules_under(rules.files, "classify/"));
    for (const auto& [k, d] : cls.kinds()) say(pad(k, 22) + " " + d + "\n");
    return 0;
  }
  if (cmd.got_subcommand("coverage")) {
    std::fputs(tag::coverage_text(rules.signatures).c_str(), stdout);
    {
      std::string err;
      const auto engine = tag::Engine::build(rules.signatures, app::default_cache_dir(), &err);
      if (!engine) throw std::runtime_error(err);
      say(app::code_coverage_text(rules.files, *engine));
    }
    if (!a.kb.empty()) say(kb_coverage(dirs, a.kb));
    if (!a.samples.empty()) say(samples_coverage(a.samples, dirs, a.kb));
    return 0;
  }
  if (cmd.got_subcommand("test")) {
    std::string err;
    const auto engine = tag::Engine::build(rules.signatures, {}, &err);
    if (!engine) {
      std::cerr << "error: " << err << "\n";
      return 2;
    }
    const auto rep = tag::run_examples(rules.signatures, *engine);
    say(rep.text);
    // diagnoses: their own checks (known signatures, templates, compat tables)
    auto dprob = correlate::lint(rules.correlate_files(), sig_ids);
    // fact shapes (rules/facts): each shape's examples through that shape alone
    for (auto& p : parse::check_fact_shapes(rules.files)) dprob.push_back(std::move(p));
    for (const auto& p : dprob) say(p + "\n");
    say(std::to_string(rep.checked - rep.failures) + " passed, " +
        std::to_string(rep.failures + static_cast<int>(dprob.size())) + " failed\n");
    return rep.failures == 0 && dprob.empty() ? 0 : 2;
  }
  if (cmd.got_subcommand("lint")) {
    int errors = 0;
    for (const auto& p : tag::lint(rules.signatures, kinds)) {
      say(p.to_string() + "\n");
      if (p.level == tag::Problem::Level::error) ++errors;
    }
    for (const auto& p : correlate::lint(rules.correlate_files(), sig_ids)) {
      say("error: " + p + "\n");
      ++errors;
    }
    for (const auto& p : correlate::lint_compare(rules_under(rules.files, "compare/"))) {
      say("error: " + p + "\n");  // rules/compare (docs/compare.md)
      ++errors;
    }
    for (const auto& p : parse::check_fact_shapes(rules.files)) {
      say("error: " + p + "\n");  // rules/facts (docs/facts.md "Fact shapes")
      ++errors;
    }
    for (const auto& f : rules_under(rules.files, "clock/zones.yaml"))  // docs/clock.md "Zones"
      for (const auto& p : load_zone_table(f.text).errors) {
        say("error: " + f.path + ": " + p + "\n");
        ++errors;
      }
    say(std::to_string(rules.signatures.signatures.size()) + " signatures, " +
        std::to_string(errors) + " error(s)\n");
    return errors == 0 ? 0 : 2;
  }
  return 2;
}

}  // namespace faultline::cli
