// API tests of `faultline serve`: a server started in-process on a free loopback port, driven
// with httplib::Client. Bundles are real-format lines (log-formats.md §6.1, seed 000) packed with
// libarchive's write API.
#include <archive.h>
#include <archive_entry.h>
#include <httplib.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "common/temp_dir.hpp"
#include "faultline/core/sanitizer.hpp"
#include "faultline/core/sha256.hpp"
#include "faultline/serve/serve.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using faultline::serve::Config;
using faultline::serve::ConfigError;
using faultline::serve::Server;

namespace {

// Verbatim lines: ascend_install.log (log-formats.md §6.1) and the seed 000 incident.
const char* kInstallLog =
    "[Driver] [2025-03-31 09:51:20] [INFO]Start time: 2025-03-31 09:51:20\n"
    "[Driver] [2025-03-31 09:51:36] [INFO]Driver package installed successfully! Reboot needed for "
    "installation/upgrade to take effect!\n"
    "[Driver] [2025-03-31 09:51:36] [INFO]End time: 2025-03-31 09:51:36\n";
const char* kTrainLog =
    "Svm map va not fixed, vm_start=0x100000000000, vm_end=0x200000000000\n"
    "Host mem gotgo malloc, errstr=Invalid argument\n"
    "RuntimeError: Communicator of group hccl_world_group inited: failed.\n";

// the shared temporary directory, named for this test area
class TempDir : public faultline::test::TempDir {
 public:
  TempDir() : faultline::test::TempDir("faultline-serve-test") {}
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A tar.gz of the given members, written with libarchive.
std::string make_tar_gz(const std::vector<std::pair<std::string, std::string>>& members,
                        const fs::path& where) {
  archive* a = archive_write_new();
  REQUIRE(archive_write_add_filter_gzip(a) == ARCHIVE_OK);
  REQUIRE(archive_write_set_format_pax_restricted(a) == ARCHIVE_OK);
  REQUIRE(archive_write_open_filename(a, where.c_str()) == ARCHIVE_OK);
  for (const auto& [name, data] : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_mtime(e, 1743385896, 0);
    REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
    REQUIRE(archive_write_data(a, data.data(), data.size()) ==
            static_cast<la_ssize_t>(data.size()));
    archive_entry_free(e);
  }
  REQUIRE(archive_write_close(a) == ARCHIVE_OK);
  archive_write_free(a);
  return read_file(where);
}

std::string node_bundle(const fs::path& dir) {
  return make_tar_gz(
      {{"a2pod-n042/ascend_log_20250331/install_info/ascend_seclog/ascend_install.log",
        kInstallLog},
       {"a2pod-n042/train.log", kTrainLog}},
      dir / "a2pod-n042.tar.gz");
}

// The scripts a page may run: its inline ones, each allowed by its sha256 in script-src.
std::string script_src(const std::string& csp) {
  const size_t at = csp.find("script-src ");
  REQUIRE(at != std::string::npos);
  return csp.substr(at, csp.find(';', at) - at);
}

void check_csp(const std::string& csp) {
  INFO(csp);
  CHECK(csp.rfind("default-src 'self'; ", 0) == 0);
  // issue 18: no 'unsafe-inline' for scripts (an injected <script> or onerror= does not run)
  CHECK(script_src(csp).find("unsafe-inline") == std::string::npos);
  CHECK(script_src(csp).find("'sha256-") != std::string::npos);
  CHECK(csp.find("object-src 'none'") != std::string::npos);
  CHECK(csp.find("frame-ancestors 'none'") != std::string::npos);
}

std::string base64(const std::array<uint8_t, 32>& d) {
  const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < d.size(); i += 3) {
    uint32_t n = uint32_t{d[i]} << 16;
    if (i + 1 < d.size()) n |= uint32_t{d[i + 1]} << 8;
    if (i + 2 < d.size()) n |= d[i + 2];
    out += k[(n >> 18) & 63];
    out += k[(n >> 12) & 63];
    out += i + 1 < d.size() ? k[(n >> 6) & 63] : '=';
    out += i + 2 < d.size() ? k[n & 63] : '=';
  }
  return out;
}

// Every inline script of a page is allowed by the policy (else the page would not work).
void check_scripts_allowed(const std::string& page, const std::string& csp) {
  size_t at = 0;
  int scripts = 0;
  while ((at = page.find("<script>", at)) != std::string::npos) {
    const size_t end = page.find("</script>", at);
    REQUIRE(end != std::string::npos);
    faultline::Sha256 h;
    h.update(std::string_view(page).substr(at + 8, end - at - 8));
    CHECK(script_src(csp).find("'sha256-" + base64(h.digest()) + "'") != std::string::npos);
    ++scripts;
    at = end;
  }
  CHECK(scripts > 0);
}

Config base_config(const fs::path& data) {
  Config c;
  c.host = "127.0.0.1";
  c.port = 0;
  c.data_dir = data;
  c.jobs = 1;
  c.analyze.cache_dir = fs::temp_directory_path() / "faultline-serve-test-cache";
  c.analyzer = FAULTLINE_BINARY;  // each analysis in a child process, as `faultline serve` runs
  return c;
}

// The server running on its own thread for the scope of a test.
class Running {
 public:
  explicit Running(Config c) : srv_(std::make_unique<Server>(std::move(c))) {
    port_ = srv_->bind();
    thread_ = std::thread([this] { srv_->run(); });
  }
  ~Running() {
    srv_->stop();
    thread_.join();
    srv_.reset();
  }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;
  Server& server() { return *srv_; }
  int port() const { return port_; }
  std::unique_ptr<httplib::Client> client() const {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
    c->set_read_timeout(120, 0);
    c->set_write_timeout(120, 0);
    return c;
  }

