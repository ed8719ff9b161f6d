// Harness: the HTTP handling of `faultline serve` (request parsing, pre-routing with the token
// check and the method filter, routes, query/path parameters, upload streaming of raw and
// multipart bodies, report rendering), through Server::handle_connection_bytes: the input is
// what a client sent on one connection (one or more requests).
//
// Why that seam and not a loopback socket: the bytes take the same path as a socket's (cpp-httplib
// parses them and calls the same handlers), minus accept() and the connection threads, so an input
// runs in one thread, deterministically, without timeouts or ports, many times faster.
//
// One server per process, on a data directory copied from a template that holds a finished
// analysis of a small real bundle and a failed one: in the input, `@ID@` stands for the finished
// analysis's id and `@FAILED@` for the failed one's (the ids are random). The server has a token
// (kToken), a 64 KiB upload limit and a queue of 2. After each input the harness waits for the
// queued analyses and checks:
//   - every response starts with a status line, and no request fails with 500 (an exception or
//     an unrenderable report of a finished analysis: our bug, whatever the input);
//   - nothing is written outside the data directory: nothing next to it in the harness's private
//     directory, no new entry in the working directory (only its entries are compared: libFuzzer
//     writes below it); the data directory holds only what docs/api.md lists, no partial upload
//     is left, stored names are [A-Za-z0-9._-], and no stored upload is larger than the limit.
// The data directory is reset from the template every 64 stored analyses.
#include "faultline/serve/serve.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"

