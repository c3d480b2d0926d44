// SPDX-License-Identifier: MIT
// Python's printf-style string formatting (`"%s-%05.2f" % args`), following CPython's
// PyUnicode_Format for argument consumption, padding rules and error messages.
#include "template/percent_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

#include "template/limits.hpp"
#include "template/python_ops.hpp"
#include "template/python_text.hpp"

namespace zf::detail {
namespace {

struct Spec {
  bool left = false, plus = false, space = false, alternate = false, zero = false;
  std::int64_t width = -1;
  std::int64_t precision = -1;
  char type = 0;
};

// Where conversions take their values from. A tuple hands out its items in order. A mapping
// (or the value a `%(key)` picked from it) is a single value that one conversion may consume,
// which is why `%(a)s %s` runs out of arguments exactly as in CPython.
class ArgumentSource {
 public:
  explicit ArgumentSource(const ValueList& args) : list_(&args) {}
  explicit ArgumentSource(const Value& mapping) : mapping_(&mapping), single_(mapping) {}

  Value next() {
    if (list_ != nullptr) {
      if (index_ < list_->size()) return (*list_)[index_++];
    } else if (single_available_) {
      single_available_ = false;
      return single_;
    }
    fail("not enough arguments for format string");
  }

  void select_key(const std::string& key) {
    if (mapping_ == nullptr || !mapping_->is_dict()) fail("format requires a mapping");
    const Value* found = mapping_->as_dict().find(key);
    if (found == nullptr) fail("format key " + Value(key).repr() + " is not in the arguments");
    single_ = *found;
    single_available_ = true;
    list_ = nullptr;
  }

  bool all_used() const { return list_ == nullptr || index_ == list_->size(); }