 private:
  std::unique_ptr<Server> srv_;
  std::thread thread_;
  int port_ = 0;
};

json body_json(const httplib::Result& r) {
  REQUIRE(r);
  const auto j = json::parse(r->body, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

bool is_hex_id(const std::string& s) {
  if (s.size() != 32) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Uploads raw bytes; returns the response.
httplib::Result upload(httplib::Client& c, const std::string& data, const std::string& name,
                       const httplib::Headers& h = {}) {
  return c.Post(("/api/bundles?name=" + name).c_str(), h, data, "application/octet-stream");
}

json status_of(httplib::Client& c, const std::string& id, bool report = true) {
  auto r = c.Get(("/api/bundles/" + id + (report ? "" : "?report=0")).c_str());
  REQUIRE(r);
  REQUIRE(r->status == 200);
  return body_json(r);
}

std::vector<fs::path> files_under(const fs::path& root) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (!e.is_directory()) out.push_back(fs::relative(e.path(), root));
  return out;
}

}  // namespace

TEST_CASE("listen addresses and loopback detection", "[serve]") {
  using faultline::serve::is_loopback;
  using faultline::serve::parse_listen;
  CHECK(parse_listen("127.0.0.1:8080").host == "127.0.0.1");
  CHECK(parse_listen("127.0.0.1:8080").port == 8080);
  CHECK(parse_listen("[::1]:9000").host == "::1");
  CHECK(parse_listen("[::1]:9000").port == 9000);
  CHECK(parse_listen("0.0.0.0:0").port == 0);
  CHECK_THROWS_AS(parse_listen("8080"), ConfigError);
  CHECK_THROWS_AS(parse_listen(":8080"), ConfigError);
  CHECK_THROWS_AS(parse_listen("::1:8080"), ConfigError);
  CHECK_THROWS_AS(parse_listen("127.0.0.1:http"), ConfigError);
  CHECK_THROWS_AS(parse_listen("127.0.0.1:70000"), ConfigError);
  CHECK(is_loopback("127.0.0.1"));
  CHECK(is_loopback("127.1.2.3"));
  CHECK(is_loopback("localhost"));
  CHECK(is_loopback("::1"));
  CHECK_FALSE(is_loopback("0.0.0.0"));
  CHECK_FALSE(is_loopback("::"));
  CHECK_FALSE(is_loopback("10.0.0.7"));
  CHECK_FALSE(is_loopback("127.0.0.1.example.com"));
  CHECK_FALSE(is_loopback("127.0.0.256"));
}

TEST_CASE("a --data path that is a file is refused with what it is", "[serve]") {
  TempDir tmp;
  std::ofstream(tmp.path() / "data") << "not a directory";
  try {
    Server s(base_config(tmp.path() / "data"));
    FAIL("the server started on a file");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "--data: " + (tmp.path() / "data").string() + " exists and is not a directory");
  }
}

TEST_CASE("a non-loopback address needs a token", "[serve]") {
  TempDir tmp;
  Config c = base_config(tmp.path() / "data");
  c.host = "0.0.0.0";
  CHECK_THROWS_AS(Server(c), ConfigError);
  c.token = "short";
  CHECK_THROWS_AS(Server(c), ConfigError);
  c.token = "has space in it and long enough";
  CHECK_THROWS_AS(Server(c), ConfigError);
  // refused before anything is created
  CHECK_FALSE(fs::exists(tmp.path() / "data"));
  c.token = "0123456789abcdef0123";
  CHECK_NOTHROW(Server(c));  // constructed, never bound
}

// `faultline serve` stops from its signal thread: run() returns on the main thread, which then
// destroys the server while that stop() may still be stopping the connection threads (a
// std::thread destroyed joinable: "terminate called without an active exception" on SIGTERM).
TEST_CASE("a stop() from another thread ends before the server is destroyed", "[serve]") {
  TempDir tmp;
  for (int i = 0; i < 20; ++i) {
    auto srv = std::make_unique<Server>(base_config(tmp.path() / "data"));
    srv->bind();
    Server* raw = srv.get();
    std::thread signal_thread([raw] { raw->stop(); });
    // returns once that stop() has begun (it sets the flag run() and the listener look at)
    CHECK(srv->run());
    srv.reset();
    signal_thread.join();
  }
}

TEST_CASE("upload, analysis and reports", "[serve]") {
  TempDir tmp;
  const std::string bundle = node_bundle(tmp.path());
  const std::string sha = faultline::sha256_hex(bundle);
  const fs::path data = tmp.path() / "data";
  Running run(base_config(data));
  auto c = run.client();

  auto r = upload(*c, bundle, "a2pod-n042.tar.gz");
  REQUIRE(r);
  REQUIRE(r->status == 202);
  check_csp(r->get_header_value("Content-Security-Policy"));
  CHECK(r->get_header_value("X-Content-Type-Options") == "nosniff");
  const json up = body_json(r);
  const std::string id = up.at("id");
  CHECK(is_hex_id(id));
  CHECK(up.at("status") == "queued");
  CHECK(up.at("sha256") == sha);
  CHECK(r->get_header_value("Location") == "/api/bundles/" + id);

  run.server().wait_idle();
  const json st = status_of(*c, id);
  INFO(st.dump(2));
  REQUIRE(st.at("status") == "done");
  CHECK(st.at("name") == "a2pod-n042.tar.gz");
  CHECK(st.at("size") == bundle.size());
  CHECK(st.at("finished_at").is_string());
  REQUIRE(st.contains("report"));
  const json& rep = st.at("report");
  CHECK(rep.at("schema_version") == 1);
  CHECK(rep.at("bundle").at("sha256") == sha);
  // the report names the upload, not where the server keeps it
  CHECK(rep.at("bundle").at("path") == "a2pod-n042.tar.gz");
  // the index summary agrees with the report
  std::set<std::string> report_hosts;
  for (const auto& h : rep.at("bundle").at("hosts")) report_hosts.insert(h.get<std::string>());
  std::set<std::string> index_hosts;
  for (const auto& h : st.at("hosts")) index_hosts.insert(h.get<std::string>());
  CHECK(index_hosts == report_hosts);
  std::string first_root;
  for (const auto& f : rep.at("findings"))
    if (f.at("kind") == "root_cause") {
      first_root = f.at("id");
      break;
    }
  int report_faults = 0;
  for (const auto& f : rep.at("findings"))
    if (f.at("kind") == "fault") ++report_faults;
  CHECK(st.at("faults") == report_faults);
  if (first_root.empty()) {
    // a symptom, else the first fault event (docs/faults.md), else nothing
    CHECK((st.at("verdict").is_null() || st.at("verdict").at("kind") == "symptom" ||
           st.at("verdict").at("kind") == "fault"));
  } else {
    CHECK(st.at("verdict").at("kind") == "root_cause");
    CHECK(st.at("verdict").at("id") == first_root);
  }

  // without the report
  CHECK_FALSE(status_of(*c, id, false).contains("report"));

  const std::string data_str = fs::weakly_canonical(data).string();
  auto md = c->Get(("/api/bundles/" + id + "/report.md").c_str());
  REQUIRE(md);
  CHECK(md->status == 200);
  CHECK(md->get_header_value("Content-Type").rfind("text/markdown", 0) == 0);
  CHECK_FALSE(md->body.empty());
  CHECK(md->body.find(data_str) == std::string::npos);

  auto js = c->Get(("/api/bundles/" + id + "/report.json").c_str());
  REQUIRE(js);
  CHECK(js->status == 200);
  CHECK(body_json(js).at("bundle").at("sha256") == sha);

  auto html = c->Get(("/api/bundles/" + id + "/report.html?download=1").c_str());
  REQUIRE(html);
  CHECK(html->status == 200);
  CHECK(html->get_header_value("Content-Type").rfind("text/html", 0) == 0);
  CHECK(html->get_header_value("Content-Disposition").find("attachment") != std::string::npos);
  CHECK(html->body.find(data_str) == std::string::npos);

  // the timeline export (docs/timeline-export.md): one event a line / a csv with a header
  {
    size_t timed = 0;
    for (const auto& t : rep.at("timeline"))
      if (!t.at("time").is_null() && t.at("time_quality") != "unknown") ++timed;
    auto jl = c->Get(("/api/bundles/" + id + "/report.jsonl").c_str());
    REQUIRE(jl);
    CHECK(jl->status == 200);
    CHECK(jl->get_header_value("Content-Type").rfind("application/x-ndjson", 0) == 0);
    CHECK(jl->get_header_value("X-Faultline-Untimed-Skipped") ==
          std::to_string(rep.at("timeline").size() - timed));
    size_t lines = 0;
    for (size_t at = 0, p; (p = jl->body.find('\n', at)) != std::string::npos; at = p + 1) {
      const auto e = json::parse(jl->body.substr(at, p - at));
      CHECK(e.at("datetime").is_string());
      CHECK(e.at("timestamp").is_number_integer());
      ++lines;
    }
    CHECK(lines == timed);
    auto cs = c->Get(("/api/bundles/" + id + "/report.csv?download=1").c_str());
    REQUIRE(cs);
    CHECK(cs->status == 200);
    CHECK(cs->get_header_value("Content-Type").rfind("text/csv", 0) == 0);
    CHECK(cs->get_header_value("Content-Disposition").find(".csv\"") != std::string::npos);
    CHECK(cs->body.rfind("datetime,timestamp,timestamp_desc,message,", 0) == 0);
  }

  auto db = c->Get(("/api/bundles/" + id + "/db").c_str());
  REQUIRE(db);
  CHECK(db->status == 200);
  REQUIRE(db->body.size() > 100);
  CHECK(db->body.compare(0, 16, std::string("SQLite format 3\0", 16)) == 0);
  {
    const fs::path copy = tmp.path() / "copy.db";
    std::ofstream(copy, std::ios::binary) << db->body;
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open_v2(copy.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(h, "SELECT sha256, status FROM bundles", -1, &s, nullptr) ==
            SQLITE_OK);
    REQUIRE(sqlite3_step(s) == SQLITE_ROW);
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))) == sha);
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 1))) == "complete");
    sqlite3_finalize(s);
    sqlite3_close(h);
  }

  // pages: the report page carries the download links; the home page lists the analysis
  auto page = c->Get(("/bundles/" + id).c_str());
  REQUIRE(page);
  CHECK(page->status == 200);
  check_csp(page->get_header_value("Content-Security-Policy"));
  // the report keeps its own policy too (no script at all)
  CHECK(page->body.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                        "'none'") != std::string::npos);
  for (const std::string ext : {"/report.md", "/report.json", "/db"})
    CHECK(page->body.find("/api/bundles/" + id + ext) != std::string::npos);
  CHECK(page->body.find("faultline-serve-bar") != std::string::npos);
  auto home = c->Get("/");
  REQUIRE(home);
  CHECK(home->status == 200);
  CHECK(home->body.find("/bundles/" + id) != std::string::npos);
  CHECK(home->body.find("a2pod-n042.tar.gz") != std::string::npos);
  check_scripts_allowed(home->body, home->get_header_value("Content-Security-Policy"));
  CHECK(home->body.find("type=\"file\"") != std::string::npos);
  for (const char* ext : {"http://", "https://", "//cdn"})
    CHECK(home->body.find(ext) == std::string::npos);

  auto list = c->Get("/api/bundles");
  const json lj = body_json(list);
  REQUIRE(lj.at("count") == 1);
  CHECK(lj.at("analyses").at(0).at("id") == id);
  CHECK(lj.at("analyses").at(0).at("status") == "done");

  // state on disk: under --data only, no partial upload left
  std::set<std::string> files;
  for (const auto& f : files_under(data)) files.insert(f.string());
  CHECK(files.count("index.sqlite") == 1);
  CHECK(files.count("analyses/" + id + "/analysis.db") == 1);
  CHECK(files.count("analyses/" + id + "/upload/a2pod-n042.tar.gz") == 1);
  for (const auto& f : files) CHECK(f.rfind("tmp/", 0) != 0);
  CHECK(read_file(data / "analyses" / id / "upload" / "a2pod-n042.tar.gz") == bundle);
}

