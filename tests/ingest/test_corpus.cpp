// End to end on the real asys bundle of corpus/real (skipped when the corpus is absent).
#include <catch2/catch.hpp>

#include "faultline/core/sha256.hpp"
#include "helpers.hpp"

using namespace fltest;

namespace {

const fs::path kAsys =
    fs::path(FAULTLINE_CORPUS_DIR) / "asys-aicerror" / "asys_output_20250508095626087";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// members -> (bytes, lines counted by LineChunker)
class Lines : public Visitor {
 public:
  std::map<std::string, std::pair<std::string, uint32_t>> got;
  std::vector<Warning> warnings;
  LineChunker chunker{1U << 20};
  void member(const MemberInfo& info, MemberReader& r) override {
    auto& [text, lines] = got[info.path];
    lines = chunker
                .run(r,
                     [&](std::string_view c, uint32_t, uint64_t) {
                       text += c;
                       return true;
                     })
                .lines;
  }
  void warning(const Warning& w) override { warnings.push_back(w); }
};

}  // namespace

TEST_CASE("the real asys bundle reads the same as a directory and as a tar.zst") {
  if (!fs::is_directory(kAsys)) {
    WARN("corpus absent (" << kAsys.string() << "): skipped");
    return;
  }
  Lines dir;
  const Result rd = walk(kAsys, {}, dir);
  REQUIRE(rd.status == Status::ok);
  CHECK(dir.warnings.empty());
  REQUIRE(dir.got.size() == 28);
  // line counts of log-formats.md §2.3 (wc -l)
  CHECK(dir.got["dfx/log/host/driver/host_kernel.log"].second == 3161);
  CHECK(dir.got["dfx/log/host/install/ascend_install.log"].second == 52404);
  CHECK(dir.got["dfx/log/host/message/syslog"].second == 4201);
  CHECK(dir.got["dfx/log/host/cann/run/plog/plog-155320_20250508095608125.log"].second == 367);
  CHECK(dir.got["dfx/log/device/dev-os-0/system/run/event/event_20250507195454617.log"].second ==
        53);
  // a JSON file without a final newline: its last line still counts
  CHECK(dir.got["dfx/ops/vendor_config/config.ini"].second == 1);

  std::vector<Entry> entries;
  for (const auto& [p, v] : dir.got) {
    CHECK(v.first == slurp(kAsys / p));
    entries.push_back({"asys_output_20250508095626087/" + p, v.first, Entry::file, {}});
  }
  const std::string zst = make(entries, Format::gnutar, Filter::zstd);
  Lines tar;
  const Result rt = walk_memory(zst, "asys.tar.zst", {}, tar);
  REQUIRE(rt.status == Status::ok);
  CHECK(tar.warnings.empty());
  CHECK(rt.bytes == rd.bytes);
  CHECK(rt.members == rd.members);
  for (const auto& [p, v] : dir.got) {
    const auto it = tar.got.find("asys_output_20250508095626087/" + p);
    REQUIRE(it != tar.got.end());
    CHECK(it->second == v);
  }
}
