// SPDX-License-Identifier: MIT
// The str methods beyond methods.cpp's first few: padding (center, ljust, rjust, zfill),
// splitting (rsplit, partition, rpartition, splitlines), search (rfind, index, rindex),
// affixes, case (swapcase, casefold), expandtabs, the is* predicates and str.format.
#include "template/str_methods.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "number_format.hpp"
#include "template/limits.hpp"
#include "template/markup.hpp"
#include "template/python_ops.hpp"
#include "template/python_text.hpp"
#include "text_helpers.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {
namespace {

constexpr std::string_view kNames[] = {
    "casefold", "center",    "expandtabs",   "format",    "index",        "isalnum",      "isalpha",
    "isascii",  "isdecimal", "isidentifier", "islower",   "isnumeric",    "isprintable",  "isspace",
    "istitle",  "isupper",   "ljust",        "partition", "removeprefix", "removesuffix", "rfind",
    "rindex",   "rjust",     "rpartition",   "rsplit",    "splitlines",   "swapcase",     "zfill"};

void arity(const std::string& name, const std::vector<Value>& args, std::size_t min,
           std::size_t max) {
  if (args.size() >= min && args.size() <= max) return;
  std::string expected = min == max ? std::to_string(min)
                         : max == min + 1 && min == 0
                             ? "at most " + std::to_string(max)
                             : std::to_string(min) + " to " + std::to_string(max);
  fail(name + "() takes " + expected + " argument" + (max == 1 ? "" : "s") + " (" +
       std::to_string(args.size()) + " given)");
}

const std::string& str_arg(const std::string& method, const Value& v, std::size_t index) {
  v.require_defined();
  if (!v.is_string()) {
    fail(method + "() argument " + std::to_string(index + 1) + " must be str, not " +
         v.type_name());
  }
  return v.as_string();
}

// The fill character of center/ljust/rjust: exactly one code point.
std::string fill_char(const std::string& method, const std::vector<Value>& args) {
  if (args.size() < 2) return " ";
  const std::string& fill = str_arg(method, args[1], 1);
  if (code_point_count(fill) != 1) {
    fail("The fill character must be exactly one character long");
  }
  return fill;
}

std::string repeat(const std::string& text, std::int64_t n) {
  std::string out;
  if (n <= 0) return out;
  check_value_size(text.size(), static_cast<std::uint64_t>(n), "str padding");
  for (std::int64_t i = 0; i < n; ++i) out += text;
  return out;
}

Value pad(const std::string& s, const std::string& method, const std::vector<Value>& args) {
  arity(method, args, 1, 2);
  std::int64_t width = to_index(args[0]);
  std::string fill = fill_char(method, args);
  auto length = static_cast<std::int64_t>(code_point_count(s));
  std::int64_t missing = width - length;
  if (missing <= 0) return Value(s);
  if (method == "ljust") return Value(s + repeat(fill, missing));
  if (method == "rjust") return Value(repeat(fill, missing) + s);
  // center: Python puts the odd space on the left when both the width's and the padding's
  // parity make it so (left = pad/2 + (pad & width & 1)).
  std::int64_t left = missing / 2 + (missing & width & 1);
  return Value(repeat(fill, left) + s + repeat(fill, missing - left));
}

bool all_code_points(const std::string& s, bool (*predicate)(char32_t)) {
  if (s.empty()) return false;
  for (std::size_t pos = 0; pos < s.size();) {
    char32_t c;
    pos += decode_utf8(s, pos, c);
    if (!predicate(c)) return false;
  }
  return true;
}

bool alnum(char32_t c) { return is_alpha(c) || is_numeric(c); }
bool ascii(char32_t c) { return c < 0x80; }

// str.isidentifier(): Python's rule, on the generated XID tables.
bool is_identifier(const std::string& s) {
  std::u32string points = to_code_points(s);
  if (points.empty() || !is_identifier_start(points[0])) return false;
  return std::all_of(points.begin() + 1, points.end(), is_identifier_continue);
}

Value split_right(const std::string& s, const std::vector<Value>& args) {
  arity("rsplit", args, 0, 2);
  std::int64_t maxsplit = args.size() > 1 ? to_index(args[1]) : -1;
  ValueList out;
  if (args.empty() || args[0].is_none()) {
    // Runs of whitespace separate words; splitting stops from the right after maxsplit.
    std::u32string points = to_code_points(s);
    std::size_t end = points.size();
    while (true) {
      while (end > 0 && is_space(points[end - 1])) --end;
      if (end == 0) break;
      if (maxsplit >= 0 && static_cast<std::int64_t>(out.size()) == maxsplit) {
        out.emplace_back(from_code_points(std::u32string_view(points).substr(0, end)));
        break;
      }
      std::size_t start = end;
      while (start > 0 && !is_space(points[start - 1])) --start;
      out.emplace_back(from_code_points(std::u32string_view(points).substr(start, end - start)));
      end = start;
    }
  } else {
    const std::string& sep = str_arg("rsplit", args[0], 0);
    if (sep.empty()) fail("empty separator");
    std::size_t end = s.size();
    while (true) {
      std::size_t found = end >= sep.size() ? s.rfind(sep, end - sep.size()) : std::string::npos;
      if (found == std::string::npos ||
          (maxsplit >= 0 && static_cast<std::int64_t>(out.size()) == maxsplit)) {
        out.emplace_back(s.substr(0, end));
        break;
      }
      out.emplace_back(s.substr(found + sep.size(), end - found - sep.size()));
      end = found;
    }
  }
  std::reverse(out.begin(), out.end());
  return Value(std::move(out));
}

Value partition(const std::string& s, const std::string& method, const std::vector<Value>& args) {
  arity(method, args, 1, 1);
  const std::string& sep = str_arg(method, args[0], 0);
  if (sep.empty()) fail("empty separator");
  std::size_t at = method == "partition" ? s.find(sep) : s.rfind(sep);
  if (at == std::string::npos) {
    return method == "partition" ? Value::tuple({Value(s), Value(""), Value("")})
                                 : Value::tuple({Value(""), Value(""), Value(s)});
  }
  return Value::tuple({Value(s.substr(0, at)), Value(sep), Value(s.substr(at + sep.size()))});
}

Value split_lines_method(const std::string& s, const std::vector<Value>& args) {
  arity("splitlines", args, 0, 1);
  bool keepends = !args.empty() && args[0].truthy();
  ValueList out;
  std::string_view rest(s);
  for (std::string_view line : split_lines(s)) {
    std::size_t offset = static_cast<std::size_t>(line.data() - rest.data());
    std::size_t next = offset + line.size();
    std::size_t end = next;
    // The break itself: \r\n counts as one.
    if (end < s.size()) {
      char32_t c;
      std::size_t n = decode_utf8(s, end, c);
      end += n;
      if (c == '\r' && end < s.size() && s[end] == '\n') ++end;
    }
    out.emplace_back(
        std::string(keepends ? std::string_view(s).substr(offset, end - offset) : line));
  }
  return Value(std::move(out));
}

Value expand_tabs(const std::string& s, const std::vector<Value>& args) {
  arity("expandtabs", args, 0, 1);
  std::int64_t tabsize = args.empty() ? 8 : to_index(args[0]);
  std::string out;
  std::int64_t column = 0;
  for (std::size_t pos = 0; pos < s.size();) {
    char32_t c;
    std::size_t n = decode_utf8(s, pos, c);
    if (c == '\t') {
      if (tabsize > 0) {
        std::int64_t spaces = tabsize - column % tabsize;
        out += repeat(" ", spaces);
        column += spaces;
      }
    } else {
      out.append(s, pos, n);
      column = (c == '\n' || c == '\r') ? 0 : column + 1;
    }
    check_value_size(out.size(), "expandtabs");
    pos += n;
  }
  return Value(std::move(out));
}

Value zfill(const std::string& s, const std::vector<Value>& args) {
  arity("zfill", args, 1, 1);
  std::int64_t width = to_index(args[0]);
  auto length = static_cast<std::int64_t>(code_point_count(s));
  if (width <= length) return Value(s);
  std::string zeros = repeat("0", width - length);
  if (!s.empty() && (s[0] == '+' || s[0] == '-'))
    return Value(s.substr(0, 1) + zeros + s.substr(1));
  return Value(zeros + s);
}

// ---- str.format ---------------------------------------------------------------------------

struct Spec {
  std::string fill = " ";
  char align = 0, sign = 0, grouping = 0, type = 0;
  bool alternate = false, zero = false;
  std::int64_t width = -1, precision = -1;
};

Spec parse_spec(std::string_view text) {
  Spec spec;
  std::u32string p = to_code_points(text);
  std::size_t i = 0;
  auto is_align = [](char32_t c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  bool explicit_fill = false;
  if (p.size() >= 2 && is_align(p[1])) {
    explicit_fill = true;
    spec.fill = from_code_points(p.substr(0, 1));
    spec.align = static_cast<char>(p[1]);
    i = 2;
  } else if (!p.empty() && is_align(p[0])) {
    spec.align = static_cast<char>(p[0]);
    i = 1;
  }
  if (i < p.size() && (p[i] == '+' || p[i] == '-' || p[i] == ' '))
    spec.sign = static_cast<char>(p[i++]);
  if (i < p.size() && p[i] == '#') spec.alternate = true, ++i;
  if (i < p.size() && p[i] == '0') {
    spec.zero = true;
    ++i;
  }
  auto number = [&](std::int64_t& out) {
    std::size_t start = i;
    std::int64_t n = 0;
    while (i < p.size() && p[i] >= '0' && p[i] <= '9') {
      n = n * 10 + (p[i] - '0');
      if (n > (std::int64_t{1} << 40)) fail("Too many decimal digits in format string");
      ++i;
    }
    if (i > start) out = n;
    return i > start;
  };
  number(spec.width);
  if (i < p.size() && (p[i] == ',' || p[i] == '_')) spec.grouping = static_cast<char>(p[i++]);
  if (i < p.size() && p[i] == '.') {
    ++i;
    if (!number(spec.precision)) fail("Format specifier missing precision");
  }
  if (i < p.size()) spec.type = static_cast<char>(p[i++]);
  if (i < p.size() || (spec.type != 0 && p[i - 1] >= 0x80)) fail("Invalid format specifier");
  // `0` pads with zeros unless a fill is given, and without an alignment puts them after the
  // sign for numbers ('=', in align_text) and at the usual side for strings.
  if (spec.zero && !explicit_fill) spec.fill = "0";
  return spec;
}

std::string group_digits(const std::string& digits, char separator, std::size_t every) {
  std::string out;
  std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % every == 0) out += separator;
    out += digits[i];
  }
  return out;
}