TEST_CASE("a job's tarball (one folder per node) gets the fleet answer on its report", "[serve]") {
  // docs/fleet.md "A job in one bundle": three workers in ascend-fd's layout; the identity line
  // is the SetupAgent shape of its fixtures, the errors the st_cqe_testcase CQE line: ranks 0
  // and 1 both got error CQEs from rank 2's device IP, so worker-2 is the culprit
  auto identity = [](int pid, int rank) {
    const std::string P = std::to_string(pid), R = std::to_string(rank);
    return "[INFO] HCCL(" + P + ",python3):2024-04-07-18:35:53.395.735 [topoinfo_detect.cc:208][" +
           P + "][HCCL_TRACE]SetupAgent rankNum[3], rank[" + R +
           "], rootInfo identifier[10.136.181.170%enp179s0f0_60000_0_1712529353144389], "
           "server[10.136.181.17" +
           R +
           "%enp179s0f0], logicDevId[0], phydevId[0], "
           "deviceIp[192.168.13.1" +
           R + "]\n";
  };
  auto cqe = [](int pid) {
    const std::string P = std::to_string(pid);
    return "[ERROR] HCCL(" + P + ",python):2024-04-08-02:55:04.773.698 [heartbeat.cc:551][" + P +
           "][283707][Heartbeat]cqe err status[12], time:[2024-04-08 02:55:04.099518], "
           "ip:[192.168.13.12]\n";
  };
  std::vector<std::pair<std::string, std::string>> files;
  for (int r = 0; r < 3; ++r) {
    const int pid = 12337 + r;
    const std::string w = "job/worker-" + std::to_string(r) + "/process_log/";
    const std::string P = std::to_string(pid);
    files.emplace_back(w + "run/plog/plog-" + P + "_20240407183553145.log", identity(pid, r));
    if (r != 2) files.emplace_back(w + "debug/plog/plog-" + P + "_20240408025504900.log", cqe(pid));
  }
  TempDir tmp;
  const std::string bundle = make_tar_gz(files, tmp.path() / "job.tar.gz");
  Running run(base_config(tmp.path() / "data"));
  auto c = run.client();
  auto r = upload(*c, bundle, "job.tar.gz");
  REQUIRE(r);
  REQUIRE(r->status == 202);
  const std::string id = body_json(r).at("id");
  run.server().wait_idle();
  const json st = status_of(*c, id);
  INFO(st.dump(2));
  REQUIRE(st.at("status") == "done");
  const json& rep = st.at("report");
  CHECK(rep.at("bundle").at("hosts").size() == 3);
  REQUIRE(rep.at("first_failure").is_object());
  CHECK(rep.at("first_failure").at("host") == "worker-2");
  CHECK(rep.at("fleet").at("first_failure") == rep.at("first_failure"));
  auto html = c->Get(("/api/bundles/" + id + "/report.html").c_str());
  REQUIRE(html);
  CHECK(html->status == 200);
  CHECK(html->body.find("First failure") != std::string::npos);
  // one answer on every surface (issue 34): the status object, the list, the page header and the
  // list page lead with the fleet answer; the appended per-node part says it is per node
  REQUIRE(st.at("verdict").is_object());
  CHECK(st.at("verdict").at("kind") == "first_failure");
  CHECK(st.at("verdict").at("id") == "roce-cqe");
  CHECK(st.at("verdict").at("title").get<std::string>().find("worker-2 rank 2") !=
        std::string::npos);
  REQUIRE(st.at("first_failure").is_object());
  CHECK(st.at("first_failure").at("host") == "worker-2");
  CHECK(st.at("first_failure").at("rule") == rep.at("first_failure").at("rule"));
  auto list = c->Get("/api/bundles");
  REQUIRE(list);
  const json lj = json::parse(list->body);
  REQUIRE(lj.at("analyses").size() == 1);
  CHECK(lj.at("analyses").at(0).at("first_failure") == st.at("first_failure"));
  CHECK(lj.at("analyses").at(0).at("verdict") == st.at("verdict"));
  auto page = c->Get(("/bundles/" + id).c_str());
  REQUIRE(page);
  CHECK(page->body.find("First failure (job): <strong>worker-2 rank 2") != std::string::npos);
  CHECK(page->body.find("No finding") == std::string::npos);
  CHECK(page->body.find("Per-node report: the verdict and findings below are per node") !=
        std::string::npos);
  auto lp = c->Get("/bundles");
  REQUIRE(lp);
  CHECK(lp->body.find("worker-2 rank 2 device 0 failed first") != std::string::npos);
  CHECK(lp->body.find("(job answer, across the nodes)") != std::string::npos);
}

