// How a process was started: the environment and mounts a launcher gives it, scoped to the process
// it configures (docs/facts.md "Launch configurations"), so that a shell's environment is not
// taken for a service's:
//   systemd units (`systemctl cat`, unit files, drop-ins, `systemctl show -p Environment`):
//     Environment=, EnvironmentFile=, ExecStart=                       -> unit.<unit>.…
//   docker compose files: services.<svc>.environment / env_file / volumes -> container.<svc>.…
//   Kubernetes manifests (Pod, Deployment, Job, …, `kubectl get -o yaml` lists): containers[].env,
//     containers[].volumeMounts joined with volumes[].hostPath           -> container.<pod>/<c>.…
//   Slurm: job scripts (#SBATCH, export, ulimit), `scontrol show job`, `scontrol show config`
//                                                                        -> job.<id|name>.…,
//                                                                        slurm.…
// The YAML reader is a bounded line reader for the block style these files use (indentation,
// `- ` items, `key: value`, quoted scalars, block scalars skipped); flow collections are taken as
// scalars. It never recurses, so hostile nesting cannot exhaust the stack.
#include <map>

#include "faultline/core/text.hpp"
#include "outputs/common.hpp"
#include "outputs/outputs.hpp"

namespace faultline::parse::outputs {
namespace {

using text::trim;

constexpr size_t kMaxRecords = 100000;

bool env_name_ok(std::string_view n) {
  if (n.empty() || n.size() > 256) return false;
  if (!(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'))
      return false;
  return true;
}

std::string unq(std::string_view v) {
  v = trim(v);
  if (v.size() >= 2 &&
      ((v.front() == '"' && v.back() == '"') || (v.front() == '\'' && v.back() == '\'')))
    return std::string(v.substr(1, v.size() - 2));
  return std::string(v);
}

// A scope part of a fact name: no whitespace, bounded.
std::string scope_part(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 128)) out.push_back((c == ' ' || c == '\t') ? '_' : c);
  return out.empty() ? std::string("unknown") : out;
}

// systemd.exec: `Environment="VAR1=word1 word2" VAR2=word3 "VAR3=$word 5 6"`: assignments
// separated by whitespace, double or single quotes group one (quotes removed, `\"` kept as `"`).
std::vector<std::string> systemd_words(std::string_view v) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char q = 0;
  for (size_t i = 0; i < v.size() && out.size() < 1024; ++i) {
    const char c = v[i];
    if (q != 0) {
      if (c == '\\' && i + 1 < v.size() && (v[i + 1] == q || v[i + 1] == '\\')) {
        cur.push_back(v[++i]);
      } else if (c == q) {
        q = 0;
      } else {
        cur.push_back(c);
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      q = c;
      have = true;
      continue;
    }
    if (c == ' ' || c == '\t') {
      if (have) out.push_back(std::move(cur));
      cur.clear();
      have = false;
      continue;
    }
    cur.push_back(c);
    have = true;
  }
  if (have) out.push_back(std::move(cur));
  return out;
}

class LaunchParser final : public OutputParser {
 public:
  explicit LaunchParser(std::string_view path) : path_(path) {
    std::string_view b = basename(path);
    // a unit file: the unit is its name; a drop-in (`x.service.d/override.conf`): the directory's
    const std::string_view d = basename(dirname(path));
    if (d.size() > 2 && d.substr(d.size() - 2) == ".d" && is_unit_name(d.substr(0, d.size() - 2)))
      unit_ = std::string(d.substr(0, d.size() - 2));
    else if (is_unit_name(b))
      unit_ = std::string(b);
    for (std::string_view ext : {".sh", ".sbatch", ".slurm", ".txt", ".log"})
      if (b.size() > ext.size() && b.substr(b.size() - ext.size()) == ext) {
        b.remove_suffix(ext.size());
        break;
      }
    file_stem_ = std::string(b);
  }

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    std::string_view s = text::rtrim(raw);
    // systemd joins lines ending in a backslash
    // (systemd.syntax: the backslash becomes a space; the next line's indentation is dropped)
    if (!cont_.empty() ||
        ((mode_ == Mode::systemd || mode_ == Mode::slurm) && !s.empty() && s.back() == '\\')) {
      const bool more = !s.empty() && s.back() == '\\';
      std::string_view part = more ? s.substr(0, s.size() - 1) : s;
      if (cont_.empty()) {
        cont_line_ = ctx.line;
        part = text::rtrim(part);
      } else {
        part = trim(part);
        cont_.push_back(' ');
      }
      if (cont_.size() < kMaxValueBytes) cont_.append(part);
      if (more) return;
      const std::string joined = std::move(cont_);
      cont_.clear();
      if (mode_ == Mode::slurm)
        slurm_line(trim(joined), LineCtx{cont_line_, ctx.offset}, sink);
      else
        systemd_line(joined, LineCtx{cont_line_, ctx.offset}, sink);
      return;
    }
    const std::string_view t = trim(s);
    if (t.empty()) return;
    if (mode_ == Mode::unknown || mode_ == Mode::systemd || mode_ == Mode::slurm) {
      // only the commands that say what follows (`$ systemctl cat x`, `$ scontrol show job 1`):
      // `export …` / `ulimit …` lines of a job script are content
      if (auto b = parse_banner(t);
          b && t.front() != '#' && t.front() != '[' &&
          (b->is_command("systemctl") || b->is_command("scontrol") || b->is_command("kubectl") ||
           b->is_command("docker") || b->is_command("cat"))) {
        banner(*b);
        return;
      }
    }
    if (mode_ == Mode::unknown) mode_ = detect(s);
    switch (mode_) {
      case Mode::systemd:
        systemd_line(t, ctx, sink);
        break;
      case Mode::yaml:
        yaml_line(s, ctx, sink);
        break;
      case Mode::slurm:
        slurm_line(t, ctx, sink);
        break;
      case Mode::unknown:
        break;
    }
  }

