// store: the SQLite database (schema/*.sql, forward-only migrations, PRAGMA user_version).
// Bulk loads run in one transaction with prepared statements; indexes are built after the load.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/core/types.hpp"

struct sqlite3;

namespace faultline::store {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

int schema_version();  // the version this build writes

struct BundleInfo {
  std::string path;
  std::string name;
  std::string options_json;
};

struct MemberRow {
  std::string path, kind, kind_reason, host, sha256;
  uint64_t size = 0;
  uint32_t lines = 0, parsed_lines = 0, malformed_lines = 0, long_lines = 0;
  bool truncated = false;
  std::string text_stored = "none";
};

class Db {
 public:
  // How much a database file must survive.
  enum class Durability {
    normal,     // WAL, synchronous=NORMAL: a killed or crashed run leaves it consistent, and
                // readable by read-only readers (no hot rollback journal: issue 36)
    scratch,    // a file removed at the end of the run, never read after a failed one: no
                // journal, no fsync (each page written once; the bulk load's store phase takes
                // half the time). ROLLBACK cannot undo anything: a failed run's file is dropped.
    temporary,  // a file removed at the end of the run that must still roll back a failed
                // transaction (a fleet's merges): rollback journal in memory, no fsync, no WAL
                // to checkpoint at the end.
  };
  // Opens or creates the database and applies pending migrations. Throws StoreError.
  static std::unique_ptr<Db> open(const std::filesystem::path& path,
                                  Durability durability = Durability::normal);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* handle() { return db_; }

  // Starts loading a bundle: opens the bulk transaction and inserts a 'running' bundle row.
  int64_t begin_bundle(const BundleInfo& info);
  int64_t add_member(int64_t bundle, const MemberRow& m);
  void update_member(int64_t member, const MemberRow& m);
  // Text values (event text, fact values, captures, names) above 16 MiB (or a quarter of SQLite's
  // length limit when lower) are cut to it, end with a marker, and add a "[store-cut]" warning
  // naming the file. data is stored as given; encoding says what it is: "plain" or "zstd" (a zstd
  // frame). Above SQLite's length limit it is not stored ("[store-cut]" warning).
  void add_member_text(int64_t member, std::string_view data, std::string_view encoding);
  int64_t add_event(int64_t bundle, int64_t member, std::string_view host, const Event& e);
  void add_hit(int64_t bundle, int64_t event, std::string_view signature,
               std::string_view captures_json);
  void add_fact(int64_t bundle, std::string_view host, const Fact& f, int64_t member);
  void add_warning(int64_t bundle, const Warning& w);
  void add_host(int64_t bundle, std::string_view name, std::string_view source);
  // Ends the load: sets sha256/size/files/bytes, deletes any older bundle with the same sha256
  // (its rows are replaced), commits and builds the indexes. The bundle stays 'running' until
  // mark_complete() so that a killed run is visible as incomplete.
  void finish_load(int64_t bundle, std::string_view sha256, uint64_t size, uint64_t files,
                   uint64_t bytes);
  void mark_complete(int64_t bundle);
  void mark_failed(int64_t bundle, std::string_view why);

  void begin();
  void commit();
  void exec(std::string_view sql);

 private:
  explicit Db(sqlite3* db);
  static int64_t civil_ns(int year, const RawTime& t);
  // A value of `member` was cut or not stored (values above the text bound): a warning naming
  // the member's file.
  void note_cut(int64_t member, const std::string& message);
  std::string cut_message(std::string_view what, int64_t line, uint64_t bytes) const;
  struct Stmts;
  sqlite3* db_;
  std::unique_ptr<Stmts> st_;
};

// Bundle ids present in the database, in load order (status complete only unless all=true).
std::vector<int64_t> bundle_ids(sqlite3* db, bool all = false);

}  // namespace faultline::store
