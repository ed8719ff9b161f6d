// Test helpers: archives built at test time with libarchive's write API, a recording visitor,
// temporary directories, and real-format lines copied from corpus/real (asys-aicerror bundle).
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/temp_dir.hpp"
#include "faultline/ingest/ingest.hpp"

namespace fltest {

namespace fs = std::filesystem;
using namespace faultline;
using namespace faultline::ingest;

// --- real lines (verbatim from corpus/real/asys-aicerror/asys_output_20250508095626087) -------

inline const std::string kPlog =
    "[INFO] ATRACE(155320,python3):2025-05-08-09:56:08.124.468 [trace_attr.c:190](tid:155320) "
    "attr init success, timeout=0ms.\n"
    "[INFO] ATRACE(155320,python3):2025-05-08-09:56:08.124.569 [trace_recorder.c:52](tid:155320) "
    "get path by env ASCEND_WORK_PATH: ./new\n"
    "[INFO] TDT(155320,python3):2025-05-08-09:56:08.144.746 [package_worker_factory.cpp:40]"
    "[RegisterPackageWorkerCreator][tid:155320] Register[4] package worker creator success\n"
    "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.522.534 [stars_engine.cc:1553]155320 "
    "ProcLogicCqReport:[INIT][DEFAULT]Task run failed, device_id=0, stream_id=2, task_id=1, "
    "sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0\n"
    "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.526.744 [device_error_proc.cc:1635]155320 "
    "ProcessStarsCoreErrorInfo:[INIT][DEFAULT]report error module_type=5, module_name=EZ9999\n";

inline const std::string kHostKernel =
    "[2025-05-07-19:54:27.371626] [ascend] [uda] [INFO] [uda_host_ns_init_work 125] "
    "<kworker/4:1:231:231:4> Ns info. (ns=ffff968e9f409780; init.task ns=ffff968e9f409780)\n"
    "[2025-05-07-19:54:27.376037] [ascend] [vmng_dev] [INFO] [vmngh_vpc_init_module 504] "
    "<systemd-udevd:694> Init vmngh vpc module finish.\n"
    "[2025-05-07-19:54:27.400027] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
    "<systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"dc\", "
    "driver_name=\"devdrv_device_driver\")\n"
    "[2025-05-07-19:54:27.566284] [ascend] [devmm] [WARN] [devmm_read_line 212] "
    "<systemd-udevd:694,694> File filestring not right. (buf_len=256)\n"
    "[2025-05-08-02:28:14.715953] [ascend] [devdrv] [WARN] [devdrv_manager_device_ready 4476] "
    "<kworker/12:2:3753,3753> Device is not ready. (dev_id=100)\n";

inline const std::string kSyslog =
    "May  8 00:00:01 ubuntu78 systemd[1]: logrotate.service: Succeeded.\n"
    "May  8 00:00:01 ubuntu78 systemd[1]: Finished Rotate log files.\n"
    "May  8 02:28:01 ubuntu78 kernel: [23645.213483] pci 0000:03:00.4: [19e5:d802] type 00 class "
    "0x120000\n"
    "May  8 02:28:01 ubuntu78 kernel: [23645.213497] pci 0000:03:00.4: enabling Extended Tags\n"
    "May  8 02:28:01 ubuntu78 kernel: [23645.213796] devdrv_device_driver 0000:03:00.4: enabling "
    "device (0000 -> 0002)\n";

inline const std::string kInstall =
    "[Firmware] [2025-03-29 04:10:34] [INFO]Start time: 2025-03-29 04:10:34\n"
    "[Firmware] [2025-03-29 04:10:34] [INFO]UserCommand: Ascend910B-firmware-7.7.t15.0.b092.run "
    "--quiet --full\n"
    "[Firmware] [2025-03-29 04:10:34] [INFO]base version is 7.7.T15.0.B092.\n"
    "[Firmware] [2025-03-29 04:10:34] [INFO]vmCheck success.\n"
    "[Firmware] [2025-03-29 04:10:35] [INFO]Firmware flash version check success. "
    "package_version=235, max_firmware_version=0\n";

// The real asys layout (log-formats.md §2.3), a few real lines in each file.
inline std::map<std::string, std::string> asys_files() {
  const std::string root = "asys_output_20250508095626087/dfx/log/host/";
  return {
      {root + "cann/run/plog/plog-155320_20250508095608125.log", kPlog},
      {root + "driver/host_kernel.log", kHostKernel},
      {root + "message/syslog", kSyslog},
      {root + "install/ascend_install.log", kInstall},
  };
}

// Real lines repeated with a counter, so that members are large and compress like logs do.
inline std::string many_lines(const std::string& lines, size_t bytes, uint32_t seed = 1) {
  std::string out;
  std::mt19937 rng(seed);
  size_t n = 0;
  while (out.size() < bytes) {
    out += "#" + std::to_string(n++) + "-" + std::to_string(rng()) + " ";
    const size_t start = (n * 97) % lines.size();
    const size_t eol = lines.find('\n', start);
    out += lines.substr(start, eol - start + 1);
  }
  return out;
}

// --- archives -------------------------------------------------------------------------------

struct Entry {
  enum Type { file, dir, symlink, hardlink, fifo, chardev };
  std::string name;
  std::string data;
  Type type = file;
  std::string link;  // symlink / hardlink target
};

enum class Format { pax, gnutar, ustar, zip, cpio, sevenzip, zip_encrypted };
enum class Filter { none, gzip, zstd, xz, bzip2 };

inline la_ssize_t append_cb(struct archive*, void* ctx, const void* buf, size_t n) {
  static_cast<std::string*>(ctx)->append(static_cast<const char*>(buf), n);
  return static_cast<la_ssize_t>(n);
}

inline void check(int r, struct archive* a, const char* what) {
  if (r < ARCHIVE_WARN)
    throw std::runtime_error(std::string(what) + ": " +
                             (archive_error_string(a) ? archive_error_string(a) : "?"));
}

inline struct archive* writer(Format f, Filter flt, std::string* out) {
  struct archive* a = archive_write_new();
  switch (f) {
    case Format::pax:
      check(archive_write_set_format_pax_restricted(a), a, "pax");
      break;
    case Format::gnutar:
      check(archive_write_set_format_gnutar(a), a, "gnutar");
      break;
    case Format::ustar:
      check(archive_write_set_format_ustar(a), a, "ustar");
      break;
    case Format::zip:
      check(archive_write_set_format_zip(a), a, "zip");
      break;
    case Format::cpio:
      check(archive_write_set_format_cpio_newc(a), a, "cpio");
      break;
    case Format::sevenzip:
      check(archive_write_set_format_7zip(a), a, "7zip");
      break;
    case Format::zip_encrypted:
      check(archive_write_set_format_zip(a), a, "zip");
      check(archive_write_set_options(a, "zip:encryption=zipcrypt"), a, "encryption");
      check(archive_write_set_passphrase(a, "faultline"), a, "passphrase");
      break;
  }
  switch (flt) {
    case Filter::none:
      break;
    case Filter::gzip:
      check(archive_write_add_filter_gzip(a), a, "gzip");
      break;
    case Filter::zstd:
      check(archive_write_add_filter_zstd(a), a, "zstd");
      break;
    case Filter::xz:
      check(archive_write_add_filter_xz(a), a, "xz");
      check(archive_write_set_filter_option(a, "xz", "compression-level", "1"), a, "xz level");
      break;
    case Filter::bzip2:
      check(archive_write_add_filter_bzip2(a), a, "bzip2");
      break;
  }
  archive_write_set_bytes_in_last_block(a, 1);
  check(archive_write_open(a, out, nullptr, append_cb, nullptr), a, "open");
  return a;
}

inline void add(struct archive* a, const Entry& e) {
  struct archive_entry* en = archive_entry_new();
  archive_entry_copy_pathname(en, e.name.c_str());
  archive_entry_set_mtime(en, 1746669368, 0);  // 2025-05-08 01:56:08 UTC
  switch (e.type) {
    case Entry::file:
      archive_entry_set_filetype(en, AE_IFREG);
      archive_entry_set_perm(en, 0644);
      archive_entry_set_size(en, static_cast<la_int64_t>(e.data.size()));
      break;
    case Entry::dir:
      archive_entry_set_filetype(en, AE_IFDIR);
      archive_entry_set_perm(en, 0755);
      break;
    case Entry::symlink:
      archive_entry_set_filetype(en, AE_IFLNK);
      archive_entry_set_perm(en, 0777);
      archive_entry_copy_symlink(en, e.link.c_str());
      break;
    case Entry::hardlink:
      archive_entry_set_filetype(en, AE_IFREG);
      archive_entry_set_perm(en, 0644);
      archive_entry_copy_hardlink(en, e.link.c_str());
      archive_entry_set_size(en, 0);
      break;
    case Entry::fifo:
      archive_entry_set_filetype(en, AE_IFIFO);
      archive_entry_set_perm(en, 0644);
      break;
    case Entry::chardev:
      archive_entry_set_filetype(en, AE_IFCHR);
      archive_entry_set_perm(en, 0644);
      archive_entry_set_rdev(en, 0x0105);
      break;
  }
  check(archive_write_header(a, en), a, "header");
  if (e.type == Entry::file && !e.data.empty()) {
    const la_ssize_t w = archive_write_data(a, e.data.data(), e.data.size());
    if (w < 0) check(static_cast<int>(w), a, "data");
  }
  archive_entry_free(en);
}

inline void finish(struct archive* a) {
  check(archive_write_close(a), a, "close");
  archive_write_free(a);
}

inline std::string make(const std::vector<Entry>& entries, Format f, Filter flt = Filter::none) {
  std::string out;
  struct archive* a = writer(f, flt, &out);
  for (const auto& e : entries) add(a, e);
  finish(a);
  return out;
}

inline std::vector<Entry> files_of(const std::map<std::string, std::string>& m,
                                   const std::string& prefix = "") {
  std::vector<Entry> v;
  for (const auto& [k, d] : m) v.push_back({prefix + k, d, Entry::file, {}});
  return v;
}

// A single compressed file (gzip/zstd/xz/bzip2 of one stream) through libarchive's raw writer.
inline std::string compress_single(const std::string& data, Filter flt) {
  std::string out;
  struct archive* a = archive_write_new();
  check(archive_write_set_format_raw(a), a, "raw");
  switch (flt) {
    case Filter::gzip:
      check(archive_write_add_filter_gzip(a), a, "gzip");
      break;
    case Filter::zstd:
      check(archive_write_add_filter_zstd(a), a, "zstd");
      break;
    case Filter::xz:
      check(archive_write_add_filter_xz(a), a, "xz");
      break;
    case Filter::bzip2:
      check(archive_write_add_filter_bzip2(a), a, "bzip2");
      break;
    case Filter::none:
      break;
  }
  archive_write_set_bytes_in_last_block(a, 1);
  check(archive_write_open(a, &out, nullptr, append_cb, nullptr), a, "open");
  struct archive_entry* en = archive_entry_new();
  archive_entry_set_filetype(en, AE_IFREG);
  archive_entry_copy_pathname(en, "data");
  check(archive_write_header(a, en), a, "header");
  if (!data.empty()) archive_write_data(a, data.data(), data.size());
  archive_entry_free(en);
  finish(a);
  return out;
}

// --- visitor --------------------------------------------------------------------------------

struct Got {
  MemberInfo info;
  std::string data;
  uint64_t bytes = 0;
  bool truncated = false;
};

class Collect : public Visitor {
 public:
  bool keep_data = true;
  uint64_t read_at_most = UINT64_MAX;  // per member
  std::vector<Got> members;
  std::vector<Warning> warnings;