TEST_CASE("a report lists the earlier uploads most like it (seen before)", "[serve]") {
  // issue 37 item 3: the same node collected again (other archive bytes: the members are kept
  // under another top folder) lists the earlier upload first; an unrelated upload (an install
  // log alone) is less similar or not listed
  TempDir tmp;
  const std::string first = node_bundle(tmp.path());
  const std::string again = make_tar_gz(
      {{"a2pod-n042-again/ascend_log_20250331/install_info/ascend_seclog/ascend_install.log",
        kInstallLog},
       {"a2pod-n042-again/train.log", kTrainLog}},
      tmp.path() / "again.tar.gz");
  REQUIRE(first != again);
  Running run(base_config(tmp.path() / "data"));
  auto c = run.client();
  auto up = [&](const std::string& bytes, const std::string& name) {
    auto r = upload(*c, bytes, name);
    REQUIRE(r);
    REQUIRE(r->status == 202);
    const std::string id = body_json(r).at("id");
    run.server().wait_idle();
    return id;
  };
  const std::string id1 = up(first, "a2pod-n042.tar.gz");
  const std::string other = up(kInstallLog, "ascend_install.log");
  const std::string id2 = up(again, "a2pod-n042-again.tar.gz");

  const json st = status_of(*c, id2, false);
  INFO(st.dump(2));
  REQUIRE(st.at("status") == "done");
  REQUIRE(st.at("similar").is_array());
  REQUIRE(!st.at("similar").empty());
  const json& best = st.at("similar").at(0);
  CHECK(best.at("id") == id1);
  CHECK(best.at("name") == "a2pod-n042.tar.gz");
  CHECK(best.at("score").get<double>() >= 0.9);
  CHECK(!best.at("shared_findings").empty());
  CHECK(best.at("links").at("page") == "/bundles/" + id1);
  for (const auto& e : st.at("similar")) {
    CHECK(e.at("id") != id2);  // never itself
    if (e.at("id") == other) CHECK(e.at("score").get<double>() < best.at("score").get<double>());
  }
  // the page shows the same list, linking the earlier report
  auto page = c->Get(("/bundles/" + id2).c_str());
  REQUIRE(page);
  CHECK(page->body.find("Seen before") != std::string::npos);
  CHECK(page->body.find("href=\"/bundles/" + id1 + "\"") != std::string::npos);
  // the earlier upload's own report now lists the later one
  const json st1 = status_of(*c, id1, false);
  REQUIRE(!st1.at("similar").empty());
  CHECK(st1.at("similar").at(0).at("id") == id2);
}

