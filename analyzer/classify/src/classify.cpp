#include "faultline/classify/classify.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <yaml-cpp/yaml.h>

#include <memory>
#include <new>
#include <stdexcept>

#include "faultline/core/binio.hpp"
#include "faultline/core/pcre2_hot.hpp"
#include "faultline/core/text.hpp"

namespace faultline::classify {

namespace {

// A compiled PCRE2 pattern with its own match data; matching is bounded by match/depth limits.
// A copy shares the compiled (and JIT-compiled) code, which PCRE2 allows several threads to
// match with at once, and gets match data of its own, which it does not.
class Regex {
 public:
  Regex(const std::string& pattern, const std::string& where) {
    int err = 0;
    PCRE2_SIZE off = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                     PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &err, &off, nullptr);
    if (code == nullptr) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(err, msg, sizeof msg);
      throw std::runtime_error(where + ": bad pattern '" + pattern + "' at offset " +
                               std::to_string(off) + ": " + reinterpret_cast<const char*>(msg));
    }
    code_ = std::make_shared<const HotCode>(code);  // JIT-compiled once hot (core/pcre2_hot.hpp)
    make_match_state();
  }
  Regex(const Regex& o) : code_(o.code_) { make_match_state(); }
  Regex& operator=(const Regex&) = delete;
  Regex(Regex&& o) noexcept : code_(std::move(o.code_)), md_(o.md_), ctx_(o.ctx_) {
    o.md_ = nullptr;
    o.ctx_ = nullptr;
  }
  ~Regex() { free_match_state(); }
  bool search(std::string_view s) const {
    const int rc = pcre2_match(code_->get(), reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), 0, 0,
                               md_, ctx_);
    return rc >= 0;
  }

 private:
  void make_match_state() {
    md_ = pcre2_match_data_create_from_pattern(code_->base(), nullptr);
    ctx_ = pcre2_match_context_create(nullptr);
    if (!md_ || !ctx_) {  // out of memory (e.g. under ulimit -v): not a null dereference below
      free_match_state();
      throw std::bad_alloc();
    }
    pcre2_set_match_limit(ctx_, 100000);
    pcre2_set_depth_limit(ctx_, 1000);
  }
  void free_match_state() {
    if (md_) pcre2_match_data_free(md_);
    if (ctx_) pcre2_match_context_free(ctx_);
    md_ = nullptr;
    ctx_ = nullptr;
  }
  std::shared_ptr<const HotCode> code_;
  pcre2_match_data* md_ = nullptr;
  pcre2_match_context* ctx_ = nullptr;
};

struct ContentRule {
  Regex re;
  bool most = false;
};

struct Kind {
  std::string id, description;
  std::vector<Regex> paths;
  std::vector<ContentRule> content;
  bool path_only = false;
  bool path_wins = false;  // a path match decides, whatever the content
};

constexpr size_t kHeadLines = 40;

std::vector<std::string_view> head_lines(std::string_view head) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < head.size() && out.size() < kHeadLines) {
    size_t end = head.find('\n', pos);
    const bool last = end == std::string_view::npos;
    if (last) end = head.size();
    std::string_view line = text::rtrim(head.substr(pos, end - pos));
    // the last line of the head may be cut in the middle: use it only when the head ended there
    if (!text::trim(line).empty() && (!last || head.size() < 65536)) out.push_back(line);
    if (last) break;
    pos = end + 1;
  }
  return out;
}

// True when every NUL byte of the head is in a run of at least 16 and the rest is text (no
// other control bytes): a text file with holes, not a binary file nor UTF-16.
bool nul_runs_in_text(std::string_view head) {
  size_t run = 0, text_bytes = 0;
  for (size_t i = 0; i <= head.size(); ++i) {
    const unsigned char c = i < head.size() ? static_cast<unsigned char>(head[i]) : 1;
    if (i < head.size() && c == 0) {
      ++run;
      continue;
    }
    if (run > 0 && run < 16 && i < head.size()) return false;
    run = 0;
    if (i == head.size()) break;
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b)
      return false;
    ++text_bytes;
  }
  return text_bytes > 0;
}

}  // namespace

struct Classifier::Impl {
  std::vector<Kind> kinds;
};

std::vector<KindRule> read_kind_table(const std::vector<RuleFile>& classify_rules) {
  std::vector<KindRule> table;
  for (const auto& f : classify_rules) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(f.text));
    } catch (const YAML::Exception& e) {
      throw std::runtime_error(f.path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    const auto list = root["kinds"];
    if (!list || !list.IsSequence()) throw std::runtime_error(f.path + ": no 'kinds' list");
    for (const auto& k : list) {
      KindRule kind;
      kind.id = k["id"].as<std::string>("");
      if (kind.id.empty())
        throw std::runtime_error(f.path + ":" + std::to_string(k.Mark().line + 1) +
                                 ": kind without id");
      kind.where = f.path + ": kind " + kind.id;
      kind.description = k["description"].as<std::string>("");
      kind.path_only = k["path_only"].as<bool>(false);
      kind.path_wins = k["path_wins"].as<bool>(false);
      if (const auto p = k["path"]; p && p.IsSequence())
        for (const auto& s : p) kind.paths.push_back(s.as<std::string>());
      if (const auto c = k["content"]; c && c.IsSequence())
        for (const auto& r : c) {
          const std::string need = r["need"].as<std::string>("any");
          if (need != "any" && need != "most")
            throw std::runtime_error(kind.where + ": need must be 'any' or 'most'");
          kind.content.emplace_back(r["pattern"].as<std::string>(), need == "most");
        }
      // a later file replaces a kind of the same id
      bool replaced = false;
      for (auto& existing : table)
        if (existing.id == kind.id) {
          existing = std::move(kind);
          replaced = true;
          break;
        }
      if (!replaced) table.push_back(std::move(kind));
    }
  }
  return table;
}

