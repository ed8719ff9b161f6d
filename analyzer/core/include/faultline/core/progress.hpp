// progress: the one progress line of a long run, on stderr only (analyze: bytes of the bundle read
// of its size, files, rate, ETA; fleet: nodes done of all, rate, ETA). Whether it shows, and how,
// is the caller's choice (the CLI: on a terminal, or with --progress; never with -q).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace faultline::progress {

enum class Mode {
  off,
  terminal,  // one line redrawn in place ("\r", erase to the end of the line), erased at the end
  lines,     // one line per update, each ending in '\n' (a pipe or a log: --progress), and the
             // final state as the last line
};

// "0 KB", "812 KB", "12.3 MB", "1.25 GB" (decimal units)
std::string size_text(uint64_t bytes);
// "4 s", "2 min 05 s", "1 h 02 min"
std::string duration_text(double seconds);
// One bundle: "12.3 MB of 45.6 MB (27%), 1234 files, 8.1 MB/s, ETA 4 s". The percentage is
// rounded down (100% only when done >= total); the rate once half a second has passed, the ETA
// once a second has and bytes remain. total 0 (unknown: a pipe): "12.3 MB, 1234 files, 8.1 MB/s".
std::string bytes_text(uint64_t done, uint64_t total, uint64_t members, double seconds);
// Items of a known number: "3/8 nodes (37%), 0.42 nodes/s, ETA 12 s" (rate and ETA as above).
std::string count_text(uint64_t done, uint64_t total, std::string_view unit, double seconds);

// The line itself. Not thread-safe: callers on several threads hold a lock around it.
class Line {
 public:
  // prefix: "faultline: ", "faultline fleet: "
  Line(Mode mode, std::string prefix, std::FILE* out = stderr);
  ~Line();  // a terminal line still shown is erased (an error ends the run)
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;

  [[nodiscard]] bool on() const { return mode_ != Mode::off && !finished_; }
  [[nodiscard]] double seconds() const;  // since the line was made
  // True when a new state may be drawn: at most four times a second.
  bool due();
  void draw(const std::string& text);
  // The end: in lines mode `text` (the final state) is the last line; on a terminal the line is
  // erased. Nothing is drawn afterwards.
  void finish(const std::string& text);

 private:
  Mode mode_;
  std::string prefix_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_, last_{};
  bool drawn_ = false, finished_ = false;
};

}  // namespace faultline::progress
