#include "diff_cmd.hpp"

#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "faultline/app/diff.hpp"
#include "faultline/report/diff.hpp"

namespace faultline::cli {

namespace fs = std::filesystem;

void add_diff_options(CLI::App& cmd, DiffArgs& a) {
  cmd.add_option("GOOD", a.good,
                 "The last good collection: a bundle, or the database of an earlier `analyze "
                 "--db`")
      ->required();
  cmd.add_option("BAD", a.bad, "The failing collection: a bundle or a database")->required();
  cmd.add_option("--format", a.format, "Output format: md (default), json, html");
  cmd.add_option("-o,--output", a.output, "Write the report to FILE (default: stdout)");
  cmd.add_flag("--summary", a.summary,
               "Print only the verdict line and the number of changed facts per group");
  cmd.add_flag("--fail-on-change", a.fail_on_change,
               "Exit 1 when there is a meaningful change (for scripts)");
  add_verbosity_options(cmd, a.verbosity, "No progress on stderr");
  cmd.add_option("--rules", a.rule_dirs,
                 "Extra rules directory (compare/, signatures/, ...); its files override the "
                 "built-in ones with the same path. Repeatable.")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);
  cmd.add_option("--cache-dir", a.cache_dir, "Where compiled signature databases are cached");
  cmd.add_flag("--no-cache", a.no_cache, "Compile the signature database every time");
  cmd.add_option("--kb", a.kb, "ascend-fd knowledge base (kg-config.json) to use as a fault pack");
  cmd.add_flag("--no-kb", a.no_kb, "Use no ascend-fd knowledge base, even an installed one");
}

int run_diff(const DiffArgs& a) {
  const auto fmt = report::format_from(a.format);
  if (!fmt ||
      (*fmt != report::Format::md && *fmt != report::Format::json && *fmt != report::Format::html))
    throw UsageError("--format: '" + a.format + "' is not one of md, json, html");
  if (!a.output.empty() && a.output != "-") {
    const fs::path parent = fs::path(a.output).parent_path();
    std::error_code ec;
    if (!parent.empty() && !fs::is_directory(parent, ec))
      throw UsageError("-o: " + a.output + ": the directory " + parent.string() +
                       " does not exist");
  }
  if (a.no_kb && !a.kb.empty()) throw UsageError("--kb and --no-kb exclude each other");
  app::Options o;
  for (const auto& d : a.rule_dirs) o.rule_dirs.emplace_back(d);
  if (!a.no_cache)
    o.cache_dir = a.cache_dir.empty() ? app::default_cache_dir() : fs::path(a.cache_dir);
  o.kb_file = a.kb;
  o.no_kb = a.no_kb;
  o.progress = progress_mode(a.verbosity);
  const auto out = app::diff(a.good, a.bad, o);
  if (out.exit_code != 0) {
    std::cerr << "faultline diff: " << out.error << "\n";
    return out.exit_code;
  }
  write_output(a.output, a.summary ? report::render_diff_summary(out.diff)
                                   : report::render_diff(out.diff, *fmt));
  return a.fail_on_change && out.diff.meaningful ? 1 : 0;
}

void add_similar_options(CLI::App& cmd, SimilarArgs& a) {
  cmd.add_option("BUNDLE", a.bundle, "The bundle (or the database of its analysis)")->required();
  cmd.add_option("--db-dir", a.db_dir,
                 "Folder of earlier analysis databases (`analyze --db`, serve's data/db)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd.add_option("--top", a.top, "How many to list (default 5)");
  cmd.add_option("--format", a.format, "Output format: md (default), json, html");
  cmd.add_option("-o,--output", a.output, "Write the report to FILE (default: stdout)");
  add_verbosity_options(cmd, a.verbosity, "No progress on stderr");
  cmd.add_option("--rules", a.rule_dirs, "Extra rules directory. Repeatable.")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);
  cmd.add_option("--cache-dir", a.cache_dir, "Where compiled signature databases are cached");
  cmd.add_flag("--no-cache", a.no_cache, "Compile the signature database every time");
}

int run_similar(const SimilarArgs& a) {
  const auto fmt = report::format_from(a.format);
  if (!fmt ||
      (*fmt != report::Format::md && *fmt != report::Format::json && *fmt != report::Format::html))
    throw UsageError("--format: '" + a.format + "' is not one of md, json, html");
  app::Options o;
  for (const auto& d : a.rule_dirs) o.rule_dirs.emplace_back(d);
  if (!a.no_cache)
    o.cache_dir = a.cache_dir.empty() ? app::default_cache_dir() : fs::path(a.cache_dir);
  o.progress = progress_mode(a.verbosity);
  const auto out = app::similar(a.bundle, a.db_dir, o, a.top);
  if (out.exit_code != 0) {
    std::cerr << "faultline similar: " << out.error << "\n";
    return out.exit_code;
  }
  write_output(a.output,
               report::render_similar(out.query, out.matches, out.analyses, out.skipped, *fmt));
  return 0;
}

std::string with_fleet_diff(store::Db& db, const std::vector<int64_t>& bundle_ids, report::Format f,
                            const app::Options& o, std::string fleet_report) {
  return report::add_fleet_diff(std::move(fleet_report), app::fleet_diff(db, bundle_ids, o), f);
}

}  // namespace faultline::cli
