// Harness: ingest::walk_memory over an archive held in memory (every container format, nested).
// Input: byte 0 picks the bundle name (the name decides only lzma and single compressed files),
// the rest is the bundle. Checks the documented guarantees on member names, sizes and counts.
#include "faultline/ingest/ingest.hpp"

#include <string>
#include <vector>

#include "common.hpp"

namespace {

using namespace faultline;
using faultline::fuzz::touch;

constexpr std::string_view kNames[] = {
    "bundle.tar", "bundle.tar.gz", "bundle.tar.zst", "bundle.zip",  "syslog.2.gz",
    "bundle",     "x.lzma",        "bundle.tgz",     "bundle.cpio", "messages.xz",
};

// Small limits so that every limit path is reachable from a small input.
ingest::Limits limits() {
  ingest::Limits l;
  l.max_depth = 3;
  l.max_members = 200;
  l.max_member_bytes = 256 * 1024;
  l.max_total_bytes = 4 * 1024 * 1024;
  l.ratio_grace_bytes = 512 * 1024;
  l.max_line_bytes = 512;
  l.max_warnings = 64;
  return l;
}

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += n;
  }
  return true;
}

// docs/ingest.md "Member paths" and "Safety rules": relative, '/'-separated, valid UTF-8, no
// `.`, `..` or empty components, no control characters.
void check_path(std::string_view path) {
  FUZZ_CHECK(!path.empty(), "member path is empty");
  FUZZ_CHECK(path.front() != '/', "member path is absolute");
  FUZZ_CHECK(valid_utf8(path), "member path is not valid UTF-8");
  for (const char c : path)
    FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f,
               "control character in member path");
  // Each nested archive adds "!/": components are split at '/' and the "!" suffix is kept.
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view comp = path.substr(start, end - start);
    FUZZ_CHECK(!comp.empty(), "empty component in member path");
    FUZZ_CHECK(comp != "." && comp != "..", "dot component in member path");
    start = end + 1;
  }
}

class Visitor final : public ingest::Visitor {
 public:
  explicit Visitor(const ingest::Limits& l) : lim_(l), chunker_(l.max_line_bytes, 4096) {}
  void member(const ingest::MemberInfo& info, ingest::MemberReader& reader) override {
    check_path(info.path);
    FUZZ_CHECK(info.archives.size() <= lim_.max_depth + 1,
               "more enclosing archives than max_depth");
    for (const auto& a : info.archives) fuzz::g_sink = fuzz::g_sink + touch(a);
    ++members_;
    // Alternate the ways the app reads members: all through the chunker, a prefix, nothing.
    switch (members_ % 3) {
      case 0: {
        uint64_t seen = 0;
        const auto st = chunker_.run(reader, [&](std::string_view chunk, uint32_t, uint64_t off) {
          FUZZ_CHECK(off >= seen, "chunk offsets go backwards");
          seen = off + chunk.size();
          size_t s = 0;
          while (s < chunk.size()) {
            size_t e = chunk.find('\n', s);
            if (e == std::string_view::npos) e = chunk.size();
            FUZZ_CHECK(e - s <= lim_.max_line_bytes, "line longer than max_line_bytes");
            s = e + 1;
          }
          fuzz::g_sink = fuzz::g_sink + touch(chunk);
          return true;
        });
        FUZZ_CHECK(st.bytes <= lim_.max_member_bytes, "member longer than max_member_bytes");
        bytes_ += st.bytes;
        break;
      }
      case 1: {
        char buf[777];
        uint64_t n = 0;
        for (size_t got; (got = reader.read(buf, sizeof buf)) > 0;) {
          FUZZ_CHECK(got <= sizeof buf, "read returned more than asked");
          n += got;
          if (n > 3000) break;  // leave the rest unread: ingest must skip it
        }
        bytes_ += n;
        break;
      }
      default:
        break;
    }
    fuzz::g_sink = fuzz::g_sink + (reader.truncated() ? 1U : 0U);
  }
  void warning(const Warning& w) override {
    ++warnings_;
    FUZZ_CHECK(!w.message.empty() && w.message.front() == '[', "warning without a [code]");
    fuzz::g_sink = fuzz::g_sink + touch(w.member) + touch(w.message);
  }
  const ingest::Limits& lim_;
  ingest::LineChunker chunker_;
  uint64_t members_ = 0, warnings_ = 0, bytes_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view name = kNames[data[0] % std::size(kNames)];
  const std::string_view bundle = fuzz::as_view(data + 1, size - 1);
  const ingest::Limits lim = limits();
  Visitor v(lim);
  const ingest::Result r = ingest::walk_memory(bundle, name, lim, v);
  if (r.status == ingest::Status::ok) {
    FUZZ_CHECK(r.members == v.members_, "Result::members differs from the members handed out");
    FUZZ_CHECK(r.members <= lim.max_members, "more members than max_members");
    FUZZ_CHECK(v.bytes_ <= r.bytes, "visitor read more bytes than Result::bytes");
    FUZZ_CHECK(r.bytes <= lim.max_total_bytes, "more bytes than max_total_bytes");
    FUZZ_CHECK(r.sha256.size() == 64, "sha256 missing");
  } else {
    FUZZ_CHECK(!r.message.empty(), "unreadable without a message");
  }
  FUZZ_CHECK(v.warnings_ <= lim.max_warnings + 1, "more warnings handed out than max_warnings + 1");
  return 0;
}