  void finish(Sink& sink) override {
    if (!cont_.empty()) {
      const std::string joined = std::move(cont_);
      cont_.clear();
      systemd_line(joined, LineCtx{cont_line_, 0}, sink);
    }
    yaml_document(sink);
  }

 private:
  enum class Mode { unknown, systemd, yaml, slurm };

  static bool is_unit_name(std::string_view b) {
    for (std::string_view ext : {".service", ".socket", ".mount", ".timer", ".scope"})
      if (b.size() > ext.size() && b.substr(b.size() - ext.size()) == ext) return true;
    return false;
  }

  static Mode detect(std::string_view s) {
    const std::string_view t = trim(s);
    if (t.front() == '[' || t.rfind("Environment=", 0) == 0 || t.rfind("ExecStart=", 0) == 0 ||
        t.rfind("EnvironmentFile=", 0) == 0 ||
        (t.rfind("# /", 0) == 0 && t.find(".service") != std::string_view::npos))
      return Mode::systemd;
    if (t.rfind("#SBATCH", 0) == 0 || t.rfind("#!", 0) == 0 || t.rfind("JobId=", 0) == 0 ||
        t.rfind("Configuration data as of", 0) == 0)
      return Mode::slurm;
    if (t.rfind("apiVersion:", 0) == 0 || t.rfind("kind:", 0) == 0 ||
        t.rfind("services:", 0) == 0 || t.rfind("version:", 0) == 0 || t == "---" ||
        t.rfind("name:", 0) == 0 || t.rfind("items:", 0) == 0 || t.rfind("x-", 0) == 0)
      return Mode::yaml;
    return Mode::unknown;
  }

  void banner(const Banner& b) {
    // `systemctl cat train.service`, `systemctl show train -p Environment`
    if (b.is_command("systemctl")) {
      const auto ops = b.operands();
      for (size_t i = 0; i + 1 < ops.size(); ++i)
        if (ops[i] == "cat" || ops[i] == "show" || ops[i] == "status") {
          unit_ = ops[i + 1];
          if (unit_.find('.') == std::string::npos) unit_ += ".service";
          mode_ = Mode::systemd;
        }
    } else if (b.is_command("scontrol")) {
      mode_ = Mode::slurm;
    }
  }

