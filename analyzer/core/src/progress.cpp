#include "faultline/core/progress.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace faultline::progress {

namespace {

constexpr auto kInterval = std::chrono::milliseconds(250);

// v with `decimals` digits after the point
std::string fixed(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string rate_number(double r) {
  return fixed(r, r >= 10 ? 0 : r >= 1 ? 1 : 2);
}

int percent(uint64_t done, uint64_t total) {
  if (done >= total) return 100;
  return static_cast<int>(static_cast<long double>(done) * 100 / static_cast<long double>(total));
}

}  // namespace

std::string size_text(uint64_t bytes) {
  const auto b = static_cast<double>(bytes);
  if (b < 1e6) return fixed(std::floor(b / 1e3), 0) + " KB";
  if (b < 1e9) return fixed(b / 1e6, 1) + " MB";
  return fixed(b / 1e9, 2) + " GB";
}

std::string duration_text(double seconds) {
  const auto s = static_cast<uint64_t>(std::max(0.0, std::ceil(seconds)));
  char b[64];
  if (s < 60)
    std::snprintf(b, sizeof b, "%llu s", static_cast<unsigned long long>(s));
  else if (s < 3600)
    std::snprintf(b, sizeof b, "%llu min %02llu s", static_cast<unsigned long long>(s / 60),
                  static_cast<unsigned long long>(s % 60));
  else
    std::snprintf(b, sizeof b, "%llu h %02llu min", static_cast<unsigned long long>(s / 3600),
                  static_cast<unsigned long long>(s / 60 % 60));
  return b;
}

std::string bytes_text(uint64_t done, uint64_t total, uint64_t members, double seconds) {
  std::string t = size_text(done);
  if (total > 0)
    t += " of " + size_text(total) + " (" + std::to_string(percent(done, total)) + "%)";
  t += ", " + std::to_string(members) + (members == 1 ? " file" : " files");
  if (seconds >= 0.5 && done > 0) {
    const double rate = static_cast<double>(done) / seconds;
    t += ", " + size_text(static_cast<uint64_t>(rate)) + "/s";
    if (total > done && seconds >= 1)
      t += ", ETA " + duration_text(static_cast<double>(total - done) / rate);
  }
  return t;
}

std::string count_text(uint64_t done, uint64_t total, std::string_view unit, double seconds) {
  std::string t = std::to_string(done) + "/" + std::to_string(total) + " " + std::string(unit);
  if (total > 0) t += " (" + std::to_string(percent(done, total)) + "%)";
  if (seconds >= 0.5 && done > 0) {
    const double rate = static_cast<double>(done) / seconds;
    t += ", " + rate_number(rate) + " " + std::string(unit) + "/s";
    if (total > done && seconds >= 1)
      t += ", ETA " + duration_text(static_cast<double>(total - done) / rate);
  }
  return t;
}

Line::Line(Mode mode, std::string prefix, std::FILE* out)
    : mode_(mode),
      prefix_(std::move(prefix)),
      out_(out),
      start_(std::chrono::steady_clock::now()) {}

Line::~Line() {
  if (mode_ == Mode::terminal && drawn_ && !finished_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
  }
}

double Line::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool Line::due() {
  if (!on()) return false;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < kInterval) return false;
  last_ = now;
  return true;
}

void Line::draw(const std::string& text) {
  if (!on()) return;
  if (mode_ == Mode::terminal)
    std::fprintf(out_, "\r%s%s\033[K", prefix_.c_str(), text.c_str());
  else
    std::fprintf(out_, "%s%s\n", prefix_.c_str(), text.c_str());
  std::fflush(out_);
  drawn_ = true;
  last_ = std::chrono::steady_clock::now();
}

void Line::finish(const std::string& text) {
  if (!on()) return;
  if (mode_ == Mode::lines) {
    std::fprintf(out_, "%s%s\n", prefix_.c_str(), text.c_str());
  } else if (drawn_) {
    std::fputs("\r\033[K", out_);
  }
  std::fflush(out_);
  finished_ = true;
}

}  // namespace faultline::progress
