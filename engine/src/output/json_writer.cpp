// SPDX-License-Identifier: MIT
// to_json_text: zeroforge's one serialisation of JSON (2-space indent, stable numbers).
#include <algorithm>
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

// Appends to a string through a raw pointer: each step first makes room for the most it can
// write, and its writes are then plain stores. (std::string's appends check the capacity and
// store the length on every call, which was most of the writer's cost.) The string is cut to
// what was written when the sink goes away, also when an exception passes.
class Sink {
 public:
  explicit Sink(std::string& out) : out_(out), used_(out.size()) {}
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() { out_.resize(used_); }

  /// Where the next `n` bytes (at most) go; pass the end of what was written to `commit`.
  char* room(std::size_t n) {
    if (out_.size() - used_ < n) [[unlikely]]
      grow(n);
    return out_.data() + used_;
  }
  void commit(const char* end) { used_ = static_cast<std::size_t>(end - out_.data()); }

 private:
  [[gnu::noinline]] void grow(std::size_t n) {
    out_.resize(std::max(2 * out_.size(), used_ + n + 256));
  }

  std::string& out_;
  std::size_t used_;  // bytes of out_ written; the rest is room
};

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
  std::size_t i = 0;
  while (i < s.size()) {
    // Keys and most values need no escape: copied 8 bytes at a time.
    if (i + 8 <= s.size()) {
      std::uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if (!detail::json_word_needs_escape(word)) {
        std::memcpy(p, &word, 8);
        p += 8;
        i += 8;
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

void write_escaped(Sink& sink, std::string_view s) {
  sink.commit(put_escaped(sink.room(6 * s.size() + 2), s));
}

void write_value(Sink& sink, const json& value, int indent) {
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
      write_escaped(sink, value.get_ref<const std::string&>());
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

void append_value(std::string& out, const json& value, int indent) {
  Sink sink(out);
  write_value(sink, value, indent);
}

}  // namespace

namespace detail {

void append_json(std::string& out, const nlohmann::ordered_json& json, int indent) {
  append_value(out, json, indent);
}

void append_json_string(std::string& out, std::string_view text) {
  Sink sink(out);
  write_escaped(sink, text);
}

}  // namespace detail

std::string to_json_text(const nlohmann::ordered_json& json) {
  std::string out;
  out.reserve(1024);
  append_json_text(out, json);
  return out;
}

void append_json_text(std::string& out, const nlohmann::ordered_json& json) {
  append_value(out, json, 0);
  out += '\n';
}

}  // namespace zf