  // ---- systemd ----------------------------------------------------------------------------
  void systemd_line(std::string_view t, const LineCtx& ctx, Sink& sink) {
    t = trim(t);
    if (t.empty()) return;
    if (t.front() == '#' || t.front() == ';') {
      // `systemctl cat` names each file it prints: "# /etc/systemd/system/train.service"
      const std::string_view p = trim(t.substr(1));
      if (!p.empty() && p.front() == '/' && p.find(' ') == std::string_view::npos) {
        const std::string_view d = basename(dirname(p));
        if (d.size() > 2 && d.substr(d.size() - 2) == ".d" &&
            is_unit_name(d.substr(0, d.size() - 2)))
          unit_ = std::string(d.substr(0, d.size() - 2));
        else if (is_unit_name(basename(p)))
          unit_ = std::string(basename(p));
      }
      return;
    }
    if (t.front() == '[') {
      section_ = std::string(t);
      return;
    }
    const size_t eq = t.find('=');
    if (eq == std::string_view::npos) return;
    const std::string_view key = trim(t.substr(0, eq));
    const std::string_view val = trim(t.substr(eq + 1));
    if (section_ == "[Unit]" || section_ == "[Install]") return;
    const std::string scope = "unit." + scope_part(unit_.empty() ? file_stem_ : unit_);
    if (key == "Environment") {
      for (const auto& w : systemd_words(val)) {
        const size_t e = w.find('=');
        if (e == std::string::npos || !env_name_ok(std::string_view(w).substr(0, e))) continue;
        fact(sink, scope + ".env." + w.substr(0, e), std::string_view(w).substr(e + 1), ctx.line);
      }
    } else if (key == "EnvironmentFile") {
      std::string_view f = val;
      if (!f.empty() && f.front() == '-') f.remove_prefix(1);  // "-": the file may be missing
      if (!f.empty()) fact(sink, scope + ".environment_file", f, ctx.line);
    } else if (key == "ExecStart" || key == "WorkingDirectory" || key == "User" ||
               key == "LimitAS" || key == "LimitMEMLOCK" || key == "LimitNOFILE") {
      std::string_view v = val;
      // systemctl show: "ExecStart={ path=/usr/bin/x ; argv[]=/usr/bin/x --a ; ... }"
      if (const size_t a = v.find("argv[]="); a != std::string_view::npos) {
        v = v.substr(a + 7);
        v = v.substr(0, v.find(" ;"));
      }
      while (!v.empty() && (v.front() == '-' || v.front() == '@' || v.front() == '+' ||
                            v.front() == '!' || v.front() == ':'))
        v.remove_prefix(1);
      // ExecStart -> exec_start, LimitMEMLOCK -> limit_memlock
      std::string name;
      for (size_t i = 0; i < key.size(); ++i) {
        const auto c = static_cast<unsigned char>(key[i]);
        if (i > 0 && std::isupper(c) && std::islower(static_cast<unsigned char>(key[i - 1])))
          name.push_back('_');
        name.push_back(static_cast<char>(std::tolower(c)));
      }
      if (!v.empty()) fact(sink, scope + "." + name, v, ctx.line);
    }
  }

