// faultline command line: parses options and calls the app functions; no analysis logic here.
//
// Exit codes (contract): 0 done; 1 done and a finding at or above --fail-on; 2 usage or rule
// error; 3 input unreadable.
#include <malloc.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "commands.hpp"
#include "diff_cmd.hpp"
#include "faultline/core/text.hpp"
#include "serve_cmd.hpp"

namespace fl = faultline;

namespace {

// std::cerr carries member names, messages of libraries and rule files: it goes to the terminal
// through text::terminal_safe, a line at a time (so that no UTF-8 sequence is split).
class TerminalSafeErr : public std::streambuf {
 public:
  TerminalSafeErr() : old_(std::cerr.rdbuf(this)) {}
  ~TerminalSafeErr() override {
    flush_line();
    std::cerr.rdbuf(old_);
  }
  TerminalSafeErr(const TerminalSafeErr&) = delete;
  TerminalSafeErr& operator=(const TerminalSafeErr&) = delete;

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    line_.push_back(static_cast<char>(c));
    if (c == '\n' || line_.size() >= (64U << 10)) flush_line();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) overflow(static_cast<unsigned char>(s[i]));
    return n;
  }
  int sync() override {
    flush_line();
    return 0;
  }

 private:
  void flush_line() {
    if (line_.empty()) return;
    const std::string safe = fl::text::terminal_safe(line_);
    std::fwrite(safe.data(), 1, safe.size(), stderr);
    std::fflush(stderr);
    line_.clear();
  }
  std::streambuf* old_;
  std::string line_;
};

// Edit distance (insertions, deletions, substitutions) of two short words.
size_t distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// `faultline frobnicate`: CLI11 says only "A subcommand is required". The word is named, with
// the closest command when one is near (a typo), or a prefix of one.
std::string unknown_command(const CLI::App& app, const std::string& word) {
  std::string best, all;
  size_t best_d = 0;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    const std::string& name = sub->get_name();
    all += (all.empty() ? "" : ", ") + name;
    const size_t d = name.rfind(word, 0) == 0 ? 0 : distance(word, name);
    if (best.empty() || d < best_d) {
      best = name;
      best_d = d;
    }
  }
  std::string msg = "faultline: unknown command '" + word + "'";
  if (!best.empty() && best_d <= std::max<size_t>(2, word.size() / 3))
    msg += "; did you mean '" + best + "'?";
  return msg + " (commands: " + all + "; faultline --help)";
}

}  // namespace

// glibc's allocator serves blocks above a threshold that starts at 128 KiB with fresh mmaps
// and gives freed heap tops back at 128 KiB: a worker's per-member buffers and SQLite pages were
// mapped, faulted in and unmapped again for every bundle (a 60-node fleet at -j 2: 44 k page
// faults, a quarter of its CPU in the kernel). Fixed thresholds keep them in the heap; the peak
// resident size is unchanged (docs/performance.md "Allocator thresholds"). A no-op under ASan.
namespace {
void set_allocator_thresholds() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}
}  // namespace

