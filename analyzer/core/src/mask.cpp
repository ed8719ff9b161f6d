// Masks the variable parts of a log line into a template (moved here from report so that the
// comparison of two bundles, in correlate, uses the very templates the report mines).
#include "faultline/core/mask.hpp"

#include <algorithm>
#include <cctype>

namespace faultline::text {

namespace {

bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alpha(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}
bool token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.' ||
         c == ':';
}

constexpr size_t kMaxTemplateLine = 1000;  // longer lines: their first 1000 bytes

}  // namespace

std::string mask_line(std::string_view line) {
  if (line.size() > kMaxTemplateLine) line = line.substr(0, kMaxTemplateLine);
  std::string out;
  size_t i = 0;
  auto put = [&](const char* m) { out += m; };
  while (i < line.size()) {
    const char c = line[i];
    // paths: /a/b..., ./x/y
    if (c == '/' && (i == 0 || !token_char(line[i - 1]) || line[i - 1] == ':') &&
        i + 1 < line.size() && (token_char(line[i + 1]) || line[i + 1] == '/')) {
      size_t j = i;
      int slashes = 0;
      while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j])) &&
             line[j] != ',' && line[j] != ')' && line[j] != ']' && line[j] != '\'' &&
             line[j] != '"') {
        if (line[j] == '/') ++slashes;
        ++j;
      }
      if (slashes >= 2) {
        out += "<path>";
        i = j;
        continue;
      }
    }
    if ((std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') &&
        (i == 0 ||
         (std::isalnum(static_cast<unsigned char>(line[i - 1])) == 0 && line[i - 1] != '_'))) {
      size_t j = i;
      while (j < line.size() && token_char(line[j])) ++j;
      std::string_view tok = line.substr(i, j - i);
      while (!tok.empty() && (tok.back() == '.' || tok.back() == ':' || tok.back() == '-'))
        tok.remove_suffix(1);
      const size_t end = i + tok.size();
      const bool any_digit = std::any_of(tok.begin(), tok.end(), is_digit);
      const bool hex0x = tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X') &&
                         std::all_of(tok.begin() + 2, tok.end(), is_hex);
      const bool all_hexish = std::all_of(tok.begin(), tok.end(), [](char x) {
        return is_hex(x) || x == '-' || x == ':' || x == '.';
      });
      const bool numeric = std::all_of(tok.begin(), tok.end(), [](char x) {
        return is_digit(x) || x == '.' || x == ':' || x == '-';
      });
      if (!tok.empty() && any_digit) {
        if (hex0x) {
          put("<hex>");
          i = end;
          continue;
        }
        if (numeric) {  // numbers, times, dates, IPv4 with ports
          const bool ip = std::count(tok.begin(), tok.end(), '.') == 3 &&
                          std::none_of(tok.begin(), tok.end(), [](char x) { return x == '-'; });
          put(ip ? "<ip>" : "<n>");
          i = end;
          continue;
        }
        if (all_hexish && tok.size() >= 8) {  // ids, hashes, uuids, MACs
          put("<hex>");
          i = end;
          continue;
        }
        // a word with digits in it (rank3, dev_id12, ERR01002): the digits are masked only when
        // the token is an identifier-like mix; codes stay (they name the error)
        const bool code_like =
            tok.size() >= 4 && is_alpha(tok[0]) && std::all_of(tok.begin(), tok.end(), [](char x) {
              return std::isupper(static_cast<unsigned char>(x)) || is_digit(x);
            });
        if (!code_like) {
          for (size_t k = i; k < end;) {
            if (is_digit(line[k])) {
              while (k < end && is_digit(line[k])) ++k;
              out += "<n>";
            } else {
              out += line[k++];
            }
          }
          i = end;
          continue;
        }
      }
      out.append(line.substr(i, j - i));
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  // whitespace runs are one space
  std::string squeezed;
  for (const char ch : out) {
    const bool sp = std::isspace(static_cast<unsigned char>(ch)) != 0;
    if (sp && (squeezed.empty() || squeezed.back() == ' ')) continue;
    squeezed += sp ? ' ' : ch;
  }
  while (!squeezed.empty() && squeezed.back() == ' ') squeezed.pop_back();
  return squeezed;
}

}  // namespace faultline::text