  // ---- Slurm ------------------------------------------------------------------------------
  void slurm_line(std::string_view t, const LineCtx& ctx, Sink& sink) {
    if (t.rfind("#SBATCH", 0) == 0) {
      const auto w = split_command(t.substr(7));
      for (size_t i = 0; i < w.size(); ++i) {
        std::string opt = w[i], val;
        if (opt.rfind("--", 0) == 0) {
          const size_t e = opt.find('=');
          if (e != std::string::npos) {
            val = opt.substr(e + 1);
            opt = opt.substr(0, e);
          } else if (i + 1 < w.size() && w[i + 1].rfind("-", 0) != 0) {
            val = w[++i];
          }
          opt = opt.substr(2);
        } else if (opt == "-J" && i + 1 < w.size()) {
          opt = "job-name";
          val = w[++i];
        } else {
          continue;
        }
        if (opt == "job-name" && job_.empty()) job_ = val;
        if (opt == "export") {
          // --export=ALL,VAR=value,...
          for (auto part : text::split(val, ',')) {
            const size_t e = part.find('=');
            if (e != std::string_view::npos && env_name_ok(part.substr(0, e)))
              fact(sink, job_scope() + ".env." + std::string(part.substr(0, e)), part.substr(e + 1),
                   ctx.line);
          }
        }
        fact(sink, job_scope() + ".sbatch." + snake(opt), val, ctx.line);
      }
      return;
    }
    if (t.front() == '#') return;
    if (t.rfind("export ", 0) == 0) {
      const std::string_view a = trim(t.substr(7));
      const size_t e = a.find('=');
      if (e != std::string_view::npos && env_name_ok(a.substr(0, e)))
        fact(sink, job_scope() + ".env." + std::string(a.substr(0, e)), unq(a.substr(e + 1)),
             ctx.line);
      return;
    }
    if (t.rfind("source ", 0) == 0 || t.rfind(". /", 0) == 0) {
      // `source /usr/local/Ascend/cann-8.5.0/set_env.sh`: the environment script the job loads
      const auto w = split_command(t);
      if (w.size() >= 2) fact(sink, job_scope() + ".source", w[1], ctx.line);
      return;
    }
    if (launcher_args(t, ctx, sink)) return;
    if (t.rfind("ulimit ", 0) == 0) {
      // `ulimit -v unlimited` in the script: the limit the job's processes get
      const auto w = text::split_ws(t);
      if (w.size() == 3 && w[1].size() >= 2 && w[1][0] == '-')
        fact(sink, job_scope() + ".ulimit." + std::string(w[1].substr(w[1].size() - 1)), w[2],
             ctx.line);
      return;
    }
    // scontrol show config: "VSizeFactor             = 0 percent"
    if (const size_t eq = t.find(" = "); eq != std::string_view::npos && t.find('=') == eq + 1) {
      const std::string_view k = trim(t.substr(0, eq));
      if (!k.empty() && k.find(' ') == std::string_view::npos)
        fact(sink, "slurm." + std::string(k), trim(t.substr(eq + 3)), ctx.line);
      return;
    }
    // scontrol show job: "JobId=4242 JobName=train" / "   UserId=a(1000) GroupId=…" / "
    // Command=/x.sh"
    if (t.find('=') != std::string_view::npos) {
      std::string key, val;
      const auto flush = [&] {
        if (key.empty()) return;
        if (key == "JobId") job_id_ = val;
        if (!job_id_.empty()) fact(sink, "job." + scope_part(job_id_) + "." + key, val, ctx.line);
        key.clear();
        val.clear();
      };
      for (auto w : text::split_ws(t)) {
        const size_t e = w.find('=');
        const std::string_view k =
            e == std::string_view::npos ? std::string_view() : w.substr(0, e);
        if (!k.empty() && std::isupper(static_cast<unsigned char>(k[0])) &&
            k.find_first_of("/:,") == std::string_view::npos) {
          flush();
          key = std::string(k);
          val = std::string(w.substr(e + 1));
        } else if (!key.empty()) {
          val += ' ';
          val += w;  // a value with spaces (Command=, Reason=)
        }
      }
      flush();
    }
  }

  // A launch line of a script (`python3 -u tools/train.py --amp False --pin-memory False`,
  // `srun python train.py …`, `torchrun --nproc_per_node 8 train.py …`, backslash-continued lines
  // joined): the program's flags as `args.<flag>`, as /proc/<pid>/cmdline states them.
  bool launcher_args(std::string_view t, const LineCtx& ctx, Sink& sink) {
    const auto w = split_command(t);
    size_t i = 0;
    const auto launcher = [](std::string_view a) {
      const std::string_view b = basename(a);
      return b.rfind("python", 0) == 0 || b == "torchrun" || b == "deepspeed" || b == "msrun" ||
             b == "accelerate";
    };
    while (i < w.size() && !launcher(w[i])) {
      // prefixes: srun/exec/nohup/env/time and their options, VAR=value assignments
      const std::string& a = w[i];
      if (i == 0 && a != "srun" && a != "exec" && a != "nohup" && a != "env" && a != "time" &&
          a.find('=') == std::string::npos)
        return false;
      ++i;
    }
    if (i >= w.size()) return false;
    bool script = false;
    size_t n = 0;
    for (++i; i < w.size(); ++i) {
      const std::string& a = w[i];
      if (a == "|" || a == "&&" || a == ";" || a == "&" || a.rfind(">", 0) == 0 ||
          a.rfind("2>", 0) == 0 || a.rfind("1>", 0) == 0)
        break;
      if (!script) {
        if ((a.size() > 3 && a.substr(a.size() - 3) == ".py") || a == "-m") script = true;
        continue;
      }
      if (a.rfind("--", 0) != 0 || a.size() < 3) continue;
      std::string name = a.substr(2), val = "true";
      if (const size_t e = name.find('='); e != std::string::npos) {
        val = name.substr(e + 1);
        name.resize(e);
      } else if (i + 1 < w.size() && (w[i + 1].rfind("-", 0) != 0 || is_number(w[i + 1])) &&
                 w[i + 1] != "|" && w[i + 1].rfind(">", 0) != 0) {
        val = w[++i];
      }
      if (!name.empty() && name.size() < 128 && ++n < 512)
        fact(sink, "args." + name, val, ctx.line);
    }
    return script;
  }
  static bool is_number(std::string_view a) {
    return a.size() > 1 && a[0] == '-' && (std::isdigit(static_cast<unsigned char>(a[1])) != 0);
  }