int main(int argc, char** argv) {
  set_allocator_thresholds();
  const TerminalSafeErr safe_err;
  CLI::App app{
      "faultline: offline forensic analyzer for Huawei Ascend NPU crash and support bundles.\n"
      "Reads a collected bundle (directory, tar, tar.gz, tar.zst, zip, nested archives), keeps\n"
      "what it found in SQLite, and reports ranked root causes with evidence and a timeline."};
  app.require_subcommand(1);
  app.set_version_flag("--version", fl::cli::version_text,
                       "Print the version, the rules digest and the library versions, and exit");
  app.footer(
      "Examples:\n"
      "  faultline analyze node07.tar.zst                  # report (markdown) on stdout\n"
      "  faultline analyze node07.tar.zst --db case.db --format html --output case.html\n"
      "  faultline report --db case.db --format json\n"
      "  faultline rules test\n"
      "Exit codes: 0 done; 1 a finding at or above --fail-on; 2 usage or rule error; 3 input "
      "unreadable.");

  fl::cli::CommonOptions common;
  fl::cli::AnalyzeArgs an;
  auto* analyze = app.add_subcommand(
      "analyze", "Analyze one bundle: unpack, classify, parse, tag, correlate, report.");
  fl::cli::add_analyze_options(*analyze, an, common);
  analyze->footer(
      "Examples:\n"
      "  faultline analyze samples/seed-driver-reboot-pending\n"
      "  faultline analyze node07.tar.zst --db node07.db --format json --output node07.json\n"
      "  faultline analyze bundle.zip --keep-raw --stats --fail-on error\n"
      "  faultline analyze node07.tar.zst --format jsonl --output node07.timeline.jsonl\n"
      "  faultline analyze node07.tar.zst --kb /path/to/ascend_fd/configuration/kg-config.json\n"
      "An installed ascend-fd's knowledge base (ascend_fd/configuration/kg-config.json in a\n"
      "Python site-packages) is used by itself; --no-kb or FAULTLINE_KB=none turns that off.");

  fl::cli::FleetArgs fa;
  auto* fleet = app.add_subcommand(
      "fleet",
      "Analyze the node bundles of one job together: shared causes, version drift, "
      "the node that failed first.");
  fl::cli::add_fleet_options(*fleet, fa, common);
  fleet->footer(
      "Examples:\n"
      "  faultline fleet bundles/ -j 2 --db job42.db\n"
      "  faultline fleet node*.tar.gz --format html --output job42.html\n"
      "  faultline fleet node*.tar.gz --format csv --output job42.timeline.csv");

  fl::cli::ReportArgs ra;
  auto* report = app.add_subcommand(
      "report",
      "Render the report of an analysis from its database alone (same bytes as analyze).");
  fl::cli::add_report_options(*report, ra);
  report->footer(
      "Examples:\n"
      "  faultline report --db case.db                     # markdown for a ticket\n"
      "  faultline report --db case.db --format html --output case.html\n"
      "  faultline report --db case.db --format jsonl --output case.jsonl  # Timesketch");

  fl::cli::RulesArgs rl;
  auto* rules =
      app.add_subcommand("rules", "List, test, lint or import signature and diagnosis rules.");
  fl::cli::add_rules_options(*rules, rl);

  fl::cli::DiffArgs df;
  auto* diff =
      app.add_subcommand("diff",
                         "Compare two collections of a node: what changed since the last good one "
                         "(docs/compare.md).");
  fl::cli::add_diff_options(*diff, df);
  diff->footer(
      "Examples:\n"
      "  faultline diff node07-good.tar.zst node07-bad.tar.zst\n"
      "  faultline diff good.db bad.db --format json --output diff.json\n"
      "  faultline diff good/ bad/ --summary\n"
      "Exit codes: 0 done (1 with --fail-on-change and a meaningful change); 2 usage; 3 an input "
      "unreadable.");

  fl::cli::SimilarArgs sm;
  auto* similar = app.add_subcommand(
      "similar", "List the earlier analyses most like this bundle (docs/compare.md).");
  fl::cli::add_similar_options(*similar, sm);
  similar->footer(
      "Examples:\n"
      "  faultline similar node07.tar.zst --db-dir cases/\n"
      "  faultline similar node07.tar.zst --db-dir /var/lib/faultline/db --format json");

  fl::cli::ServeArgs sv;
  auto* serve = app.add_subcommand(
      "serve", "Serve an upload page and HTTP API that analyze bundles (docs/api.md).");
  fl::cli::add_serve_options(*serve, sv);
  serve->footer(
      "Examples:\n"
      "  faultline serve --data /srv/faultline                      # http://127.0.0.1:8080/\n"
      "  faultline serve --listen 0.0.0.0:8080 --token $(openssl rand -hex 16) -j 2\n"
      "  curl --data-binary @node07.tar.zst "
      "'http://127.0.0.1:8080/api/bundles?name=node07.tar.zst'");

  // Every message starts with "faultline:" (CLI11's own: "BUNDLE is required"), naming the
  // subcommand it is about.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    std::string where;
    for (const CLI::App* p = a; p != nullptr;) {  // the subcommands parsed, outermost first
      const auto subs = p->get_subcommands();
      p = subs.empty() ? nullptr : subs.front();
      if (p != nullptr) where += p->get_name() + ": ";
    }
    return "faultline: " + where + e.what() + "\nRun with --help for more information.\n";
  });
  if (argc > 1 && argv[1][0] != '-' && argv[1][0] != '\0') {
    const std::string word = argv[1];
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      known = known || sub->check_name(word);
    if (!known) {
      std::cerr << unknown_command(app, word) << "\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  try {
    if (*analyze) return fl::cli::run_analyze(an, common);
    if (*fleet) return fl::cli::run_fleet(fa, common);
    if (*report) return fl::cli::run_report(ra);
    if (*rules) return fl::cli::run_rules(*rules, rl);
    if (*serve) return fl::cli::run_serve(sv);
    if (*diff) return fl::cli::run_diff(df);
    if (*similar) return fl::cli::run_similar(sm);
  } catch (const fl::cli::UsageError& e) {
    std::cerr << "faultline: " << e.what() << "\n";
    return 2;
  } catch (const fl::cli::InputError& e) {
    std::cerr << "faultline: " << e.what() << "\n";
    return 3;
  } catch (const std::bad_alloc&) {
    // an input that needs more memory than this process may use (ulimit -v, serve's
    // --analysis-memory): the input cannot be analysed here
    std::cerr << "faultline: out of memory: the input needs more memory than this process may "
                 "use\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "faultline: " << e.what() << "\n";
    return 2;
  }
  return 2;
}
