// Files that hold several command outputs one after another (the official collectors'
// env_info.md, install_info.md, OS_info.log, version_info.log, ...). Each section, introduced by a
// banner, is classified on its own (from the banner's command and its first lines) and fed to the
// parser of its kind with the lines' real numbers, so facts keep their file:line evidence.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/classify/classify.hpp"
#include "faultline/parse/env_check.hpp"
#include "faultline/parse/parser.hpp"

namespace faultline::parse {

class CompositeParser final : public parse::Parser {
 public:
  // pairs: the bundle's environment-check files seen so far (before/after comparison), or null
  CompositeParser(const classify::Classifier& cls, std::string member_path,
                  EnvCheckPairs* pairs = nullptr);
  void line(std::string_view text, const parse::LineCtx& ctx, parse::Sink& sink) override;
  void finish(parse::Sink& sink) override;

  // The title of a banner line ("" when the line is not a banner). Exposed for tests.
  static std::string banner_title(std::string_view line, bool markdown);
  // The command of a shell prompt line (`root@host:~# cmd`, `[root@host ~]# cmd`, either after a
  // `(venv) ` / `(conda env) ` prefix), "" otherwise.
  static std::string prompt_command(std::string_view line);
  // The command of a bare command line (`/usr/local/bin/npu-smi info -t health -i 0`) as a
  // section title without the directory (`npu-smi info -t health -i 0`), "" otherwise. Only
  // taken at the start of a file or after a blank line (see line()). Without a directory: a
  // line starting with a collector program (`npu-smi info -t health -i 0 -c 0`, `hccn_tool -i 0
  // -link_stat -g`, `lspci | grep acce`, `pip list | grep torch-npu`) or `cat /absolute/file`,
  // returned as written.
  static std::string bare_command(std::string_view line);
  // A path that makes the classifier's path patterns recognise a section's command:
  // "uname -a" -> "<dir>/uname_-a", "cat /usr/local/Ascend/driver/version.info" ->
  // "usr/local/Ascend/driver/version.info".
  static std::string section_path(std::string_view dir, std::string_view title);

 private:
  void start_section(std::string title, const parse::LineCtx& ctx);
  void decide(parse::Sink& sink);
  void decide_kind(const std::string& p, const std::string& title, parse::Sink& sink);
  void run_container_shapes(const std::string& p, const std::string& title, parse::Sink& sink);
  void remember_release();
  void flush(parse::Sink& sink);
  void finish_held(parse::Sink& sink);
  void note_cd(std::string_view title);                  // follows `cd DIR` commands
  std::string with_cwd(const std::string& title) const;  // `ls -la` -> `ls -la <cwd>`
  // the section's command with `$(uname -r)` replaced by the release the session printed
  std::string expanded_title() const;

  const classify::Classifier& cls_;
  std::string path_, dir_;
  bool markdown_ = false;
  std::string title_;
  parse::LineCtx title_ctx_;  // the banner line of the current section
  bool started_ = false;
  std::string kernel_release_;
  std::string cwd_;  // the directory of the last `cd`, "" when not known  // output of an earlier
                     // `uname -r` section
  // A probe run's parser, kept open after its section: a following `echo $?` section is its exit
  // status (seed 002: "超时输出与退出状态应一起保存").
  std::unique_ptr<parse::Parser> held_probe_;
  bool exit_echo_ = false;  // the current lines are the output of that `echo $?`
  // buffered lines of the current section until its kind is decided
  std::string buf_;
  std::vector<std::pair<size_t, parse::LineCtx>> lines_;  // (end offset in buf_, ctx)
  std::string kind_;  // the current section's kind, once decided
  std::unique_ptr<parse::Parser> sub_;
  EnvCheck env_;  // judgements over several sections (optical module, IP, dropped cards)
  bool decided_ = false;
  bool in_fence_ = false;
  bool after_blank_ = true;  // the previous line was blank (or this is the first line)
};

}  // namespace faultline::parse
