// LineChunker: whole-line chunks with exact line numbers and byte offsets, long lines cut.
#include <catch2/catch.hpp>
#include <cstring>

#include "helpers.hpp"

using namespace fltest;

namespace {

// A member held in memory, handed out in pieces of varying size (as archives do).
class StringReader : public MemberReader {
 public:
  explicit StringReader(std::string_view d, uint32_t seed = 0) : d_(d), rng_(seed) {}
  size_t read(char* buf, size_t n) override {
    size_t k = std::min(n, d_.size() - pos_);
    if (rng_() % 2 == 1 && k > 1) k = 1 + rng_() % k;  // short reads half of the time
    std::memcpy(buf, d_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  [[nodiscard]] bool truncated() const override { return false; }

 private:
  std::string_view d_;
  size_t pos_ = 0;
  std::mt19937 rng_;
};

struct Line {
  uint32_t number;
  uint64_t offset;
  std::string text;  // as delivered
};

struct Run {
  LineChunker::Stats stats;
  std::vector<Line> lines;
  std::vector<size_t> chunk_sizes;
};

Run chunk(std::string_view data, uint32_t max_line, size_t chunk_bytes, uint32_t seed = 0) {
  LineChunker ch(max_line, chunk_bytes);
  StringReader rd(data, seed);
  Run run;
  run.stats = ch.run(rd, [&](std::string_view c, uint32_t first, uint64_t off) {
    REQUIRE(!c.empty());
    run.chunk_sizes.push_back(c.size());
    size_t p = 0;
    uint32_t n = first;
    while (p < c.size()) {
      const size_t nl = c.find('\n', p);
      const size_t end = nl == std::string_view::npos ? c.size() : nl + 1;
      run.lines.push_back({n++, off + p, std::string(c.substr(p, end - p))});
      p = end;
    }
    return true;
  });
  return run;
}

// What the chunker must deliver for data, computed the simple way.
std::vector<Line> expected(std::string_view data, uint32_t max_line, uint32_t* long_lines) {
  std::vector<Line> v;
  *long_lines = 0;
  size_t p = 0;
  uint32_t n = 1;
  while (p < data.size()) {
    const size_t nl = data.find('\n', p);
    const size_t end = nl == std::string_view::npos ? data.size() : nl;
    const size_t len = end - p;
    if (len > max_line) {
      ++*long_lines;
      v.push_back({n, p, std::string(data.substr(p, max_line))});
    } else {
      v.push_back(
          {n, p, std::string(data.substr(p, len + (nl == std::string_view::npos ? 0 : 1)))});
    }
    ++n;
    p = nl == std::string_view::npos ? data.size() : nl + 1;
  }
  return v;
}

void same(const Run& r, std::string_view data, uint32_t max_line) {
  uint32_t long_lines = 0;
  const auto want = expected(data, max_line, &long_lines);
  CHECK(r.stats.bytes == data.size());
  CHECK(r.stats.lines == want.size());
  CHECK(r.stats.long_lines == long_lines);
  REQUIRE(r.lines.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("line " << i);
    CHECK(r.lines[i].number == want[i].number);
    CHECK(r.lines[i].offset == want[i].offset);
    CHECK(r.lines[i].text == want[i].text);
  }
}

}  // namespace

TEST_CASE("chunks of real lines carry exact line numbers and offsets") {
  const std::string data = many_lines(kPlog + kHostKernel + kSyslog, 300 * 1024);
  const Run r = chunk(data, 1 << 20, 4096, 1);
  same(r, data, 1 << 20);
  CHECK(r.stats.long_lines == 0);
  CHECK_FALSE(r.stats.binary);
  // whole-line chunks of about chunk_bytes: never more than chunk_bytes + one line
  CHECK(r.chunk_sizes.size() >= data.size() / (4096 + 400));
  for (const size_t s : r.chunk_sizes) CHECK(s <= 4096 + 400);
}

TEST_CASE("a 10 MiB single line is cut, counted, and ends its chunk") {
  std::string data = kSyslog;
  const uint64_t long_at = data.size();
  data += std::string(10U << 20, 'A') + "\n";
  data += kPlog;  // no trailing newline on the last line
  data.pop_back();
  const uint32_t max_line = 1U << 20;
  LineChunker ch(max_line);
  StringReader rd(data, 3);
  std::vector<std::tuple<std::string, uint32_t, uint64_t>> chunks;
  const auto st = ch.run(rd, [&](std::string_view c, uint32_t first, uint64_t off) {
    chunks.emplace_back(std::string(c), first, off);
    return true;
  });
  CHECK(st.long_lines == 1);
  CHECK(st.lines == 5 + 1 + 5);
  CHECK(st.bytes == data.size());
  // the cut line ends a chunk, at exactly max_line bytes
  bool found = false;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const auto& [c, first, off] = chunks[i];
    if (off + c.size() == long_at + max_line) {
      found = true;
      CHECK(c.substr(c.size() - 10) == std::string(10, 'A'));
      CHECK(first <= 6);
      // the next chunk starts right after the long line's newline, at line 7
      REQUIRE(i + 1 < chunks.size());
      CHECK(std::get<2>(chunks[i + 1]) == long_at + (10U << 20) + 1);
      CHECK(std::get<1>(chunks[i + 1]) == 7);
      CHECK(std::get<0>(chunks[i + 1]).rfind("[INFO] ATRACE(155320,python3)", 0) == 0);
    }
  }
  CHECK(found);
  same(chunk(data, max_line, 1U << 20, 5), data, max_line);
}

TEST_CASE("random line lengths, limits and read sizes agree with the simple model") {
  std::mt19937 rng(99);
  for (int round = 0; round < 60; ++round) {
    std::string data;
    const size_t lines = rng() % 300;
    for (size_t i = 0; i < lines; ++i) {
      const uint32_t kind = rng() % 10;
      const size_t len = kind == 0 ? rng() % 5000 : kind == 1 ? 0 : rng() % 120;
      for (size_t k = 0; k < len; ++k) data += static_cast<char>('a' + rng() % 26);
      if (i + 1 < lines || rng() % 2 == 0) data += (rng() % 8 == 0) ? "\r\n" : "\n";
    }
    const uint32_t max_line = 1 + rng() % 3000;
    const size_t chunk_bytes = 1 + rng() % 8000;
    INFO("round " << round << " max_line " << max_line << " chunk " << chunk_bytes);
    same(chunk(data, max_line, chunk_bytes, static_cast<uint32_t>(round)), data, max_line);
  }
}

TEST_CASE("chunker edge cases") {
  SECTION("empty member") {
    const Run r = chunk("", 100, 100);
    CHECK(r.stats.lines == 0);
    CHECK(r.lines.empty());
  }
  SECTION("a line of exactly max_line bytes is not cut") {
    const std::string data = std::string(100, 'x') + "\n" + std::string(101, 'y') + "\n";
    const Run r = chunk(data, 100, 1 << 20);
    CHECK(r.stats.long_lines == 1);
    same(r, data, 100);
  }
  SECTION("a long last line without newline") {
    const std::string data = kSyslog + std::string(5000, 'z');
    same(chunk(data, 1000, 64), data, 1000);
  }
  SECTION("NUL in the first 64 KiB marks the member binary, later NULs do not") {
    std::string early = kPlog;
    early[10] = '\0';
    CHECK(chunk(early, 1 << 20, 1 << 20).stats.binary);
    std::string late = many_lines(kPlog, 100 * 1024);
    late[80 * 1024] = '\0';
    CHECK_FALSE(chunk(late, 1 << 20, 1 << 20).stats.binary);
  }
  SECTION("the callback can stop the reading") {
    const std::string data = many_lines(kSyslog, 4 << 20);  // more than one buffer fill
    LineChunker ch(1 << 20, 1024);
    StringReader rd(data);
    int calls = 0;
    const auto st = ch.run(rd, [&](std::string_view, uint32_t, uint64_t) { return ++calls < 3; });
    CHECK(calls == 3);
    CHECK(st.bytes < data.size());
  }
  SECTION("one chunker serves many members") {
    LineChunker ch(1 << 20);
    for (int i = 0; i < 3; ++i) {
      const std::string data = many_lines(kHostKernel, 10000, static_cast<uint32_t>(i));
      StringReader rd(data);
      std::string got;
      uint32_t first_seen = 0;
      ch.run(rd, [&](std::string_view c, uint32_t first, uint64_t) {
        if (got.empty()) first_seen = first;
        got += c;
        return true;
      });
      CHECK(got == data);
      CHECK(first_seen == 1);
    }
  }
}

TEST_CASE("LineChunker reads members handed out by walk") {
  const auto files = asys_files();
  const std::string tgz = make(files_of(files), Format::pax, Filter::gzip);
  struct V : Visitor {
    std::map<std::string, std::pair<std::string, uint32_t>> got;
    LineChunker ch{1 << 20, 64};
    void member(const MemberInfo& info, MemberReader& r) override {
      auto& [text, lines] = got[info.path];
      const auto st = ch.run(r, [&](std::string_view c, uint32_t, uint64_t off) {
        CHECK(off == text.size());
        text += c;
        return true;
      });
      lines = st.lines;
    }
    void warning(const Warning&) override {}
  } v;
  CHECK(walk_memory(tgz, "b.tar.gz", {}, v).status == Status::ok);
  REQUIRE(v.got.size() == files.size());
  for (const auto& [p, d] : files) {
    CHECK(v.got[p].first == d);
    CHECK(v.got[p].second == 5);
  }
}