 private:
  const ValueList* list_ = nullptr;
  std::size_t index_ = 0;
  const Value* mapping_ = nullptr;
  Value single_;
  bool single_available_ = true;
};

// Python's `ascii()` applied to a repr: non-ASCII code points become escapes.
std::string ascii_escape(std::string_view text) {
  std::string out;
  static const char* hex = "0123456789abcdef";
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t c;
    pos += decode_utf8(text, pos, c);
    if (c < 0x80) {
      out += static_cast<char>(c);
      continue;
    }
    int digits = c < 0x100 ? 2 : c < 0x10000 ? 4 : 8;
    out += digits == 2 ? "\\x" : digits == 4 ? "\\u" : "\\U";
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += hex[(c >> shift) & 15];
  }
  return out;
}

std::string truncate_code_points(const std::string& text, std::int64_t precision) {
  if (precision < 0) return text;
  std::size_t pos = 0;
  for (std::int64_t n = 0; n < precision && pos < text.size(); ++n) {
    char32_t c;
    pos += decode_utf8(text, pos, c);
  }
  return text.substr(0, pos);
}

// Pads `sign + prefix + digits` to the width: spaces on the left, spaces on the right with
// `-`, or zeros between the sign/prefix and the digits with `0` (numbers only).
std::string pad(const Spec& spec, std::string_view sign_and_prefix, std::string_view body,
                bool numeric) {
  auto length =
      static_cast<std::int64_t>(code_point_count(sign_and_prefix) + code_point_count(body));
  std::string out;
  std::size_t fill = spec.width > length ? static_cast<std::size_t>(spec.width - length) : 0;
  check_value_size(fill, "a %-format width");
  if (spec.left) {
    out.append(sign_and_prefix).append(body).append(fill, ' ');
  } else if (spec.zero && numeric) {
    out.append(sign_and_prefix).append(fill, '0').append(body);
  } else {
    out.append(fill, ' ').append(sign_and_prefix).append(body);
  }
  return out;
}

std::string sign_of(bool negative, const Spec& spec) {
  return negative ? "-" : spec.plus ? "+" : spec.space ? " " : "";
}

std::string format_integer(const Spec& spec, const Value& value) {
  std::int64_t number;
  if (spec.type == 'd' || spec.type == 'i' || spec.type == 'u') {
    if (!value.is_number()) {
      fail(std::string("%") + spec.type + " format: a real number is required, not " +
           value.type_name());
    }
    number = value.is_float() ? truncate_to_int(value.as_double()) : value.as_int();
  } else {
    if (!value.is_int() && !value.is_bool()) {
      fail(std::string("%") + spec.type + " format: an integer is required, not " +
           value.type_name());
    }
    number = value.as_int();
  }
  bool negative = number < 0;
  std::uint64_t magnitude =
      negative ? 0 - static_cast<std::uint64_t>(number) : static_cast<std::uint64_t>(number);
  unsigned base = spec.type == 'o' ? 8 : (spec.type == 'x' || spec.type == 'X') ? 16 : 10;
  const char* digit_chars = spec.type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string digits;
  do {
    digits.insert(digits.begin(), digit_chars[magnitude % base]);
    magnitude /= base;
  } while (magnitude != 0);
  if (spec.precision > static_cast<std::int64_t>(digits.size())) {
    digits.insert(0, static_cast<std::size_t>(spec.precision) - digits.size(), '0');
  }
  std::string prefix = sign_of(negative, spec);
  if (spec.alternate && base != 10)
    prefix += spec.type == 'o' ? "0o" : spec.type == 'X' ? "0X" : "0x";
  return pad(spec, prefix, digits, true);
}

std::string format_float(const Spec& spec, const Value& value) {
  if (!value.is_number()) fail(std::string("must be real number, not ") + value.type_name());
  double number = value.as_double();
  bool upper = spec.type == 'E' || spec.type == 'F' || spec.type == 'G';
  if (std::isnan(number) || std::isinf(number)) {
    // C would print "-nan" for a negative NaN; Python never does.
    bool negative = std::isinf(number) && number < 0;
    return pad(spec, sign_of(negative, spec),
               std::isnan(number) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"), true);
  }
  // Finite values: C's printf agrees with Python digit for digit (both round the exact binary
  // value), so only the sign and padding are done here.
  std::string c_format = "%";
  if (spec.alternate) c_format += '#';
  c_format += ".*";
  c_format += spec.type;
  int precision = spec.precision < 0 ? 6 : static_cast<int>(spec.precision);
  double magnitude = std::fabs(number);
  int size = std::snprintf(nullptr, 0, c_format.c_str(), precision, magnitude);
  std::string body(static_cast<std::size_t>(size) + 1, '\0');
  std::snprintf(body.data(), body.size(), c_format.c_str(), precision, magnitude);
  body.resize(static_cast<std::size_t>(size));
  return pad(spec, sign_of(std::signbit(number), spec), body, true);
}

std::string format_char(const Spec& spec, const Value& value) {
  std::string text;
  if (value.is_int() || value.is_bool()) {
    std::int64_t code = value.as_int();
    if (code < 0 || code > 0x10FFFF) fail("%c arg not in range(0x110000)");
    if (code >= 0xD800 && code <= 0xDFFF) {
      fail("%c arg is a lone surrogate, which UTF-8 output cannot hold");
    }
    append_utf8(text, static_cast<char32_t>(code));
  } else if (value.is_string() && code_point_count(value.as_string()) == 1) {
    text = value.as_string();
  } else {
    value.require_defined();
    fail("%c requires int or char");
  }
  return pad(spec, "", text, false);
}

std::string format_one(const Spec& spec, const Value& value) {
  // `%r` of an undefined value is its repr, `Undefined`, as in Python.
  if (spec.type != 'r' && spec.type != 'a') value.require_defined();
  switch (spec.type) {
    case 's':
      return pad(spec, "", truncate_code_points(value.str(), spec.precision), false);
    case 'r':
      return pad(spec, "", truncate_code_points(value.repr(), spec.precision), false);
    case 'a':
      return pad(spec, "", truncate_code_points(ascii_escape(value.repr()), spec.precision), false);
    case 'd':
    case 'i':
    case 'u':
    case 'o':
    case 'x':
    case 'X':
      return format_integer(spec, value);
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
      return format_float(spec, value);
    case 'c':
      return format_char(spec, value);
    default:
      return {};
  }
}

std::int64_t star_argument(ArgumentSource& source) {
  Value v = source.next();
  if (!v.is_int() && !v.is_bool()) fail("* wants int");
  return v.as_int();
}

std::string run(std::string_view format, ArgumentSource& source) {
  std::string out;
  std::size_t pos = 0;
  auto at_end = [&] { return pos >= format.size(); };
  auto incomplete = [&] {
    if (at_end()) fail("incomplete format");
  };
  while (pos < format.size()) {
    std::size_t percent = format.find('%', pos);
    if (percent == std::string_view::npos) {
      out.append(format.substr(pos));
      break;
    }
    out.append(format.substr(pos, percent - pos));
    pos = percent + 1;
    incomplete();
    if (format[pos] == '%') {
      out += '%';
      ++pos;
      continue;
    }
    if (format[pos] == '(') {
      // The key runs to the matching parenthesis; nested pairs belong to the key.
      int depth = 1;
      std::size_t start = ++pos;
      while (pos < format.size() && depth > 0) {
        if (format[pos] == '(') ++depth;
        if (format[pos] == ')') --depth;
        ++pos;
      }
      if (depth > 0) fail("incomplete format key");
      source.select_key(std::string(format.substr(start, pos - 1 - start)));
    }
    Spec spec;
    for (; !at_end(); ++pos) {
      char c = format[pos];
      if (c == '-')
        spec.left = true;
      else if (c == '+')
        spec.plus = true;
      else if (c == ' ')
        spec.space = true;
      else if (c == '#')
        spec.alternate = true;
      else if (c == '0')
        spec.zero = true;
      else
        break;
    }
    auto read_number = [&](const char* what) {
      std::int64_t n = 0;
      while (!at_end() && format[pos] >= '0' && format[pos] <= '9') {
        n = n * 10 + (format[pos++] - '0');
        if (n > std::numeric_limits<int>::max()) fail(std::string(what) + " too big");
      }
      return n;
    };
    if (!at_end() && format[pos] == '*') {
      ++pos;
      spec.width = star_argument(source);
      if (spec.width < 0) {
        spec.left = true;
        spec.width = -spec.width;
      }
    } else {
      spec.width = read_number("width");
    }
    if (!at_end() && format[pos] == '.') {
      ++pos;
      if (!at_end() && format[pos] == '*') {
        ++pos;
        spec.precision = std::max<std::int64_t>(star_argument(source), 0);
      } else {
        spec.precision = read_number("precision");
      }
    }
    while (!at_end() && (format[pos] == 'h' || format[pos] == 'l' || format[pos] == 'L')) ++pos;
    incomplete();
    char32_t type;
    decode_utf8(format, pos, type);
    // CPython takes the argument before it looks at the conversion character, so a missing
    // argument is reported first; `%` after flags (`%5%`) is not a conversion.
    Value argument = source.next();
    static constexpr std::string_view kTypes = "sradiuoxXeEfFgGc";
    if (type >= 0x80 || kTypes.find(static_cast<char>(type)) == std::string_view::npos) {
      char shown = (type >= 31 && type <= 126) ? static_cast<char>(type) : '?';
      char hex[16];
      std::snprintf(hex, sizeof hex, "%x", static_cast<unsigned>(type));
      fail(std::string("unsupported format character '") + shown + "' (0x" + hex + ") at index " +
           std::to_string(code_point_count(format.substr(0, pos))));
    }
    spec.type = static_cast<char>(type);
    ++pos;
    out += format_one(spec, argument);
  }
  if (!source.all_used()) fail("not all arguments converted during string formatting");
  return out;
}

}  // namespace

std::string percent_format(std::string_view format, const ValueList& args) {
  ArgumentSource source(args);
  return run(format, source);
}

std::string percent_format(std::string_view format, const Value& mapping) {
  ArgumentSource source(mapping);
  return run(format, source);
}

}  // namespace zf::detail
