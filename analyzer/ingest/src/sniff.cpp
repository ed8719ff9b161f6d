#include <algorithm>
#include <cstring>

#include "detail.hpp"
#include "faultline/core/text.hpp"

namespace faultline::ingest::detail {

namespace {

bool starts(std::string_view s, std::string_view magic) {
  return s.size() >= magic.size() && std::memcmp(s.data(), magic.data(), magic.size()) == 0;
}

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  return text::to_lower(s.substr(s.size() - suffix.size())) == suffix;
}

// A tar header block is recognised by its checksum (every tar flavour has one), not by the
// "ustar" magic that v7 and some GNU tars lack.
bool tar_header(std::string_view h) {
  if (h.size() < 512) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(h.data());
  if (p[0] == 0) return false;  // empty name: not a usable first header
  // stored checksum: octal, optionally led by spaces and ended by NUL or space
  size_t i = 148;
  while (i < 156 && p[i] == ' ') ++i;
  if (i == 156 || p[i] < '0' || p[i] > '7') return false;
  uint32_t stored = 0;
  while (i < 156 && p[i] >= '0' && p[i] <= '7') stored = stored * 8 + (p[i++] - '0');
  if (i < 156 && p[i] != 0 && p[i] != ' ') return false;
  uint32_t usum = 0;
  int32_t ssum = 0;
  for (size_t k = 0; k < 512; ++k) {
    const unsigned char c = (k >= 148 && k < 156) ? ' ' : p[k];
    usum += c;
    ssum += static_cast<signed char>(c);
  }
  return stored == usum || static_cast<int32_t>(stored) == ssum;
}

bool all_zero(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == 0; });
}

}  // namespace

bool looks_like_text(std::string_view head) {
  // Text: control bytes other than TAB LF VT FF CR BS ESC are rare (< 1%), NUL separated
  // records (environ, cmdline) are allowed up to 10%. Random bytes have ~10% controls, ELF and
  // other binaries far more.
  size_t ctrl = 0, nul = 0;
  for (const char ch : head) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) {
      ++nul;
    } else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' &&
                c != '\b' && c != 0x1b) ||
               c == 0x7f) {
      ++ctrl;
    }
  }
  if (head.empty()) return true;
  return ctrl * 100 <= head.size() && nul * 10 <= head.size();
}

bool compression_magic(std::string_view h) {
  return starts(h, "\x1F\x8B\x08") ||      // gzip
         starts(h, "\x28\xB5\x2F\xFD") ||  // zstd
         starts(h, std::string_view("\xFD"
                                    "7zXZ\x00",
                                    6)) ||  // xz
         starts(h, "\x04\x22\x4D\x18") ||   // lz4 frame
         starts(h, "LZIP") ||               // lzip
         starts(h, "\x1F\x9D") ||           // compress (.Z)
         (starts(h, "BZh") && h.size() >= 4 && h[3] >= '1' && h[3] <= '9' &&
          (h.size() < 10 || starts(h.substr(4), "\x31\x41\x59\x26\x53\x59") ||
           starts(h.substr(4), "\x17\x72\x45\x38\x50\x90")));  // bzip2: block or end magic
}

Kind sniff(std::string_view h, std::string_view name) {
  // seekable containers: directory at the end (zip) or header at the end (7z)
  if (starts(h, "PK\x03\x04") || starts(h, "PK\x05\x06") || starts(h, "PK\x07\x08"))
    return Kind::seek_archive;
  if (starts(h, "7z\xBC\xAF\x27\x1C")) return Kind::seek_archive;
  if (compression_magic(h)) return Kind::archive;
  if (uuencode_magic(h)) return Kind::archive;  // libarchive's uu filter decodes it
  if (h.size() >= 3 && h[0] == 0x5D && h[1] == 0 && h[2] == 0 && ends_with_ci(name, ".lzma"))
    return Kind::archive;  // lzma_alone has no real magic: trust the name only with its byte
  // containers
  if (starts(h, "Rar!\x1A\x07")) return Kind::archive;
  if (starts(h, "070701") || starts(h, "070702") || starts(h, "070707")) return Kind::archive;
  if (tar_header(h)) return Kind::archive;
  if (h.size() >= 1024 && all_zero(h.substr(0, 1024)) && ends_with_ci(name, ".tar"))
    return Kind::archive;  // an empty tar is only its end-of-archive blocks
  return Kind::other;
}

}  // namespace faultline::ingest::detail
