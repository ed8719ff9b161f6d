// Documents read as `path=value` records for the record shapes of rules/facts (fact_shapes.cpp):
// JSON (`docker inspect`, `crictl inspect`, saved config dumps), block-style YAML (ConfigMaps,
// config dumps) and Debian control stanzas (/var/lib/dpkg/status). Paths join object keys and
// list indexes with '/': `0/Config/Env/3`, `items/0/data/ASCEND_HOME_PATH`, `12/Version` (the
// 13th stanza). Bounded and iterative: no recursion, at most kMaxRecords records, values cut at
// kMaxValue bytes, nesting deeper than kMaxDepth not recorded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::parse::shapes {

struct Record {
  std::string path;
  std::string value;
  uint32_t line = 0;
};

inline constexpr size_t kMaxRecords = 100000;
inline constexpr size_t kMaxValue = 16 * 1024;
inline constexpr size_t kMaxDepth = 64;

// `auto`: JSON when the first non-blank character is `{` or `[`, else YAML
enum class DocKind { none, json, yaml, stanza, automatic };
DocKind doc_kind(std::string_view name);  // "json" | "yaml" | "stanza" | "auto"; none otherwise

// Fed line by line; `take()` returns the records of each finished document (YAML `---`, a
// stanza's blank line, the end of a JSON value) and at the end.
class Flattener {
 public:
  explicit Flattener(DocKind k) : kind_(k) {}
  void line(std::string_view s, uint32_t n);
  void finish();
  // finished documents, oldest first; cleared by the call
  std::vector<std::vector<Record>> take();

 private:
  void add(std::string path, std::string_view value, uint32_t line);
  void end_document();
  void yaml_line(std::string_view s, uint32_t n);
  void json_line(std::string_view s, uint32_t n);
  void stanza_line(std::string_view s, uint32_t n);
  std::string yaml_path() const;
  std::string json_path() const;

  DocKind kind_;
  std::vector<Record> cur_;
  std::vector<std::vector<Record>> done_;
  size_t total_ = 0;
  // yaml
  struct YNode {
    size_t indent;
    std::string key;  // a list item: its index
    bool item = false;
    size_t next = 0;  // next index of a list directly under this node
  };
  std::vector<YNode> ystack_;
  size_t yroot_next_ = 0;
  size_t block_indent_ = static_cast<size_t>(-1);
  // json
  struct JFrame {
    bool object = false;
    std::string key;
    size_t index = 0;
    bool have_key = false;
  };
  std::vector<JFrame> jstack_;
  size_t jdepth_ = 0;  // true depth (frames beyond kMaxDepth are not kept)
  bool in_string_ = false;
  bool escape_ = false;
  std::string str_;
  std::string scalar_;
  uint32_t str_line_ = 0;
  // stanza
  size_t stanza_ = 0;
  bool stanza_open_ = false;
};

}  // namespace faultline::parse::shapes