std::string align_text(const Spec& spec, const std::string& sign, const std::string& body,
                       char default_align) {
  char align = spec.align ? spec.align : spec.zero && default_align == '>' ? '=' : default_align;
  auto length = static_cast<std::int64_t>(code_point_count(sign) + code_point_count(body));
  std::int64_t missing = spec.width - length;
  if (missing <= 0) return sign + body;
  switch (align) {
    case '<':
      return sign + body + repeat(spec.fill, missing);
    case '^':
      return repeat(spec.fill, missing / 2) + sign + body +
             repeat(spec.fill, missing - missing / 2);
    case '=':
      return sign + repeat(spec.fill, missing) + body;
    default:
      return repeat(spec.fill, missing) + sign + body;
  }
}

std::string format_int(std::int64_t n, const Spec& spec) {
  if (spec.precision >= 0) fail("Precision not allowed in integer format specifier");
  char type = spec.type ? spec.type : 'd';
  std::uint64_t magnitude =
      n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  std::string digits, prefix;
  if (type == 'c') {
    if (spec.sign) fail("Sign not allowed with integer format specifier 'c'");
    if (n < 0 || n > 0x10FFFF) fail("%c arg not in range(0x110000)");
    std::string out;
    append_utf8(out, static_cast<char32_t>(n));
    return align_text(spec, "", out, '<');
  }
  int base = type == 'b' ? 2 : type == 'o' ? 8 : (type == 'x' || type == 'X') ? 16 : 10;
  if (base == 10 && type != 'd' && type != 'n') {
    fail(std::string("Unknown format code '") + type + "' for object of type 'int'");
  }
  do {
    digits.insert(digits.begin(), "0123456789abcdef"[magnitude % static_cast<unsigned>(base)]);
    magnitude /= static_cast<unsigned>(base);
  } while (magnitude > 0);
  if (type == 'X') std::transform(digits.begin(), digits.end(), digits.begin(), ::toupper);
  if (spec.alternate && base != 10) prefix = std::string("0") + (type == 'X' ? 'X' : type);
  if (spec.grouping) {
    if (base != 10 && spec.grouping == ',')
      fail("Cannot specify ',' with '" + std::string(1, type) + "'.");
    digits = group_digits(digits, spec.grouping, base == 10 ? 3 : 4);
  }
  std::string sign = n < 0 ? "-" : spec.sign == '+' ? "+" : spec.sign == ' ' ? " " : "";
  return align_text(spec, sign + prefix, digits, '>');
}

