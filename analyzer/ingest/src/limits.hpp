// The bounds of a walk (docs/ingest.md "Limits"), as arithmetic over byte counts, apart from the
// archive code that counts them (walk.cpp): the ratio of an archive and of the whole bundle, and
// what skipping the rest of a member cut by the ratio may cost (issue 36). The next limit gets
// its rule here, with its tests in tests/ingest/test_walk_limits.cpp.
#pragma once

#include <cstdint>

#include "faultline/ingest/ingest.hpp"

namespace faultline::ingest::detail {

// An archive (or the bundle) that gave `out` uncompressed bytes for `in` compressed ones expands
// past max_ratio: only past ratio_grace_bytes, never when max_ratio is 0 (off).
bool over_ratio(uint64_t out, uint64_t in, const Limits& lim);

// What skipping the rest of a cut member has cost so far: the uncompressed stream it went
// through (`stream` bytes: a tar.gz has no index, skipping is decompressing), or, for an archive
// without a compression filter (zip, 7z: the member's codec decompresses out of sight), the `raw`
// bytes read times max_ratio (at least 1). A zip read with seeks skips by seeking: nothing read.
uint64_t skip_cost(bool filtered, uint64_t stream, uint64_t raw, uint64_t max_ratio);

// Bytes of max_skip_bytes not yet spent on members cut by the ratio (read, then skipped).
uint64_t skip_left(uint64_t spent, const Limits& lim);

// Whether the rest of a cut member may be skipped to read the members after it: something is
// left, and the member's declared bytes not read yet (`remaining`, -1 when unknown) fit in it,
// unless the skip is a seek (`seek_skip`: costs nothing whatever the size).
bool may_skip(uint64_t left, int64_t remaining, bool seek_skip);

}  // namespace faultline::ingest::detail
