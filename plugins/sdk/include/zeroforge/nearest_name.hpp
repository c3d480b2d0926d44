// SPDX-License-Identifier: MIT
// Did-you-mean suggestions, header only: the rule zeroforge uses for values, configs, tiers,
// families and model files, for plugins to suggest the same names the host would.
//
//     std::string guess = zf::sdk::nearest_name("gpu_mem_gib", names);  // "gpu_memory_gib"
//     if (!guess.empty()) message += "; did you mean '" + guess + "'?";
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace zf::sdk {

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

/// edit_distance(a, b) when it is at most `bound`, else some number above `bound`. Only the
/// cells within `bound` of the diagonal are counted (a cell further off is more than `bound`
/// edits already), a length apart of more than `bound` answers at once, and a row whose every
/// cell is past `bound` ends the count. nearest_name asks it of every candidate for every
/// unknown key: the full distance made 100k unknown keys seconds.
inline std::size_t edit_distance_within(std::string_view a, std::string_view b, std::size_t bound) {
  const std::size_t apart = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (apart > bound) return bound + 1;
  // No distance exceeds the longer length: a larger bound (SIZE_MAX: "exact") changes nothing
  // and would overflow below.
  bound = std::min(bound, std::max(a.size(), b.size()));
  const std::size_t past = bound + 1;  // every count above `bound` is kept as this
  // Two rows on the stack for names of ordinary length (a heap row per call was a fifth of the
  // time on 100k unknown keys).
  constexpr std::size_t kStackRow = 64;
  std::size_t stack_rows[2][kStackRow];
  std::vector<std::size_t> heap_rows;
  std::size_t* previous = stack_rows[0];
  std::size_t* current = stack_rows[1];
  if (b.size() + 1 > kStackRow) {
    heap_rows.resize(2 * (b.size() + 1));
    previous = heap_rows.data();
    current = previous + b.size() + 1;
  }
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = std::min(j, past);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    const std::size_t low = i > bound ? i - bound : 1;
    const std::size_t high = std::min(b.size(), i + bound);
    current[low - 1] = low == 1 ? std::min(i, past) : past;
    std::size_t least = current[low - 1];
    for (std::size_t j = low; j <= high; ++j) {
      const std::size_t cell = std::min({previous[j] + 1, current[j - 1] + 1,
                                         previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1), past});
      current[j] = cell;
      least = std::min(least, cell);
    }
    if (high < b.size()) current[high + 1] = past;  // the next row's band reads one further
    if (least > bound) return past;
    std::swap(previous, current);
  }
  return previous[b.size()];
}

/// True when `key` writes the words of `candidate` (split at `_`) cut short, each word at
/// least one character and at least one word shorter: `gpu_mem_gib` for `gpu_memory_gib`.
inline bool abbreviates_words(std::string_view key, std::string_view candidate) {
  if (key == candidate) return false;
  while (true) {
    const std::size_t k = key.find('_'), c = candidate.find('_');
    const std::string_view key_word = key.substr(0, k), candidate_word = candidate.substr(0, c);
    if (key_word.empty() || !candidate_word.starts_with(key_word)) return false;
    if ((k == std::string_view::npos) != (c == std::string_view::npos)) return false;
    if (k == std::string_view::npos) return true;
    key.remove_prefix(k + 1);
    candidate.remove_prefix(c + 1);
  }
}

/// The candidate a mistyped `key` most likely meant, or "". A candidate that `key` cuts short
/// (`reduce_bucket` for `reduce_bucket_size`; five characters at least) wins, else the nearest
/// within 1 edit, 2 from 10 characters, 3 from 15 and 4 from 20 (`stage3_max_live_params` for
/// `stage3_max_live_parameters`), else the first candidate whose words `key` abbreviates
/// (`gpu_mem_gib` for `gpu_memory_gib`).
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
    // Only a distance under the best so far can change the answer.
    const std::size_t d = edit_distance_within(key, candidate, best_distance - 1);
    if (d < best_distance) {
      best_distance = d;
      best = std::string(candidate);
      if (d == 0) break;  // nothing is nearer
    }
  }
  if (!best.empty()) return best;
  for (const auto& candidate : candidates) {
    if (abbreviates_words(key, candidate)) return std::string(candidate);
  }
  return best;
}

}  // namespace zf::sdk
