#include "shapes/records.hpp"

#include "faultline/core/text.hpp"
#include "outputs/common.hpp"

namespace faultline::parse::shapes {

namespace {
std::string unq(std::string_view v) {
  v = text::trim(v);
  if (v.size() >= 2 &&
      ((v.front() == '"' && v.back() == '"') || (v.front() == '\'' && v.back() == '\'')))
    return std::string(v.substr(1, v.size() - 2));
  return std::string(v);
}

void put_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}
}  // namespace

DocKind doc_kind(std::string_view name) {
  if (name == "json") return DocKind::json;
  if (name == "yaml") return DocKind::yaml;
  if (name == "stanza") return DocKind::stanza;
  if (name == "auto") return DocKind::automatic;
  return DocKind::none;
}

void Flattener::add(std::string path, std::string_view value, uint32_t line) {
  if (total_ >= kMaxRecords) return;
  ++total_;
  cur_.push_back(Record{std::move(path), std::string(value.substr(0, kMaxValue)), line});
}

void Flattener::end_document() {
  if (!cur_.empty()) done_.push_back(std::move(cur_));
  cur_.clear();
  ystack_.clear();
  yroot_next_ = 0;
  block_indent_ = static_cast<size_t>(-1);
}

std::vector<std::vector<Record>> Flattener::take() {
  auto out = std::move(done_);
  done_.clear();
  return out;
}

void Flattener::finish() {
  end_document();
}

void Flattener::line(std::string_view s, uint32_t n) {
  if (kind_ == DocKind::automatic) {
    const std::string_view t = text::trim(s);
    if (t.empty()) return;
    kind_ = (t.front() == '{' || t.front() == '[') ? DocKind::json : DocKind::yaml;
  }
  switch (kind_) {
    case DocKind::yaml:
      yaml_line(s, n);
      break;
    case DocKind::json:
      json_line(s, n);
      break;
    case DocKind::stanza:
      stanza_line(s, n);
      break;
    case DocKind::none:
    case DocKind::automatic:
      break;
  }
}

// ---- YAML (block style) ------------------------------------------------------------------
std::string Flattener::yaml_path() const {
  std::string p;
  for (const auto& n : ystack_) {
    if (!p.empty()) p.push_back('/');
    p += n.key;
  }
  return p;
}

void Flattener::yaml_line(std::string_view s, uint32_t n) {
  s = text::rtrim(s);
  size_t indent = 0;
  while (indent < s.size() && s[indent] == ' ') ++indent;
  std::string_view rest = s.substr(indent);
  if (rest.empty() || rest.front() == '#') return;
  if (block_indent_ != static_cast<size_t>(-1)) {
    if (indent > block_indent_) return;  // inside a `|` / `>` block scalar
    block_indent_ = static_cast<size_t>(-1);
  }
  if (indent == 0 && (rest == "---" || rest.rfind("--- ", 0) == 0)) {
    end_document();
    return;
  }
  if (rest == "...") return;
  if (rest.front() != '"' && rest.front() != '\'') {
    const size_t h = rest.find(" #");
    if (h != std::string_view::npos &&
        rest.substr(0, h).find_first_of("\"'") == std::string_view::npos)
      rest = text::rtrim(rest.substr(0, h));
  }
  while (rest == "-" || rest.rfind("- ", 0) == 0) {
    while (!ystack_.empty() && (ystack_.back().indent > indent ||
                                (ystack_.back().indent == indent && ystack_.back().item)))
      ystack_.pop_back();
    const size_t idx = ystack_.empty() ? yroot_next_++ : ystack_.back().next++;
    if (ystack_.size() >= kMaxDepth) return;
    ystack_.push_back({indent, std::to_string(idx), true, 0});
    size_t skip = 1;
    while (skip < rest.size() && rest[skip] == ' ') ++skip;
    indent += skip;
    rest = rest.substr(std::min(skip, rest.size()));
    if (rest.empty()) return;
  }
  const size_t colon = outputs::yaml_key_colon(rest);
  if (colon == std::string_view::npos) {
    add(yaml_path(), unq(rest), n);  // a scalar list item
    return;
  }
  const std::string key = unq(rest.substr(0, colon));
  const std::string_view val = text::trim(rest.substr(colon + 1));
  while (!ystack_.empty() && ystack_.back().indent >= indent) ystack_.pop_back();
  if (val.empty()) {
    if (ystack_.size() < kMaxDepth) ystack_.push_back({indent, key, false, 0});
    return;
  }
  if (val == "|" || val == ">" || val.rfind("|-", 0) == 0 || val.rfind(">-", 0) == 0 ||
      val.rfind("|+", 0) == 0 || val.rfind(">+", 0) == 0) {
    block_indent_ = indent;
    return;
  }
  std::string p = yaml_path();
  if (!p.empty()) p.push_back('/');
  add(p + key, unq(val), n);
}

