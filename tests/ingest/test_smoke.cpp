#include <catch2/catch.hpp>
#include "faultline/ingest/ingest.hpp"
TEST_CASE("placeholder") { CHECK(true); }
