// SPDX-License-Identifier: MIT
// to_json_text: zeroforge's one serialisation of JSON (2-space indent, stable numbers).
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "number_format.hpp"
#include "output/json_text.hpp"
#include "text_helpers.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

using json = nlohmann::ordered_json;

// True when one of the 8 bytes of `word` is a control character, '"' or '\\' (exact for
// "any", which is all the caller asks).
bool word_needs_escape(std::uint64_t word) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  auto has_zero = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
  return ((word - ones * 0x20) & ~word & highs) | has_zero(word ^ (ones * '"')) |
         has_zero(word ^ (ones * '\\'));
}

void append_escaped(std::string& out, std::string_view s) {
  out += '"';
  // Runs of characters that need no escape are appended at once (keys and most values); the
  // scan skips 8 plain bytes at a time.
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i + 8 <= s.size()) {
      std::uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if (!word_needs_escape(word)) {
        i += 7;
        continue;
      }
    }
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s, run, i - run);
    run = i + 1;
    if (const char* escape = detail::json_short_escape(c)) {
      out += escape;
    } else {  // the other control characters
      static const char* hex = "0123456789abcdef";
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  out.append(s, run, s.size() - run);
  out += '"';
}

void append_value(std::string& out, const json& value, int indent) {
  using T = json::value_t;
  switch (value.type()) {
    case T::null:
      out += "null";
      return;
    case T::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case T::number_integer:
    case T::number_unsigned: {
      char buf[24];
      auto r = value.is_number_unsigned()
                   ? std::to_chars(buf, buf + sizeof buf, value.get<std::uint64_t>())
                   : std::to_chars(buf, buf + sizeof buf, value.get<std::int64_t>());
      out.append(buf, r.ptr);
      return;
    }
    case T::number_float: {
      double d = value.get<double>();
      if (!std::isfinite(d)) throw Error(ErrorKind::Json, "infinite or NaN number is not JSON");
      detail::append_json_float(out, d);
      return;
    }
    case T::string:
      append_escaped(out, value.get_ref<const std::string&>());
      return;
    case T::array: {
      if (value.empty()) {
        out += "[]";
        return;
      }
      out += "[\n";
      bool first = true;
      for (const auto& item : value) {
        if (!first) out += ",\n";
        first = false;
        out.append(static_cast<std::size_t>(indent + 2), ' ');
        append_value(out, item, indent + 2);
      }
      out += '\n';
      out.append(static_cast<std::size_t>(indent), ' ');
      out += ']';
      return;
    }
    case T::object: {
      if (value.empty()) {
        out += "{}";
        return;
      }
      out += "{\n";
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) out += ",\n";
        first = false;
        out.append(static_cast<std::size_t>(indent + 2), ' ');
        append_escaped(out, key);
        out += ": ";
        append_value(out, item, indent + 2);
      }
      out += '\n';
      out.append(static_cast<std::size_t>(indent), ' ');
      out += '}';
      return;
    }
    default:
      throw Error(ErrorKind::Json, "binary values are not JSON");
  }
}

}  // namespace

namespace detail {

void append_json(std::string& out, const nlohmann::ordered_json& json, int indent) {
  append_value(out, json, indent);
}

void append_json_string(std::string& out, std::string_view text) { append_escaped(out, text); }

}  // namespace detail

std::string to_json_text(const nlohmann::ordered_json& json) {
  std::string out;
  out.reserve(1024);
  append_value(out, json, 0);
  out += '\n';
  return out;
}

}  // namespace zf
