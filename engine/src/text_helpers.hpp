// SPDX-License-Identifier: MIT
// Small text helpers several areas share: JSON's short escapes (zeroforge's JSON writer and
// the tojson filter) and the escapes JSON and Python literals share (JSON reader, template
// parser), the 8-byte test for plain JSON string bytes (JSON reader and writer), UTF-8
// encoding of a code point (string escapes in templates and JSON) and edit distance
// (did-you-mean suggestions for values and configs).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zf::detail {

/// True when one of the 8 bytes of `word` is a control character, '"' or '\\': the bytes a
/// JSON string cannot hold as they are. (Exact for "any", which is all callers ask; it lets
/// them skip runs of plain text 8 bytes at a time.)
inline bool json_word_needs_escape(std::uint64_t word) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  auto has_zero = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
  return ((word - ones * 0x20) & ~word & highs) | has_zero(word ^ (ones * '"')) |
         has_zero(word ^ (ones * '\\'));
}

/// What the two-character escape `\e` stands for where JSON and Python string literals agree
/// (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`), or '\0' for any other `e`: each reader then
/// handles the escapes only its language has.
inline char shared_escape_value(char e) {
  switch (e) {
    case '"':
      return '"';
    case '\\':
      return '\\';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    default:
      return '\0';
  }
}

/// The two-character JSON escape of `c` (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`), or nullptr
/// when JSON has none for it (other control characters take `\u00XX`).
inline const char* json_short_escape(char32_t c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    default:
      return nullptr;
  }
}

/// Appends the UTF-8 encoding of `code_point` to `out`.
inline void append_utf8(std::string& out, char32_t code_point) {
  auto c = static_cast<std::uint32_t>(code_point);
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

/// The length of the well-formed UTF-8 sequence at `pos` (1-4), or 0 when the bytes there are
/// not one (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, cut short).
inline std::size_t utf8_sequence_length(std::string_view text, std::size_t pos) {
  auto byte = [&](std::size_t i) {
    return pos + i < text.size() ? static_cast<unsigned char>(text[pos + i]) : 0u;
  };
  const unsigned lead = byte(0);
  if (lead < 0x80) return 1;
  auto continuation = [&](std::size_t i) { return (byte(i) & 0xC0) == 0x80; };
  // The second byte's range depends on the lead (Unicode Table 3-7).
  unsigned low = 0x80, high = 0xBF;
  std::size_t length;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (!continuation(i)) return 0;
  }
  return length;
}

/// Levenshtein distance (insertions, deletions, substitutions), one row of memory.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// The candidate a mistyped `key` most likely meant, or "". One rule for the values contract
/// and the validator, so both suggest the same: a candidate that `key` cuts short
/// (`reduce_bucket` for `reduce_bucket_size`; five characters at least) wins, else the
/// nearest within 1 edit, 2 from 10 characters, 3 from 15 and 4 from 20
/// (`stage3_max_live_params` for `stage3_max_live_parameters`).
template <typename Range>
std::string nearest_name(std::string_view key, const Range& candidates) {
  if (key.size() >= 5) {
    for (const auto& candidate : candidates) {
      if (std::string_view(candidate).starts_with(key) && std::string_view(candidate) != key)
        return std::string(candidate);
    }
  }
  const std::size_t limit = std::max<std::size_t>(1, std::min<std::size_t>(4, key.size() / 5));
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    const std::size_t d = edit_distance(key, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = std::string(candidate);
    }
  }
  return best;
}

}  // namespace zf::detail
