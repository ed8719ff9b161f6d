// CANN error-manager blocks and torch_npu error lines (log-formats.md §3), shared by the plog and
// training-log parsers: wherever they appear, a block becomes ONE event.
#pragma once

#include <string>
#include <string_view>

#include "faultline/core/types.hpp"
#include "faultline/parse/parser.hpp"
#include "logs/common.hpp"

namespace faultline::parse::logs {

// `EE9999: Inner Error!`, `EZ9999: Internal error!`, `EE9999[PID: 818] ...`, `EI0002: [PID: 7277]
// ...`, `EI0006: 2024-08-05-18:15:21.270.506 ...`, `EH9999  wait for ...`, and the 2025-12 form
// `[PID: 749] 2025-12-29-03:16:15.787.356 Get_Socket_Timeout(EI0006): ...`. Sets the code.
bool cann_block_header(std::string_view s, std::string_view& code);

// torch_npu `[ERROR] 2025-07-13-21:24:03 (PID:474, Device:2, RankID:2) ERR00100 PTA call acl api
// failed` (also the CI rendering `Error:  2025-...`). Fills time (host_local), pid, device, rank,
// severity, module ("torch_npu") and message (from "ERR").
bool parse_torch_err(std::string_view s, Event& e);

// `... error code is <N>` (torch_npu RuntimeError / NPU warning lines).
bool has_error_code(std::string_view s);

// Collects CANN error blocks, torch_npu `[Error]: <hint>` blocks and C++ stacks
// (`Exception raised from ...` + `frame #N:` lines).
class ErrorBlocks {
 public:
  // `payload` is the line without launcher prefixes, `raw` the line as in the file. Returns true
  // when the line was taken (block start or continuation). A line that ends a block is not taken:
  // the block is emitted first and the caller handles the line.
  bool feed(std::string_view raw, std::string_view payload, const LineCtx& ctx, Sink& sink);
  void flush(Sink& sink);
  [[nodiscard]] bool active() const { return block_.active(); }
  // Context stamped on blocks (from launcher prefixes): set before feed().
  int32_t rank = -1;
  int64_t pid = -1;

 private:
  enum class Mode { cann, hint, cpp_stack };
  bool continues(std::string_view payload) const;
  void start(Mode m, std::string_view raw, std::string_view payload, std::string_view code,
             const LineCtx& ctx);
  void take_time(std::string_view payload);
  Block block_;
  Mode mode_ = Mode::cann;
  std::string code_;
  std::string message_;
  int depth_ = 0;
  uint32_t depth_lines_ = 0;
  RawTime time_;
  int64_t block_pid_ = -1;
  int32_t block_rank_ = -1;
  int32_t device_ = -1;
};

}  // namespace faultline::parse::logs
