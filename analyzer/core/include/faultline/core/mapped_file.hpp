// A whole file mapped read-only (the rule cache's files: compiled signature database, cached
// rule forms). Its pages come from the page cache as they are read: a few page faults for a
// file of a megabyte, where reading it into a string zero-filled and copied every byte (~2.8 MB
// of cache files read on every run: ~750 page faults of a small run's ~5,200, each costly in a
// virtual machine).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string_view>

namespace faultline {

class MappedFile {
 public:
  // nullopt when the file cannot be opened or mapped, is empty or not a regular file.
  static std::optional<MappedFile> open(const std::filesystem::path& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Valid while this object lives. The files read this way are only ever replaced by renaming a
  // complete file into place, never rewritten: the mapped bytes cannot change under a reader.
  std::string_view bytes() const { return {static_cast<const char*>(base_), size_}; }

 private:
  MappedFile(void* base, size_t size) : base_(base), size_(size) {}
  void* base_;
  size_t size_;
};

}  // namespace faultline
