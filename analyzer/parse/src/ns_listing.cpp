#include "faultline/parse/ns_listing.hpp"

#include <algorithm>
#include <vector>

namespace faultline::parse {

namespace {

// shell words with '…' and "…" quoting (no expansion); at most 256 words
std::vector<std::string> shell_words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (char c : s) {
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else
        cur += c;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
      continue;
    }
    if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(std::move(cur));
      cur.clear();
      in_word = false;
      if (out.size() >= 256) return out;
      continue;
    }
    cur += c;
    in_word = true;
  }
  if (in_word) out.push_back(std::move(cur));
  return out;
}

bool one_of(std::string_view w, std::initializer_list<std::string_view> l) {
  return std::find(l.begin(), l.end(), w) != l.end();
}

std::string join(const std::vector<std::string>& w, size_t from) {
  std::string out;
  for (size_t i = from; i < w.size(); ++i) {
    if (!out.empty()) out += ' ';
    out += w[i];
  }
  return out;
}

std::string trim_slash(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

// `dir` is `dst` or below it
bool covers(const std::string& dst, const std::string& dir) {
  const std::string d = trim_slash(dst);
  const std::string x = trim_slash(dir);
  if (d.empty() || d.front() != '/') return false;
  return x == d || (x.size() > d.size() && x.compare(0, d.size(), d) == 0 && x[d.size()] == '/');
}

// The destination of a bind option value: docker `-v SRC:DST[:opts]`, `--mount
// type=bind,source=…,target=…`, singularity `-B SRC[:DST[:opts]]` (a bare SRC mounts on itself);
// several comma-separated binds for singularity.
void bind_targets(std::string_view opt, const std::string& v, std::vector<std::string>& out) {
  if (opt == "--mount") {
    for (size_t p = 0; p < v.size();) {
      const size_t c = std::min(v.find(',', p), v.size());
      const std::string kv = v.substr(p, c - p);
      for (std::string_view k : {"target=", "destination=", "dst="})
        if (kv.rfind(k, 0) == 0) out.push_back(kv.substr(k.size()));
      p = c + 1;
    }
    return;
  }
  const bool sing = opt == "-B" || opt == "--bind";
  for (size_t p = 0; p < v.size();) {
    const size_t c = sing ? std::min(v.find(',', p), v.size()) : v.size();
    const std::string one = v.substr(p, c - p);
    const size_t colon = one.find(':');
    if (colon == std::string::npos)
      out.push_back(one);  // a bare path: mounted on itself
    else
      out.push_back(one.substr(colon + 1, one.find(':', colon + 1) - colon - 1));
    p = c + 1;
  }
}

}  // namespace