namespace {
constexpr uint32_t kTableFormat = 1;
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(KindRule) == 3 * sizeof(std::string) + 2 * 24 + 8,
              "KindRule changed: update serialize_kind_table/deserialize_kind_table");
#endif
}  // namespace

std::string serialize_kind_table(const std::vector<KindRule>& table) {
  binio::Writer w;
  w.u32(kTableFormat);
  w.u32(static_cast<uint32_t>(table.size()));
  for (const auto& k : table) {
    w.str(k.id);
    w.str(k.description);
    w.str(k.where);
    w.strs(k.paths);
    w.u32(static_cast<uint32_t>(k.content.size()));
    for (const auto& [pattern, most] : k.content) {
      w.str(pattern);
      w.flag(most);
    }
    w.flag(k.path_only);
    w.flag(k.path_wins);
  }
  return w.take();
}

std::optional<std::vector<KindRule>> deserialize_kind_table(std::string_view form) {
  binio::Reader r(form);
  if (r.u32() != kTableFormat) return std::nullopt;
  std::vector<KindRule> table(r.count());
  for (auto& k : table) {
    k.id = r.str();
    k.description = r.str();
    k.where = r.str();
    k.paths = r.strs();
    k.content.resize(r.count());
    for (auto& [pattern, most] : k.content) {
      pattern = r.str();
      most = r.flag();
    }
    k.path_only = r.flag();
    k.path_wins = r.flag();
    if (!r.ok()) return std::nullopt;
  }
  if (!r.ok() || !r.done()) return std::nullopt;
  return table;
}

Classifier::Classifier(const std::vector<RuleFile>& classify_rules)
    : Classifier(read_kind_table(classify_rules)) {}

Classifier::Classifier(const std::vector<KindRule>& table) : impl_(std::make_unique<Impl>()) {
  impl_->kinds.reserve(table.size());
  for (const auto& t : table) {
    Kind kind;
    kind.id = t.id;
    kind.description = t.description;
    kind.path_only = t.path_only;
    kind.path_wins = t.path_wins;
    for (const auto& p : t.paths) kind.paths.emplace_back(p, t.where);
    for (const auto& [pattern, most] : t.content)
      kind.content.push_back(ContentRule{Regex(pattern, t.where), most});
    impl_->kinds.push_back(std::move(kind));
  }
}

Classifier::Classifier(const Classifier& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}

Classifier::~Classifier() = default;

Classification Classifier::classify(std::string_view path, std::string_view head) const {
  // A member's role is decided by its place inside its own collection: path patterns see the path
  // inside the innermost archive ("a.tar.gz!/ascend_log_x.tar.gz!/host_log/messages" ->
  // "host_log/messages"), however deep the nesting, so that folders of an enclosing collection
  // (a `firmware/` or `hisi_logs/` holding an archive) do not decide what the archive's files are.
  if (const size_t bang = path.rfind("!/"); bang != std::string_view::npos)
    path = path.substr(bang + 2);
  // a UTF-8 byte order mark (files saved by Windows editors) must not hide a `^...` grammar
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  head = head.substr(0, 65536);
  std::string without_nul_runs;
  if (head.find('\0') != std::string_view::npos && nul_runs_in_text(head)) {
    // rsyslog/journal text files after an unclean shutdown: a block of NULs where the unflushed
    // tail was, the next boot's lines after it. Still text: classify what is around the block.
    without_nul_runs.reserve(head.size());
    for (char ch : head)
      if (ch != '\0') without_nul_runs.push_back(ch);
    head = without_nul_runs;
  }
  const bool binary = head.find('\0') != std::string_view::npos;
  if (binary) {
    // NUL-separated text files: environ and cmdline
    for (const auto& k : impl_->kinds)
      if (k.id == "environ" || k.id == "proc_cmdline")
        for (const auto& re : k.paths)
          if (re.search(path)) return {k.id, "path"};
    return {"binary", "content"};
  }
  const auto lines = head_lines(head);
  int best = 0;
  const Kind* best_kind = nullptr;
  for (const auto& k : impl_->kinds) {
    if (best >= 4) break;  // the first kind with the highest score wins: none can beat this one
    bool path_hit = false;
    for (const auto& re : k.paths)
      if (re.search(path)) {
        path_hit = true;
        break;
      }
    // the most this kind can score; its content rules (a regex per head line each, the bulk of
    // the classifier's time) run only when that could beat the best so far
    const int reachable = path_hit ? (k.path_wins ? 4 : 3) : 2;
    if (reachable <= best) continue;
    bool content_hit = false;
    for (const auto& rule : k.content) {
      if (path_hit && k.path_wins) break;  // scores 4 whatever the content says
      size_t n = 0;
      for (auto l : lines)
        if (rule.re.search(l)) {
          ++n;
          if (!rule.most) break;
        }
      if (rule.most ? (n * 2 >= lines.size() && n > 0) : n > 0) {
        content_hit = true;
        break;
      }
    }
    int score = 0;
    if (path_hit && k.path_wins)
      score = 4;
    else if (path_hit && content_hit)
      score = 3;
    else if (content_hit)
      score = 2;
    else if (path_hit && (k.path_only || k.content.empty() || lines.empty()))
      score = 1;
    if (score > best) {
      best = score;
      best_kind = &k;
    }
  }
  if (best_kind == nullptr) return {"text", "fallback"};
  return {best_kind->id, best >= 3 ? "path+content" : best == 2 ? "content" : "path"};
}

std::vector<std::pair<std::string, std::string>> Classifier::kinds() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& k : impl_->kinds) out.emplace_back(k.id, k.description);
  return out;
}

}  // namespace faultline::classify
