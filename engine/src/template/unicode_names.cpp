// SPDX-License-Identifier: MIT
// The name lookup of unicode_names.hpp over the generated, compressed name list
// (generated/unicode_names.inc): decoded once on first use, then scanned name by name with
// an early exit at the first word that differs. Only string literals with `\N{...}` pay.
#include "template/unicode_names.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace zf::detail {
namespace {

struct NameRun {
  char32_t first;
  std::uint32_t count;
};
struct NameAlias {
  std::string_view name;
  char32_t code_point;
};
struct PrefixedRange {
  std::string_view prefix;
  char32_t first, last;
};

#include "template/generated/unicode_names.inc"

struct NameTables {
  std::vector<std::string_view> words;  // views into word_text()
  std::vector<unsigned char> tokens;
};

std::vector<unsigned char> decode_base64(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;  // '=' padding
  };
  std::vector<unsigned char> out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    int v = value(c);
    if (v < 0) break;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<unsigned char>((bits >> count) & 0xFF));
    }
  }
  return out;
}

template <std::size_t N>
std::string concatenate(const std::string_view (&chunks)[N]) {
  std::string out;
  for (std::string_view chunk : chunks) out += chunk;
  return out;
}

// The words, space-separated, in one string that lives as long as the program.
const std::string& word_text() {
  static const std::string text = concatenate(kNameWords);
  return text;
}

const NameTables& tables() {
  static const NameTables t = [] {
    NameTables built;
    std::string_view all(word_text());
    for (std::size_t start = 0; start <= all.size();) {
      std::size_t end = std::min(all.find(' ', start), all.size());
      built.words.push_back(all.substr(start, end - start));
      start = end + 1;
    }
    built.tokens = decode_base64(concatenate(kNameTokensBase64));
    return built;
  }();
  return t;
}

char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; }

bool starts_with(std::string_view upper, std::string_view prefix) {
  return upper.substr(0, prefix.size()) == prefix;
}

// The longest jamo short name of `names` at the start of `text` (the empty name counts);
// -1 when none matches. Case-sensitive, as CPython's find_syllable.
template <std::size_t N>
int find_jamo(std::string_view text, const std::array<std::string_view, N>& names,
              std::size_t& length) {
  int found = -1;
  std::size_t best = 0;
  for (std::size_t i = 0; i < N; ++i) {
    std::string_view n = names[i];
    if ((found == -1 || n.size() > best) && text.substr(0, n.size()) == n) {
      found = static_cast<int>(i);
      best = n.size();
    }
  }
  length = found == -1 ? 0 : best;
  return found;
}

std::optional<char32_t> hangul_syllable(std::string_view jamo) {
  static constexpr std::array<std::string_view, 19> kLeading = {
      "G",  "GG", "N", "D",  "DD", "R", "M", "B", "BB", "S",
      "SS", "",   "J", "JJ", "C",  "K", "T", "P", "H"};
  static constexpr std::array<std::string_view, 21> kVowel = {
      "A",  "AE", "YA", "YAE", "EO", "E",  "YEO", "YE", "O",  "WA", "WAE",
      "OE", "YO", "U",  "WEO", "WE", "WI", "YU",  "EU", "YI", "I"};
  static constexpr std::array<std::string_view, 28> kTrailing = {
      "",   "G",  "GG", "GS", "N",  "NJ", "NH", "D",  "L", "LG", "LM", "LB", "LS", "LT",
      "LP", "LH", "M",  "B",  "BS", "S",  "SS", "NG", "J", "C",  "K",  "T",  "P",  "H"};
  std::size_t used, length;
  int l = find_jamo(jamo, kLeading, length);
  used = length;
  int v = find_jamo(jamo.substr(used), kVowel, length);
  used += length;
  int t = find_jamo(jamo.substr(used), kTrailing, length);
  used += length;
  if (l < 0 || v < 0 || t < 0 || used != jamo.size()) return std::nullopt;
  return static_cast<char32_t>(0xAC00 + (l * 21 + v) * 28 + t);
}

// `PREFIX-XXXX`: the hex digits of the code point, upper case, at least four.
std::optional<char32_t> prefixed_name(std::string_view name, std::string_view upper) {
  for (const PrefixedRange& range : kPrefixedRanges) {
    if (!starts_with(upper, range.prefix)) continue;
    bool unified = range.prefix == "CJK UNIFIED IDEOGRAPH-";
    // CPython computes unified ideographs: 4 or 5 upper-case hex digits of a code point in
    // their ranges. The other prefixed names are stored, so they match case-insensitively.
    std::string_view digits = (unified ? name : upper).substr(range.prefix.size());
    if (digits.size() < 4 || digits.size() > 5) return std::nullopt;
    char32_t value = 0;
    for (char c : digits) {
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) return std::nullopt;
      value = value * 16 + static_cast<char32_t>(d);
    }
    // A stored name has no leading zero; CPython's computed CJK names accept one.
    if (!unified && digits.size() == 5 && value < 0x10000) return std::nullopt;
    for (const PrefixedRange& r : kPrefixedRanges) {
      if (r.prefix == range.prefix && value >= r.first && value <= r.last) return value;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<char32_t> lookup_character_name(std::string_view name) {
  if (name.empty() || name.size() > 256) return std::nullopt;
  std::string upper(name);
  for (char& c : upper) {
    if (static_cast<unsigned char>(c) >= 0x80) return std::nullopt;
    c = ascii_upper(c);
  }
  // CPython computes these two kinds of names and compares them case-sensitively; they are in
  // no stored list, so another spelling names nothing.
  if (starts_with(upper, "HANGUL SYLLABLE ")) {
    if (!starts_with(name, "HANGUL SYLLABLE ")) return std::nullopt;
    return hangul_syllable(name.substr(16));
  }
  if (starts_with(upper, "CJK UNIFIED IDEOGRAPH-")) {
    if (!starts_with(name, "CJK UNIFIED IDEOGRAPH-")) return std::nullopt;
    return prefixed_name(name, upper);
  }
  if (auto prefixed = prefixed_name(name, upper)) return prefixed;
  for (const NameAlias& alias : kNameAliases) {
    if (alias.name == upper) return alias.code_point;
  }
  const NameTables& t = tables();
  std::size_t pos = 0;
  for (const NameRun& run : kNameRuns) {
    for (std::uint32_t k = 0; k < run.count; ++k) {
      // Compare word by word; on a mismatch skip to the name's last token.
      std::size_t matched = 0;
      bool same = true, last = false;
      while (!last) {
        unsigned char b = t.tokens[pos++];
        std::size_t word;
        if (b & 0x80) {
          word = (static_cast<std::size_t>(b & 0x3F) << 8) | t.tokens[pos++];
        } else {
          word = b & 0x3F;
        }
        last = (b & 0x40) != 0;
        if (!same) continue;
        std::string_view w = t.words[word];
        if (matched > 0) {
          same = matched < upper.size() && upper[matched] == ' ';
          ++matched;
        }
        same =
            same && matched + w.size() <= upper.size() && upper.compare(matched, w.size(), w) == 0;
        matched += w.size();
      }
      if (same && matched == upper.size()) return run.first + k;
    }
  }
  return std::nullopt;
}

}  // namespace zf::detail