std::string format_float(double d, const Spec& spec) {
  // 'n' is 'g' with the locale's separators; templates run in the C locale, which has none.
  char type = spec.type == 'n' ? 'g' : spec.type;
  if (type != 0 && std::string_view("eEfFgG%").find(type) == std::string_view::npos) {
    fail(std::string("Unknown format code '") + type + "' for object of type 'float'");
  }
  double magnitude = std::fabs(d);
  std::string body;
  if (type == 0 && spec.precision < 0) {
    append_python_float(body, magnitude);
  } else {
    char conversion = type == 0 ? 'g' : type == '%' ? 'f' : type;
    std::int64_t precision = spec.precision < 0 ? 6 : spec.precision;
    check_value_size(static_cast<std::uint64_t>(precision), "str.format precision");
    double value = type == '%' ? magnitude * 100 : magnitude;
    std::string format = std::string("%") + (spec.alternate ? "#" : "") + ".*" + conversion;
    int size = std::snprintf(nullptr, 0, format.c_str(), static_cast<int>(precision), value);
    body.resize(static_cast<std::size_t>(size) + 1);
    std::snprintf(body.data(), body.size(), format.c_str(), static_cast<int>(precision), value);
    body.resize(static_cast<std::size_t>(size));
    // Without a type Python's general format keeps at least one digit after the point.
    if (type == 0 && std::isfinite(value) && body.find_first_of(".e") == std::string::npos)
      body += ".0";
    if (type == '%') body += '%';
  }
  if (spec.grouping) {
    std::size_t end = body.find_first_not_of("0123456789");
    if (end == std::string::npos) end = body.size();
    body = group_digits(body.substr(0, end), spec.grouping, 3) + body.substr(end);
  }
  std::string sign = std::signbit(d) && !std::isnan(d) ? "-"
                     : spec.sign == '+'                ? "+"
                     : spec.sign == ' '                ? " "
                                                       : "";
  return align_text(spec, sign, body, '>');
}

