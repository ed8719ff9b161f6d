// `faultline analyze BUNDLE`: one bundle (or standard input) into a database and its report.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "faultline/report/report.hpp"
#include "faultline/store/store.hpp"
#include "shared.hpp"

namespace faultline::cli {

namespace fs = std::filesystem;

namespace {

// `analyze -`: the bundle piped into standard input (`ssh node 'tar -C /var/log -cf - npu' |
// faultline analyze -`, `kubectl exec ... tar`), spooled into a temporary file first: zip and 7z
// are read from their end, and the bundle's sha256 is of the whole stream. At most max_bytes
// (--max-total-size) are taken; the file and its directory are removed at the end.
class StdinBundle {
 public:
  StdinBundle(uint64_t max_bytes, progress::Mode shown) {
    if (::isatty(STDIN_FILENO) != 0)
      throw UsageError(
          "-: standard input is a terminal; pipe a bundle into it, e.g. ssh node 'tar -C "
          "/var/log -cf - npu' | faultline analyze -");
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/faultline-stdin-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr)
      throw std::runtime_error("cannot create a temporary directory in " + tmpl);
    dir_ = buf.data();
    path_ = dir_ / "stdin";
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw std::runtime_error(path_.string() + ": " + std::strerror(errno));
    std::vector<char> block(1U << 20);
    uint64_t total = 0;
    progress::Line line(shown, "faultline: ");
    auto text = [&] { return progress::size_text(total) + " from standard input"; };
    std::string error;
    for (;;) {
      const ssize_t n = ::read(STDIN_FILENO, block.data(), block.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error = std::string("read error on standard input: ") + std::strerror(errno);
        break;
      }
      if (n == 0) break;
      total += static_cast<uint64_t>(n);
      if (line.due()) line.draw(text());
      if (total > max_bytes) {
        error = "standard input holds more than " + std::to_string(max_bytes) +
                " bytes (--max-total-size); save the bundle to a file first";
        break;
      }
      for (ssize_t off = 0; off < n;) {
        const ssize_t w = ::write(fd, block.data() + off, static_cast<size_t>(n - off));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
          error = path_.string() + ": " + std::strerror(errno);
          break;
        }
        off += w;
      }
      if (!error.empty()) break;
    }
    ::close(fd);
    if (!error.empty()) throw InputError("-: " + error);
    line.finish(text());
  }
  ~StdinBundle() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  StdinBundle(const StdinBundle&) = delete;
  StdinBundle& operator=(const StdinBundle&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path dir_, path_;
};

}  // namespace

void add_analyze_options(CLI::App& cmd, AnalyzeArgs& a, CommonOptions& c) {
  cmd.add_option("BUNDLE", a.bundle,
                 "The bundle: a directory, tar, tar.gz/xz/zst, zip, or a single (compressed) log; "
                 "- reads it from standard input (e.g. ssh node 'tar -C /var/log -cf - npu' | "
                 "faultline analyze -)")
      ->required();
  cmd.add_option("--db", a.db, "Keep the analysis in this SQLite file (default: a temporary file)");
  add_report_output(cmd, a.out,
                    "Exit 1 when a finding has this severity or higher: info, warning, error, "
                    "critical; or incomplete: when the load lost part of the bundle (default: "
                    "none)");
  cmd.add_flag("--keep-raw", a.keep_raw,
               "Store the full text of every file, zstd-compressed (about halves throughput)");
  cmd.add_flag("--stats", a.stats, "Print per-stage times, bytes, rows and peak memory to stderr");
  add_verbosity_options(cmd, a.verbosity, "No progress and no notes on stderr (errors still)");
  cmd.add_flag("--no-report", a.no_report,
               "Only fill the --db database, render no report (`faultline report` can later)");
  cmd.add_option("--max-depth", a.max_depth, "Archives nested in archives, at most (default 4)");
  cmd.add_option("--max-members", a.max_members, "Files in the bundle, at most (default 500000)");
  cmd.add_option("--max-member-size", a.max_member_size,
                 "Uncompressed bytes of one file; the rest is cut with a warning (default 4G)");
  cmd.add_option("--max-total-size", a.max_total_size,
                 "Uncompressed bytes of the whole bundle (default 64G)");
  cmd.add_option(
      "--max-ratio", a.max_ratio,
      "Uncompressed/compressed ratio of an archive before it counts as a bomb (default 1000)");
  cmd.add_option("--max-line-length", a.max_line_length,
                 "Longer lines are cut at this length with a warning (default 1M)");
  cmd.add_option("--small-file-size", a.small_member_size,
                 "Files up to this size are stored whole in the database (default 256K)");
  add_common(cmd, c);
}

