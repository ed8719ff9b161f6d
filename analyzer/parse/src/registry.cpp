#include <algorithm>

#include "faultline/parse/fact_shapes.hpp"
#include "faultline/parse/parser.hpp"
#include "faultline/parse/registry_detail.hpp"
#include "outputs/loader.hpp"

namespace faultline::parse {

namespace {
const std::vector<detail::Entry>& table() {
  static const std::vector<detail::Entry> t = [] {
    std::vector<detail::Entry> v;
    detail::register_log_parsers(v);
    detail::register_output_parsers(v);
    return v;
  }();
  return t;
}

class CollectSink final : public Sink {
 public:
  explicit CollectSink(ParseResult& r) : r_(r) {}
  void event(const Event& e) override { r_.events.emplace_back(e); }
  void fact(const Fact& f) override { r_.facts.push_back(f); }
  void malformed(const LineCtx& ctx, std::string_view why) override {
    ++r_.malformed;
    r_.malformed_reasons.push_back(std::to_string(ctx.line) + ": " + std::string(why));
  }

 private:
  ParseResult& r_;
};
}  // namespace

// Kinds where the dynamic loader's "cannot open shared object file" lines are printed: they also
// give `library.<lib>.missing` facts (src/outputs/loader.cpp).
bool loader_errors_in(std::string_view kind) {
  for (std::string_view k :
       {"train_log", "syslog", "journal", "probe_output", "ldd", "npu_smi_info", "npu_smi_kv"})
    if (k == kind) return true;
  return false;
}

// The kind's C++ parser (if any) with the kind's fact shapes (rules/facts) beside it.
std::unique_ptr<Parser> make_parser(std::string_view kind, std::string_view path) {
  std::unique_ptr<Parser> p;
  for (const auto& e : table())
    if (e.kind == kind) {
      p = e.make(path);
      if (loader_errors_in(kind)) p = outputs::with_loader_errors(std::move(p));
      break;
    }
  return with_fact_shapes(kind, path, std::move(p));
}

std::vector<std::string> parser_kinds() {
  std::vector<std::string> out;
  for (const auto& e : table()) out.push_back(e.kind);
  for (auto& k : fact_shape_kinds()) out.push_back(std::move(k));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

ParseResult parse_text(std::string_view kind, std::string_view text, std::string_view path) {
  ParseResult r;
  auto p = make_parser(kind, path);
  if (!p) return r;
  CollectSink sink(r);
  uint64_t off = 0;
  uint32_t n = 0;
  while (off < text.size()) {
    size_t end = text.find('\n', off);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    std::string_view line = text.substr(off, end - off);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++n;
    p->line(line, LineCtx{n, off}, sink);
    off = last ? text.size() : end + 1;
  }
  p->finish(sink);
  r.lines = n;
  return r;
}

}  // namespace faultline::parse