// ---- JSON --------------------------------------------------------------------------------
std::string Flattener::json_path() const {
  std::string p;
  for (const auto& f : jstack_) {
    if (!p.empty()) p.push_back('/');
    p += f.object ? f.key : std::to_string(f.index);
  }
  return p;
}

void Flattener::json_line(std::string_view s, uint32_t n) {
  const auto value = [&](std::string_view v, uint32_t at) {
    if (jdepth_ > kMaxDepth) return;
    if (!jstack_.empty() && jstack_.back().object && !jstack_.back().have_key) {
      jstack_.back().key = std::string(v.substr(0, 256));
      jstack_.back().have_key = true;
      return;
    }
    add(json_path(), v, at);
  };
  const auto flush = [&] {
    if (!scalar_.empty()) value(scalar_, n);
    scalar_.clear();
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string_) {
      if (escape_) {
        escape_ = false;
        switch (c) {
          case 'n':
            str_.push_back('\n');
            break;
          case 't':
            str_.push_back('\t');
            break;
          case 'r':
          case 'b':
          case 'f':
            break;
          case 'u': {
            uint32_t cp = 0;
            for (size_t k = 0; k < 4 && i + 1 < s.size(); ++k) {
              const char h = s[i + 1];
              const int d = (h >= '0' && h <= '9')   ? h - '0'
                            : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                            : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                                     : -1;
              if (d < 0) break;
              cp = cp * 16 + static_cast<uint32_t>(d);
              ++i;
            }
            put_utf8(str_, (cp >= 0xD800 && cp < 0xE000) ? uint32_t{'?'} : cp);
            break;
          }
          default:
            str_.push_back(c);
        }
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
        value(str_, str_line_);
        str_.clear();
      } else if (str_.size() < kMaxValue) {
        str_.push_back(c);
      }
      continue;
    }
    switch (c) {
      case '"':
        flush();
        in_string_ = true;
        str_line_ = n;
        break;
      case '{':
      case '[':
        flush();
        ++jdepth_;
        if (jdepth_ <= kMaxDepth) jstack_.push_back({c == '{', {}, 0, false});
        break;
      case '}':
      case ']':
        flush();
        if (jdepth_ == 0) break;  // stray close: ignored
        if (jdepth_ <= kMaxDepth && !jstack_.empty()) jstack_.pop_back();
        --jdepth_;
        if (jdepth_ == 0) end_document();
        break;
      case ',':
        flush();
        if (jdepth_ <= kMaxDepth && !jstack_.empty()) {
          if (jstack_.back().object)
            jstack_.back().have_key = false;
          else
            ++jstack_.back().index;
        }
        break;
      case ':':
        flush();
        break;
      case ' ':
      case '\t':
      case '\r':
        flush();
        break;
      default:
        if (scalar_.size() < 64) scalar_.push_back(c);
    }
  }
  flush();
  if (in_string_ && str_.size() < kMaxValue) str_.push_back('\n');
}

// ---- Debian control stanzas (dpkg status, apt show) ---------------------------------------
void Flattener::stanza_line(std::string_view s, uint32_t n) {
  s = text::rtrim(s);
  if (text::trim(s).empty()) {
    if (stanza_open_) ++stanza_;
    stanza_open_ = false;
    return;
  }
  if (s.front() == ' ' || s.front() == '\t')
    return;  // a continuation line (Description, Conffiles)
  const size_t c = s.find(':');
  if (c == std::string_view::npos || c == 0 || c > 64) return;
  stanza_open_ = true;
  add(std::to_string(stanza_) + "/" + std::string(s.substr(0, c)), text::trim(s.substr(c + 1)), n);
}

}  // namespace faultline::parse::shapes
