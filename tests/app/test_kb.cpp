// The ascend-fd knowledge base as a fault pack (docs/faults.md): the import of the real
// kg-config.json (../shared/corpus/peer/kb, skipped when absent: it is never in the repository)
// writes a pack whose every code is a fault signature with the KB's own cause and suggestion;
// `--rules DIR` with it, and the knowledge base found in a site-packages layout, give fault
// findings on a bundle built from the codes' own substrings; a native fault and a KB code on the
// same line are one finding; the report names the pack.
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"
#include "faultline/app/app.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/report/report.hpp"

using namespace faultline;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const fs::path kKb =
    fs::path(FAULTLINE_SOURCE_DIR) / ".." / "shared" / "corpus" / "peer" / "kb" / "kg-config.json";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::map<std::string, std::string>> query(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  std::vector<std::map<std::string, std::string>> out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    std::map<std::string, std::string> r;
    for (int i = 0; i < sqlite3_column_count(s); ++i) {
      const auto* t = sqlite3_column_text(s, i);
      r[sqlite3_column_name(s, i)] = t ? reinterpret_cast<const char*>(t) : "";
    }
    out.push_back(std::move(r));
  }
  sqlite3_finalize(s);
  return out;
}

// the KB's own texts, as the import writes them (control characters as spaces, steps joined)
std::string clean(const std::string& s) {
  std::string o = s;
  for (char& c : o)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  const auto b = o.find_first_not_of(" \t");
  const auto e = o.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : o.substr(b, e - b + 1);
}
std::string suggestion_of(const json& attr) {
  std::string out;
  for (const auto& s : attr["suggestion_en"]) {
    const std::string t = clean(s.get<std::string>());
    if (t.empty()) continue;
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out;
}

// Train-log codes whose KB entry is one flat list of substrings and whose texts have no `{}`
// placeholder: the bundle line is the substrings joined by spaces.
struct Code {
  std::string code, line, cause, suggestion;
};
// The first n TrainLog codes with a line built from their substrings; with `native` set, only
// those that a built-in signature carries (`code: X` in the embedded packs) or only those none
// does.
std::vector<Code> train_log_codes(const json& kb, size_t n, std::optional<bool> native = {}) {
  std::string packs;
  for (const auto& f : embedded_rules())
    if (f.path.rfind("signatures/", 0) == 0) packs += f.text;
  std::vector<Code> out;
  for (const auto& [code, e] : kb["knowledge-repository"].items()) {
    if (e.value("source_file", "") != "TrainLog" || !e.contains("regex") ||
        !e["regex"].contains("in"))
      continue;
    const auto& in = e["regex"]["in"];
    if (!in.is_array() || in.empty() || !in[0].is_string()) continue;
    std::string line;
    bool ok = true;
    for (const auto& s : in) {
      const std::string t = s.get<std::string>();
      if (t.find_first_of("\n\r{}") != std::string::npos) ok = false;
      line += (line.empty() ? "" : " ") + t;
    }
    const auto& attr = e["attribute"];
    const std::string cause = clean(attr.value("description_en", ""));
    const std::string sugg = suggestion_of(attr);
    if (!ok || cause.empty() || sugg.empty() || cause.find_first_of("{}") != std::string::npos ||
        sugg.find_first_of("{}") != std::string::npos)
      continue;
    if (native && (packs.find("code: " + code + "\n") != std::string::npos) != *native) continue;
    out.push_back({code, line, cause, sugg});
    if (out.size() == n) break;
  }
  return out;
}

std::string id_of(const std::string& code) {
  std::string out = "faultdiag.";
  for (const char ch : code) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    out.push_back((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_');
  }
  return out;
}

// The faults of a bundle: finding -> fault JSON (with the summary and remediation).
std::map<std::string, json> faults(sqlite3* db) {
  std::map<std::string, json> out;
  for (const auto& r : query(
           db, "SELECT finding, fault, summary, remediation FROM findings WHERE kind = 'fault'")) {
    json j = json::parse(r.at("fault"));
    j["_summary"] = r.at("summary");
    j["_remediation"] = json::parse(r.at("remediation"));
    out[r.at("finding")] = j;
  }
  return out;
}

class EnvGuard {  // ctest runs every test with FAULTLINE_KB=none
 public:
  EnvGuard(const char* name, const char* value) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v, had_ = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~EnvGuard() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

// a one-node bundle analysed with o; returns the database
std::unique_ptr<store::Db> analyze(const fs::path& dir,
                                   const std::map<std::string, std::vector<std::string>>& files,
                                   app::Options o, int64_t* bundle_id) {
  const fs::path b = dir / "bundle";
  for (const auto& [p, lines] : files) {
    fs::create_directories((b / p).parent_path());
    std::ofstream out(b / p);
    for (const auto& l : lines) out << l << "\n";
  }
  o.cache_dir = dir / "cache";
  auto db = store::Db::open(dir / "case.db");
  const auto r = app::analyze(*db, b, o);
  REQUIRE(r.exit_code == 0);
  *bundle_id = r.bundle_id;
  return db;
}

}  // namespace

TEST_CASE(
    "the real ascend-fd knowledge base imports as fault signatures that pass their examples") {
  if (!fs::exists(kKb)) {
    WARN("skipped: " << kKb << " is absent");
    return;
  }
  const std::string text = slurp(kKb);
  const json kb = json::parse(text);
  const auto& repo = kb["knowledge-repository"];
  tag::ImportStats st;
  const std::string yaml = app::import_kb(text, "faultdiag", &st);
  CHECK(st.codes == static_cast<int>(repo.size()));
  CHECK(st.imported + st.skipped == st.codes);
  // every skipped code is named with its reason; they are codes the KB gives no line pattern
  REQUIRE(st.skipped_codes.size() == static_cast<size_t>(st.skipped));
  for (const auto& s : st.skipped_codes) {
    INFO(s);
    const std::string code = s.substr(0, s.find(':'));
    REQUIRE(repo.contains(code));
    CHECK(repo[code]["regex"].empty());
    CHECK(s.find("no line pattern") != std::string::npos);
  }
  CHECK(st.skipped <= 9);
  CHECK(st.aliased >= 4);     // the codes of rules/kb/ascend-fd.yaml
  CHECK(st.full_regex == 4);  // regex.regex entries
  CHECK(st.captures >= 6);    // attr_regex entries

  const auto rs = tag::load_signatures({{"signatures/faultdiag.yaml", yaml}});
  for (const auto& e : rs.errors) UNSCOPED_INFO(e);
  REQUIRE(rs.errors.empty());
  REQUIRE(rs.signatures.size() == static_cast<size_t>(st.imported));
  std::map<std::string, const tag::Signature*> by_code;
  for (const auto& s : rs.signatures) {
    INFO(s.id);
    REQUIRE(s.fault.present);
    CHECK(s.fault.kb == "ascend-fd");
    CHECK(!s.fault.code.empty());
    const bool alias = std::any_of(s.references.begin(), s.references.end(), [](const auto& r) {
      return r.find("native signature") != std::string::npos;
    });
    if (!alias) CHECK(!s.kinds.empty());  // every source_file has a kind mapping
    by_code[s.fault.code] = &s;
  }
  // the KB's own texts: cause = description_en, suggestion = suggestion_en
  int checked = 0;
  for (const auto& [code, e] : repo.items()) {
    if (!by_code.count(code)) continue;
    const auto& attr = e["attribute"];
    const std::string cause = clean(attr.value("description_en", ""));
    const std::string sugg = suggestion_of(attr);
    if (cause.find_first_of("{}") != std::string::npos ||
        sugg.find_first_of("{}") != std::string::npos || cause.empty() || sugg.empty())
      continue;
    INFO(code);
    CHECK(by_code[code]->fault.cause == cause);
    CHECK(by_code[code]->fault.suggestion == sugg);
    CHECK(by_code[code]->title == clean(attr.value("cause_en", "")));
    ++checked;
  }
  CHECK(checked > 500);
  // source kinds of the sources without a faultline kind of their own
  for (const auto& [code, e] : repo.items()) {
    if (!by_code.count(code)) continue;
    const std::string src = e.value("source_file", "");
    const auto& k = by_code[code]->kinds;
    INFO(code << " " << src);
    if (src == "MindIE" || src == "PyMotor_vLLM_Log")
      CHECK(k == std::vector<std::string>{"train_log"});
    if (src == "BMCLogDumpLog") CHECK(k == std::vector<std::string>{"text", "syslog"});
    if (src == "OS-vmcore-dmesg") CHECK(k == std::vector<std::string>{"dmesg"});
  }
  // `rule` edges are causes: 0x40F84E00 (heartbeat lost) causes AISW_CANN_DRV_PCIE_018
  REQUIRE(by_code.count("0x40F84E00"));
  const auto& hb = *by_code["0x40F84E00"];
  CHECK(std::find(hb.causes.begin(), hb.causes.end(), "faultdiag.aisw_cann_drv_pcie_018") !=
        hb.causes.end());
  CHECK(hb.capture.find("(?P<source_device>") != std::string::npos);
  // a code without a line pattern takes the native counterpart's patterns
  REQUIRE(by_code.count("Comp_Network_Custom_03"));
  const app::Rules native = app::load_rules({});
  const auto nh =
      std::find_if(native.signatures.signatures.begin(), native.signatures.signatures.end(),
                   [](const auto& x) { return x.id == "hccn.net_health_fault"; });
  REQUIRE(nh != native.signatures.signatures.end());
  CHECK(by_code["Comp_Network_Custom_03"]->patterns == nh->patterns);
  CHECK(by_code["Comp_Network_Custom_03"]->kinds == nh->kinds);

  std::string err;
  const auto engine = tag::Engine::build(rs, {}, &err);
  REQUIRE(engine);
  const auto rep = tag::run_examples(rs, *engine);
  INFO(rep.text.substr(0, 4000));
  CHECK(rep.failures == 0);
  CHECK(rep.checked >= 2 * st.imported);
}

TEST_CASE("--rules DIR of an imported KB and the found KB give fault findings with KB texts") {
  if (!fs::exists(kKb)) {
    WARN("skipped: " << kKb << " is absent");
    return;
  }
  const json kb = json::parse(slurp(kKb));
  // three codes a native signature also reads (the KB code is named inside the native fault)
  // and three none does (a KB finding of its own)
  auto codes = train_log_codes(kb, 3, true);
  for (auto& c : train_log_codes(kb, 3, false)) codes.push_back(std::move(c));
  REQUIRE(codes.size() == 6);
  std::vector<std::string> lines;
  for (const auto& c : codes) lines.push_back(c.line);

  auto check = [&](sqlite3* db) {
    const auto f = faults(db);
    int own = 0;
    for (const auto& c : codes) {
      INFO(c.code << ": " << c.line);
      const std::string id = "fault." + id_of(c.code);
      if (f.count(id)) {  // a finding of its own, with the KB's cause and suggestion
        const json& j = f.at(id);
        CHECK(j["code"] == c.code);
        CHECK(j["pack"] == "ascend-fd");
        CHECK(j["cause"] == c.cause);
        CHECK(j["suggestion"] == c.suggestion);
        CHECK(j["_summary"].get<std::string>().rfind(c.cause, 0) == 0);
        CHECK(j["_remediation"][0] == c.suggestion);
        ++own;
        continue;
      }
      // else named inside the native fault of the same line
      bool inside = false;
      for (const auto& [fid, j] : f)
        if (j.contains("kb"))
          for (const auto& k : j["kb"])
            if (k["code"] == c.code && k["suggestion"] == c.suggestion) inside = true;
      CHECK(inside);
    }
    CHECK(own > 0);
  };

  SECTION("rules import-faultdiag -o DIR, then analyze --rules DIR") {
    test::TempDir t("faultline-kb");
    const fs::path dir = t.path() / "kb-rules";
    const std::string cmd = "'" FAULTLINE_BINARY "' rules import-faultdiag '" + kKb.string() +
                            "' -o '" + dir.string() + "' 2> '" + (t.path() / "err").string() + "'";
    const int rc = std::system(cmd.c_str());
    REQUIRE(WIFEXITED(rc));
    REQUIRE(WEXITSTATUS(rc) == 0);
    const std::string err = slurp(t.path() / "err");
    INFO(err);
    CHECK(err.find("imported ") != std::string::npos);
    CHECK(err.find("use it with --rules") != std::string::npos);
    REQUIRE(fs::is_regular_file(dir / "signatures" / "faultdiag.yaml"));
    app::Options o;
    o.rule_dirs = {dir};
    int64_t id = 0;
    auto db = analyze(t.path(), {{"train.log", lines}}, o, &id);
    check(db->handle());
    const std::string j = report::render_bundle(db->handle(), id, report::Format::json);
    const json r = json::parse(j);
    REQUIRE(r.contains("knowledge_base"));
    CHECK(r["knowledge_base"]["how"] == "--rules");
    CHECK(r["knowledge_base"]["codes"].get<int>() > 1000);
  }
  SECTION("the KB of an installed ascend_fd package is found by itself") {
    test::TempDir t("faultline-kb");
    const fs::path site = t.path() / "lib" / "python3.11" / "site-packages";
    fs::create_directories(site / "ascend_fd" / "configuration");
    fs::copy_file(kKb, site / "ascend_fd" / "configuration" / "kg-config.json");
    EnvGuard unset("FAULTLINE_KB", nullptr);
    EnvGuard path("FAULTLINE_KB_PATH", site.c_str());
    CHECK(app::find_kb() == site / "ascend_fd" / "configuration" / "kg-config.json");
    int64_t id = 0;
    auto db = analyze(t.path(), {{"train.log", lines}}, app::Options{}, &id);
    check(db->handle());
    const std::string md = report::render_bundle(db->handle(), id, report::Format::md);
    CHECK(md.find("| knowledge base | ascend-fd") != std::string::npos);
    const json r = json::parse(report::render_bundle(db->handle(), id, report::Format::json));
    REQUIRE(r.contains("knowledge_base"));
    CHECK(r["knowledge_base"]["how"] == "found");
    CHECK(r["knowledge_base"]["file"] ==
          (site / "ascend_fd" / "configuration" / "kg-config.json").string());
    CHECK(r["knowledge_base"]["sha256"].get<std::string>().size() == 64);
    // --no-kb: the same bundle without the knowledge base
    test::TempDir t2("faultline-kb");
    app::Options no;
    no.no_kb = true;
    auto db2 = analyze(t2.path(), {{"train.log", lines}}, no, &id);
    for (const auto& [fid, j] : faults(db2->handle())) {
      INFO(fid);
      CHECK(!j.contains("pack"));
      CHECK(!j.contains("kb"));
    }
    const json r2 = json::parse(report::render_bundle(db2->handle(), id, report::Format::json));
    CHECK(!r2.contains("knowledge_base"));
  }
}

TEST_CASE("a native fault and a KB code on the same line are one finding naming both") {
  if (!fs::exists(kKb)) {
    WARN("skipped: " << kKb << " is absent");
    return;
  }
  // the host driver's heartbeat loss (log-formats.md §4.2, the example line of
  // driver.heartbeat_lost): native driver.heartbeat_lost and KB code 0x40F84E00
  test::TempDir t("faultline-kb");
  app::Options o;
  o.kb_file = kKb;
  int64_t id = 0;
  auto db = analyze(
      t.path(),
      {{"var/log/messages",
        {"Aug  1 08:38:31 localhost kernel: [ 1197.584409] [ascend] [ERROR] [drv_soft_fault] "
         "[heart_beat_judge 318] <kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; "
         "new_count=1104; lost_count=4; total_lost_count=4; total_10s_count=0; total_15s_count "
         "0)."}}},
      o, &id);
  const auto f = faults(db->handle());
  REQUIRE(f.count("fault.driver.heartbeat_lost") == 1);
  CHECK(f.count("fault.faultdiag.0x40f84e00") == 0);  // not a second finding
  const json& hb = f.at("fault.driver.heartbeat_lost");
  REQUIRE(hb.contains("kb"));
  REQUIRE(hb["kb"].size() == 1);
  CHECK(hb["kb"][0]["code"] == "0x40F84E00");
  CHECK(hb["kb"][0]["signature"] == "faultdiag.0x40f84e00");
  CHECK(hb["kb"][0]["count"] == 1);
  CHECK(hb["_summary"].get<std::string>().find("ascend-fd 0x40F84E00") != std::string::npos);
  REQUIRE(hb["_remediation"].size() == 2);
  CHECK(hb["_remediation"][1].get<std::string>().rfind("ascend-fd 0x40F84E00: ", 0) == 0);
  const std::string md = report::render_bundle(db->handle(), id, report::Format::md);
  CHECK(md.find("`0x40F84E00`") != std::string::npos);
  const json r = json::parse(report::render_bundle(db->handle(), id, report::Format::json));
  CHECK(r["knowledge_base"]["how"] == "--kb");
}

TEST_CASE("an explicit --kb that is not a knowledge base stops the run; a found one does not") {
  test::TempDir t("faultline-kb");
  const fs::path bad = t.path() / "kg-config.json";
  std::ofstream(bad) << "{\"not\": \"a knowledge base\"}";
  app::Options o;
  o.kb_file = bad;
  int64_t id = 0;
  const fs::path b = t.path() / "bundle";
  fs::create_directories(b);
  std::ofstream(b / "train.log") << "epoch 1 loss: 0.5\n";
  auto db = store::Db::open(t.path() / "a.db");
  CHECK_THROWS_WITH(app::analyze(*db, b, o),
                    Catch::Contains("kg-config.json") && Catch::Contains("knowledge-repository"));
  // found in a site-packages layout: a warning, and the analysis goes on without it
  const fs::path site = t.path() / "site";
  fs::create_directories(site / "ascend_fd" / "configuration");
  fs::copy_file(bad, site / "ascend_fd" / "configuration" / "kg-config.json");
  EnvGuard unset("FAULTLINE_KB", nullptr);
  EnvGuard path("FAULTLINE_KB_PATH", site.c_str());
  auto db2 = store::Db::open(t.path() / "b.db");
  app::Options found;
  found.cache_dir = t.path() / "cache";
  const auto r = app::analyze(*db2, b, found);
  CHECK(r.exit_code == 0);
  (void)id;
}

TEST_CASE("mask_line masks numbers, times, hex, addresses, paths and ids, not words or codes") {
  // a runtime line of samples/seed-driver-reboot-pending (plog format)
  CHECK(report::mask_line("[ERROR] RUNTIME(48213,python):2026-05-28-10:20:12.024.172 "
                          "[device.cc:421]48213 Init:[INIT][DEFAULT]Failed to alloc device memory "
                          "for runtime, device_id=0, retCode=0x7020010.") ==
        "[ERROR] RUNTIME(<n>,python):<n> [device.cc:<n>]<n> Init:[INIT][DEFAULT]Failed to alloc "
        "device memory for runtime, device_id=<n>, retCode=<hex>.");
  CHECK(report::mask_line("connect to 10.0.0.12:60000 failed, see /var/log/npu/slog/x.log  "
                          "ERR01002 rank3 id 3fa85f64-5717-4562-b3fc-2c963f66afa6") ==
        "connect to <ip> failed, see <path> ERR01002 rank<n> id <hex>");
}

TEST_CASE("unrecognised errors of a sample become templates, and rules suggest drafts them") {
  test::TempDir t("faultline-unknown");
  app::Options o;
  o.no_kb = true;
  o.cache_dir = t.path() / "cache";
  const fs::path db_path = t.path() / "case.db";
  int64_t id = 0;
  {
    auto db = store::Db::open(db_path);
    const auto r = app::analyze(
        *db, fs::path(FAULTLINE_SOURCE_DIR) / "samples" / "seed-driver-reboot-pending", o);
    REQUIRE(r.exit_code == 0);
    id = r.bundle_id;
    const auto u = report::unrecognised_errors(db->handle(), id);
    REQUIRE(!u.empty());
    // the 8 ranks' runtime init failures are one template, with the 8 lines
    const auto it = std::find_if(u.begin(), u.end(), [](const report::UnknownTemplate& x) {
      return x.text.find("Failed to alloc device memory for runtime, device_id=<n>") !=
             std::string::npos;
    });
    REQUIRE(it != u.end());
    CHECK(it->count == 8);
    CHECK(it->kind == "plog");
    CHECK(it->examples.size() == 3);
    CHECK(it->id.size() == 11);
    CHECK(it->first_ns.has_value());
    // earliest first
    for (size_t i = 1; i < u.size(); ++i)
      if (u[i].first_ns && u[i - 1].first_ns) CHECK(*u[i - 1].first_ns <= *u[i].first_ns);
    const std::string md = report::render_bundle(db->handle(), id, report::Format::md);
    CHECK(md.find("## Unrecognised errors") != std::string::npos);
    CHECK(md.find(it->id) != std::string::npos);
    const json j = json::parse(report::render_bundle(db->handle(), id, report::Format::json));
    REQUIRE(j.contains("unrecognised_errors"));
    CHECK(j["unrecognised_errors"].size() == u.size());

    // rules suggest: a draft pack that loads and passes its own (real) examples
    const fs::path out = t.path() / "draft.yaml";
    const std::string cmd = "'" FAULTLINE_BINARY "' rules suggest --db '" + db_path.string() +
                            "' " + it->id + " > '" + out.string() + "' 2> '" +
                            (t.path() / "err").string() + "'";
    db.reset();
    const int rc = std::system(cmd.c_str());
    REQUIRE(WIFEXITED(rc));
    CHECK(WEXITSTATUS(rc) == 0);
    const std::string err = slurp(t.path() / "err");
    INFO(err);
    CHECK(err.find("1 draft signature(s); their examples: 4 passed, 0 failed") !=
          std::string::npos);
    const auto rs = tag::load_signatures({{"signatures/draft.yaml", slurp(out)}});
    for (const auto& e : rs.errors) UNSCOPED_INFO(e);
    REQUIRE(rs.errors.empty());
    REQUIRE(rs.signatures.size() == 1);
    const auto& s = rs.signatures.front();
    CHECK(s.kinds == std::vector<std::string>{"plog"});
    CHECK(s.match.size() == 3);
    CHECK(s.match.front().seen.find("seed-driver-reboot-pending:") == 0);
    std::string e2;
    const auto engine = tag::Engine::build(rs, {}, &e2);
    REQUIRE(engine);
    CHECK(tag::run_examples(rs, *engine).failures == 0);
  }
  // a healthy sample has none
  auto db = store::Db::open(t.path() / "healthy.db");
  const auto r = app::analyze(*db, fs::path(FAULTLINE_SOURCE_DIR) / "samples" / "healthy-node", o);
  REQUIRE(r.exit_code == 0);
  CHECK(report::unrecognised_errors(db->handle(), r.bundle_id).empty());
}
