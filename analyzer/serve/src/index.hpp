// The index database of the data directory: one row per analysis (docs/api.md, "State").
// Not thread-safe: the server serialises access.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace faultline::serve::detail {

struct Analysis {
  std::string id;
  std::string sha256;
  std::string name;  // display name of the upload
  std::string file;  // file name of the bundle under analyses/<id>/
  uint64_t size = 0;
  std::string status;  // queued | running | done | failed
  std::string error;   // for failed: what went wrong (no server paths)
  int64_t uploaded_at = 0, started_at = 0, finished_at = 0;
  std::vector<std::string> hosts;
  std::string verdict_kind;  // root_cause | symptom | fault | none ("" until done)
  std::string verdict_id, verdict_title;
  int root_causes = 0, symptoms = 0, warnings = 0;
  int faults = 0;  // fault-event findings (docs/faults.md)
  // a job bundle (several nodes): the fleet answer as JSON (docs/api.md, issue 34); "" otherwise.
  // Then verdict_kind is "first_failure", verdict_id its rule and verdict_title its one-line
  // answer.
  std::string first_failure;
  // The fingerprint of a finished analysis (similar.hpp, issue 37): written by set_done, read
  // only by fingerprints() (never by get/list: it can be large).
  std::string fingerprint;
};

class Index {
 public:
  explicit Index(const std::filesystem::path& file);  // creates or opens; throws runtime_error
  ~Index();
  Index(const Index&) = delete;
  Index& operator=(const Index&) = delete;

  std::optional<Analysis> get(const std::string& id);
  std::optional<Analysis> by_sha256(const std::string& sha256);
  std::vector<Analysis> list(size_t limit);                             // newest upload first
  std::vector<std::string> ids_with_status(const std::string& status);  // oldest first

  void insert(const Analysis& a);
  // Back to queued for a new attempt (same id), with a fresh bundle file.
  void requeue(const std::string& id, const std::string& name, const std::string& file,
               int64_t uploaded_at);
  void set_running(const std::string& id, int64_t when);
  void set_failed(const std::string& id, const std::string& error, int64_t when);
  void set_done(const Analysis& result);  // id, hosts, verdict and counts; finished_at
  // The finished analyses that have a fingerprint, newest upload first, at most `limit`, with it.
  std::vector<std::pair<Analysis, std::string>> fingerprints(size_t limit);
  std::string fingerprint_of(const std::string& id);

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace faultline::serve::detail
