#include <catch2/catch.hpp>

#include "faultline/parse/parser.hpp"

TEST_CASE("smoke") {
  auto r = faultline::parse::parse_text("plog", "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.522.534 [stars_engine.cc:1553]155320 ProcLogicCqReport:[INIT][DEFAULT]Task run failed, device_id=0, stream_id=2, task_id=1\n");
  REQUIRE(r.events.size() == 1);
}