  void member(const MemberInfo& info, MemberReader& r) override {
    Got g;
    g.info = info;
    std::vector<char> buf(1 << 20);
    for (;;) {
      const uint64_t room = read_at_most - g.bytes;
      if (room == 0) break;
      const size_t n =
          r.read(buf.data(), static_cast<size_t>(std::min<uint64_t>(buf.size(), room)));
      if (n == 0) break;
      g.bytes += n;
      if (keep_data) g.data.append(buf.data(), n);
    }
    g.truncated = r.truncated();
    members.push_back(std::move(g));
  }
  void warning(const Warning& w) override { warnings.push_back(w); }

  [[nodiscard]] const Got* find(std::string_view path) const {
    for (const auto& m : members)
      if (m.info.path == path) return &m;
    return nullptr;
  }
  // warnings whose message starts with "[code]" (and whose member contains `member`)
  [[nodiscard]] size_t count(std::string_view code, std::string_view member = {}) const {
    const std::string tag = "[" + std::string(code) + "]";
    return static_cast<size_t>(
        std::count_if(warnings.begin(), warnings.end(), [&](const Warning& w) {
          return w.message.rfind(tag, 0) == 0 && w.member.find(member) != std::string::npos;
        }));
  }
  [[nodiscard]] std::string dump() const {
    std::string s;
    for (const auto& w : warnings) s += "  warning {" + w.member + "} " + w.message + "\n";
    for (const auto& m : members)
      s += "  member " + m.info.path + " (" + std::to_string(m.bytes) + " bytes" +
           (m.truncated ? ", truncated" : "") + ")\n";
    return s;
  }
  // path -> content, with the nested-archive part of the path removed
  [[nodiscard]] std::map<std::string, std::string> by_inner_path() const {
    std::map<std::string, std::string> m;
    for (const auto& g : members) {
      const size_t p = g.info.path.rfind("!/");
      m[p == std::string::npos ? g.info.path : g.info.path.substr(p + 2)] = g.data;
    }
    return m;
  }
};

// --- files ----------------------------------------------------------------------------------

// the shared temporary directory, named for this test area
class TempDir : public faultline::test::TempDir {
 public:
  TempDir() : faultline::test::TempDir("faultline-ingest") {}
};

inline void write_file(const fs::path& p, std::string_view data) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!f) throw std::runtime_error("write " + p.string());
}

inline std::vector<std::string> tree(const fs::path& root) {
  std::vector<std::string> v;
  for (const auto& e : fs::recursive_directory_iterator(root))
    v.push_back(e.path().lexically_relative(root).string());
  std::sort(v.begin(), v.end());
  return v;
}

inline long max_rss_kb() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

}  // namespace fltest
