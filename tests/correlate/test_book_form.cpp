// The parsed diagnoses and compat tables in the rule cache's binary form (issue 38 item 2):
// correlate::Book::serialize / deserialize (analyzer/correlate/src/book_form.cpp).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "faultline/core/rules.hpp"
#include "faultline/correlate/correlate.hpp"

namespace {

using faultline::RuleFile;
using faultline::correlate::Book;
using faultline::correlate::CodeBook;

std::vector<RuleFile> correlate_rules() {
  std::vector<RuleFile> out;
  for (const char* dir : {"diagnoses/", "compat/", "codes/"})
    for (auto& f : faultline::embedded_rules_under(dir)) out.push_back(std::move(f));
  return out;
}

}  // namespace

TEST_CASE("the built-in diagnoses read back from their cached form write the same bytes") {
  const auto files = correlate_rules();
  const auto codes = std::make_shared<const CodeBook>(faultline::correlate::load_codes(files));
  const Book parsed = Book::parse(files, codes);
  REQUIRE(parsed.errors().empty());
  const std::string form = parsed.serialize();
  const auto back = Book::deserialize(form, codes);
  REQUIRE(back);
  CHECK(back->errors().empty());
  // every field is written: a field read into the wrong member, or not read, writes other bytes
  CHECK(back->serialize() == form);
  CHECK(back->impl() != parsed.impl());
  CHECK(form.size() > 10000);

  SECTION("a damaged or foreign form is refused, never half read") {
    CHECK_FALSE(Book::deserialize("", codes));
    CHECK_FALSE(Book::deserialize(form.substr(0, form.size() / 2), codes));
    CHECK_FALSE(Book::deserialize(form.substr(0, form.size() - 1), codes));
    CHECK_FALSE(Book::deserialize(form + "x", codes));
    std::string other = form;  // another layout version
    other[0] = static_cast<char>(other[0] + 1);
    CHECK_FALSE(Book::deserialize(other, codes));
    CHECK_FALSE(Book::deserialize(form, nullptr));  // the code tables are not in the form
    // a count that claims more items than bytes are left (the diagnoses' count after the format)
    std::string huge = form;
    huge[4] = huge[5] = huge[6] = huge[7] = '\x7f';
    CHECK_FALSE(Book::deserialize(huge, codes));
  }
}

TEST_CASE("a diagnosis problem survives the cached form") {
  // a book with a problem is not cached by the app (rule_cache.cpp), but its form keeps it
  std::vector<RuleFile> files = {
      {"diagnoses/broken.yaml",
       "id: test.broken\nkind: root_cause\nseverity: high\ntitle: t\nsummary: s\n"
       "conditions:\n  all:\n    - hit: [no.such.signature]\n      bogus_key: 1\n"}};
  const auto codes = std::make_shared<const CodeBook>();
  const Book parsed = Book::parse(files, codes);
  REQUIRE_FALSE(parsed.errors().empty());  // the file name, the severity word
  const auto back = Book::deserialize(parsed.serialize(), codes);
  REQUIRE(back);
  CHECK(back->errors() == parsed.errors());
}
