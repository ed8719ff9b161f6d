// Small helpers of the server: ids, names, escaping, time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace faultline::serve::detail {

// Analysis ids: 32 lowercase hex digits from the system's random source.
std::string new_id();
// The only check that lets a request's id near a path: exactly 32 lowercase hex digits.
bool valid_id(std::string_view id);

// File name for an upload on disk: [A-Za-z0-9._-] only, no leading dot, at most 100 bytes,
// "bundle" when nothing is left. Keeps the extension (it helps recognise the format).
std::string safe_file_name(std::string_view upload_name);
// Name shown in pages and reports: the last path component, valid UTF-8, no control characters,
// at most 200 bytes, "bundle" when empty.
std::string display_name(std::string_view upload_name);

std::string html_escape(std::string_view s);
std::string url_encode(std::string_view s);
// "2025-07-13T21:24:03Z"; "" for 0.
std::string iso_utc(int64_t epoch_seconds);
int64_t now_epoch();

// Constant-time comparison (the token check).
bool token_equal(std::string_view a, std::string_view b);

std::string replace_all(std::string s, std::string_view from, std::string_view to);

// Removes an analysis database with its -wal, -shm and -journal files.
void remove_db_files(const std::filesystem::path& db);

}  // namespace faultline::serve::detail
