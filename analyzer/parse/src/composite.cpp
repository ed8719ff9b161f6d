#include "faultline/parse/composite.hpp"

#include <algorithm>
#include <cctype>

#include "faultline/core/text.hpp"
#include "faultline/parse/ns_listing.hpp"

namespace faultline::parse {

namespace {

constexpr size_t kDecideBytes = 64 * 1024;  // classify a section on at most this much of it

bool all_of(std::string_view s, char c) {
  if (s.empty()) return false;
  for (char x : s)
    if (x != c) return false;
  return true;
}

// "---- title ----" / "==== title ====" / "#### title ####": the title between the runs.
std::string between_runs(std::string_view l, char c, size_t min_run) {
  size_t a = 0;
  while (a < l.size() && l[a] == c) ++a;
  size_t b = l.size();
  while (b > a && l[b - 1] == c) --b;
  if (a < min_run || l.size() - b < min_run) return {};
  return std::string(text::trim(l.substr(a, b - a)));
}

// `echo $?`, `echo "exit=$?"`, `echo rc=$?`: the status of the command before.
bool is_exit_echo(std::string_view title) {
  const auto w = text::split_ws(title);
  return w.size() == 2 && w[0] == "echo" && w[1].find("$?") != std::string_view::npos;
}

}  // namespace

CompositeParser::CompositeParser(const classify::Classifier& cls, std::string member_path,
                                 EnvCheckPairs* pairs)
    : cls_(cls), path_(std::move(member_path)), env_(path_, pairs) {
  const size_t slash = path_.rfind('/');
  dir_ = slash == std::string::npos ? std::string() : path_.substr(0, slash);
  markdown_ = path_.size() > 3 && path_.compare(path_.size() - 3, 3, ".md") == 0;
}

std::string CompositeParser::banner_title(std::string_view raw, bool markdown) {
  const std::string_view l = text::rtrim(raw);
  if (l.size() < 3) return {};
  if (l.front() == '#' && l.back() == '#' && l.size() > 6) {
    auto t = between_runs(l, '#', 3);
    if (!t.empty()) return t;
  }
  if (l.front() == '-' && l.back() == '-') {
    auto t = between_runs(l, '-', 3);
    if (!t.empty()) return t;
  }
  if (l.front() == '=' && l.back() == '=') {
    auto t = between_runs(l, '=', 3);
    if (!t.empty()) return t;
  }
  if (l.substr(0, 4) == "==> " && l.size() > 8 && l.substr(l.size() - 4) == " <==")
    return std::string(text::trim(l.substr(4, l.size() - 8)));
  if (l.substr(0, 4) == ">>> ") return std::string(text::trim(l.substr(4)));
  if (l.substr(0, 2) == "$ ") return std::string(text::trim(l.substr(2)));
  if (markdown && l.front() == '#') {
    size_t i = 0;
    while (i < l.size() && l[i] == '#') ++i;
    if (i <= 6 && i < l.size() && l[i] == ' ') return std::string(text::trim(l.substr(i)));
  }
  // "uname -a output:"
  if (l.size() > 8 && l.substr(l.size() - 7) == "output:" && l.size() < 120)
    return std::string(text::trim(l.substr(0, l.size() - 7)));
  return prompt_command(l);
}

std::string CompositeParser::prompt_command(std::string_view l) {
  if (l.size() < 3) return {};
  // (venv) root@host:~# cmd  /  (base) [root@host ~]# cmd  /  (conda env) user@host:/x$ cmd: a
  // virtualenv or conda prompt prefix before the shell prompt
  if (l.front() == '(') {
    const size_t close = l.find(')');
    if (close != std::string_view::npos && close > 1 && close < 48 && close + 2 < l.size() &&
        l[close + 1] == ' ')
      return prompt_command(l.substr(close + 2));
    return {};
  }
  // [root@host ~]# cmd  /  [user@host dir]$ cmd  (RHEL, openEuler, EulerOS prompt)
  if (l.front() == '[') {
    const size_t at = l.find('@');
    const size_t close = l.find(']');
    if (at != std::string_view::npos && close != std::string_view::npos && at > 1 && at < close &&
        close < 80 && l.substr(1, at - 1).find(' ') == std::string_view::npos) {
      size_t p = close + 1;
      if (p < l.size() && l[p] == ' ') ++p;
      if (p + 1 < l.size() && (l[p] == '#' || l[p] == '$') && l[p + 1] == ' ')
        return std::string(text::trim(l.substr(p + 2)));
    }
  }
  // root@host:~# cmd  /  user@host:/x$ cmd
  if (const size_t at = l.find('@'); at != std::string_view::npos && at > 0 && at < 40) {
    const size_t colon = l.find(':', at);
    if (colon != std::string_view::npos) {
      const size_t p = l.find_first_of("#$", colon);
      if (p != std::string_view::npos && p + 1 < l.size() && l[p + 1] == ' ' &&
          l.substr(0, at).find(' ') == std::string_view::npos)
        return std::string(text::trim(l.substr(p + 2)));
    }
  }
  return {};
}

std::string CompositeParser::section_path(std::string_view dir, std::string_view title) {
  const auto words = text::split_ws(title);
  // cat/head/tail/less of a file: the file's own path
  if (words.size() >= 2 && (words[0] == "cat" || words[0] == "head" || words[0] == "tail" ||
                            words[0] == "less" || words[0] == "more")) {
    std::string_view f = words.back();
    if (!f.empty() && f.front() == '/') return std::string(f.substr(1));
  }
  if (words.size() == 1 && !words[0].empty() && words[0].front() == '/')
    return std::string(words[0].substr(1));
  std::string name;
  for (auto w : words) {
    if (w == "sudo" || w == "timeout" ||
        (w.size() > 1 && w.back() == 's' && std::isdigit(static_cast<unsigned char>(w.front()))))
      continue;
    if (!name.empty()) name += '_';
    for (char c : w) name += (c == '/' || c == '|' || c == '\'' || c == '"') ? '_' : c;
  }
  if (name.empty()) name = "section";
  return dir.empty() ? name : std::string(dir) + "/" + name;
}

// Commands the vendor's environment check and pasted collections write without a path or a
// prompt (`cat /usr/local/Ascend/driver/version.info`, `pip list | grep torch-npu`, `lspci | grep
// acce`, `npu-smi info -t health -i 0 -c 0`, `hccn_tool -i 0 -link_stat -g`): the program names
// a bare line may start with to be read as a command.
static bool collector_program(std::string_view w) {
  static constexpr std::string_view kPrograms[] = {
      "npu-smi", "hccn_tool", "lspci",   "pip",      "pip3",       "dmesg",       "uname",
      "lsmod",   "modinfo",   "ethtool", "ifconfig", "ascend-dmi", "msnpureport", "upgrade-tool"};
  return std::find(std::begin(kPrograms), std::end(kPrograms), w) != std::end(kPrograms);
}

std::string CompositeParser::bare_command(std::string_view raw) {
  const std::string_view l = text::trim(raw);
  if (l.size() > 300) return {};
  if (!l.empty() && l.front() != '/') {
    // a bare program name and at least one argument, or `cat /absolute/file`; an answer line
    // (`key : value`, `npu-smi version: 23.0.3`, `Version=...`) is not a command
    const auto w = text::split_ws(l);
    if (w.size() < 2 || l.find(": ") != std::string_view::npos || l.back() == ':' ||
        l.find('=') != std::string_view::npos)
      return {};
    if (w[0] == "cat")
      return w.size() == 2 && w[1].size() > 1 && w[1].front() == '/' ? std::string(l)
                                                                     : std::string();
    // `pip 23.0.1` / `npu-smi 23.0.rc3` are answers (a package list, a version line)
    if (std::isdigit(static_cast<unsigned char>(w[1].front())) != 0) return {};
    if ((w[0] == "pip" || w[0] == "pip3") && w[1] != "list" && w[1] != "show" && w[1] != "freeze")
      return {};
    return collector_program(w[0]) ? std::string(l) : std::string();
  }
  // /usr/local/Ascend/driver/tools/hccn_tool -i 0 -link -g  /  /usr/local/bin/npu-smi info
  // (the vendor's environment-check files npu_info_before.txt / npu_info_after.txt: each command
  // line, then its answer, then one blank line). An absolute path to an executable (no dot in
  // its last part) and at least one argument; the section is named without the directory.
  if (l.size() < 4 || l.front() != '/') return {};
  const size_t sp = l.find(' ');
  if (sp == std::string_view::npos || sp + 1 >= l.size()) return {};
  const std::string_view exe = l.substr(0, sp);
  if (exe.find_first_of("\t:=,;()[]") != std::string_view::npos) return {};
  const std::string_view base = exe.substr(exe.rfind('/') + 1);
  if (base.empty() || base.find('.') != std::string_view::npos) return {};
  const std::string_view rest = text::trim(l.substr(sp + 1));
  if (rest.empty() || rest.find(" : ") != std::string_view::npos) return {};
  return std::string(base) + " " + std::string(rest);
}

void CompositeParser::line(std::string_view text, const parse::LineCtx& ctx, parse::Sink& sink) {
  std::string title = banner_title(text, markdown_);
  // a bare command line opens a section at the start of the file or after a blank line
  if (title.empty() && !markdown_ && !in_fence_ && after_blank_) title = bare_command(text);
  after_blank_ = text::trim(text).empty();
  if (!title.empty()) {
    flush(sink);
    if (held_probe_ && is_exit_echo(title)) {
      exit_echo_ = true;
      started_ = false;
      return;
    }
    finish_held(sink);
    note_cd(title);
    env_.section(title, ctx);
    start_section(std::move(title), ctx);
    return;
  }
  env_.line(text, ctx);
  const std::string_view t = text::trim(text);
  if (exit_echo_) {
    // `echo $?` prints the bare status; `echo "exit=$?"` a line the probe parser reads itself
    if (!t.empty() && t.size() < 4 && std::all_of(t.begin(), t.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) != 0;
        }))
      held_probe_->line("exit status: " + std::string(t), ctx, sink);
    else if (!t.empty())
      held_probe_->line(text, ctx, sink);
    return;
  }
  if (t.substr(0, 3) == "```") {
    // each fenced block is its own section (a heading may hold several outputs)
    in_fence_ = !in_fence_;
    if (in_fence_ && started_ && (decided_ || !lines_.empty())) {
      std::string keep = title_;
      const parse::LineCtx keep_ctx = title_ctx_;
      flush(sink);
      start_section(std::move(keep), keep_ctx);
    }
    return;
  }
  if (all_of(t, '-') || t == "[toc]") return;  // markdown furniture
  if (!started_) start_section("", ctx);
  if (decided_) {
    if (sub_) sub_->line(text, ctx, sink);
    return;
  }
  buf_.append(text);
  buf_.push_back('\n');
  lines_.emplace_back(buf_.size(), ctx);
  if (buf_.size() >= kDecideBytes) decide(sink);
}