TEST_CASE("multipart upload and the same bundle twice", "[serve]") {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  Running run(base_config(data));
  auto c = run.client();

  httplib::MultipartFormDataItems items = {
      {"note", "from the test", "", ""},
      {"file", kInstallLog, "ascend_install.log", "text/plain"},
  };
  auto r = c->Post("/api/bundles", items);
  REQUIRE(r);
  REQUIRE(r->status == 202);
  const std::string id = body_json(r).at("id");
  CHECK(body_json(r).at("sha256") == faultline::sha256_hex(kInstallLog));

  // same bytes again, raw this time: the analysis is reused
  auto again = upload(*c, kInstallLog, "other-name.log");
  REQUIRE(again);
  CHECK(again->status == 200);
  const json aj = body_json(again);
  CHECK(aj.at("id") == id);
  CHECK(aj.at("duplicate") == true);

  run.server().wait_idle();
  const json st = status_of(*c, id, false);
  CHECK(st.at("name") == "ascend_install.log");
  CHECK((st.at("status") == "done" || st.at("status") == "failed"));
  CHECK(body_json(c->Get("/api/bundles")).at("count") == 1);

  // after the analysis ended, still the same id
  auto third = upload(*c, kInstallLog, "x.log");
  REQUIRE(third);
  CHECK(body_json(third).at("id") == id);
  CHECK(body_json(c->Get("/api/bundles")).at("count") == 1);

  // a form without a file part
  httplib::MultipartFormDataItems nofile = {{"note", "nothing", "", ""}};
  auto bad = c->Post("/api/bundles", nofile);
  REQUIRE(bad);
  CHECK(bad->status == 400);
  CHECK(body_json(bad).at("error").get<std::string>().find("file") != std::string::npos);

  auto empty = upload(*c, "", "empty.log");
  REQUIRE(empty);
  CHECK(empty->status == 400);
}

TEST_CASE("oversize uploads are refused with 413 and leave nothing behind", "[serve]") {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  Config cfg = base_config(data);
  cfg.max_upload = 64 * 1024;
  Running run(cfg);
  auto c = run.client();

  std::string big;
  while (big.size() < 200 * 1024) big += kTrainLog;

  SECTION("raw body with a Content-Length") {
    auto r = upload(*c, big, "big.log");
    REQUIRE(r);
    CHECK(r->status == 413);
    CHECK(body_json(r).at("error").get<std::string>().find("larger") != std::string::npos);
  }
  SECTION("multipart, refused while streaming") {
    httplib::MultipartFormDataItems items = {{"file", big, "big.log", "text/plain"}};
    auto r = c->Post("/api/bundles", items);
    REQUIRE(r);
    CHECK(r->status == 413);
  }
  SECTION("chunked body without a length") {
    size_t sent = 0;
    auto r = c->Post(
        "/api/bundles?name=big.log",
        [&](size_t, httplib::DataSink& sink) {
          if (sent >= big.size()) {
            sink.done();
            return true;
          }
          const size_t n = std::min<size_t>(16 * 1024, big.size() - sent);
          sent += n;
          return sink.write(big.data() + sent - n, n);
        },
        "application/octet-stream");
    // the server may close before the client finished sending; if an answer came, it is 413
    if (r) CHECK(r->status == 413);
  }
  SECTION("exactly the limit is accepted") {
    const std::string fits = big.substr(0, cfg.max_upload);
    auto r = upload(*c, fits, "fits.log");
    REQUIRE(r);
    CHECK(r->status == 202);
    run.server().wait_idle();
  }
  auto list = body_json(run.client()->Get("/api/bundles"));
  for (const auto& a : list.at("analyses")) CHECK(a.at("name") == "fits.log");
  CHECK(fs::is_empty(data / "tmp"));
}

