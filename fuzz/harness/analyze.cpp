// Harness: the whole pipeline, app::analyze on a bundle file (ingest, classify, composite files,
// parsers, signatures with captures, store, clocks, correlator), as the CLI runs it.
// Input: byte 0 picks the bundle's file name (as in the ingest harness), the rest is the file.
// Each input is analysed into a fresh in-memory database; the compiled rule database is cached in
// a temporary directory so that only the first run compiles it.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common.hpp"
#include "faultline/app/app.hpp"
#include "faultline/store/store.hpp"

namespace {

using namespace faultline;
namespace fs = std::filesystem;

constexpr std::string_view kNames[] = {
    "bundle.tar", "bundle.tar.gz", "bundle.tar.zst", "bundle.zip",  "syslog.2.gz",
    "bundle",     "x.lzma",        "bundle.tgz",     "bundle.cpio", "messages.xz",
};

// A private temporary directory, removed at exit.
struct WorkDir {
  fs::path path;
  WorkDir()
      : path(fs::temp_directory_path() / ("faultline-fuzz-analyze-" + std::to_string(getpid()))) {
    fs::create_directories(path / "cache");
  }
  ~WorkDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
};

const fs::path& workdir() {
  static const WorkDir d;
  return d.path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const fs::path file = workdir() / std::string(kNames[data[0] % std::size(kNames)]);
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  app::Options o;
  o.cache_dir = workdir() / "cache";
  o.limits.max_members = 500;
  o.limits.max_member_bytes = 1 << 20;
  o.limits.max_total_bytes = 16 << 20;
  o.limits.ratio_grace_bytes = 1 << 20;
  o.limits.max_line_bytes = 4096;
  o.small_member_bytes = 4096;
  o.keep_raw = (data[0] & 0x80) != 0;
  auto db = store::Db::open(":memory:");
  const app::Outcome out = app::analyze(*db, file, o);
  if (out.exit_code != 0) FUZZ_CHECK(!out.error.empty(), "exit code without an error message");
  fs::remove(file);
  return 0;
}