void CompositeParser::start_section(std::string title, const parse::LineCtx& ctx) {
  title_ = std::move(title);
  title_ctx_ = ctx;
  started_ = true;
  decided_ = false;
  kind_.clear();
  sub_.reset();
  buf_.clear();
  lines_.clear();
}

std::string CompositeParser::expanded_title() const {
  if (kernel_release_.empty()) return title_;
  std::string t = title_;
  for (std::string_view sub : {std::string_view("$(uname -r)"), std::string_view("`uname -r`")}) {
    size_t p = 0;
    while ((p = t.find(sub, p)) != std::string::npos) {
      t.replace(p, sub.size(), kernel_release_);
      p += kernel_release_.size();
    }
  }
  return t;
}

void CompositeParser::decide(parse::Sink& sink) {
  if (decided_) return;
  decided_ = true;
  const std::string title = expanded_title();
  const std::string p = title.empty() ? path_ : section_path(dir_, title);
  // A listing typed through a container runtime (`docker exec C ls -la DIR`, `docker run --rm
  // IMAGE ls DIR`): the inner listing, its facts named under the namespace it describes
  // (ns_listing.hpp)
  if (auto ns = title.empty() ? std::nullopt : namespaced_listing(title)) {
    kind_ = "ls_listing";
    sub_ = prefixed_parser(parse::make_parser(kind_, p), "ns." + ns->scope + ".");
    if (sub_) {
      sub_->line("$ " + ns->inner, title_ctx_, sink);
      size_t start = 0;
      for (const auto& [end, ctx] : lines_) {
        sub_->line(std::string_view(buf_).substr(start, end - 1 - start), ctx, sink);
        start = end;
      }
    }
  } else {
    decide_kind(p, title, sink);
  }
  run_container_shapes(p, title, sink);
  remember_release();
  buf_.clear();
  lines_.clear();
}

