#include <array>

#include "detail.hpp"
#include "faultline/core/text.hpp"

namespace faultline::ingest::detail {

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
}

CleanName clean_name(std::string_view raw) {
  CleanName out;
  // Only the first kMaxNameBytes are kept: copy no more than that (plus one UTF-8 sequence, so
  // that the cut below lands where it would on the whole name). A cpio header can declare a
  // name of gigabytes; copying it whole cost several times its size in memory.
  if (raw.size() > kMaxNameBytes + 4) {
    raw = raw.substr(0, kMaxNameBytes + 4);
    out.too_long = true;
  }
  std::string s;
  if (text::valid_utf8(raw)) {
    s.assign(raw);
  } else {
    s = text::sanitize_utf8(raw);
    out.bad_utf8 = true;
  }
  // control characters (a newline in a name would break every line-oriented report)
  std::string t;
  t.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      t += kReplacement;
      out.control = true;
    } else {
      t += ch;
    }
  }
  if (t.size() > kMaxNameBytes) {
    size_t cut = kMaxNameBytes;
    // do not split a UTF-8 sequence
    while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xC0) == 0x80) --cut;
    t.resize(cut);
    out.too_long = true;
  }
  if (!t.empty() && t.front() == '/') out.absolute = true;
  // components: drop "" and ".", refuse ".."
  std::string path;
  size_t i = 0;
  while (i <= t.size()) {
    size_t j = t.find('/', i);
    if (j == std::string::npos) j = t.size();
    const std::string_view comp(t.data() + i, j - i);
    if (comp == "..") {
      out.skip = true;
    } else if (!comp.empty() && comp != ".") {
      if (!path.empty()) path += '/';
      path += comp;
    }
    i = j + 1;
  }
  out.path = std::move(path);
  return out;
}

std::string strip_compression_suffix(std::string_view path) {
  struct Suffix {
    std::string_view from, to;
  };
  static constexpr std::array<Suffix, 17> kSuffixes = {{{".tgz", ".tar"},
                                                        {".uu", ""},
                                                        {".uue", ""},
                                                        {".b64", ""},
                                                        {".tbz2", ".tar"},
                                                        {".tbz", ".tar"},
                                                        {".txz", ".tar"},
                                                        {".tzst", ".tar"},
                                                        {".gz", ""},
                                                        {".zst", ""},
                                                        {".zstd", ""},
                                                        {".xz", ""},
                                                        {".bz2", ""},
                                                        {".lz4", ""},
                                                        {".lzma", ""},
                                                        {".lz", ""},
                                                        {".z", ""}}};
  const std::string lower = text::to_lower(path);
  for (const auto& s : kSuffixes) {
    if (lower.size() > s.from.size() &&
        std::string_view(lower).substr(lower.size() - s.from.size()) == s.from) {
      const size_t keep = path.size() - s.from.size();
      if (keep == 0 || path[keep - 1] == '/') continue;  // ".gz" alone is a name, not a suffix
      return std::string(path.substr(0, keep)) + std::string(s.to);
    }
  }
  return std::string(path);
}

bool archive_like_name(std::string_view name) {
  const std::string lower = text::to_lower(name);
  for (const std::string_view suffix : {".tar", ".zip", ".7z", ".rar", ".cpio"}) {
    if (lower.size() > suffix.size() &&
        std::string_view(lower).substr(lower.size() - suffix.size()) == suffix)
      return true;
  }
  return strip_compression_suffix(name) != name;
}

std::string_view base_name(std::string_view path) {
  const size_t p = path.rfind('/');
  return p == std::string_view::npos ? path : path.substr(p + 1);
}

}  // namespace faultline::ingest::detail
