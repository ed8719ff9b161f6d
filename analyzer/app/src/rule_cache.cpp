#include "rule_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "faultline/core/binio.hpp"
#include "faultline/core/mapped_file.hpp"
#include "faultline/core/sha256.hpp"
#include "faultline/parse/fact_shapes.hpp"

namespace faultline::app {

namespace fs = std::filesystem;

namespace {

// Bump when the serialized layout changes. Every field of tag::Signature and tag::Example is
// written below: when they gain a field, add it here and bump the version (the static_asserts
// are a tripwire for that, on the platform faultline is built on).
constexpr std::string_view kMagic = "faultline-rules\n";
constexpr uint32_t kVersion = 8;  // 7: restart block; 8: fault lookup, generic: code
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(tag::Signature) == 864,
              "tag::Signature changed: update rule_cache.cpp (and kVersion)");
static_assert(sizeof(tag::Example) == 96,
              "tag::Example changed: update rule_cache.cpp (and kVersion)");
#endif

using binio::Reader;
using binio::Writer;

// Identity of the running executable: a rebuilt faultline never reads an older parse.
std::string exe_identity() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  struct stat st {};
  if (ec || ::stat(exe.c_str(), &st) != 0) return "unknown";
  std::ostringstream o;
  o << exe.string() << '\n'
    << st.st_size << '\n'
    << st.st_mtim.tv_sec << '.' << st.st_mtim.tv_nsec << '\n'
    << st.st_ino;
  return o.str();
}

fs::path cache_file(const fs::path& dir, const std::string& key, const char* ext = ".rules") {
  return dir / (key + ext);
}

}  // namespace

std::string serialize_rules(const tag::RuleSet& rs) {
  Writer w;
  w.u32(static_cast<uint32_t>(rs.signatures.size()));
  for (const auto& s : rs.signatures) {
    w.str(s.id);
    w.str(s.family);
    w.str(s.title);
    w.strs(s.kinds);
    w.u32(static_cast<uint32_t>(s.severity));
    w.strs(s.patterns);
    w.str(s.capture);
    w.str(s.status);
    w.strs(s.references);
    w.u32(static_cast<uint32_t>(s.match.size()));
    for (const auto& e : s.match) {
      w.str(e.line);
      w.u32(static_cast<uint32_t>(e.captures.size()));
      for (const auto& [k, v] : e.captures) {
        w.str(k);
        w.str(v);
      }
      w.u32(e.check_captures ? 1 : 0);
      w.i32(e.file_line);
    }
    w.strs(s.no_match);
    w.str(s.file);
    w.i32(s.file_line);
    w.u32(s.caseless ? 1 : 0);
    w.strs(s.causes);
    w.ints(s.pattern_lines);
    w.i32(s.capture_line);
    w.ints(s.no_match_lines);
    w.u32(s.fault.present ? 1 : 0);
    w.str(s.fault.cls);
    w.str(s.fault.component);
    w.str(s.fault.role);
    w.str(s.fault.cause);
    w.str(s.fault.suggestion);
    w.str(s.fault.code);
    w.str(s.fault.code_capture);
    w.u32(s.fault.has_severity ? 1 : 0);
    w.u32(static_cast<uint32_t>(s.fault.severity));
    w.strs(s.fault.caused_by);
    w.strs(s.fault.cleared_by);
    w.str(s.fault.clear_key);
    w.u32(s.fault.generic_code ? 3 : s.fault.generic_last ? 2 : s.fault.generic ? 1 : 0);
    w.strs(s.fault.lookup);
    w.str(s.fault.kb);
    w.u32(s.restart.present ? 1 : 0);
    w.str(s.restart.scope);
    w.i32(s.restart.from);
    w.i32(s.restart.margin_s);
    w.strs(s.restart.kinds);
    std::vector<std::string> seen;
    for (const auto& e : s.match) seen.push_back(e.seen);
    w.strs(seen);
  }
  w.strs(rs.errors);
  w.strs(rs.warnings);
  return w.take();
}

