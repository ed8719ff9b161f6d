// Internal helpers of the ingest stage: content sniffing and member-name hygiene.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace faultline::ingest::detail {

// What the first bytes of a stream say it is.
enum class Kind {
  archive,       // a container or compression libarchive reads as a stream (tar, gz, zst, ...)
  seek_archive,  // a container best read with seeking (zip central directory, 7z)
  other,         // no archive magic: a member (text or binary, see looks_like_text)
};

// head: the first bytes of the stream (up to 64 KiB; fewer when the stream is shorter).
// name: the stream's file name, used only as a tie-breaker (an all-zero ".tar" is an empty tar).
Kind sniff(std::string_view head, std::string_view name);

// True when head starts with the magic of a compression filter (gzip, zstd, xz, bzip2, ...).
bool compression_magic(std::string_view head);

// UTF-16 text (Windows editors, PowerShell's Out-File, exported event logs): with a byte order
// mark, or without one when nearly every other byte of mostly-ASCII text is NUL.
enum class Utf16 { none, le, be };
Utf16 utf16_text(std::string_view head);

// A uuencoded or base64 ("begin-base64") stream: `begin MODE NAME` and a valid encoded line.
bool uuencode_magic(std::string_view head);

// True when head looks like text: no archive magic is checked here, only the bytes.
bool looks_like_text(std::string_view head);

// The result of cleaning one member name as stored in an archive or on disk.
struct CleanName {
  std::string path;       // '/'-separated, relative, valid UTF-8, no "." / "" components
  bool skip = false;      // ".." component: the member must not be read
  bool absolute = false;  // leading '/' was stripped
  bool bad_utf8 = false;  // invalid UTF-8 replaced by U+FFFD
  bool control = false;   // control characters replaced by U+FFFD
  bool too_long = false;  // cut at kMaxNameBytes
};
inline constexpr size_t kMaxNameBytes = 4096;

CleanName clean_name(std::string_view raw);

// "syslog.2.gz" -> "syslog.2", "x.tgz" -> "x.tar"; unchanged when no compression suffix is known.
std::string strip_compression_suffix(std::string_view path);
// The name ends like an archive or a compressed file (.tar, .zip, .7z, .rar, .gz, .tgz, .zst, ...).
bool archive_like_name(std::string_view name);

// Last '/'-separated component.
std::string_view base_name(std::string_view path);

}  // namespace faultline::ingest::detail