int run_analyze(const AnalyzeArgs& a, const CommonOptions& c) {
  const CheckedOutput co = check_report_output(a.out);
  const report::Filter* fp = co.fp();
  if (a.no_report && a.db.empty())
    throw UsageError("--no-report needs --db (where the analysis goes)");
  app::Options o = app_options(c);
  o.keep_raw = a.keep_raw;
  o.stats = a.stats;
  o.progress = progress_mode(a.verbosity);
  o.limits.max_depth = a.max_depth;
  o.limits.max_members = a.max_members;
  o.limits.max_member_bytes = parse_size(a.max_member_size, "--max-member-size");
  o.limits.max_total_bytes = parse_size(a.max_total_size, "--max-total-size");
  o.limits.max_ratio = a.max_ratio;
  o.limits.max_line_bytes = static_cast<uint32_t>(
      std::min<uint64_t>(parse_size(a.max_line_length, "--max-line-length"), 1ULL << 30));
  o.small_member_bytes = parse_size(a.small_member_size, "--small-file-size");

  std::unique_ptr<StdinBundle> piped;
  if (a.bundle == "-") piped = std::make_unique<StdinBundle>(o.limits.max_total_bytes, o.progress);
  DbFile dbf(a.db);
  auto db = store::Db::open(dbf.path(), dbf.durability());
  const app::Outcome out = app::analyze(*db, piped ? piped->path() : fs::path(a.bundle), o);
  if (piped && out.exit_code == 0)  // reports name the stream, not the spool file
    db->exec("UPDATE bundles SET path='-', name='stdin' WHERE id=" + std::to_string(out.bundle_id));
  if (out.exit_code != 0) {
    std::string error = out.error;
    if (piped) {  // the spool file is ours: the user gave "-"
      const std::string spool = piped->path().string();
      for (size_t at = error.find(spool); at != std::string::npos; at = error.find(spool, at + 1))
        error.replace(at, spool.size(), "-");
    }
    std::cerr << "faultline: " << error << "\n";
    return out.exit_code;
  }
  if (out.ingest.warnings > 0 && !a.verbosity.quiet)
    std::cerr << "faultline: " << out.ingest.warnings
              << " ingest warning(s): see the report's warnings section\n";
  if (!a.no_report) {
    report::RenderNotes notes;
    write_output(a.out.output,
                 a.out.summary
                     ? report::render_bundle_summary(db->handle(), out.bundle_id, fp)
                     : report::render_bundle(db->handle(), out.bundle_id, co.fmt, &notes, fp));
    if (!a.verbosity.quiet) note_untimed(notes);
  }
  // nothing of it was an Ascend or host log: not a healthy node (docs/report.md "Completeness")
  if (const auto none = report::nothing_recognised(db->handle(), out.bundle_id); !none.empty()) {
    std::cerr << "faultline: " << a.bundle << ": " << none << "\n";
    return 3;
  }
  if (a.out.fail_on == "incomplete" &&
      !report::incomplete_load(db->handle(), out.bundle_id).empty())
    return 1;
  if (co.fail_on && fails(db->handle(), {out.bundle_id}, *co.fail_on, co.filter)) return 1;
  return 0;
}

}  // namespace faultline::cli