  std::string job_scope() const {
    return "job." + scope_part(!job_.empty() ? job_ : !job_id_.empty() ? job_id_ : file_stem_);
  }

  // ---- YAML (compose, Kubernetes) ---------------------------------------------------------
  struct Node {
    size_t indent;
    std::string key;  // "#<n>" for a list item
  };
  struct Rec {
    std::vector<std::string> path;
    std::string value;
    uint32_t line;
  };

  void yaml_line(std::string_view s, const LineCtx& ctx, Sink& sink) {
    size_t indent = 0;
    while (indent < s.size() && s[indent] == ' ') ++indent;
    std::string_view rest = s.substr(indent);
    if (rest.empty() || rest.front() == '#') return;
    if (block_indent_ != kNone) {
      if (indent > block_indent_) return;  // inside a `|` / `>` block scalar
      block_indent_ = kNone;
    }
    if (indent == 0 && (rest == "---" || rest.rfind("--- ", 0) == 0)) {
      yaml_document(sink);
      return;
    }
    if (rest == "...") return;
    // comments after a value: " #" outside quotes
    if (rest.front() != '"' && rest.front() != '\'') {
      const size_t h = rest.find(" #");
      if (h != std::string_view::npos &&
          rest.substr(0, h).find_first_of("\"'") == std::string_view::npos)
        rest = text::rtrim(rest.substr(0, h));
    }
    while (rest == "-" || rest.rfind("- ", 0) == 0) {
      while (!stack_.empty() && (stack_.back().indent > indent ||
                                 (stack_.back().indent == indent && stack_.back().key[0] == '#')))
        stack_.pop_back();
      stack_.push_back({indent, "#" + std::to_string(++items_)});
      size_t skip = 1;
      while (skip < rest.size() && rest[skip] == ' ') ++skip;
      indent += skip;
      rest = rest.substr(std::min(skip, rest.size()));
      if (rest.empty()) return;
    }
    // key: value
    const size_t colon = yaml_key_colon(rest);
    if (colon == std::string_view::npos) {
      record(std::vector<std::string>{}, unq(rest), ctx.line);  // a scalar list item
      return;
    }
    const std::string key = unq(rest.substr(0, colon));
    const std::string_view val = trim(rest.substr(colon + 1));
    // a key closes everything at its indentation or deeper (an item's keys are deeper than its
    // `- `, so they stay inside it)
    while (!stack_.empty() && stack_.back().indent >= indent) stack_.pop_back();
    if (val.empty() || val == "|" || val == ">" || val.rfind("|-", 0) == 0 ||
        val.rfind(">-", 0) == 0 || val.rfind("|+", 0) == 0 || val.rfind(">+", 0) == 0) {
      if (!val.empty()) {
        block_indent_ = indent;
        return;
      }
      if (stack_.size() < 64) stack_.push_back({indent, key});
      return;
    }
    record(std::vector<std::string>{key}, unq(val), ctx.line);
  }

  void record(std::vector<std::string> tail, std::string value, uint32_t line) {
    if (recs_.size() >= kMaxRecords) return;
    std::vector<std::string> p;
    p.reserve(stack_.size() + tail.size());
    for (const auto& n : stack_) p.push_back(n.key);
    for (auto& t : tail) p.push_back(std::move(t));
    if (value.size() > kMaxValueBytes) value.resize(kMaxValueBytes);
    recs_.push_back({std::move(p), std::move(value), line});
  }

  // The records of one YAML document: a compose file or Kubernetes objects.
  void yaml_document(Sink& sink) {
    stack_.clear();
    block_indent_ = kNone;
    if (recs_.empty()) return;
    compose(sink);
    kubernetes(sink);
    recs_.clear();
  }

