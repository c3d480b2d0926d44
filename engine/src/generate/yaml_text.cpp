// SPDX-License-Identifier: MIT
// yaml_flow_text (yaml_text.hpp): JSON values as YAML flow text read alike by YAML 1.1 and 1.2.
#include "yaml_text.hpp"

#include "text_helpers.hpp"

namespace zf::pipeline {
namespace {

using Json = nlohmann::ordered_json;

void append_hex4(std::string& out, char32_t c) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(c >> shift) & 0xf];
}

// A double-quoted scalar: JSON's escapes, which YAML's double-quoted style shares, and
// `\uXXXX` for what a reader would fold or refuse if written as it is.
void append_string(std::string& out, std::string_view text) {
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    if (detail::LineControl control = detail::line_control_at(text, i); control.length != 0) {
      if (const char* escape = detail::json_short_escape(control.code_point)) {
        out += escape;
      } else {
        append_hex4(out, control.code_point);
      }
      i += control.length;
      continue;
    }
    const std::size_t length = detail::utf8_sequence_length(text, i);
    if (length == 0) {  // not UTF-8: the readers refuse the stream; write U+FFFD as JSON does
      out += "\\ufffd";
      ++i;
      continue;
    }
    // U+FEFF (a byte order mark, which PyYAML drops), U+FFFE and U+FFFF (not printable).
    if (length == 3 && static_cast<unsigned char>(text[i]) == 0xef) {
      const auto b1 = static_cast<unsigned char>(text[i + 1]);
      const auto b2 = static_cast<unsigned char>(text[i + 2]);
      if ((b1 == 0xbb && b2 == 0xbf) || (b1 == 0xbf && (b2 == 0xbe || b2 == 0xbf))) {
        append_hex4(out, (char32_t{0xf} << 12) | (char32_t(b1 & 0x3f) << 6) | (b2 & 0x3f));
        i += 3;
        continue;
      }
    }
    if (text[i] == '"' || text[i] == '\\') out += '\\';
    out.append(text.substr(i, length));
    i += length;
  }
  out += '"';
}

void append_value(std::string& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) out += ", ";
        first = false;
        append_string(out, key);
        out += ": ";
        append_value(out, item);
      }
      out += '}';
      return;
    }
    case Json::value_t::array: {
      out += '[';
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i != 0) out += ", ";
        append_value(out, value[i]);
      }
      out += ']';
      return;
    }
    case Json::value_t::string:
      append_string(out, value.get_ref<const std::string&>());
      return;
    case Json::value_t::number_float:
      out += yaml_float_text(value.dump());
      return;
    default:  // integers, true, false, null: read alike by both schemas
      out += value.dump();
      return;
  }
}

}  // namespace

std::string yaml_float_text(std::string text) {
  std::size_t e = text.find_first_of("eE");
  if (e == std::string::npos) {
    if (text.find('.') == std::string::npos) text += ".0";  // 1e3 printed as "1000": a float
    return text;
  }
  if (text.find('.') == std::string::npos) {
    text.insert(e, ".0");
    e += 2;
  }
  if (e + 1 < text.size() && text[e + 1] != '+' && text[e + 1] != '-') text.insert(e + 1, "+");
  return text;
}

std::string yaml_flow_text(const Json& value) {
  std::string out;
  append_value(out, value);
  return out;
}

}  // namespace zf::pipeline
