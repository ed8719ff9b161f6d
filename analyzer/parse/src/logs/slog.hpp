// CANN slog/plog line grammar (log-formats.md §1.2, §2.4, §11):
//   [LEVEL] MODULE(pid,pname):YYYY-MM-DD-hh:mm:ss.mmm.uuu <module's own sub-header><msg>
// tolerant of an empty pname, numeric level/module, missing spaces and ' ' instead of '-'
// between date and time.
#pragma once

#include <string_view>

#include "faultline/core/types.hpp"

namespace faultline::parse::logs {

struct SlogHeader {
  Severity severity = Severity::info;
  std::string_view level, module, process;
  int64_t pid = -1;
  RawTime time;  // clock left as none: the caller knows which clock the kind uses
  std::string_view rest;
};

bool parse_slog_header(std::string_view line, SlogHeader& h);
// True when the line starts like a slog header ("[LEVEL] MOD(") even if it fails to parse: such a
// line is malformed, never a continuation of the previous record.
bool looks_like_slog_header(std::string_view line);

// The module sub-header after the timestamp:
//   RUNTIME/GE/ASCENDCL  [file:line]tid Func:msg     HCCL  [file:line] [tid][Stage][Sub]msg
//   AICPU/CCECPU/TDT     [file:line][Func][tid:N]msg PROFILING/ATRACE  [file:line] >>> (tid:N) msg
//   KERNEL (sklogd)      [klogd.c:N][uptime] msg     EVENT [file:line][tag][uptime] msg
//   HCCP                 [file:line]tid:N,func(line) : msg
struct SlogRest {
  std::string_view msg;
  int64_t tid = -1;
  int64_t uptime_ns = -1;
  bool klogd = false;  // printk payload forwarded by sklogd
};
SlogRest parse_slog_rest(std::string_view rest);

}  // namespace faultline::parse::logs
