// SPDX-License-Identifier: MIT
// Python's json.dumps with sort_keys=True and ensure_ascii=True, on zf::Value, with the
// characters Jinja2's htmlsafe_json_dumps replaces (< > & ') escaped as it does.
#include "template/python_json.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <vector>

#include "template/python_ops.hpp"
#include "template/python_text.hpp"
#include "text_helpers.hpp"

namespace zf::detail {
namespace {

void append_hex4(std::string& out, unsigned value) {
  static const char* hex = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += hex[(value >> shift) & 15];
}

// Bytes copied as they are: printable ASCII other than '"' and '\\' (which JSON escapes) and
// the four htmlsafe_json_dumps replaces. Outside strings, json.dumps writes none of those
// four, so escaping them here is the same as Jinja2's replace on the whole text.
constexpr std::array<bool, 256> kPlainJsonByte = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x7F; ++c) plain[static_cast<std::size_t>(c)] = true;
  for (unsigned char c : {'"', '\\', '<', '>', '&', '\''}) plain[c] = false;
  return plain;
}();

bool plain_json_char(char c) { return kPlainJsonByte[static_cast<unsigned char>(c)]; }

void append_string(std::string& out, std::string_view text) {
  out += '"';
  for (std::size_t pos = 0; pos < text.size();) {
    if (plain_json_char(text[pos])) {
      std::size_t end = pos + 1;
      while (end < text.size() && plain_json_char(text[end])) ++end;
      out.append(text.data() + pos, end - pos);
      pos = end;
      continue;
    }
    char32_t c;
    pos += decode_utf8(text, pos, c);
    if (const char* escape = json_short_escape(c)) {
      out += escape;
    } else if (c < 0x10000) {
      append_hex4(out, static_cast<unsigned>(c));
    } else {
      // ensure_ascii writes astral code points as UTF-16 surrogate pairs.
      char32_t v = c - 0x10000;
      append_hex4(out, static_cast<unsigned>(0xD800 + (v >> 10)));
      append_hex4(out, static_cast<unsigned>(0xDC00 + (v & 0x3FF)));
    }
  }
  out += '"';
}

class Dumper {
 public:
  explicit Dumper(const std::optional<std::string>& indent) : indent_(indent) {}

  void dump(std::string& out, const Value& value, int level) const {
    switch (value.kind()) {
      case Value::Kind::Undefined:
        value.require_defined();
        return;
      case Value::Kind::None:
        out += "null";
        return;
      case Value::Kind::Bool:
        out += value.as_bool() ? "true" : "false";
        return;
      case Value::Kind::Int:
        value.append_str(out);
        return;
      case Value::Kind::Float: {
        double d = value.as_double();
        if (std::isnan(d))
          out += "NaN";
        else if (std::isinf(d))
          out += d < 0 ? "-Infinity" : "Infinity";
        else
          value.append_str(out);  // Python's float repr
        return;
      }
      case Value::Kind::String:
        append_string(out, value.as_string());
        return;
      case Value::Kind::List:
        if (value.is_range()) break;  // Python's json refuses a range
        dump_list(out, value.as_list(), level);
        return;
      case Value::Kind::Dict:
        dump_dict(out, value.as_dict(), level);
        return;
      case Value::Kind::Callable:
        break;
    }
    fail(std::string("Object of type ") + value.type_name() + " is not JSON serializable");
  }

 private:
  void separator(std::string& out, bool first, int level) const {
    if (!first) out += indent_ ? "," : ", ";
    newline(out, level);
  }

  void newline(std::string& out, int level) const {
    if (!indent_) return;
    out += '\n';
    for (int i = 0; i < level; ++i) out += *indent_;
  }

  void dump_list(std::string& out, const ValueList& list, int level) const {
    if (list.empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (std::size_t i = 0; i < list.size(); ++i) {
      separator(out, i == 0, level + 1);
      dump(out, list[i], level + 1);
    }
    newline(out, level);
    out += ']';
  }

  void dump_dict(std::string& out, const ValueDict& dict, int level) const {
    if (dict.empty()) {
      out += "{}";
      return;
    }
    // sort_keys: Python orders str keys by code point, which is UTF-8 byte order.
    std::vector<const ValueDict::Entry*> entries;
    entries.reserve(dict.size());
    for (const auto& entry : dict) entries.push_back(&entry);
    std::sort(entries.begin(), entries.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    out += '{';
    for (std::size_t i = 0; i < entries.size(); ++i) {
      separator(out, i == 0, level + 1);
      append_string(out, entries[i]->first);
      out += ": ";
      dump(out, entries[i]->second, level + 1);
    }
    newline(out, level);
    out += '}';
  }

  const std::optional<std::string>& indent_;
};

}  // namespace

void append_python_json(std::string& out, const Value& value,
                        const std::optional<std::string>& indent) {
  Dumper(indent).dump(out, value, 0);
}

}  // namespace zf::detail