TEST_CASE("the token is checked on every request", "[serve]") {
  TempDir tmp;
  const std::string token = "t0ken-for-the-serve-test-1234";
  Config cfg = base_config(tmp.path() / "data");
  cfg.token = token;
  Running run(cfg);
  auto c = run.client();

  for (const char* path :
       {"/", "/bundles", "/api/bundles", "/api/bundles/0123456789abcdef0123456789abcdef"}) {
    INFO(path);
    auto r = c->Get(path);
    REQUIRE(r);
    CHECK(r->status == 401);
    CHECK(r->get_header_value("WWW-Authenticate").find("Bearer") != std::string::npos);
    CHECK(r->body.find(token) == std::string::npos);
  }
  auto wrong = c->Get("/api/bundles", {{"Authorization", "Bearer " + token + "x"}});
  REQUIRE(wrong);
  CHECK(wrong->status == 401);
  auto wrong_q = c->Get("/api/bundles?token=nope");
  REQUIRE(wrong_q);
  CHECK(wrong_q->status == 401);

  auto denied = upload(*c, kInstallLog, "install.log");
  REQUIRE(denied);
  CHECK(denied->status == 401);
  CHECK(fs::is_empty(tmp.path() / "data" / "tmp"));
  CHECK(fs::is_empty(tmp.path() / "data" / "analyses"));

  auto bearer = c->Get("/api/bundles", {{"Authorization", "Bearer " + token}});
  REQUIRE(bearer);
  CHECK(bearer->status == 200);
  auto query = c->Get(("/api/bundles?token=" + token).c_str());
  REQUIRE(query);
  CHECK(query->status == 200);

  auto ok = upload(*c, kInstallLog, "install.log", {{"Authorization", "Bearer " + token}});
  REQUIRE(ok);
  CHECK(ok->status == 202);
  // pages opened with ?token= keep it in their links
  auto home = c->Get(("/?token=" + token).c_str());
  REQUIRE(home);
  CHECK(home->status == 200);
  CHECK(home->body.find("/bundles?token=" + token) != std::string::npos);
  run.server().wait_idle();
}

TEST_CASE("bad ids and unknown routes answer 404 without paths", "[serve]") {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  Running run(base_config(data));
  auto c = run.client();
  const std::string data_str = fs::weakly_canonical(data).string();
  for (const char* path :
       {"/api/bundles/../../etc/passwd", "/api/bundles/..%2f..%2findex.sqlite",
        "/api/bundles/index.sqlite", "/api/bundles/0123456789ABCDEF0123456789ABCDEF",
        "/api/bundles/0123456789abcdef0123456789abcdef",
        "/api/bundles/0123456789abcdef0123456789abcdef/db",
        "/api/bundles/0123456789abcdef0123456789abcde/db",
        "/api/bundles/0123456789abcdef0123456789abcdef/report.md", "/api/bundles/x/report.txt",
        "/bundles/..%2f..%2fetc%2fpasswd", "/bundles/0123456789abcdef0123456789abcdef",
        "/etc/passwd", "/index.sqlite", "/analyses/"}) {
    INFO(path);
    auto r = c->Get(path);
    REQUIRE(r);
    CHECK(r->status == 404);
    CHECK_FALSE(r->body.empty());
    CHECK(r->body.find(data_str) == std::string::npos);
    CHECK(r->body.find("root:") == std::string::npos);
    CHECK(r->body.find("SQLite format") == std::string::npos);
  }
  auto put = c->Put("/api/bundles", kInstallLog, "text/plain");
  REQUIRE(put);
  CHECK(put->status == 405);
  auto post_other =
      c->Post("/api/bundles/0123456789abcdef0123456789abcdef", kInstallLog, "text/plain");
  REQUIRE(post_other);
  CHECK(post_other->status == 405);
}

