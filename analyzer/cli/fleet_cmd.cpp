// `faultline fleet BUNDLE_OR_DIR...`: the node bundles (or node databases) of one job together.

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "diff_cmd.hpp"
#include "faultline/report/report.hpp"
#include "faultline/store/store.hpp"
#include "shared.hpp"

namespace faultline::cli {

namespace fs = std::filesystem;

void add_fleet_options(CLI::App& cmd, FleetArgs& a, CommonOptions& c) {
  cmd.add_option("BUNDLE_OR_DIR", a.inputs,
                 "Node bundles, or directories holding them; or per-node databases of `analyze "
                 "--db` (files, a folder of *.db, a manifest listing them: docs/scale-out.md)")
      ->required();
  cmd.add_option("-j,--jobs", a.jobs, "Bundles analyzed in parallel (default: number of cores)");
  cmd.add_option("--db", a.db, "Keep the fleet analysis in this SQLite file");
  add_report_output(cmd, a.out,
                    "Exit 1 when a finding has this severity or higher: info, warning, error, "
                    "critical; or incomplete: when the load of a bundle lost part of it");
  cmd.add_flag("--stats", a.stats, "Print per-stage statistics to stderr");
  add_verbosity_options(cmd, a.verbosity,
                        "No progress on stderr (skipped bundles and errors are still printed)");
  cmd.add_flag("--diff", a.diff,
               "Add, per node, the compared facts where it differs from the job's majority "
               "(docs/compare.md)");
  add_common(cmd, c);
}

int run_fleet(const FleetArgs& a, const CommonOptions& c) {
  const CheckedOutput co = check_report_output(a.out);
  const report::Filter* fp = co.fp();
  const report::Format fmt = co.fmt;
  app::Options o = app_options(c);
  o.progress = progress_mode(a.verbosity);
  o.stats = a.stats;
  std::vector<fs::path> inputs;
  for (const auto& i : a.inputs) {
    std::error_code ec;
    if (!fs::exists(i, ec)) {  // input unreadable: 3, as for analyze (README's exit codes)
      std::cerr << "faultline: " << i << ": no such file or directory\n";
      return 3;
    }
    inputs.emplace_back(i);
  }
  // per-node databases (docs/scale-out.md) or node bundles; the output database is no input
  app::FleetInputs split;
  try {
    split = app::split_fleet_inputs(inputs, a.db.empty() ? fs::path() : fs::path(a.db));
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("manifest: ") + e.what());
  }
  if (!split.databases.empty() && !split.bundles.empty())
    throw UsageError("give node bundles or per-node databases, not both (" +
                     split.bundles.front().string() + " is a bundle, " +
                     split.databases.front().string() +
                     " a database): analyze the bundle with `faultline analyze BUNDLE --db "
                     "NODE.db` first");
  const bool merge = !split.databases.empty();
  if (merge) {
    if (const auto problem = app::check_node_databases(split.databases); !problem.empty())
      throw UsageError(problem);
  }
  const auto& bundles = merge ? split.databases : split.bundles;
  if (bundles.empty()) throw UsageError("no bundles found in the inputs");
  DbFile dbf(a.db);
  // not a scratch database even when temporary: a failed merge is rolled back and the fleet
  // goes on with the other bundles; a temporary one keeps that journal in memory (no WAL to
  // write and checkpoint: ~6% of a fleet's CPU, all of it after the workers)
  auto db = store::Db::open(
      dbf.path(), dbf.temp() ? store::Db::Durability::temporary : store::Db::Durability::normal);
  const auto out = merge ? app::fleet_merge(*db, bundles, o) : app::fleet(*db, bundles, o, a.jobs);
  for (const auto& f : out.failures)
    std::cerr << "faultline fleet: skipped " << f.bundle << ": " << f.message << "\n";
  if (out.bundle_ids.empty()) {
    std::cerr << "faultline fleet: no bundle could be read\n";
    return 3;
  }
  const bool correlated = out.correlation_error.empty();
  if (!correlated) {
    // Not one bundle's problem: the inference over all of them failed. Name the set.
    std::string which;
    const size_t analysed = bundles.size() - out.failures.size();
    for (size_t i = 0, shown = 0; i < bundles.size() && shown < 3; ++i) {
      if (std::any_of(out.failures.begin(), out.failures.end(),
                      [&](const auto& f) { return f.bundle == bundles[i].string(); }))
        continue;
      which += (shown++ ? ", " : "") + bundles[i].string();
    }
    if (analysed > 3) which += ", ...";
    std::cerr << "faultline fleet: the cross-node correlation of " << analysed
              << " analysed bundle(s) (" << which << ") failed: " << out.correlation_error
              << "; the report has the per-node results and no first failure\n";
  }
  std::string text;
  report::RenderNotes notes;
  try {
    text = a.out.summary ? report::render_fleet_summary(db->handle(), out.bundle_ids, fp)
                         : report::render_fleet(db->handle(), out.bundle_ids, fmt, &notes, fp);
    if (a.diff && !a.out.summary)
      text = with_fleet_diff(*db, out.bundle_ids, fmt, o, std::move(text));
  } catch (const std::exception& e) {
    if (correlated) throw;
    std::cerr << "faultline fleet: the report cannot be rendered either: " << e.what() << "\n";
    return 3;
  }
  write_output(a.out.output, text);
  if (!a.verbosity.quiet) note_untimed(notes);
  if (!correlated) return 3;
  // as analyze (docs/report.md "Completeness"): bundles of which nothing was recognised are no
  // healthy nodes; when none of them was recognised, the fleet's input is unreadable (exit 3)
  size_t none = 0;
  for (const auto id : out.bundle_ids)
    if (const auto n = report::nothing_recognised(db->handle(), id); !n.empty()) {
      ++none;
      std::cerr << "faultline fleet: bundle " << id << ": " << n << "\n";
    }
  if (none > 0 && none == out.bundle_ids.size()) return 3;
  if (a.out.fail_on == "incomplete")
    for (const auto id : out.bundle_ids)
      if (!report::incomplete_load(db->handle(), id).empty()) return 1;
  if (co.fail_on && fails(db->handle(), out.bundle_ids, *co.fail_on, co.filter)) return 1;
  return 0;
}

}  // namespace faultline::cli
