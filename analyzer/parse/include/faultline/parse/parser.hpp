// Parsers: one per member kind, each a pure function over text (no I/O).
//
// A parser is fed the member's lines in order (without the trailing '\n'; a trailing '\r' is
// already removed) and reports events and facts to a Sink. Multi-line records (CANN error blocks,
// Python tracebacks, npu-smi tables) are kept in the parser's own state and reported when they end
// or at finish(). To add a log kind: write src/<kind>.cpp with a factory, add it to the table in
// src/registry.cpp, add its kind to rules/classify/kinds.yaml, and a table-driven test in
// tests/parse/.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/core/types.hpp"

namespace faultline::parse {

struct LineCtx {
  uint32_t line = 0;    // 1-based
  uint64_t offset = 0;  // byte offset of the line start in the member
};

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void event(const Event& e) = 0;
  virtual void fact(const Fact& f) = 0;
  // A line of a known kind that the parser could not understand (counted per member).
  virtual void malformed(const LineCtx& /*ctx*/, std::string_view /*why*/) {}
};

// A derived record (docs/events.md "Derived records"): a text the parser wrote about several
// lines, at the line it is about, that the signatures are matched against. `text` must outlive
// the Sink call; the caller sets time, device, rank, pid as it knows them.
inline Event derived_record(const LineCtx& at, std::string_view module, Severity severity,
                            std::string_view text) {
  Event e;
  e.line = at.line;
  e.offset = at.offset;
  e.module = module;
  e.severity = severity;
  e.keep = severity > Severity::info;  // an info record is kept only when a signature reads it
  e.derived = true;
  e.text = text;
  e.message = text;
  return e;
}

class Parser {
 public:
  virtual ~Parser() = default;
  virtual void line(std::string_view text, const LineCtx& ctx, Sink& sink) = 0;
  virtual void finish(Sink& /*sink*/) {}
};

// The parser for a kind (see rules/classify/kinds.yaml), or nullptr when the kind has none.
// `path` is the member path inside the bundle: some parsers read facts from it (the pid in
// /proc/<pid>/maps, the device id in device-<id>/ folders).
std::unique_ptr<Parser> make_parser(std::string_view kind, std::string_view path = {});

// Every kind that has a parser.
std::vector<std::string> parser_kinds();

// Convenience for tests and small members: run the kind's parser over a whole text.
struct ParseResult {
  std::vector<OwnedEvent> events;
  std::vector<Fact> facts;
  uint32_t lines = 0;
  uint32_t malformed = 0;
  std::vector<std::string> malformed_reasons;
};
ParseResult parse_text(std::string_view kind, std::string_view text, std::string_view path = {});

}  // namespace faultline::parse