std::optional<NsListing> namespaced_listing(std::string_view title) {
  if (title.size() > 4096) return std::nullopt;
  auto w = shell_words(title);
  size_t i = 0;
  while (i < w.size() && one_of(w[i], {"sudo", "nohup"})) ++i;
  if (i + 2 >= w.size()) return std::nullopt;
  const std::string tool = w[i];
  const std::string verb = w[i + 1];
  const bool docker = one_of(tool, {"docker", "podman", "nerdctl"});
  const bool sing = one_of(tool, {"singularity", "apptainer"});
  const bool kube = tool == "kubectl";
  const bool cri = tool == "crictl";
  if (!((docker && (verb == "run" || verb == "exec")) || ((sing || kube || cri) && verb == "exec")))
    return std::nullopt;
  // options up to the target (image, container, pod); the rest is the command run inside
  std::vector<std::string> binds;
  size_t k = i + 2;
  for (; k < w.size(); ++k) {
    const std::string& a = w[k];
    if (a == "--") {
      ++k;
      break;
    }
    if (a.empty() || a[0] != '-') break;
    const size_t eq = a.find('=');
    const std::string opt = a.substr(0, eq);
    // options that take a value (docker run/exec, kubectl exec, crictl exec, singularity exec)
    const bool valued = one_of(opt, {"-v",
                                     "--volume",
                                     "--mount",
                                     "-e",
                                     "--env",
                                     "--env-file",
                                     "-w",
                                     "--workdir",
                                     "-u",
                                     "--user",
                                     "--name",
                                     "-p",
                                     "--publish",
                                     "--entrypoint",
                                     "--network",
                                     "--net",
                                     "--device",
                                     "--ipc",
                                     "--shm-size",
                                     "-h",
                                     "--hostname",
                                     "-l",
                                     "--label",
                                     "--runtime",
                                     "--gpus",
                                     "--cpus",
                                     "-m",
                                     "--memory",
                                     "-c",
                                     "--container",
                                     "-n",
                                     "--namespace",
                                     "-B",
                                     "--bind",
                                     "--pid",
                                     "--ulimit",
                                     "--security-opt",
                                     "--cap-add",
                                     "--cap-drop",
                                     "--add-host",
                                     "--platform"});
    std::string value;
    if (eq != std::string::npos)
      value = a.substr(eq + 1);
    else if (valued && k + 1 < w.size())
      value = w[++k];
    if (one_of(opt, {"-v", "--volume", "--mount", "-B", "--bind"})) bind_targets(opt, value, binds);
  }
  if (k >= w.size()) return std::nullopt;
  size_t cmd = k + 1;  // after the target
  if (kube) {
    // kubectl exec POD [-c C] -- cmd: the command follows `--`
    while (cmd < w.size() && w[cmd] != "--") ++cmd;
    if (cmd < w.size()) ++cmd;
  }
  if (cmd >= w.size()) return std::nullopt;
  std::string inner = join(w, cmd);
  // `bash -c 'ls -la /x'`, `sh -lc "…"`
  if (cmd + 2 < w.size() && one_of(w[cmd], {"sh", "bash", "/bin/sh", "/bin/bash"}) &&
      one_of(w[cmd + 1], {"-c", "-lc", "-ic"}))
    inner = w[cmd + 2];
  const auto iw = shell_words(inner);
  if (iw.empty() || !one_of(iw[0], {"ls", "ll", "find", "tree"})) return std::nullopt;
  // the listed directory: the first operand that is an absolute path
  std::string dir;
  for (size_t j = 1; j < iw.size(); ++j)
    if (!iw[j].empty() && iw[j][0] == '/') {
      dir = iw[j];
      break;
    }
  if (dir.empty()) return std::nullopt;
  bool bound = false;
  for (const auto& b : binds) bound = bound || covers(b, dir);
  NsListing out;
  // exec enters a running container (its binds, whatever they are); a run with a bind over the
  // directory lists the bind; a run without one lists what the image ships there
  out.scope = (verb == "exec" && !sing) || bound ? "container" : "image";
  out.inner = std::move(inner);
  return out;
}

namespace {

class PrefixSink final : public Sink {
 public:
  PrefixSink(Sink& to, const std::string& prefix) : to_(to), prefix_(prefix) {}
  void event(const Event& e) override { to_.event(e); }
  void fact(const Fact& f) override {
    Fact g = f;
    g.name = prefix_ + f.name;
    to_.fact(g);
  }
  void malformed(const LineCtx& ctx, std::string_view why) override { to_.malformed(ctx, why); }

 private:
  Sink& to_;
  const std::string& prefix_;
};

class PrefixParser final : public Parser {
 public:
  PrefixParser(std::unique_ptr<Parser> inner, std::string prefix)
      : inner_(std::move(inner)), prefix_(std::move(prefix)) {}
  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    PrefixSink s(sink, prefix_);
    inner_->line(text, ctx, s);
  }
  void finish(Sink& sink) override {
    PrefixSink s(sink, prefix_);
    inner_->finish(s);
  }

 private:
  std::unique_ptr<Parser> inner_;
  std::string prefix_;
};

}  // namespace

std::unique_ptr<Parser> prefixed_parser(std::unique_ptr<Parser> inner, std::string prefix) {
  if (!inner) return nullptr;
  return std::make_unique<PrefixParser>(std::move(inner), std::move(prefix));
}

}  // namespace faultline::parse