// The section's kind from its path and first lines, and its parser fed what it has buffered.
void CompositeParser::decide_kind(const std::string& p, const std::string& title,
                                  parse::Sink& sink) {
  const auto usable = [](const std::string& k) {
    return k != "text" && k != "binary" && k != "composite";
  };
  kind_ = cls_.classify(p, buf_).kind;
  // A probe run pasted at a prompt (`timeout 60s python3 probe.py rng`): its output alone does not
  // say it is a probe, the command does (the probe_output content rule reads `$ <command>`).
  if (kind_ != "probe_output" && title.find(".py") != std::string::npos &&
      cls_.classify(p, "$ " + title + "\n" + buf_).kind == "probe_output")
    kind_ = "probe_output";
  if (usable(kind_)) sub_ = parse::make_parser(kind_, p);
  if (sub_) {
    // Parsers that read their command from an echoed `$ <command>` line get the section's:
    // `ls -l DIR` names its entries relative to DIR, a probe is named by its command.
    // (Not while the command still holds a shell expansion the session did not print, e.g.
    // `$(uname -r)` before any `uname -r`: relative names are better than a literal `$(...)`.)
    // `npu-smi info -t health -i 0 -c 0` names the NPU its key-value answer is about;
    // `lsmod | grep x` printing nothing, `ldd BIN`, `grep … /lib/modules/<r>/modules.dep` too.
    if (!title.empty() &&
        (kind_ == "ls_listing" || kind_ == "probe_output" || kind_ == "npu_smi_kv" ||
         kind_ == "lsmod" || kind_ == "ldd" || kind_ == "modules_dep" || kind_ == "launch_spec") &&
        title.find("$(") == std::string::npos && title.find('`') == std::string::npos)
      sub_->line("$ " + with_cwd(title), title_ctx_, sink);
    size_t start = 0;
    for (const auto& [end, ctx] : lines_) {
      sub_->line(std::string_view(buf_).substr(start, end - 1 - start), ctx, sink);
      start = end;
    }
  }
}