TEST_CASE("hostile names and unreadable bundles", "[serve]") {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  Running run(base_config(data));
  auto c = run.client();
  const std::string data_str = fs::weakly_canonical(data).string();

  // binary bytes that are no archive: analysis fails with the reader's message, no server path
  std::string garbage(4096, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>((i * 131 + 7) & 0xff);
  auto r = upload(*c, garbage, "..%2F..%2Fevil%20name.tar.gz");
  REQUIRE(r);
  REQUIRE(r->status == 202);
  const std::string id = body_json(r).at("id");
  run.server().wait_idle();
  const json st = status_of(*c, id);
  CHECK(st.at("status") == "failed");
  CHECK(st.at("name") == "evil name.tar.gz");
  const std::string err = st.at("error");
  CHECK_FALSE(err.empty());
  CHECK(err.find(data_str) == std::string::npos);
  CHECK(err.find("/analyses/") == std::string::npos);
  CHECK_FALSE(st.contains("report"));
  // nothing outside --data: the temporary root holds only the data directory
  std::vector<fs::path> top;
  for (const auto& e : fs::directory_iterator(tmp.path())) top.push_back(e.path().filename());
  CHECK(top == std::vector<fs::path>{"data"});
  CHECK(fs::exists(data / "analyses" / id / "upload" / "evil_name.tar.gz"));

  auto rep = c->Get(("/api/bundles/" + id + "/report.md").c_str());
  REQUIRE(rep);
  CHECK(rep->status == 409);
  CHECK(rep->body.find(data_str) == std::string::npos);
  auto page = c->Get(("/bundles/" + id).c_str());
  REQUIRE(page);
  CHECK(page->status == 200);
  CHECK(page->body.find("failed") != std::string::npos);
  CHECK(page->body.find("evil name.tar.gz") != std::string::npos);
  CHECK(page->body.find(data_str) == std::string::npos);

  // markup in a name is shown as text
  auto xss = upload(*c, kTrainLog, "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E.log");
  REQUIRE(xss);
  REQUIRE(xss->status == 202);
  run.server().wait_idle();
  for (const char* path : {"/", "/bundles"}) {
    auto p = c->Get(path);
    REQUIRE(p);
    CHECK(p->body.find("<img src=x") == std::string::npos);
    CHECK(p->body.find("&lt;img src=x onerror=alert(1)&gt;.log") != std::string::npos);
  }

  // the same bytes again: a failed analysis is run again under the same id
  auto again = upload(*c, garbage, "garbage.bin");
  REQUIRE(again);
  CHECK(again->status == 202);
  CHECK(body_json(again).at("id") == id);
  run.server().wait_idle();
  CHECK(status_of(*c, id).at("status") == "failed");
  CHECK(status_of(*c, id).at("name") == "garbage.bin");
}

TEST_CASE("state survives a restart; interrupted analyses do not stay pending", "[serve]") {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  const std::string bundle = node_bundle(tmp.path());
  std::string done_id, interrupted_id, queued_id;
  {
    Config two = base_config(data);
    two.jobs = 2;  // two analyses at once, each into its own database
    Running run(two);
    auto c = run.client();
    auto r1 = upload(*c, bundle, "a2pod-n042.tar.gz");
    REQUIRE(r1);
    REQUIRE(r1->status == 202);
    done_id = body_json(r1).at("id");
    auto r2 = upload(*c, kInstallLog, "ascend_install.log");
    REQUIRE(r2);
    REQUIRE(r2->status == 202);
    interrupted_id = body_json(r2).at("id");
    auto r3 = upload(*c, kTrainLog, "train.log");
    REQUIRE(r3);
    REQUIRE(r3->status == 202);
    queued_id = body_json(r3).at("id");
    run.server().wait_idle();
  }
  // What a stop in the middle leaves behind: one analysis 'running', one never started, and a
  // partial upload.
  {
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open((data / "index.sqlite").c_str(), &h) == SQLITE_OK);
    const std::string sql =
        "UPDATE analyses SET status='running', finished_at=0 WHERE id='" + interrupted_id +
        "'; UPDATE analyses SET status='queued', finished_at=0 WHERE id='" + queued_id + "';";
    REQUIRE(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(h);
    std::ofstream(data / "tmp" / "upload-0123.part") << "partial";
  }
  Running run(base_config(data));
  const auto rec = run.server().recovery();
  CHECK(rec.interrupted == 1);
  CHECK(rec.requeued == 1);
  CHECK(rec.removed_partial_uploads == 1);
  CHECK(fs::is_empty(data / "tmp"));
  run.server().wait_idle();
  auto c = run.client();

  const json in = status_of(*c, interrupted_id);
  CHECK(in.at("status") == "failed");
  CHECK(in.at("error").get<std::string>().find("interrupted") != std::string::npos);
  const json q = status_of(*c, queued_id, false);
  CHECK(q.at("status") != "queued");
  CHECK(q.at("status") != "running");
  const json d = status_of(*c, done_id);
  CHECK(d.at("status") == "done");
  CHECK(d.at("report").at("bundle").at("sha256") == faultline::sha256_hex(bundle));
  auto md = c->Get(("/api/bundles/" + done_id + "/report.md").c_str());
  REQUIRE(md);
  CHECK(md->status == 200);
  CHECK(body_json(c->Get("/api/bundles")).at("count") == 3);
}

TEST_CASE("a full queue refuses uploads with 503", "[serve]") {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  Config cfg = base_config(data);
  cfg.max_queued = 0;
  Running run(cfg);
  auto c = run.client();
  auto r = upload(*c, kInstallLog, "ascend_install.log");
  REQUIRE(r);
  CHECK(r->status == 503);
  CHECK(r->get_header_value("Retry-After") == "60");
  CHECK(body_json(r).at("error").get<std::string>().find("try again") != std::string::npos);
  CHECK(fs::is_empty(data / "tmp"));
  CHECK(fs::is_empty(data / "analyses"));
}

// The analysis program as a wrapper around faultline that misbehaves for some bundles: "crash" in
// the bundle's name kills the analysis process with SIGKILL (as the out-of-memory killer or a
// crash would end it), "hang" makes it sleep forever; other bundles are analysed normally.
fs::path misbehaving_analyzer(const fs::path& dir) {
  const fs::path script = dir / "analyzer.sh";
  std::ofstream(script) << "#!/bin/sh\n"
                           "case \"$*\" in\n"
                           "  *crash*) echo 'faultline: about to crash' >&2; kill -9 $$ ;;\n"
                           "  *hang*) exec sleep 3600 ;;\n"
                           "esac\n"
                           "exec '" FAULTLINE_BINARY "' \"$@\"\n";
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

TEST_CASE("an analysis process that dies fails that analysis only; the server goes on",
          "[serve][isolation]") {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  Config cfg = base_config(data);
  cfg.analyzer = misbehaving_analyzer(tmp.path());
  Running run(cfg);
  auto c = run.client();

  auto r = upload(*c, kTrainLog, "crash.log");
  REQUIRE(r);
  REQUIRE(r->status == 202);
  const std::string crashed = body_json(r).at("id");
  run.server().wait_idle();
  const json st = status_of(*c, crashed);
  CHECK(st.at("status") == "failed");
  const std::string err = st.at("error");
  CHECK(err.find("the analysis process died (SIGKILL)") != std::string::npos);
  CHECK(err.find("about to crash") != std::string::npos);
  CHECK(err.find(fs::weakly_canonical(data).string()) == std::string::npos);
  auto page = c->Get(("/bundles/" + crashed).c_str());
  REQUIRE(page);
  CHECK(page->status == 200);
  CHECK(page->body.find("the analysis process died (SIGKILL)") != std::string::npos);

  // the next upload is analysed as usual, by the same server
  const std::string bundle = node_bundle(tmp.path());
  auto r2 = upload(*c, bundle, "a2pod-n042.tar.gz");
  REQUIRE(r2);
  REQUIRE(r2->status == 202);
  const std::string next = body_json(r2).at("id");
  run.server().wait_idle();
  const json done = status_of(*c, next);
  CHECK(done.at("status") == "done");
  CHECK(done.at("hosts") == json::array({"a2pod-n042"}));
  CHECK(done.at("report").at("bundle").at("path") == "a2pod-n042.tar.gz");
  auto md = c->Get(("/api/bundles/" + next + "/report.md").c_str());
  REQUIRE(md);
  CHECK(md->status == 200);
  CHECK(md->body.find("a2pod-n042") != std::string::npos);
}

TEST_CASE("an analysis past the time limit is stopped and marked failed", "[serve][isolation]") {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  Config cfg = base_config(data);
  cfg.analyzer = misbehaving_analyzer(tmp.path());
  cfg.analysis_timeout_s = 1;
  Running run(cfg);
  auto c = run.client();
  auto r = upload(*c, kTrainLog, "hang.log");
  REQUIRE(r);
  REQUIRE(r->status == 202);
  const std::string id = body_json(r).at("id");
  run.server().wait_idle();  // returns once the child is killed at the limit
  const json st = status_of(*c, id);
  CHECK(st.at("status") == "failed");
  CHECK(st.at("error") == "the analysis took longer than the limit of 1 s and was stopped");
  CHECK(body_json(c->Get("/api/bundles")).at("count") == 1);
}

#if !FL_ASAN  // AddressSanitizer reserves terabytes of address space: no RLIMIT_AS
// Whether this machine enforces RLIMIT_AS at all: qemu-user (the arm64 tests, docs/arm64.md)
// answers a guest's setrlimit(RLIMIT_AS) with success and applies nothing, as the limit would
// hit the emulator's own allocations. A child sets 24 MiB and tries to allocate 256 MiB.
static bool address_space_limit_enforced() {
  const pid_t pid = fork();
  if (pid == 0) {
    rlimit lim{24ULL << 20, 24ULL << 20};
    if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(2);
    void* p = std::malloc(256ULL << 20);
    _exit(p == nullptr ? 0 : 1);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return true;  // cannot tell: run the test
  return !(WIFEXITED(status) && WEXITSTATUS(status) == 1);
}

TEST_CASE("an analysis over the memory limit fails with a message; the server goes on",
          "[serve][isolation]") {
  if (!address_space_limit_enforced()) {
    WARN("RLIMIT_AS is not enforced here (e.g. under qemu-user): the memory limit cannot act");
    return;
  }
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  Config cfg = base_config(data);
  cfg.analysis_memory = 24ULL << 20;  // far below what faultline needs to start
  Running run(cfg);
  auto c = run.client();
  auto r = upload(*c, kTrainLog, "train.log");
  REQUIRE(r);
  REQUIRE(r->status == 202);
  const std::string id = body_json(r).at("id");
  run.server().wait_idle();
  const json st = status_of(*c, id);
  CHECK(st.at("status") == "failed");
  const std::string err = st.at("error");
  INFO(err);
  CHECK(err.find("memory") != std::string::npos);
  CHECK(err.find("24 MiB") != std::string::npos);
  CHECK(err.find(FAULTLINE_BINARY) == std::string::npos);  // no server path
  CHECK(c->Get("/api/bundles")->status == 200);
}
#endif

TEST_CASE("the analysis process gets the server's rules, cache and limits", "[serve][isolation]") {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  // a site pack with a signature of its own, on a seed 000 line
  const fs::path site = tmp.path() / "site";
  fs::create_directories(site / "signatures");
  std::ofstream(site / "signatures" / "site.yaml")
      << "family: site\n"
         "signatures:\n"
         "  - id: site.gotgo_malloc\n"
         "    title: Host memory allocation refused (site rule)\n"
         "    severity: error\n"
         "    patterns:\n"
         "      - 'Host mem gotgo malloc'\n"
         "    examples:\n"
         "      match:\n"
         "        - line: 'Host mem gotgo malloc, errstr=Invalid argument'\n"
         "      no_match:\n"
         "        - 'Host mem gotgo free'\n";
  Config cfg = base_config(data);
  cfg.analyze.rule_dirs = {site};
  cfg.analyze.limits.max_line_bytes = 30;  // the lines above are longer: cut, with a warning
  Running run(cfg);
  auto c = run.client();
  auto r = upload(*c, kTrainLog, "train.log");
  REQUIRE(r);
  REQUIRE(r->status == 202);
  const std::string id = body_json(r).at("id");
  run.server().wait_idle();
  const json st = status_of(*c, id);
  REQUIRE(st.at("status") == "done");
  CHECK(st.at("warnings").get<int>() > 0);  // --max-line-length reached the child
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2((data / "analyses" / id / "analysis.db").c_str(), &h,
                          SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(h, "SELECT count(*) FROM hits WHERE signature='site.gotgo_malloc'", -1,
                             &s, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  CHECK(sqlite3_column_int(s, 0) == 1);  // --rules reached the child
  sqlite3_finalize(s);
  sqlite3_close(h);
  // issue 36: the child's writer lock leaves nothing beside the finished database
  std::set<std::string> left;
  for (const auto& e : fs::directory_iterator(data / "analyses" / id))
    left.insert(e.path().filename().string());
  CHECK(left == std::set<std::string>{"analysis.db", "upload"});
  // the cache directory of the server, not the child's default
  bool cached = false;
  for (const auto& e : fs::directory_iterator(cfg.analyze.cache_dir))
    cached = cached || e.path().extension() == ".hsdb";
  CHECK(cached);
}
