// SPDX-License-Identifier: MIT
// to_json_text: zeroforge's one serialisation of JSON (2-space indent, stable numbers).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "io/json_text.hpp"
#include "number_format.hpp"
#include "text_helpers.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

using json = nlohmann::ordered_json;

char* put(char* p, std::string_view text) {
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

char* put_indent(char* p, int indent) {
  std::memset(p, ' ', static_cast<std::size_t>(indent));
  return p + indent;
}

// `s` quoted and escaped; at most 6 bytes per byte of `s` (`\u00XX`) plus the quotes.
char* put_escaped(char* p, std::string_view s) {
  *p++ = '"';
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    // Keys and most values need no escape: copied 8 bytes at a time, and a last piece
    // shorter than 8 as the (overlapping) last 8 bytes of `s`.
    if (n >= 8) {
      std::size_t at = i + 8 <= n ? i : n - 8;
      std::uint64_t word;
      std::memcpy(&word, s.data() + at, 8);
      if (!detail::json_word_needs_escape(word)) {
        std::memcpy(p - (i - at), &word, 8);
        p += at + 8 - i;
        i = at + 8;
        continue;
      }
    }
    auto c = static_cast<unsigned char>(s[i++]);
    if (c >= 0x20 && c != '"' && c != '\\') {
      *p++ = static_cast<char>(c);
    } else if (const char* escape = detail::json_short_escape(c)) {
      p = put(p, {escape, 2});
    } else {  // the other control characters
      static const char* hex = "0123456789abcdef";
      p = put(p, "\\u00");
      *p++ = hex[c >> 4];
      *p++ = hex[c & 15];
    }
  }
  *p++ = '"';
  return p;
}

void write_value(detail::JsonAppender& sink, const json& value, int indent) {
  using T = json::value_t;
  switch (value.type()) {
    case T::null:
      sink.commit(put(sink.room(4), "null"));
      return;
    case T::boolean:
      sink.commit(put(sink.room(5), value.get<bool>() ? "true" : "false"));
      return;
    case T::number_integer:
    case T::number_unsigned: {
      char* p = sink.room(24);
      auto r = value.is_number_unsigned() ? std::to_chars(p, p + 24, value.get<std::uint64_t>())
                                          : std::to_chars(p, p + 24, value.get<std::int64_t>());
      sink.commit(r.ptr);
      return;
    }
    case T::number_float: {
      double d = value.get<double>();
      if (!std::isfinite(d)) throw Error(ErrorKind::Json, "infinite or NaN number is not JSON");
      std::string text;
      detail::append_json_float(text, d);
      sink.commit(put(sink.room(text.size()), text));
      return;
    }
    case T::string:
      sink.string(value.get_ref<const std::string&>());
      return;
    case T::array: {
      if (value.empty()) {
        sink.commit(put(sink.room(2), "[]"));
        return;
      }
      bool first = true;
      sink.commit(put(sink.room(1), "["));
      for (const auto& item : value) {
        char* p = sink.room(static_cast<std::size_t>(indent) + 4);
        if (!first) *p++ = ',';
        first = false;
        *p++ = '\n';
        sink.commit(put_indent(p, indent + 2));
        write_value(sink, item, indent + 2);
      }
      char* p = sink.room(static_cast<std::size_t>(indent) + 2);
      *p++ = '\n';
      sink.commit(put(put_indent(p, indent), "]"));
      return;
    }
    case T::object: {
      const auto& members = value.get_ref<const json::object_t&>();
      if (members.empty()) {
        sink.commit(put(sink.room(2), "{}"));
        return;
      }
      bool first = true;
      sink.commit(put(sink.room(1), "{"));
      for (const auto& [key, item] : members) {
        char* p = sink.room(static_cast<std::size_t>(indent) + 6 * key.size() + 8);
        if (!first) *p++ = ',';
        first = false;
        *p++ = '\n';
        p = put_escaped(put_indent(p, indent + 2), key);
        sink.commit(put(p, ": "));
        write_value(sink, item, indent + 2);
      }
      char* p = sink.room(static_cast<std::size_t>(indent) + 2);
      *p++ = '\n';
      sink.commit(put(put_indent(p, indent), "}"));
      return;
    }
    default:
      throw Error(ErrorKind::Json, "binary values are not JSON");
  }
}

}  // namespace

namespace detail {

void JsonAppender::grow(std::size_t n) {
  // Room the string already has is used first (a caller's reserve, a buffer kept for reuse):
  // only zero-filled, not reallocated.
  out_.resize(std::max({out_.capacity(), 2 * out_.size(), used_ + n + 256}));
}

void JsonAppender::raw(std::string_view text) { commit(put(room(text.size()), text)); }

void JsonAppender::string(std::string_view text) {
  commit(put_escaped(room(6 * text.size() + 2), text));
}

void JsonAppender::value(const nlohmann::ordered_json& json, int indent) {
  write_value(*this, json, indent);
}

}  // namespace detail

std::string to_json_text(const nlohmann::ordered_json& json) {
  std::string out;
  out.reserve(1024);
  append_json_text(out, json);
  return out;
}

void append_json_text(std::string& out, const nlohmann::ordered_json& json) {
  detail::JsonAppender appender(out);
  appender.value(json, 0);
  appender.raw("\n");
}

}  // namespace zf