std::optional<tag::RuleSet> deserialize_rules(std::string_view data) {
  Reader r(data);
  tag::RuleSet rs;
  rs.signatures.resize(r.count());
  for (auto& s : rs.signatures) {
    s.id = r.str();
    s.family = r.str();
    s.title = r.str();
    s.kinds = r.strs();
    const uint32_t sev = r.u32();
    if (sev > static_cast<uint32_t>(Severity::critical)) return std::nullopt;
    s.severity = static_cast<Severity>(sev);
    s.patterns = r.strs();
    s.capture = r.str();
    s.status = r.str();
    s.references = r.strs();
    s.match.resize(r.count());
    for (auto& e : s.match) {
      e.line = r.str();
      e.captures.resize(r.count());
      for (auto& [k, v] : e.captures) {
        k = r.str();
        v = r.str();
      }
      e.check_captures = r.u32() != 0;
      e.file_line = r.i32();
    }
    s.no_match = r.strs();
    s.file = r.str();
    s.file_line = r.i32();
    s.caseless = r.u32() != 0;
    s.causes = r.strs();
    s.pattern_lines = r.ints();
    s.capture_line = r.i32();
    s.no_match_lines = r.ints();
    s.fault.present = r.u32() != 0;
    s.fault.cls = r.str();
    s.fault.component = r.str();
    s.fault.role = r.str();
    s.fault.cause = r.str();
    s.fault.suggestion = r.str();
    s.fault.code = r.str();
    s.fault.code_capture = r.str();
    s.fault.has_severity = r.u32() != 0;
    const uint32_t fsev = r.u32();
    if (fsev > static_cast<uint32_t>(Severity::critical)) return std::nullopt;
    s.fault.severity = static_cast<Severity>(fsev);
    s.fault.caused_by = r.strs();
    s.fault.cleared_by = r.strs();
    s.fault.clear_key = r.str();
    const uint32_t generic = r.u32();
    s.fault.generic = generic != 0;
    s.fault.generic_last = generic == 2;
    s.fault.generic_code = generic == 3;
    s.fault.lookup = r.strs();
    s.fault.kb = r.str();
    s.restart.present = r.u32() != 0;
    s.restart.scope = r.str();
    s.restart.from = r.i32();
    s.restart.margin_s = r.i32();
    s.restart.kinds = r.strs();
    const auto seen = r.strs();
    if (seen.size() != s.match.size()) return std::nullopt;
    for (size_t i = 0; i < seen.size(); ++i) s.match[i].seen = seen[i];
    if (!r.ok()) return std::nullopt;
  }
  rs.errors = r.strs();
  rs.warnings = r.strs();
  if (!r.ok() || !r.done()) return std::nullopt;
  return rs;
}

std::string rules_digest(const std::vector<std::vector<RuleFile>>& roots) {
  Sha256 h;
  for (const auto& root : roots) {
    if (root.empty()) continue;  // an empty --rules DIR changes nothing
    h.update("root " + std::to_string(root.size()) + "\n");
    for (const auto& f : root) {
      h.update(f.path + "\n" + std::to_string(f.text.size()) + "\n");
      h.update(f.text);
    }
  }
  return h.hex();
}

std::string rule_cache_key_of(std::string_view digest) {
  Sha256 h;
  h.update(kMagic);
  h.update(std::to_string(kVersion) + "\n" + exe_identity() + "\n");
  h.update(digest);
  return h.hex();
}

std::string rule_cache_key(const std::vector<std::vector<RuleFile>>& roots) {
  return rule_cache_key_of(rules_digest(roots));
}

// A cache file's payload, mapped (core/mapped_file.hpp): the bytes after its header.
struct CachedBlob {
  MappedFile file;
  size_t head = 0;
  std::string_view payload() const { return file.bytes().substr(head); }
};

std::optional<CachedBlob> load_cached_blob(const fs::path& dir, const std::string& key,
                                           const char* ext) {
  if (dir.empty()) return std::nullopt;
  auto file = MappedFile::open(cache_file(dir, key, ext));
  if (!file) return std::nullopt;
  // magic, key, sha256 of the payload, payload
  // The payload's sha256 is written but not verified on read (issue 38: hashing the ~2 MB of
  // cached forms was a tenth of a small node's CPU). The file is renamed into place whole, its
  // name and header carry the key, and both readers refuse a payload they do not consume
  // exactly, with every count bounded by the bytes left: a truncated or foreign file is parsed
  // again.
  const std::string_view data = file->bytes();
  const size_t head = kMagic.size() + 64 + 1 + 64 + 1;
  if (data.size() < head || data.compare(0, kMagic.size(), kMagic) != 0) return std::nullopt;
  if (data.compare(kMagic.size(), 64, key) != 0 || data[kMagic.size() + 64] != '\n' ||
      data[head - 1] != '\n')
    return std::nullopt;
  return CachedBlob{std::move(*file), head};
}