  static std::string join(const std::vector<std::string>& p, size_t n) {
    std::string out;
    for (size_t i = 0; i < n && i < p.size(); ++i) {
      out += p[i];
      out += '/';
    }
    return out;
  }

  void compose(Sink& sink) {
    std::map<std::string, std::string> names;  // service -> container_name
    for (const auto& r : recs_)
      if (r.path.size() == 3 && r.path[0] == "services" && r.path[2] == "container_name")
        names[r.path[1]] = r.value;
    struct Vol {
      std::string type, source, target, ro;
      uint32_t line = 0;
    };
    std::map<std::string, Vol> long_vols;
    for (const auto& r : recs_) {
      const auto& p = r.path;
      if (p.size() < 3 || p[0] != "services") continue;
      const std::string scope = "container." + scope_part(names.count(p[1]) ? names[p[1]] : p[1]);
      if (p[2] == "environment" && p.size() == 4) {
        if (p[3][0] == '#') {  // - KEY=value
          const size_t e = r.value.find('=');
          if (e != std::string::npos && env_name_ok(std::string_view(r.value).substr(0, e)))
            fact(sink, scope + ".env." + r.value.substr(0, e),
                 std::string_view(r.value).substr(e + 1), r.line);
        } else if (env_name_ok(p[3])) {  // KEY: value
          fact(sink, scope + ".env." + p[3], r.value, r.line);
        }
      } else if (p[2] == "env_file" && (p.size() == 3 || (p.size() == 4 && p[3][0] == '#'))) {
        fact(sink, scope + ".env_file", r.value, r.line);
      } else if (p[2] == "env_file" && p.size() == 5 && p[4] == "path") {
        fact(sink, scope + ".env_file", r.value, r.line);
      } else if (p[2] == "volumes" && p.size() == 4 && p[3][0] == '#') {
        // short syntax: HOST:CONTAINER[:ro]
        const auto parts = text::split(r.value, ':');
        if (parts.size() >= 2 && (parts[0].rfind("/", 0) == 0 || parts[0].rfind("./", 0) == 0 ||
                                  parts[0].rfind("../", 0) == 0 || parts[0].rfind("~", 0) == 0))
          mount(sink, std::string(parts[1]), std::string(parts[0]), "bind",
                parts.size() >= 3 && text::split(parts[2], ',')[0] == "ro", scope, r.line);
      } else if (p[2] == "volumes" && p.size() == 5 && p[3][0] == '#') {
        Vol& v = long_vols[scope + "\n" + p[3]];
        if (v.line == 0) v.line = r.line;
        if (p[4] == "type") v.type = r.value;
        if (p[4] == "source") v.source = r.value;
        if (p[4] == "target") v.target = r.value;
        if (p[4] == "read_only") v.ro = r.value;
      }
    }
    for (const auto& [k, v] : long_vols)
      if (v.type == "bind" && !v.source.empty() && !v.target.empty())
        mount(sink, v.target, v.source, "bind", v.ro == "true", k.substr(0, k.find('\n')), v.line);
  }

