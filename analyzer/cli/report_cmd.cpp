// `faultline report --db DB`: the report of a kept analysis, from the database alone.
#include <sqlite3.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "faultline/report/report.hpp"
#include "faultline/store/store.hpp"
#include "shared.hpp"

namespace faultline::cli {

void add_report_options(CLI::App& cmd, ReportArgs& a) {
  cmd.add_option("--db", a.db, "Database written by analyze --db or fleet --db")->required();
  cmd.add_option("--format", a.format, kFormatHelp);
  cmd.add_option("-o,--output", a.output, "Write the report to this file instead of stdout");
  cmd.add_option("--bundle", a.bundle,
                 "Report only this bundle (id or sha256 prefix) of a database holding several");
  cmd.add_flag("--summary", a.summary, kSummaryHelp);
  add_filter_options(cmd, a.suppress, a.min_severity);
  cmd.add_option("--fail-on", a.fail_on, "incomplete: exit 1 when a load lost part of a bundle");
}

int run_report(const ReportArgs& a) {
  const auto fmt = format_or_throw(a.format);
  check_summary(a.summary, fmt);
  const auto filter = make_filter(a.suppress, a.min_severity);
  const report::Filter* fp = filter ? &*filter : nullptr;
  if (!a.fail_on.empty() && a.fail_on != "none" && a.fail_on != "incomplete")
    throw UsageError("--fail-on: report knows only incomplete (analyze checks severities)");
  check_output(a.output);
  std::string why;
  const char* problem = nullptr;
  switch (probe_db(a.db, &why)) {
    case DbKind::missing:
      problem = "no such file";
      break;
    case DbKind::unreadable:
      problem = why.c_str();
      break;
    case DbKind::not_sqlite:
      problem = "not a SQLite database (report reads the --db file of analyze or fleet)";
      break;
    case DbKind::foreign:
      problem = "a SQLite database not written by faultline (no bundles table)";
      break;
    case DbKind::empty:
      problem = "an empty database: no complete analysis in it";
      break;
    case DbKind::faultline:
      break;
  }
  if (problem) {
    std::cerr << "faultline: " << a.db << ": " << problem << "\n";
    return 3;
  }
  std::unique_ptr<store::Db> db;
  try {
    db = store::Db::open(a.db);
  } catch (const std::exception& e) {
    std::cerr << "faultline: " << e.what() << "\n";
    return 3;
  }
  std::vector<int64_t> ids;
  const auto all = store::bundle_ids(db->handle(), true);
  const auto complete = store::bundle_ids(db->handle(), false);
  if (!a.bundle.empty()) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(
        db->handle(),
        "SELECT id, status FROM bundles WHERE CAST(id AS TEXT)=?1 OR sha256 LIKE ?1 || '%'", -1, &s,
        nullptr);
    sqlite3_bind_text(s, 1, a.bundle.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW) ids.push_back(sqlite3_column_int64(s, 0));
    sqlite3_finalize(s);
    if (ids.empty()) throw UsageError("--bundle: no bundle '" + a.bundle + "' in " + a.db);
  } else {
    ids = complete;
  }
  if (complete.size() < all.size())
    std::cerr << "faultline: " << (all.size() - complete.size()) << " analysis(es) in " << a.db
              << " did not complete (interrupted or failed) and are not reported\n";
  if (ids.empty()) {
    std::cerr << "faultline: " << a.db << ": no complete analysis in this database\n";
    return 3;
  }
  report::RenderNotes notes;
  if (a.summary)
    write_output(a.output, ids.size() == 1
                               ? report::render_bundle_summary(db->handle(), ids.front(), fp)
                               : report::render_fleet_summary(db->handle(), ids, fp));
  else if (ids.size() == 1)
    write_output(a.output, report::render_bundle(db->handle(), ids.front(), fmt, &notes, fp));
  else
    write_output(a.output, report::render_fleet(db->handle(), ids, fmt, &notes, fp));
  note_untimed(notes);
  if (a.fail_on == "incomplete")
    for (const auto id : ids)
      if (!report::incomplete_load(db->handle(), id).empty()) return 1;
  return 0;
}

}  // namespace faultline::cli