void store_cached_blob(const fs::path& dir, const std::string& key, const char* ext,
                       const std::string& payload) {
  if (dir.empty()) return;
  const fs::path file = cache_file(dir, key, ext);
  const fs::path tmp = file.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out << kMagic << key << '\n' << sha256_hex(payload) << '\n' << payload;
    if (!out) {
      out.close();
      std::error_code ec;
      fs::remove(tmp, ec);
      return;
    }
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return;
  }
  // every rebuild of faultline makes a new key: keep the newest few of each kind only
  std::vector<std::pair<fs::file_time_type, fs::path>> old;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ext || e.path() == file) continue;
    old.emplace_back(e.last_write_time(ec), e.path());
  }
  constexpr size_t kKeep = 3;
  if (old.size() <= kKeep) return;
  std::sort(old.begin(), old.end());
  for (size_t i = 0; i + kKeep < old.size(); ++i) fs::remove(old[i].second, ec);
}

std::optional<tag::RuleSet> load_cached_rules(const fs::path& dir, const std::string& key) {
  const auto payload = load_cached_blob(dir, key, ".rules");
  if (!payload) return std::nullopt;
  return deserialize_rules(payload->payload());
}

void store_cached_rules(const fs::path& dir, const std::string& key, const tag::RuleSet& rs) {
  if (dir.empty()) return;
  store_cached_blob(dir, key, ".rules", serialize_rules(rs));
}

std::shared_ptr<const correlate::CodeBook> cached_codes(const std::vector<RuleFile>& files,
                                                        const fs::path& dir,
                                                        std::string_view digest) {
  std::vector<RuleFile> codes;
  if (digest.empty() && !dir.empty()) codes = rules_under(files, "codes/");
  const std::string key = dir.empty()      ? std::string()
                          : digest.empty() ? rule_cache_key({codes})
                                           : rule_cache_key_of(digest);
  if (auto payload = load_cached_blob(dir, key, ".codes"))
    if (auto book = correlate::deserialize_codes(payload->payload()))
      return std::make_shared<const correlate::CodeBook>(std::move(*book));
  if (codes.empty()) codes = rules_under(files, "codes/");
  auto book = std::make_shared<const correlate::CodeBook>(correlate::load_codes(codes));
  if (book->errors.empty())
    store_cached_blob(dir, key, ".codes", correlate::serialize_codes(*book));
  return book;
}

std::vector<classify::KindRule> cached_kind_table(const std::vector<RuleFile>& classify_rules,
                                                  const fs::path& dir) {
  const std::string key = dir.empty() ? std::string() : rule_cache_key({classify_rules});
  if (auto payload = load_cached_blob(dir, key, ".kinds"))
    if (auto table = classify::deserialize_kind_table(payload->payload())) return std::move(*table);
  auto table = classify::read_kind_table(classify_rules);
  store_cached_blob(dir, key, ".kinds", classify::serialize_kind_table(table));
  return table;
}

void use_cached_fact_shapes(const fs::path& dir) {
  if (dir.empty() || parse::fact_shapes_loaded()) return;
  const std::string key = rule_cache_key_of(embedded_digests().all);
  if (auto payload = load_cached_blob(dir, key, ".shapes"))
    if (parse::use_fact_shapes_form(payload->payload())) return;
  const std::string form = parse::fact_shapes_form();
  if (parse::use_fact_shapes_form(form)) store_cached_blob(dir, key, ".shapes", form);
}

std::shared_ptr<const correlate::Book> cached_book(const Rules& rules, const fs::path& dir) {
  const std::string key = dir.empty() ? std::string() : rule_cache_key_of(rules.digest);
  if (auto payload = load_cached_blob(dir, key, ".book"))
    if (auto book = correlate::Book::deserialize(payload->payload(), rules.codes))
      return std::make_shared<const correlate::Book>(std::move(*book));
  auto book = std::make_shared<const correlate::Book>(
      correlate::Book::parse(rules.correlate_files(), rules.codes));
  if (book->errors().empty()) store_cached_blob(dir, key, ".book", book->serialize());
  return book;
}

}  // namespace faultline::app
