// Harness: every parser of parse::parser_kinds(), line by line as the app feeds them.
// Input: line 1 is the kind (a kind without a parser picks one by a hash of the line, so every
// input reaches some parser and regression inputs keep their parser when kinds are added),
// line 2 the member path (some parsers read the pid or device from it), the rest the member text.
// Every view an event hands out is read (ASan sees a dangling one) and its time is converted as the
// store converts it (UBSan sees an overflow).
#include <algorithm>
#include <string>
#include <vector>

#include "common.hpp"
#include "faultline/core/time.hpp"
#include "faultline/parse/parser.hpp"

namespace {

using namespace faultline;

class CheckSink final : public parse::Sink {
 public:
  explicit CheckSink(uint32_t lines) : lines_(lines) {}
  void event(const Event& e) override {
    FUZZ_CHECK(e.line >= 1 && e.line <= lines_, "event line outside the member");
    FUZZ_CHECK(e.line_count >= 1, "event covers no line");
    fuzz::g_sink = fuzz::g_sink + fuzz::touch(e.module) + fuzz::touch(e.process) +
                   fuzz::touch(e.message) + fuzz::touch(e.text);
    if (e.time.has_civil()) {
      const int year = e.time.year == 0 ? 2000 : e.time.year;  // as store::Db::add_event
      fuzz::g_sink = fuzz::g_sink +
                     static_cast<unsigned>(civil_to_ns(year, e.time.month, e.time.day, e.time.hour,
                                                       e.time.minute, e.time.second, e.time.nanos));
    }
  }
  void fact(const Fact& f) override {
    FUZZ_CHECK(!f.name.empty(), "fact without a name");
    FUZZ_CHECK(f.line <= lines_, "fact line outside the member");
    fuzz::g_sink = fuzz::g_sink + fuzz::touch(f.name) + fuzz::touch(f.value);
  }
  void malformed(const parse::LineCtx& ctx, std::string_view why) override {
    FUZZ_CHECK(ctx.line >= 1 && ctx.line <= lines_, "malformed line outside the member");
    fuzz::g_sink = fuzz::g_sink + fuzz::touch(why);
  }
  uint32_t lines_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> kinds = parse::parser_kinds();
  std::string_view in = fuzz::as_view(data, size);
  auto next_line = [&in]() {
    const size_t nl = in.find('\n');
    const std::string_view l = in.substr(0, nl);
    in.remove_prefix(nl == std::string_view::npos ? in.size() : nl + 1);
    return l;
  };
  const std::string_view kind_line = next_line();
  const std::string path(next_line().substr(0, 512));
  std::string kind(kind_line);
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    kind = kinds[fuzz::touch(kind_line) % kinds.size()];
  // A copy that ends where the input ends, so that ASan sees reads past the member's end.
  const std::string text(in);
  uint32_t total = 0;
  for (size_t off = 0; off < text.size(); ++total) {
    const size_t e = text.find('\n', off);
    off = e == std::string::npos ? text.size() : e + 1;
  }
  auto p = parse::make_parser(kind, path);
  FUZZ_CHECK(p != nullptr, "parser_kinds() lists a kind make_parser does not make");
  CheckSink sink(total);
  uint64_t off = 0;
  uint32_t n = 0;
  while (off < text.size()) {
    size_t end = text.find('\n', off);
    const bool last = end == std::string::npos;
    if (last) end = text.size();
    // Each line in its own buffer (the chunker's buffer is reused): a parser that keeps a view
    // into an earlier line reads freed memory.
    std::string line = text.substr(off, end - off);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++n;
    p->line(line, parse::LineCtx{n, off}, sink);
    off = last ? text.size() : end + 1;
  }
  p->finish(sink);
  return 0;
}
