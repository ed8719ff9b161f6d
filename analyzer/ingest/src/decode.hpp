// Byte sources of the walk and the decoders between them (issue 36: walk.cpp held them all).
// A decoder is a Source over another Source: the next encoding a bundle brings gets its own
// class here, with its own tests (tests/ingest/test_decode.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "faultline/ingest/ingest.hpp"

namespace faultline::ingest::detail {

class Source {
 public:
  virtual ~Source() = default;
  // Up to n bytes; 0 at the end, on failure (failed()) or when a limit stopped it (cut()).
  virtual size_t read(char* buf, size_t n) = 0;
  [[nodiscard]] virtual bool failed() const { return false; }
  [[nodiscard]] virtual bool cut() const { return false; }
  virtual int64_t seek(int64_t /*offset*/, int /*whence*/) { return -1; }
  // Skips some bytes (a block) and returns how many; 0 at the end. Sources that can skip
  // without copying (archive entries, sparse holes) override it.
  virtual size_t skip_some(Bytes& scratch) { return read(scratch.data(), scratch.size()); }
};

// UTF-16 (LE or BE; a byte order mark is dropped) decoded to UTF-8; unpaired surrogates and a
// dangling last byte become U+FFFD.
class Utf16Source final : public Source {
 public:
  Utf16Source(Source& next, bool big_endian) : next_(next), be_(big_endian) {}
  size_t read(char* buf, size_t n) override;
  [[nodiscard]] bool failed() const override { return next_.failed(); }
  [[nodiscard]] bool cut() const override { return next_.cut(); }

 private:
  void put(uint32_t cp);
  void fill();
  Source& next_;
  bool be_;
  bool first_ = true, eof_ = false, odd_ = false;
  char carry_ = 0;
  uint32_t high_ = 0;
  std::string out_;
  size_t opos_ = 0;
};

}  // namespace faultline::ingest::detail
