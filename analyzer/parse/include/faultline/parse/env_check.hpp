// Judgements over the sections of an environment-check file: the vendor's
// npu_info_before.txt / npu_info_after.txt (MindCluster, before and after training) and any
// pasted session of the same commands. Each command's answer is parsed by the parser of its kind
// (CompositeParser); what needs two answers, or the absence of a line, is judged here and handed
// to the signatures as derived records (Event::derived, docs/events.md):
//   - `hccn_tool -i N -optical -g`: module not present, a Tx/Rx power outside the module's own
//     thresholds, a LOS or LoL flag set (skipped on Atlas 900 PoD boards, Board ID 0x30-0x34 in
//     the same file, whose NPU ports have no optical module of their own);
//   - `hccn_tool -i N -ip -g` that printed no address;
//   - `npu-smi info -i N -t board` answering `Invalid card id.` (the card is gone from npu-smi);
//   - a card whose `PCIe Bus Info` the board query printed but `lspci | grep acce` no longer
//     lists, in the same file or between the before and the after file of one directory;
//   - `npu-smi info` that printed nothing at all (no driver answering);
//   - each NPU's HBM capacity (`-t usages`) with its chip name (`-c C -t board`, `info -m`), for
//     the signature that knows the rated capacities.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/parse/parser.hpp"

namespace faultline::parse {

// What an environment-check file showed of its cards, kept per bundle so that the second file of
// a before/after pair is compared with the first (whichever the bundle streams first).
struct EnvCards {
  struct Place {
    LineCtx ctx;
    int npu = -1;
  };
  std::string path;                      // the member
  bool has_lspci = false;                // an `lspci` answer listing NPU functions
  LineCtx lspci_ctx;                     // its command line
  std::map<std::string, LineCtx> lspci;  // "61:00.0" -> line
  std::map<std::string, Place> bus_of;   // "61:00.0" -> the board query's line and NPU id
};

class EnvCheckPairs {
 public:
  // Stores `cards` as the `side` ("before" / "after") of `dir` and returns the other side when it
  // was stored already.
  std::optional<EnvCards> exchange(const std::string& dir, const std::string& side,
                                   const EnvCards& cards);

 private:
  std::mutex mu_;
  std::map<std::pair<std::string, std::string>, EnvCards> seen_;
};

class EnvCheck {
 public:
  // pairs may be null (no before/after comparison)
  EnvCheck(std::string member_path, EnvCheckPairs* pairs);
  void section(std::string_view title, const LineCtx& ctx);  // a command's section starts
  void line(std::string_view text, const LineCtx& ctx);      // a line of its answer
  void finish(Sink& sink);

 private:
  enum class Cmd { none, optical, ip, board, usages, lspci, smi_info, smi_list };
  struct Reading {
    std::string key, value;  // as printed ("Rx Power1", "0.0054 mW")
    LineCtx ctx;
  };
  struct Optical {
    LineCtx title;
    std::vector<Reading> readings;
  };
  struct Ip {
    LineCtx title;
    bool address = false;
  };
  void end_section();
  void emit(Sink& sink, const LineCtx& ctx, int npu, const std::string& text, Severity sev);
  void judge_optical(Sink& sink);
  void judge_cards(Sink& sink);

  std::string path_, dir_, side_;
  EnvCheckPairs* pairs_;
  Cmd cmd_ = Cmd::none;
  int npu_ = -1;
  std::string title_;
  LineCtx title_ctx_;
  size_t answer_lines_ = 0;  // non-blank lines of the current answer
  std::map<int, Optical> optical_;
  std::map<int, Ip> ip_;
  std::set<std::string> boards_;  // Board IDs as printed (0x02, 0x30)
  std::map<int, LineCtx> invalid_card_;
  std::map<int, std::string> chip_;                     // NPU -> chip name (910A, 910B3)
  std::map<int, std::pair<std::string, LineCtx>> hbm_;  // NPU -> `HBM Capacity(MB)` value
  std::vector<LineCtx> silent_smi_;                     // `npu-smi info` sections with no answer
  EnvCards cards_;
};

}  // namespace faultline::parse
