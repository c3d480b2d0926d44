// SPDX-License-Identifier: MIT
// The report's text forms (see html_text.hpp).
#include "report/html_text.hpp"

#include <cmath>
#include <cstdio>

namespace zf::report {

namespace fs = std::filesystem;

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string url_path(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                       (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' ||
                       c == '~' || c == '/';
    if (plain) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

std::string relative_dir(const fs::path& report_file, const fs::path& dir) {
  const fs::path from = fs::absolute(report_file).lexically_normal().parent_path();
  fs::path to = fs::absolute(dir).lexically_normal();
  if (!to.has_filename()) to = to.parent_path();  // `out/` names `out`
  const fs::path relative = to.lexically_relative(from);
  if (relative.empty() || relative == ".") return "";
  return relative.generic_string();
}

std::string gib(std::int64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f",
                static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buffer;
}

std::string percent(std::int64_t part, std::int64_t whole) {
  if (whole == 0) return "";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f",
                100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buffer;
}

std::string margin_text(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", fraction * 100.0);
  std::string out = buffer;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out + "%";
}

std::string svg_number(double value) {
  const double rounded = std::round(value * 10.0) / 10.0;
  char buffer[32];
  if (rounded == std::floor(rounded)) {
    std::snprintf(buffer, sizeof buffer, "%.0f", rounded);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f", rounded);
  }
  return buffer;
}

}  // namespace zf::report
