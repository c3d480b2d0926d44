// SPDX-License-Identifier: MIT
// Lookups in the generated case table (unicode_case.hpp): a binary search over runs of code
// points that share one record of mapping deltas and properties.
#include "template/unicode_case.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "text_helpers.hpp"

namespace zf::detail {
namespace {

struct CaseRecord {
  std::int32_t lower, upper, title, fold;
  std::uint16_t flags;
};

#include "template/generated/unicode_case.inc"

enum Flag : std::uint16_t {
  kLowercase = 1,
  kUppercase = 2,
  kTitlecase = 4,
  kCased = 8,
  kIgnorable = 16,
  kSpecialLower = 32,
  kSpecialUpper = 64,
  kSpecialTitle = 128,
  kSpecialFold = 256,
};

// The record of every code point outside the table's runs: no mapping, no property. ASCII
// letters are in the table like the rest; callers with a faster ASCII path skip the search.
const CaseRecord& record_of(char32_t c) {
  static constexpr CaseRecord kNone{0, 0, 0, 0, 0};
  if (c > 0x10FFFF) return kNone;
  const std::uint32_t key = (static_cast<std::uint32_t>(c) << 11) | 0x7FF;
  auto it = std::upper_bound(std::begin(kCaseRuns), std::end(kCaseRuns), key);
  if (it == std::begin(kCaseRuns)) return kNone;
  return kCaseRecords[*std::prev(it) & 0x7FF];
}

void append_mapping(std::string& out, char32_t c, std::int32_t value, bool special) {
  if (!special) {
    append_utf8(out, static_cast<char32_t>(static_cast<std::int32_t>(c) + value));
    return;
  }
  const char32_t* entry = kCaseSpecial + value;
  for (char32_t i = 0; i < entry[0]; ++i) append_utf8(out, entry[1 + i]);
}

}  // namespace

bool is_lowercase(char32_t c) { return record_of(c).flags & kLowercase; }
bool is_uppercase(char32_t c) { return record_of(c).flags & kUppercase; }
bool is_titlecase(char32_t c) { return record_of(c).flags & kTitlecase; }
bool is_cased(char32_t c) { return record_of(c).flags & kCased; }
bool is_case_ignorable(char32_t c) { return record_of(c).flags & kIgnorable; }

void append_lower(std::string& out, char32_t c) {
  const CaseRecord& r = record_of(c);
  append_mapping(out, c, r.lower, r.flags & kSpecialLower);
}
void append_upper(std::string& out, char32_t c) {
  const CaseRecord& r = record_of(c);
  append_mapping(out, c, r.upper, r.flags & kSpecialUpper);
}
void append_title(std::string& out, char32_t c) {
  const CaseRecord& r = record_of(c);
  append_mapping(out, c, r.title, r.flags & kSpecialTitle);
}
void append_fold(std::string& out, char32_t c) {
  const CaseRecord& r = record_of(c);
  append_mapping(out, c, r.fold, r.flags & kSpecialFold);
}

}  // namespace zf::detail
