// Per-member helpers of the streaming pass: --keep-raw compression and timed reads.
#pragma once

#include <zstd.h>

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include "faultline/ingest/ingest.hpp"
#include "faultline/pipeline/stats.hpp"

namespace faultline::pipeline {

// Streaming zstd compression of a member's text (for --keep-raw), bounded by the compressed size.
class Compressor {
 public:
  Compressor() : cctx_(ZSTD_createCCtx()) {
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, 1);
  }
  ~Compressor() { ZSTD_freeCCtx(cctx_); }
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;
  void add(std::string_view data, bool end) {
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    std::array<char, 1 << 16> buf{};
    while (true) {
      ZSTD_outBuffer out{buf.data(), buf.size(), 0};
      const size_t rem = ZSTD_compressStream2(cctx_, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(rem)) throw std::runtime_error(ZSTD_getErrorName(rem));
      out_.append(buf.data(), out.pos);
      if (end ? rem == 0 : in.pos == in.size) break;
    }
  }
  std::string take() { return std::move(out_); }

 private:
  ZSTD_CCtx* cctx_;
  std::string out_;
};

// Times the reads of a member (decompression for archives).
class TimedReader final : public ingest::MemberReader {
 public:
  TimedReader(ingest::MemberReader& r, double& acc) : r_(r), acc_(acc) {}
  size_t read(char* buf, size_t n) override {
    ScopeTimer t(acc_);
    return r_.read(buf, n);
  }
  [[nodiscard]] bool truncated() const override { return r_.truncated(); }

 private:
  ingest::MemberReader& r_;
  double& acc_;
};

}  // namespace faultline::pipeline
