// Server-rendered pages of `faultline serve`: inline CSS and JavaScript only, no external resource.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "index.hpp"

namespace faultline::serve::detail {

// Query suffix carrying the access token in links ("" without a token, "?token=..." with one).
std::string token_query(const std::string& token);
std::string human_size(uint64_t bytes);

std::string home_page(const std::vector<Analysis>& recent, uint64_t max_upload,
                      const std::string& token);
std::string list_page(const std::vector<Analysis>& all, const std::string& token);
// Queued, running or failed analysis (the page polls until the analysis ends).
std::string status_page(const Analysis& a, const std::string& token);
// The report (report::render_bundle html) with a bar of links added at the top of its body,
// followed by `after_bar` (server-made HTML: the "seen before" list).
std::string report_page(const Analysis& a, const std::string& report_html, const std::string& token,
                        const std::string& after_bar = "");
std::string error_page(int status, const std::string& message, const std::string& token);

// The Content-Security-Policy header of every response: no inline script but the pages' own
// (each allowed by its sha256; they hold no per-page value, those are data- attributes), no
// script from anywhere else, nothing loaded from another origin, no framing.
std::string content_security_policy();

}  // namespace faultline::serve::detail
