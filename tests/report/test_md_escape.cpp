// Markdown escaping of bundle text (issue 18): a report pasted into a ticket that renders
// Markdown and HTML shows bundle text as text, never as markup.
#include <catch2/catch.hpp>
#include <string>

#include "../analyzer/report/src/render.hpp"

using namespace faultline::report::detail;

TEST_CASE("md_text: no HTML, link, image, autolink or code span from a bundle string") {
  CHECK(md_text("<script>alert(1)</script>") == "\\<script>alert(1)\\</script>");
  CHECK(md_text("<img src=x onerror=alert(1)>") == "\\<img src=x onerror=alert(1)>");
  CHECK(md_text("[x](javascript:alert(1))") == "[x\\](javascript:alert(1))");
  CHECK(md_text("![t](http://tracker.example/p.gif)") == "![t\\](http://tracker.example/p.gif)");
  // brackets of log lines stay as they are (no link without "](")
  CHECK(md_text("[ascend] [ERROR] [devmm]") == "[ascend] [ERROR] [devmm]");
  CHECK(md_text("<javascript:alert(1)>") == "\\<javascript:alert(1)>");
  CHECK(md_text("a `b` c") == "a \\`b\\` c");
  // a backslash of the bundle cannot undo an escape: "\<" stays text
  CHECK(md_text("\\<b>") == "\\\\\\<b>");
  CHECK(md_text("line1\nline2\r") == "line1 line2 ");
  CHECK(md_text("24.1.rc3 a2pod-n042") == "24.1.rc3 a2pod-n042");
}

TEST_CASE("md_code: the fence is longer than any backtick run, one line") {
  CHECK(md_code("abc") == "`abc`");
  CHECK(md_code("a`b") == "``a`b``");
  CHECK(md_code("a``b`") == "``` a``b` ```");
  CHECK(md_code("`") == "`` ` ``");
  CHECK(md_code(" x ") == "`  x  `");
  CHECK(md_code("a\nb\x1b") == "`a\\x0ab\\x1b`");
}

TEST_CASE("md_prose: the rule's code spans stay, bundle markup around them is escaped") {
  // rule text as in rules/diagnoses (remediation with code spans)
  CHECK(md_prose("Reboot the node (`reboot`) so that ...") ==
        "Reboot the node (`reboot`) so that ...");
  CHECK(md_prose("`dpkg -l | grep -i ascend` or `rpm -qa | grep -i ascend`") ==
        "`dpkg -l | grep -i ascend` or `rpm -qa | grep -i ascend`");
  // a summary holding a hostile version value
  CHECK(md_prose("reports 24.1<img src=x onerror=alert(1)> (npu-smi)") ==
        "reports 24.1\\<img src=x onerror=alert(1)> (npu-smi)");
  // a backtick of a value that closes nothing is text; one that does opens a span kept as code
  CHECK(md_prose("driver ` [x](javascript:alert(1))") == "driver \\` [x\\](javascript:alert(1))");
  CHECK(md_prose("a ``b`` c `<i>` d") == "a ``b`` c `<i>` d");
  CHECK(md_prose("x\ny") == "x y");
  // many different backtick runs: linear, each without closer escaped
  std::string runs;
  for (int i = 1; i < 2000; ++i) runs += std::string(static_cast<size_t>(i), '`') + "a";
  const std::string out = md_prose(runs);
  CHECK(out.size() == runs.size() * 2 - 1999);
}
