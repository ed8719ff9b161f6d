// The bounds of a walk as arithmetic (analyzer/ingest/src/limits.hpp): the ratio with its grace
// and its off switch, and the budget of skipping members cut by the ratio (issue 36).
#include <catch2/catch.hpp>

#include "limits.hpp"

using namespace faultline::ingest;

TEST_CASE("over_ratio: past the grace and the ratio only; 0 turns it off", "[limits]") {
  Limits lim;
  lim.max_ratio = 1000;
  lim.ratio_grace_bytes = 64U << 20;
  // 2 GiB of zeros deflated (~1,030:1), the zip bomb
  CHECK(detail::over_ratio(2ULL << 30, (2ULL << 30) / 1030, lim));
  // the same ratio below the grace: a small file of zeros is not a bomb
  CHECK_FALSE(detail::over_ratio(32U << 20, (32U << 20) / 1030, lim));
  // text compresses ~10:1
  CHECK_FALSE(detail::over_ratio(1ULL << 30, (1ULL << 30) / 10, lim));
  // exactly the ratio is allowed; nothing consumed counts as one byte
  CHECK_FALSE(detail::over_ratio(1000ULL << 20, 1U << 20, lim));
  CHECK(detail::over_ratio(65U << 20, 0, lim));
  lim.max_ratio = 0;
  CHECK_FALSE(detail::over_ratio(1ULL << 40, 1, lim));
}

TEST_CASE("skip_cost: the stream a filter decompresses, or raw bytes times the ratio", "[limits]") {
  CHECK(detail::skip_cost(true, 5000, 3, 1000) == 5000);  // tar.gz: decompressed bytes
  CHECK(detail::skip_cost(false, 0, 3, 1000) == 3000);    // zip streamed: raw bytes x ratio
  CHECK(detail::skip_cost(false, 0, 3, 0) == 3);          // ratio off: raw bytes
  CHECK(detail::skip_cost(false, 0, 0, 1000) == 0);       // a seek reads nothing
  CHECK(detail::skip_cost(false, 0, UINT64_MAX / 2, 1000) == UINT64_MAX);  // no overflow
}

TEST_CASE("may_skip: the rest of a cut member fits what is left of max_skip_bytes", "[limits]") {
  Limits lim;
  lim.max_skip_bytes = 100;
  CHECK(detail::skip_left(30, lim) == 70);
  CHECK(detail::skip_left(130, lim) == 0);
  CHECK(detail::may_skip(70, 70, false));
  CHECK_FALSE(detail::may_skip(70, 71, false));
  CHECK(detail::may_skip(70, -1, false));      // size unknown: read_cb bounds the skip
  CHECK(detail::may_skip(70, 1 << 30, true));  // a zip's seek costs nothing
  CHECK_FALSE(detail::may_skip(0, 1, true));   // spent: the archive stops at the next cut
}
