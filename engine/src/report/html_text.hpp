// SPDX-License-Identifier: MIT
// The report's text forms: HTML escaping of everything that comes from user files, links
// (URL-encoded, relative to the report), and the one way numbers are printed (GiB, percent),
// locale-free, so the same inputs give the same bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace zf::report {

/// `text` with `&`, `<`, `>`, `"` and `'` as character references: safe in text and in
/// quoted attribute values alike.
std::string escape(std::string_view text);

/// A relative path (`/`-separated) as a URL path: every byte outside A-Z a-z 0-9 `-._~/`
/// percent-encoded (`a b#1.json` -> `a%20b%231.json`). Escape the result for an attribute.
std::string url_path(std::string_view path);

/// The path from the directory of `report_file` to `dir`, `/`-separated, for links: "" when
/// they are the same directory, else e.g. `configs/7b` or `../out`. Both are made absolute
/// against the working directory first (and normalised lexically), so no absolute path of the
/// machine ever reaches the page.
std::string relative_dir(const std::filesystem::path& report_file,
                         const std::filesystem::path& dir);

/// Bytes as GiB with two decimals: `23.75`.
std::string gib(std::int64_t bytes);

/// `part` as a percentage of `whole` with one decimal: `99.0`; "" when `whole` is 0.
std::string percent(std::int64_t part, std::int64_t whole);

/// A fraction as a percentage with at most two decimals, trailing zeros dropped: 0.05 is `5%`,
/// 0.025 `2.5%` (the safety margin).
std::string margin_text(double fraction);

/// A coordinate or length for SVG with at most one decimal: `12`, `12.5`.
std::string svg_number(double value);

}  // namespace zf::report
