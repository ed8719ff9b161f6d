// Harness: the signature rule loader (tag::load_signatures) and what `rules lint` / `rules test`
// do with a loaded pack (tag::lint, Engine::build, run_examples, captures).
// Input: the text of one rule file, read as rules/signatures/fuzz.yaml.
#include <string>
#include <vector>

#include "common.hpp"
#include "faultline/tag/tag.hpp"

using namespace faultline;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16 * 1024) return 0;  // rule files are small; keeps Hyperscan compiles short
  const std::vector<RuleFile> files{
      {"signatures/fuzz.yaml", std::string(fuzz::as_view(data, size))}};
  const tag::RuleSet rs = tag::load_signatures(files);
  for (const auto& s : rs.signatures) {
    FUZZ_CHECK(!s.id.empty(), "loaded signature without an id");
    FUZZ_CHECK(!s.patterns.empty(), "loaded signature without a pattern");
    fuzz::g_sink = fuzz::g_sink + fuzz::touch(s.id) + fuzz::touch(s.title);
  }
  for (const auto& p : tag::lint(rs)) fuzz::g_sink = fuzz::g_sink + fuzz::touch(p.to_string());
  fuzz::g_sink = fuzz::g_sink + fuzz::touch(tag::list_text(rs));
  if (!rs.errors.empty() || rs.signatures.empty()) return 0;
  std::string err;
  const auto engine = tag::Engine::build(rs, {}, &err);
  if (!engine) {
    FUZZ_CHECK(!err.empty(), "Engine::build failed without saying why");
    return 0;
  }
  const tag::ExampleReport rep = tag::run_examples(rs, *engine);
  fuzz::g_sink = fuzz::g_sink + fuzz::touch(rep.text);
  // Scan the examples as one chunk of every kind, and capture on each hit line.
  std::string chunk;
  for (const auto& s : rs.signatures) {
    for (const auto& m : s.match) chunk += m.line + "\n";
    for (const auto& m : s.no_match) chunk += m + "\n";
  }
  engine->scan(chunk, "", [&](const tag::Hit& h) {
    FUZZ_CHECK(h.line_begin <= h.end && h.end <= h.line_end && h.line_end <= chunk.size(),
               "hit offsets outside its line");
    const std::string_view line =
        std::string_view(chunk).substr(h.line_begin, h.line_end - h.line_begin);
    FUZZ_CHECK(line.find('\n') == std::string_view::npos, "hit spans lines");
    for (const auto& [k, v] : engine->captures(h.signature, line))
      fuzz::g_sink = fuzz::g_sink + fuzz::touch(k) + fuzz::touch(v);
  });
  return 0;
}
