// LineChunker: whole-line chunks out of a member, on the hot path (memchr per line, one copy).
#include <algorithm>
#include <cstring>

#include "faultline/ingest/ingest.hpp"

namespace faultline::ingest {

namespace {
constexpr uint64_t kBinaryWindow = 64 * 1024;
}

LineChunker::LineChunker(uint32_t max_line_bytes, size_t chunk_bytes)
    : max_line_(std::max<uint32_t>(max_line_bytes, 1)),
      chunk_bytes_(std::max<size_t>(chunk_bytes, 1)) {}

LineChunker::Stats LineChunker::run(MemberReader& reader, const ChunkFn& fn) {
  Stats st;
  // Room for one chunk of complete lines plus a partial line of up to max_line_ bytes, so that a
  // partial line that does not fit is always longer than max_line_ and can be cut at once.
  const size_t cap = chunk_bytes_ + max_line_ + 1;
  if (buf_.size() < cap) buf_.resize(cap);
  char* const buf = buf_.data();

  uint64_t off = 0;   // member offset of buf[0]
  uint32_t line = 1;  // number of the line starting at buf[0]
  size_t n = 0;       // bytes held in buf
  bool eof = false;
  bool discarding = false;  // dropping the tail of a cut line up to its '\n'

  for (;;) {
    while (!eof && n < cap) {
      const size_t r = reader.read(buf + n, cap - n);
      if (r == 0) {
        eof = true;
        break;
      }
      if (st.bytes < kBinaryWindow && !st.binary) {
        const size_t look = static_cast<size_t>(std::min<uint64_t>(r, kBinaryWindow - st.bytes));
        if (std::memchr(buf + n, 0, look) != nullptr) st.binary = true;
      }
      st.bytes += r;
      n += r;
    }
    size_t pos = 0;
    if (discarding) {
      const auto* nl = static_cast<const char*>(std::memchr(buf, '\n', n));
      if (nl == nullptr) {
        off += n;
        n = 0;
        if (eof) return st;
        continue;
      }
      pos = static_cast<size_t>(nl - buf) + 1;
      discarding = false;
    }
    size_t cstart = pos;    // start of the chunk being gathered
    uint32_t cline = line;  // its first line number
    auto emit = [&](size_t from, size_t to, uint32_t first) {
      return fn(std::string_view(buf + from, to - from), first, off + from);
    };
    while (pos < n) {
      const auto* nl = static_cast<const char*>(std::memchr(buf + pos, '\n', n - pos));
      if (nl != nullptr) {
        const size_t end = static_cast<size_t>(nl - buf);
        if (end - pos > max_line_) {
          // complete line longer than the limit: cut, and end the chunk with it
          ++st.lines;
          ++st.long_lines;
          if (!emit(cstart, pos + max_line_, cline)) return st;
          pos = end + 1;
          ++line;
          cstart = pos;
          cline = line;
          continue;
        }
        pos = end + 1;
        ++st.lines;
        ++line;
        if (pos - cstart >= chunk_bytes_) {
          if (!emit(cstart, pos, cline)) return st;
          cstart = pos;
          cline = line;
        }
        continue;
      }
      // partial line [pos, n)
      if (n - pos > max_line_) {
        ++st.lines;
        ++st.long_lines;
        if (!emit(cstart, pos + max_line_, cline)) return st;
        ++line;
        discarding = true;
        pos = n;
        cstart = n;
      } else if (eof) {
        ++st.lines;
        ++line;
        pos = n;
      }
      break;
    }
    if (pos > cstart && !emit(cstart, pos, cline)) return st;
    // keep the partial line for the next round
    if (pos < n) std::memmove(buf, buf + pos, n - pos);
    off += pos;
    n -= pos;
    if (eof && n == 0) return st;
  }
}

}  // namespace faultline::ingest
