// Missing-library facts from the dynamic loader's messages, wherever they are printed (a shell
// session, a service's journal, a training log, an npu-smi dump):
//   npu-smi: error while loading shared libraries: libc_sec.so: cannot open shared object file: No
//   such file or directory ImportError: libatb.so: cannot open shared object file: No such file or
//   directory
// Each gives `library.<soname>.missing` = the program that failed to start ("" when the line
// does not say, as for Python's ImportError/OSError).
#include "outputs/loader.hpp"

#include "faultline/core/text.hpp"
#include "outputs/common.hpp"

namespace faultline::parse::outputs {

bool loader_error(std::string_view line, std::string& lib, std::string& program) {
  static constexpr std::string_view kCannot = ": cannot open shared object file";
  const size_t c = line.find(kCannot);
  if (c == std::string_view::npos || c == 0) return false;
  // the library: the text after the ": " (or space) before the marker
  std::string_view head = line.substr(0, c);
  size_t st = head.rfind(": ");
  st = st == std::string_view::npos ? 0 : st + 2;
  const size_t sp = head.rfind(' ');
  if (sp != std::string_view::npos && sp + 1 > st) st = sp + 1;
  std::string_view l = head.substr(st);
  if (l.empty() || l.size() > 256) return false;
  lib = std::string(basename(l));
  if (lib.empty() || lib.find(".so") == std::string::npos) return false;
  program.clear();
  static constexpr std::string_view kWhile = ": error while loading shared libraries";
  const size_t w = head.rfind(kWhile);
  if (w != std::string_view::npos) {
    std::string_view p = text::trim(head.substr(0, w));
    // syslog/journal prefix: "host svc[12]: /usr/bin/x" -> the last ": " field, last word
    if (const size_t cs = p.rfind(": "); cs != std::string_view::npos) p = p.substr(cs + 2);
    if (const size_t ps = p.rfind(' '); ps != std::string_view::npos) p = p.substr(ps + 1);
    if (p.size() <= 256) program = std::string(p);
  }
  return true;
}

namespace {

class LoaderTap final : public Parser {
 public:
  explicit LoaderTap(std::unique_ptr<Parser> inner) : inner_(std::move(inner)) {}
  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    inner_->line(text, ctx, sink);
    if (text.find("shared object file") == std::string_view::npos || facts_ >= 1024) return;
    std::string lib, program;
    if (!loader_error(text, lib, program)) return;
    ++facts_;
    sink.fact(Fact{"library." + lib + ".missing", program, ctx.line});
  }
  void finish(Sink& sink) override { inner_->finish(sink); }

 private:
  std::unique_ptr<Parser> inner_;
  size_t facts_ = 0;
};

}  // namespace

std::unique_ptr<Parser> with_loader_errors(std::unique_ptr<Parser> inner) {
  if (!inner) return inner;
  return std::make_unique<LoaderTap>(std::move(inner));
}

}  // namespace faultline::parse::outputs