std::string format_value(const Value& v, std::string_view spec_text) {
  Spec spec = parse_spec(spec_text);
  v.require_defined();
  if (v.is_bool() && spec_text.empty()) return v.str();  // any other spec formats 1 or 0
  if (v.is_int() || v.is_bool()) {
    if (spec.type != 0 && std::string_view("eEfFgG%").find(spec.type) != std::string_view::npos) {
      return format_float(v.as_double(), spec);
    }
    return format_int(v.as_int(), spec);
  }
  if (v.is_float()) return format_float(v.as_double(), spec);
  if (v.is_string() || spec_text.empty()) {
    if (spec.type != 0 && spec.type != 's') {
      fail(std::string("Unknown format code '") + spec.type + "' for object of type '" +
           v.type_name() + "'");
    }
    if (spec.sign) fail("Sign not allowed in string format specifier");
    if (spec.align == '=') fail("'=' alignment not allowed in string format specifier");
    std::string text = v.str();
    if (spec.precision >= 0) {
      auto points = split_code_points(text);
      std::string cut;
      for (std::size_t i = 0; i < points.size() && static_cast<std::int64_t>(i) < spec.precision;
           ++i)
        cut.append(points[i]);
      text = cut;
    }
    return align_text(spec, "", text, '<');
  }
  fail(std::string("unsupported format string passed to ") + v.type_name() + ".__format__");
}

