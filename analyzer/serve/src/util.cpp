#include "util.hpp"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <stdexcept>

#include "faultline/core/text.hpp"

namespace faultline::serve::detail {

std::string new_id() {
  std::array<unsigned char, 16> b{};
  size_t got = 0;
  while (got < b.size()) {
    const ssize_t n = getrandom(b.data() + got, b.size() - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("no random source for analysis ids");
    }
    got += static_cast<size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(32);
  for (unsigned char c : b) {
    id.push_back(kHex[c >> 4]);
    id.push_back(kHex[c & 15]);
  }
  return id;
}

bool valid_id(std::string_view id) {
  if (id.size() != 32) return false;
  for (char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

namespace {

std::string_view last_component(std::string_view s) {
  const auto slash = s.find_last_of("/\\");
  if (slash != std::string_view::npos) s.remove_prefix(slash + 1);
  return s;
}

}  // namespace

std::string safe_file_name(std::string_view upload_name) {
  const std::string_view base = last_component(upload_name);
  std::string out;
  for (char c : base) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (ok)
      out.push_back(c);
    else if (!out.empty() && out.back() != '_')
      out.push_back('_');
  }
  while (!out.empty() && (out.front() == '.' || out.front() == '_' || out.front() == '-'))
    out.erase(out.begin());
  if (out.size() > 100) out.erase(0, out.size() - 100);  // keep the extension
  while (!out.empty() && out.front() == '.') out.erase(out.begin());
  if (out.empty() || out == "." || out == "..") out = "bundle";
  return out;
}

std::string display_name(std::string_view upload_name) {
  std::string s = text::sanitize_utf8(last_component(upload_name));
  std::string out;
  for (unsigned char c : s)
    if (c >= 0x20 && c != 0x7f) out.push_back(static_cast<char>(c));
  if (out.size() > 200) {
    size_t cut = 200;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
  }
  if (text::trim(out).empty()) out = "bundle";
  return out;
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string url_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string iso_utc(int64_t epoch_seconds) {
  if (epoch_seconds <= 0) return {};
  const auto t = static_cast<time_t>(epoch_seconds);
  std::tm tm{};
  if (!gmtime_r(&t, &tm)) return {};
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf, n);
}

int64_t now_epoch() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool token_equal(std::string_view a, std::string_view b) {
  // Length is not secret enough to matter; the bytes are compared without an early exit.
  unsigned diff = a.size() == b.size() ? 0U : 1U;
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < n; ++i)
    diff |=
        static_cast<unsigned>(static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i]));
  return diff == 0;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  if (from.empty()) return s;
  size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

void remove_db_files(const std::filesystem::path& db) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::filesystem::remove(db.string() + suffix, ec);
}

}  // namespace faultline::serve::detail