// `docker run -v …` / `singularity exec --bind …` typed at a prompt: the command itself states
// the container's binds, whatever its output is (the fact shapes of the pseudo-kind
// `container_run`, rules/facts/container.yaml)
void CompositeParser::run_container_shapes(const std::string& p, const std::string& title,
                                           parse::Sink& sink) {
  {
    const auto tw0 = text::split_ws(title);
    size_t k = 0;
    while (k < tw0.size() && (tw0[k] == "sudo" || tw0[k] == "nohup")) ++k;
    if (k < tw0.size() && (tw0[k] == "docker" || tw0[k] == "podman" || tw0[k] == "nerdctl" ||
                           tw0[k] == "singularity" || tw0[k] == "apptainer")) {
      if (auto run = parse::make_parser("container_run", p)) {
        run->line("$ " + title, title_ctx_, sink);
        run->finish(sink);
      }
    }
  }
}

// the running kernel, remembered for later `ls -l /lib/modules/$(uname -r)/...` commands
void CompositeParser::remember_release() {
  const auto tw = text::split_ws(title_);
  if (tw.size() == 2 && tw[0] == "uname" && (tw[1] == "-r" || tw[1] == "-a")) {
    const auto w = text::split_ws(std::string_view(buf_).substr(0, buf_.find('\n')));
    const size_t i = tw[1] == "-r" ? 0 : 2;  // uname -a: Linux <host> <release> ...
    if (w.size() == (tw[1] == "-r" ? 1U : w.size()) && i < w.size() && w[i].size() < 128 &&
        w[i].find('.') != std::string_view::npos)
      kernel_release_ = std::string(w[i]);
  }
}

void CompositeParser::note_cd(std::string_view title) {
  const auto w = text::split_ws(title);
  if (w.empty() || w[0] != "cd") return;
  const std::string prev = std::move(cwd_);
  cwd_.clear();  // `cd`, `cd ~`, `cd -`: somewhere the session did not print
  if (w.size() != 2 || w[1].find_first_of("$`~*?") != std::string_view::npos) return;
  std::string d(w[1]);
  if (d.front() != '/') {
    if (prev.empty()) return;
    d = prev + "/" + d;
  }
  // normalise "." and ".." (the listing's names are joined under it)
  std::vector<std::string_view> parts;
  for (auto part : text::split(d, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (auto part : parts) {
    out += '/';
    out += part;
  }
  cwd_ = out.empty() ? "/" : out;
}

// `ls -la` (no operand) lists the working directory: name it when an earlier `cd` did.
std::string CompositeParser::with_cwd(const std::string& title) const {
  if (cwd_.empty()) return title;
  const size_t pipe = title.find('|');
  const std::string head = title.substr(0, pipe);
  const auto w = text::split_ws(head);
  if (w.empty() || (w[0] != "ls" && w[0] != "ll")) return title;
  for (size_t i = 1; i < w.size(); ++i)
    if (w[i].empty() || w[i][0] != '-') return title;  // has an operand of its own
  std::string out(text::rtrim(head));
  out += ' ';
  out += cwd_;
  if (pipe != std::string::npos) out += " " + title.substr(pipe);
  return out;
}

void CompositeParser::flush(parse::Sink& sink) {
  if (!started_) return;
  started_ = false;
  decide(sink);
  if (sub_ && kind_ == "probe_output") {
    finish_held(sink);
    held_probe_ = std::move(sub_);
    return;
  }
  if (sub_) sub_->finish(sink);
  sub_.reset();
}

void CompositeParser::finish_held(parse::Sink& sink) {
  exit_echo_ = false;
  if (held_probe_) held_probe_->finish(sink);
  held_probe_.reset();
}

void CompositeParser::finish(parse::Sink& sink) {
  flush(sink);
  finish_held(sink);
  env_.finish(sink);
}

}  // namespace faultline::parse