// Python's ascii(): the repr with every non-ASCII code point written as \\xNN, \\uNNNN or
// \\UNNNNNNNN.
std::string ascii_repr(const Value& v) {
  std::string out;
  for (char32_t c : to_code_points(v.repr())) {
    if (c < 0x80) {
      out += static_cast<char>(c);
      continue;
    }
    char buffer[12];
    const char* form = c <= 0xFF ? "\\x%02x" : c <= 0xFFFF ? "\\u%04x" : "\\U%08x";
    std::snprintf(buffer, sizeof buffer, form, static_cast<unsigned>(c));
    out += buffer;
  }
  return out;
}

// What one str.format call shares between its fields, nested ones included.
struct FormatCall {
  const std::vector<Value>& args;
  const std::vector<std::pair<std::string, Value>>& kwargs;
  bool escape_fields;
  std::size_t automatic = 0;
  bool used_automatic = false, used_manual = false;
};

// The value a field name (`0`, `name`, ``, with `.attr` and `[key]` after it) refers to.
Value field_value(FormatCall& call, const std::string& field) {
  std::size_t name_end = field.find_first_of(".[");
  std::string name = field.substr(0, name_end);
  Value value;
  if (name.empty()) {
    if (call.used_manual)
      fail("cannot switch from manual field specification to automatic field numbering");
    call.used_automatic = true;
    if (call.automatic >= call.args.size())
      fail("Replacement index " + std::to_string(call.automatic) +
           " out of range for positional args tuple");
    value = call.args[call.automatic++];
  } else if (std::all_of(name.begin(), name.end(), [](char d) { return d >= '0' && d <= '9'; })) {
    if (call.used_automatic)
      fail("cannot switch from automatic field numbering to manual field specification");
    call.used_manual = true;
    std::size_t index = name.size() > 18 ? call.args.size() : std::stoull(name);
    if (index >= call.args.size())
      fail("Replacement index " + name + " out of range for positional args tuple");
    value = call.args[index];
  } else {
    auto it = std::find_if(call.kwargs.begin(), call.kwargs.end(),
                           [&](const auto& kw) { return kw.first == name; });
    if (it == call.kwargs.end()) fail("KeyError: " + Value(name).repr());
    value = it->second;
  }
  // `.attr` and `[key]` (a digit key is an index), as Python's field names.
  std::size_t pos = name_end;
  while (pos != std::string::npos && pos < field.size()) {
    if (field[pos] == '.') {
      std::size_t end = field.find_first_of(".[", pos + 1);
      std::string attr =
          field.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
      if (attr.empty()) fail("Empty attribute in format string");
      value = get_item(value, Value(attr));
      pos = end;
    } else {
      std::size_t end = field.find(']', pos);
      if (end == std::string::npos) fail("Missing ']' in format string");
      std::string key = field.substr(pos + 1, end - pos - 1);
      bool digits =
          !key.empty() && key.size() < 19 &&
          std::all_of(key.begin(), key.end(), [](char d) { return d >= '0' && d <= '9'; });
      value =
          get_item(value, digits ? Value(static_cast<std::int64_t>(std::stoll(key))) : Value(key));
      pos = end + 1;
      if (pos < field.size() && field[pos] != '.' && field[pos] != '[') {
        fail("Only '.' or '[' may follow ']' in format field specifier");
      }
    }
  }
  return value;
}