  void kubernetes(Sink& sink) {
    // An object's prefix is the path before its first "spec"; its name is <prefix>metadata/name.
    std::map<std::string, std::string> obj_name;
    std::map<std::string, std::string> host_path;  // <prefix>#volume -> hostPath.path
    std::map<std::string, std::string> vol_name;   // <prefix>#volume -> name
    for (const auto& r : recs_) {
      const auto& p = r.path;
      if (p.size() >= 2 && p[p.size() - 2] == "metadata" && p.back() == "name") {
        const std::string pre = join(p, p.size() - 2);
        if (pre.find("spec/") == std::string::npos && !obj_name.count(pre)) obj_name[pre] = r.value;
      }
      for (size_t i = 0; i + 2 < p.size(); ++i)
        if (p[i] == "volumes" && p[i + 1][0] == '#') {
          const std::string key = obj_prefix(p) + p[i + 1];
          if (p.size() == i + 3 && p[i + 2] == "name") vol_name[key] = r.value;
          if (p.size() == i + 4 && p[i + 2] == "hostPath" && p[i + 3] == "path")
            host_path[key] = r.value;
        }
    }
    std::map<std::string, std::string> by_name;  // <prefix><volume name> -> host path
    for (const auto& [k, n] : vol_name)
      if (host_path.count(k)) by_name[k.substr(0, k.rfind('#')) + n] = host_path[k];

    struct Item {
      std::string ckey, name, value, mount_path, read_only;
      uint32_t line = 0;
      bool value_from = false;
    };
    std::map<std::string, std::string> cname;  // container key -> name
    std::map<std::string, Item> envs, mounts;
    std::vector<std::string> order_env, order_mount;
    for (const auto& r : recs_) {
      const auto& p = r.path;
      for (size_t i = 0; i + 2 < p.size(); ++i) {
        if (!(p[i] == "containers" || p[i] == "initContainers") || p[i + 1][0] != '#') continue;
        const std::string ckey = join(p, i + 2);
        if (p.size() == i + 3 && p[i + 2] == "name") cname[ckey] = r.value;
        if (p.size() >= i + 5 && (p[i + 2] == "env" || p[i + 2] == "volumeMounts") &&
            p[i + 3][0] == '#') {
          const bool env = p[i + 2] == "env";
          auto& m = env ? envs : mounts;
          const std::string ikey = ckey + p[i + 2] + "/" + p[i + 3];
          if (!m.count(ikey)) (env ? order_env : order_mount).push_back(ikey);
          Item& it = m[ikey];
          if (it.line == 0) it.line = r.line;
          it.ckey = ckey;
          const std::string& f = p[i + 4];
          if (p.size() == i + 5) {
            if (f == "name") it.name = r.value;
            if (f == "value") it.value = r.value;
            if (f == "mountPath") it.mount_path = r.value;
            if (f == "readOnly") it.read_only = r.value;
          } else if (f == "valueFrom") {
            it.value_from = true;
          }
        }
        break;
      }
    }
    const auto scope_of = [&](const Item& it) {
      const std::string pre = it.ckey.substr(0, it.ckey.find("spec/"));
      const std::string pod = obj_name.count(pre) ? obj_name[pre] : std::string("unknown");
      const std::string c = cname.count(it.ckey) ? cname[it.ckey] : std::string("unknown");
      return std::make_pair("container." + scope_part(pod) + "/" + scope_part(c), pre);
    };
    for (const auto& k : order_env) {
      const Item& it = envs[k];
      if (!env_name_ok(it.name)) continue;
      // valueFrom (a secret, a config map, a field): the value is not in the manifest
      fact(sink, scope_of(it).first + ".env." + it.name, it.value_from ? "(valueFrom)" : it.value,
           it.line);
    }
    for (const auto& k : order_mount) {
      const Item& it = mounts[k];
      const auto [scope, pre] = scope_of(it);
      const auto hp = by_name.find(pre + it.name);
      if (it.mount_path.empty() || hp == by_name.end()) continue;
      mount(sink, it.mount_path, hp->second, "hostPath:" + it.name, it.read_only == "true", scope,
            it.line);
    }
  }

  static std::string obj_prefix(const std::vector<std::string>& p) {
    const std::string all = join(p, p.size());
    const size_t s = all.find("spec/");
    return s == std::string::npos ? std::string() : all.substr(0, s);
  }

  // The same shape as mountinfo's facts: a bind of a host directory (root) on the mount point.
  void mount(Sink& sink, std::string target, const std::string& host, const std::string& source,
             bool ro, const std::string& scope, uint32_t line) {
    if (target.empty() || target.front() != '/') return;
    while (target.size() > 1 && target.back() == '/') target.pop_back();
    fact(sink, "mount." + target,
         "root=" + host + " source=" + source + " fstype=bind opts=" + (ro ? "ro" : "rw") +
             " scope=" + scope,
         line);
  }

  static constexpr size_t kNone = static_cast<size_t>(-1);
  std::string path_, file_stem_, unit_, section_, job_, job_id_;
  Mode mode_ = Mode::unknown;
  std::string cont_;
  uint32_t cont_line_ = 0;
  std::vector<Node> stack_;
  std::vector<Rec> recs_;
  size_t items_ = 0;
  size_t block_indent_ = kNone;
};

}  // namespace

std::unique_ptr<Parser> make_launch_spec(std::string_view path) {
  return std::make_unique<LaunchParser>(path);
}

}  // namespace faultline::parse::outputs
