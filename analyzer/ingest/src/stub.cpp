// Placeholder until the streaming implementation lands.
#include "faultline/ingest/ingest.hpp"

namespace faultline::ingest {

Result walk(const std::filesystem::path& bundle, const Limits&, Visitor&) {
  Result r;
  r.status = Status::unreadable;
  r.message = bundle.string() + ": ingest not implemented yet";
  return r;
}

Result walk_memory(std::string_view, std::string_view name, const Limits&, Visitor&) {
  Result r;
  r.status = Status::unreadable;
  r.message = std::string(name) + ": ingest not implemented yet";
  return r;
}

LineChunker::LineChunker(uint32_t max_line_bytes, size_t chunk_bytes)
    : max_line_(max_line_bytes), chunk_bytes_(chunk_bytes) {}

LineChunker::Stats LineChunker::run(MemberReader&, const ChunkFn&) { return {}; }

}  // namespace faultline::ingest