// Formats `s` into `out`. As in Python, a field's format spec may itself hold replacement
// fields (`{:{width}}`), formatted first, after the field's own value is taken (so automatic
// numbering goes outer field, then the spec's); `depth` allows one level of that, as Python's
// recursion limit of 2 does.
void format_into(std::string& out, std::string_view s, FormatCall& call, int depth) {
  if (depth <= 0) fail("Max string recursion exceeded");
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '}') {
      if (i + 1 < s.size() && s[i + 1] == '}') {
        out += '}';
        ++i;
        continue;
      }
      fail("Single '}' encountered in format string");
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < s.size() && s[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    if (i + 1 == s.size()) fail("Single '{' encountered in format string");
    // The field ends at the '}' that balances its '{' (a nested field's braces count).
    std::size_t close = i + 1;
    bool in_name = true;  // before the field's ':' or '!', where a '{' is an error
    bool in_key = false;  // inside the name's `[key]`, where braces are the key's text
    for (std::size_t level = 1; close < s.size(); ++close) {
      if (in_name && (in_key || s[close] == '[')) {
        in_key = s[close] != ']';
        continue;
      }
      if (s[close] == '{') {
        if (in_name) fail("unexpected '{' in field name");
        ++level;
      }
      if (level == 1 && (s[close] == ':' || s[close] == '!')) in_name = false;
      if (s[close] == '}' && --level == 0) break;
    }
    if (close == s.size()) fail("unmatched '{' in format spec");
    std::string_view whole = s.substr(i + 1, close - i - 1);
    i = close;
    // The name ends at ':' or '!' outside brackets; a '{' in it is an error.
    std::size_t name_end = 0;
    for (; name_end < whole.size(); ++name_end) {
      char d = whole[name_end];
      if (d == '{') fail("unexpected '{' in field name");
      if (d == '[') {
        std::size_t bracket = whole.find(']', name_end);
        if (bracket == std::string_view::npos) break;
        name_end = bracket;
        continue;
      }
      if (d == ':' || d == '!') break;
    }
    std::string field(whole.substr(0, name_end));
    char conversion = 0;
    std::size_t rest = name_end;
    if (rest < whole.size() && whole[rest] == '!') {
      if (rest + 1 >= whole.size()) fail("unmatched '{' in format spec");  // Python's words
      conversion = whole[rest + 1];
      rest += 2;
      if (conversion != 'r' && conversion != 's' && conversion != 'a')
        fail(std::string("Unknown conversion specifier ") + conversion);
      if (rest < whole.size() && whole[rest] != ':')
        fail("expected ':' after conversion specifier");
    }
    std::string_view spec_text = rest < whole.size() ? whole.substr(rest + 1) : std::string_view();
    Value value = field_value(call, field);
    std::string spec;
    if (spec_text.find('{') != std::string_view::npos) {
      format_into(spec, spec_text, call, depth - 1);
    } else {
      spec = spec_text;
    }
    // repr() of an undefined value is `Undefined` (Jinja2's StrictUndefined has no __repr__
    // of its own); anything else it is asked for fails.
    if (conversion != 'r' && conversion != 'a') value.require_defined();
    if (conversion == 'r') value = Value(value.repr());
    if (conversion == 'a') value = Value(ascii_repr(value));
    if (conversion == 's') value = Value(value.str());
    if (call.escape_fields && !value.is_markup()) {
      // Markup.format: each formatted field is escaped (a Markup value goes in as it is).
      append_html_escaped(out, format_value(value, spec));
    } else {
      out += format_value(value, spec);
    }
    check_value_size(out.size(), "str.format");
  }
}

