// A fresh directory under $TMPDIR for one test, removed with everything in it at the end.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace faultline::test {

class TempDir {
 public:
  // prefix names the test area in the directory name; readable_by_others also lets another
  // user (a test that drops privileges) traverse it
  explicit TempDir(std::string_view prefix, bool readable_by_others = false) {
    namespace fs = std::filesystem;
    std::string tmpl = (fs::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp " + tmpl);
    path_ = tmpl;
    if (readable_by_others)
      fs::permissions(path_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// One directory for the whole test program, removed when it exits: the place for the per-test
// files of helpers that name them (`<root>/<name>`), so that no run leaves files in $TMPDIR.
inline const std::filesystem::path& process_temp_root(std::string_view prefix) {
  static const TempDir root(prefix);
  return root.path();
}

}  // namespace faultline::test