namespace {

using namespace faultline;
namespace fs = std::filesystem;

constexpr const char* kToken = "fuzz-token-0123456789abcdef";
constexpr uint64_t kMaxUpload = 64 * 1024;
constexpr size_t kResetAfter = 64;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A ustar archive of the given members (what a collector's `tar cf` writes).
std::string make_tar(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string out;
  for (const auto& [name, data] : members) {
    char h[512] = {};
    name.copy(h, std::min<size_t>(name.size(), 99));
    std::snprintf(h + 100, 8, "%07o", 0644);
    std::snprintf(h + 108, 8, "%07o", 0);
    std::snprintf(h + 116, 8, "%07o", 0);
    std::snprintf(h + 124, 12, "%011llo", static_cast<unsigned long long>(data.size()));
    std::snprintf(h + 136, 12, "%011llo", 1779962714ULL);
    h[156] = '0';
    std::memcpy(h + 257,
                "ustar\0"
                "00",
                8);
    std::memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (unsigned char c : h) sum += c;
    std::snprintf(h + 148, 8, "%06o", sum);
    out.append(h, sizeof h);
    out += data;
    out.append((512 - data.size() % 512) % 512, '\0');
  }
  out.append(1024, '\0');
  return out;
}

std::string raw_upload(const std::string& name, const std::string& body) {
  return "POST /api/bundles?name=" + name +
         " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + kToken +
         "\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

// The id in a 202/200 answer to an upload, "" when none.
std::string id_of(const std::string& response) {
  const auto p = response.find("\"id\":\"");
  return p == std::string::npos ? std::string() : response.substr(p + 6, 32);
}

std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

struct State {
  fs::path root, tmpl, data;
  std::set<std::string> cwd_entries;  // of the working directory at the start
  std::string done_id, failed_id;
  std::unique_ptr<serve::Server> server;

  serve::Config config(const fs::path& dir) const {
    serve::Config c;
    c.host = "127.0.0.1";
    c.port = 0;
    c.data_dir = dir;
    c.max_upload = kMaxUpload;
    c.jobs = 1;
    c.max_queued = 2;
    c.token = kToken;
    c.analyze.cache_dir = root / "cache";
    c.analyze.pipeline_threads = false;
    c.analyze.limits.max_members = 500;
    c.analyze.limits.max_member_bytes = 1 << 20;
    c.analyze.limits.max_total_bytes = 16 << 20;
    c.analyze.limits.ratio_grace_bytes = 1 << 20;
    c.analyze.limits.max_line_bytes = 4096;
    c.analyze.small_member_bytes = 4096;
    return c;
  }

  State() {
    root = fs::temp_directory_path() / ("faultline-fuzz-serve-" + std::to_string(getpid()));
    fs::remove_all(root);
    tmpl = root / "template";
    data = root / "data";
    fs::create_directories(root / "cache");
    // The template: a finished analysis of real files and a failed one.
    {
      serve::Server s(config(tmpl));
      const fs::path sample = fs::path(FAULTLINE_SOURCE_DIR) / "samples/seed-driver-reboot-pending";
      std::vector<std::pair<std::string, std::string>> members;
      for (const char* rel :
           {"npu_log_collect/ascend_log_20260528110514/install_info/ascend_seclog/"
            "ascend_install.log",
            "npu_log_collect/version_info.log", "npu_log_collect/mod_info/lsmod.log",
            "extra/usr/local/Ascend/driver/version.info", "extra/proc_stat.txt",
            "extra/uptime_-s.txt"})
        members.emplace_back(std::string("a2pod-n042/") + rel, read_file(sample / rel));
      done_id = id_of(s.handle_connection_bytes(raw_upload("a2pod-n042.tar", make_tar(members))));
      // gzip magic and a broken deflate stream: the reader fails.
      failed_id = id_of(s.handle_connection_bytes(
          raw_upload("broken.tar.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
                                                  "\xff\xff\xff\xff garbage",
                                                  20))));
      s.wait_idle();
      for (const auto& [id, want] : {std::pair{done_id, "\"status\":\"done\""},
                                     std::pair{failed_id, "\"status\":\"failed\""}}) {
        const std::string r = s.handle_connection_bytes(
            "GET /api/bundles/" + id + "?report=0 HTTP/1.1\r\nAuthorization: Bearer " + kToken +
            "\r\nConnection: close\r\n\r\n");
        if (r.find(want) == std::string::npos)
          std::fprintf(stderr, "serve harness: the template analysis %s is not %s:\n%s\n",
                       id.c_str(), want, r.c_str());
      }
    }
    if (done_id.empty() || failed_id.empty()) {
      std::fprintf(stderr, "serve harness: the template analyses could not be created\n");
      std::abort();
    }
    reset();
    cwd_entries = entries(fs::current_path());
  }
  ~State() {
    server.reset();
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  void reset() {
    server.reset();
    fs::remove_all(data);
    fs::copy(tmpl, data, fs::copy_options::recursive);
    server = std::make_unique<serve::Server>(config(data));
  }
};

State& state() {
  static State s;
  return s;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size())
    s.replace(p, from.size(), to);
  return s;
}

// Every response is a status line, headers and (when Content-Length says so) a body; a HEAD
// answer has no body, so the walk stops at the first place that is not a status line after one.
void check_responses(const std::string& out) {
  size_t p = 0;
  bool first = true;
  while (p < out.size()) {
    const bool status_line = out.compare(p, 9, "HTTP/1.1 ") == 0 && p + 12 <= out.size() &&
                             out[p + 9] >= '1' && out[p + 9] <= '5' && std::isdigit(out[p + 10]) &&
                             std::isdigit(out[p + 11]);
    if (first) FUZZ_CHECK(status_line, "a response does not start with a status line");
    if (!status_line) return;
    first = false;
    const int status = std::stoi(out.substr(p + 9, 3));
    if (status == 500) std::fprintf(stderr, "%s\n", out.substr(p, 4000).c_str());
    FUZZ_CHECK(status != 500, "a request failed with 500 (exception or unrenderable report)");
    const size_t end = out.find("\r\n\r\n", p);
    if (end == std::string::npos) return;
    size_t body = 0;
    const std::string head = out.substr(p, end - p);
    const auto cl = head.find("\r\nContent-Length: ");
    if (cl != std::string::npos) body = std::strtoull(head.c_str() + cl + 18, nullptr, 10);
    p = end + 4 + body;
  }
}

bool safe_name(const std::string& n) {
  if (n.empty() || n.front() == '.') return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      return false;
  return true;
}

bool valid_id(const std::string& s) {
  return s.size() == 32 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// What docs/api.md ("State under --data") allows; returns the number of analyses.
size_t check_tree(const State& st) {
  static const std::set<std::string> kTop = {
      "index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "index.sqlite-journal",
      "tmp",          "analyses"};
  static const std::set<std::string> kAnalysis = {"upload", "analysis.db", "analysis.db-wal",
                                                  "analysis.db-shm", "analysis.db-journal"};
  FUZZ_CHECK(entries(fs::current_path()) == st.cwd_entries,
             "a file was written in the working directory");
  for (const auto& e : fs::directory_iterator(st.root)) {
    const auto n = e.path().filename().string();
    FUZZ_CHECK(n == "cache" || n == "template" || n == "data",
               "a file was written next to the data directory");
  }
  for (const auto& e : fs::directory_iterator(st.data))
    FUZZ_CHECK(kTop.count(e.path().filename().string()) == 1,
               "the data directory holds an unexpected entry");
  FUZZ_CHECK(fs::is_empty(st.data / "tmp"), "a partial upload was left in tmp/");
  size_t analyses = 0;
  for (const auto& a : fs::directory_iterator(st.data / "analyses")) {
    ++analyses;
    FUZZ_CHECK(valid_id(a.path().filename().string()) && !a.is_symlink() && a.is_directory(),
               "analyses/ holds something that is not an analysis directory");
    for (const auto& e : fs::directory_iterator(a.path()))
      FUZZ_CHECK(kAnalysis.count(e.path().filename().string()) == 1,
                 "an analysis directory holds an unexpected entry");
    std::error_code ec;
    for (const auto& f : fs::directory_iterator(a.path() / "upload", ec)) {
      FUZZ_CHECK(!f.is_symlink() && f.is_regular_file(), "a stored upload is not a regular file");
      FUZZ_CHECK(safe_name(f.path().filename().string()), "a stored upload has an unsafe name");
      FUZZ_CHECK(f.file_size() <= kMaxUpload, "an upload above the limit was stored");
    }
  }
  return analyses;
}

}  // namespace

// The template analyses (a rule compile under ASan on a busy machine can take long): before
// libFuzzer's per-input timeout runs. The replay driver does not call it; state() starts lazily.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  state();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  State& st = state();
  std::string in(reinterpret_cast<const char*>(data), size);
  in = replace_all(std::move(in), "@ID@", st.done_id);
  in = replace_all(std::move(in), "@FAILED@", st.failed_id);
  const std::string out = st.server->handle_connection_bytes(in);
  st.server->wait_idle();
  check_responses(out);
  if (check_tree(st) > kResetAfter) st.reset();
  return 0;
}