Value format(const std::string& s, const std::vector<Value>& args,
             const std::vector<std::pair<std::string, Value>>& kwargs, bool escape_fields) {
  FormatCall call{args, kwargs, escape_fields};
  std::string out;
  format_into(out, s, call, 2);
  return Value(std::move(out));
}

}  // namespace

bool is_str_method(std::string_view name) {
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

Value call_str_method(const std::string& s, const std::string& m, const std::vector<Value>& args,
                      const std::vector<std::pair<std::string, Value>>& kwargs,
                      bool escape_fields) {
  if (m == "format") return format(s, args, kwargs, escape_fields);
  if (!kwargs.empty()) fail("str." + m + "() takes no keyword arguments");
  if (m == "center" || m == "ljust" || m == "rjust") return pad(s, m, args);
  if (m == "zfill") return zfill(s, args);
  if (m == "rsplit") return split_right(s, args);
  if (m == "partition" || m == "rpartition") return partition(s, m, args);
  if (m == "splitlines") return split_lines_method(s, args);
  if (m == "expandtabs") return expand_tabs(s, args);
  if (m == "removeprefix" || m == "removesuffix") {
    arity(m, args, 1, 1);
    const std::string& affix = str_arg(m, args[0], 0);
    if (m == "removeprefix") {
      return Value(s.compare(0, affix.size(), affix) == 0 ? s.substr(affix.size()) : s);
    }
    bool ends =
        s.size() >= affix.size() && s.compare(s.size() - affix.size(), affix.size(), affix) == 0;
    return Value(ends && !affix.empty() ? s.substr(0, s.size() - affix.size()) : s);
  }
  if (m == "rfind" || m == "index" || m == "rindex") {
    arity(m, args, 1, 3);
    const std::string& sub = str_arg(m, args[0], 0);
    bool from_right = m != "index";
    // Search the window args[1]:args[2] in code points.
    std::vector<std::string_view> points = split_code_points(s);
    auto n = static_cast<std::int64_t>(points.size());
    auto bound = [&](std::size_t i, std::int64_t fallback) {
      if (args.size() <= i || args[i].is_none()) return fallback;
      std::int64_t x = to_index(args[i]);
      if (x < 0) x = std::max<std::int64_t>(x + n, 0);
      return std::min(x, n);
    };
    std::int64_t begin = bound(1, 0), end = bound(2, n);
    std::int64_t found = -1;
    if (begin <= end) {
      std::u32string hay = to_code_points(s).substr(static_cast<std::size_t>(begin),
                                                    static_cast<std::size_t>(end - begin));
      std::u32string needle = to_code_points(sub);
      std::size_t at = from_right ? hay.rfind(needle) : hay.find(needle);
      if (at != std::u32string::npos) found = begin + static_cast<std::int64_t>(at);
    }
    if (found < 0 && m != "rfind") fail("substring not found");
    return Value(found);
  }
  if (m == "swapcase") {
    arity(m, args, 0, 0);
    return Value(swap_case(s));
  }
  if (m == "casefold") {
    arity(m, args, 0, 0);
    return Value(case_fold(s));
  }
  arity(m, args, 0, 0);
  if (m == "isalnum") return Value(all_code_points(s, alnum));
  if (m == "isalpha") return Value(all_code_points(s, is_alpha));
  if (m == "isascii") return Value(s.empty() || all_code_points(s, ascii));
  if (m == "isdecimal") return Value(all_code_points(s, is_decimal));
  if (m == "isnumeric") return Value(all_code_points(s, is_numeric));
  if (m == "isspace") return Value(all_code_points(s, is_space));
  if (m == "isprintable") return Value(s.empty() || all_code_points(s, is_printable));
  if (m == "islower") return Value(is_lower(s));
  if (m == "isupper") return Value(is_upper(s));
  if (m == "istitle") return Value(is_title_case(s));
  if (m == "isidentifier") return Value(is_identifier(s));
  fail("'str' object has no attribute '" + m + "'");
}

}  // namespace zf::detail
