// Shared helpers of the command-output parsers (src/outputs/): banner lines, command lines,
// member-path hints, bounded fact/event emission. Internal to the parse library.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/core/types.hpp"
#include "faultline/parse/parser.hpp"

namespace faultline::parse::outputs {

// Bounds for untrusted input (per member).
inline constexpr size_t kMaxFactsPerMember = 250000;
inline constexpr size_t kMaxValueBytes = 16 * 1024;
inline constexpr size_t kMaxNameBytes = 512;
inline constexpr size_t kMaxAccumBytes = 8u << 20;  // text a parser keeps for finish()

// A line that separates or announces outputs inside a file holding several of them:
//   `########### collect npu id 0 chip id 0 health info #############`   (title banner)
//   `==> /usr/local/Ascend/driver/version.info <==`                     (tail/head header)
//   `$ modinfo -n drv_pcie_host`, `[root@node ~]# npu-smi info`, `root@n:~# uname -a`  (prompts)
//   `npu-smi info -t board -i 0 -c 0`  (bare echo of a known command, as npu_log_collect.sh does)
//   `## npu-smi info`, `=== uname -a ===`, `>>> CANN:`                    (titles)
struct Banner {
  std::string title;              // text of the banner without decoration / prompt
  std::vector<std::string> argv;  // the command when the banner is a command line (argv[0] =
                                  // basename of the program; sudo/timeout/env prefixes removed)
  std::string path;               // absolute path the banner names (==> path <==, cat path, ...)
  int npu = -1;                   // `npu id N` or `-i N`
  int chip = -1;                  // `chip id N` or `-c N`
  [[nodiscard]] bool is_command(std::string_view prog) const {
    return !argv.empty() && argv[0] == prog;
  }
  [[nodiscard]] bool has_arg(std::string_view a) const;
  // Arguments that are not options (and not option values of the few options known to take one).
  [[nodiscard]] std::vector<std::string> operands() const;
};
std::optional<Banner> parse_banner(std::string_view line);

// Lines that carry no content: blank, Markdown code fences.
bool is_blank(std::string_view line);

// Shell-like split of a command line (quotes removed; stops at an unquoted | ; & > <).
std::vector<std::string> split_command(std::string_view cmd);

// Hints from the member path inside the bundle.
// pid: proc/<pid>/x, process/<pid>/x, pid_<pid>/x, pid-<pid>, x_<pid>.txt, x.<pid>, <pid>.x
std::optional<int64_t> pid_from_path(std::string_view path);
// npu id: npu_0, npu-0, npu0, npu_smi_0_..., device_0, card_0, davinci0, `-i_0`
std::optional<int> npu_from_path(std::string_view path);
std::string_view basename(std::string_view path);
std::string_view dirname(std::string_view path);

// Lexically normalised absolute path ("a/./b/../c" -> "a/c"); `base` resolves relative paths.
std::string join_path(std::string_view base, std::string_view rel);

// Lowercase, non-alphanumeric runs -> '_', trimmed of '_' ("Virtual Memory (kb)" ->
// virtual_memory_kb).
std::string snake(std::string_view s);

// `Key : value`, `Key: value`, `Key=value` (first separator; key trimmed, value trimmed).
bool split_kv(std::string_view line, char sep, std::string_view& key, std::string_view& value);

// Strip one level of matching quotes.
std::string_view unquote(std::string_view v);
// In one line of block YAML with the indentation and any "- " removed: the position of the
// colon that ends its key (`key: value`, `key:`, `"quoted key": value`), npos when the line is a
// scalar (a flow collection `{a: 1}` or a URL-like `http://x` is not a key).
size_t yaml_key_colon(std::string_view rest);

// CANN version named by a path: .../ascend-toolkit/8.5.0/... -> 8.5.0, .../cann-9.1.0/... ->
// 9.1.0, .../ascend-toolkit/latest/... -> latest, .../nnae/8.0.RC3/... -> 8.0.RC3.
std::optional<std::string> cann_version_in_path(std::string_view path);
// The install root of that CANN (…/ascend-toolkit/8.5.0, /usr/local/Ascend/cann-9.1.0).
std::optional<std::string> cann_root_in_path(std::string_view path);

bool is_digit(char c);
bool starts_with_digit(std::string_view s);
bool is_hex(std::string_view s);

// Base class: bounded fact emission and event construction.
class OutputParser : public Parser {
 protected:
  void fact(Sink& sink, std::string_view name, std::string_view value, uint32_t line);
  struct Ev {
    uint32_t line = 0;
    uint32_t line_count = 1;
    uint64_t offset = 0;
    Severity severity = Severity::info;
    bool keep = false;
    std::string_view module;
    std::string_view message;
    std::string_view text;
    int32_t device = -1;
    int64_t pid = -1;
  };
  static void event(Sink& sink, const Ev& e);

 private:
  size_t facts_ = 0;
  bool capped_ = false;
};

}  // namespace faultline::parse::outputs
