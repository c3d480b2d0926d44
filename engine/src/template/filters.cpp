// SPDX-License-Identifier: MIT
// The builtin filters: Jinja2 3.1's filters.py, one registration table at the end. Each body
// follows the Python implementation (argument order, Python's errors), as StrictUndefined sees it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "template/builtin_filters.hpp"
#include "template/limits.hpp"
#include "template/markup.hpp"
#include "template/methods.hpp"
#include "template/percent_format.hpp"
#include "template/python_json.hpp"
#include "template/python_ops.hpp"
#include "template/python_text.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"

namespace zf {
namespace {

using detail::fail;

Parameter required(std::string name) { return Parameter{std::move(name), std::nullopt}; }
Parameter optional(std::string name, Value default_value) {
  return Parameter{std::move(name), std::move(default_value)};
}

Value int_value(std::size_t n) { return Value(static_cast<std::int64_t>(n)); }

// ---- conversions ------------------------------------------------------------------------

// Python's `float(v)`, or nullopt where Python raises TypeError or ValueError.
std::optional<double> try_python_float(const Value& v) {
  v.require_defined();
  if (v.is_number()) return v.as_double();
  if (v.is_string()) {
    double d;
    if (detail::parse_python_float(v.as_string(), d) == detail::ParseStatus::Ok) return d;
  }
  return std::nullopt;
}

double python_float(const Value& v) {
  if (auto d = try_python_float(v)) return *d;
  if (v.is_string()) fail("could not convert string to float: " + v.repr());
  fail(std::string("float() argument must be a string or a real number, not '") + v.type_name() +
       "'");
}

Value do_int(const Value& v, Arguments& args, const CallContext&) {
  v.require_defined();
  const Value& base = args.bound[1];
  if (v.is_string() && (base.is_int() || base.is_bool())) {
    std::int64_t out;
    switch (detail::parse_python_int(v.as_string(), base.as_int(), out)) {
      case detail::ParseStatus::Ok:
        return Value(out);
      case detail::ParseStatus::Overflow:
        fail("integer overflow: " + v.repr() + " does not fit in 64 bits");
      case detail::ParseStatus::Invalid:
        break;
    }
  } else if (v.is_int() || v.is_bool()) {
    return Value(v.as_int());
  } else if (v.is_float() && !std::isnan(v.as_double())) {
    // int(inf) raises OverflowError, which Jinja2 does not catch here.
    return Value(detail::truncate_to_int(v.as_double()));
  }
  // Jinja2 retries as int(float(value)), so "42.23" gives 42.
  auto d = try_python_float(v);
  if (!d || !std::isfinite(*d)) return args.bound[0];
  return Value(detail::truncate_to_int(*d));
}

Value do_float(const Value& v, Arguments& args, const CallContext&) {
  auto d = try_python_float(v);
  return d ? Value(*d) : args.bound[0];
}

// soft_str: Markup stays Markup.
Value do_string(const Value& v, Arguments&, const CallContext&) {
  return v.is_markup() ? v : Value(v.str());
}

Value do_abs(const Value& v, Arguments&, const CallContext&) {
  v.require_defined();
  if (v.is_float()) return Value(std::fabs(v.as_double()));
  if (v.is_int() || v.is_bool()) {
    std::int64_t n = v.as_int();
    if (n == std::numeric_limits<std::int64_t>::min()) {
      fail("integer overflow: abs(" + v.str() + ") does not fit in 64 bits");
    }
    return Value(n < 0 ? -n : n);
  }
  fail(std::string("bad operand type for abs(): '") + v.type_name() + "'");
}

// ---- round ------------------------------------------------------------------------------

// Python's round(float, ndigits): the decimal nearest to the exact binary value, ties to even.
double round_float(double x, std::int64_t digits) {
  if (!std::isfinite(x) || digits > 323) return x;
  if (digits < -308) return 0.0 * x;
  std::string text;
  if (digits >= 0) {
    // glibc prints the exact binary value rounded half-to-even, which is Python's rule.
    int size = std::snprintf(nullptr, 0, "%.*f", static_cast<int>(digits), x);
    text.resize(static_cast<std::size_t>(size) + 1);
    std::snprintf(text.data(), text.size(), "%.*f", static_cast<int>(digits), x);
  } else {
    // Rounding to tens, hundreds, ...: decide on the exact expansion of the value.
    char exact[1500];
    std::snprintf(exact, sizeof exact, "%.1100f", std::fabs(x));
    std::string_view all(exact);
    std::string_view integral = all.substr(0, all.find('.'));
    std::string_view fraction = all.substr(all.find('.') + 1);
    auto k = static_cast<std::size_t>(-digits);
    std::string kept = integral.size() > k ? std::string(integral.substr(0, integral.size() - k))
                                           : std::string("0");
    std::string rest = integral.size() > k
                           ? std::string(integral.substr(integral.size() - k))
                           : std::string(k - integral.size(), '0') + std::string(integral);
    bool above_half = false, tie = false;
    if (rest[0] > '5') {
      above_half = true;
    } else if (rest[0] == '5') {
      bool more = rest.find_first_not_of('0', 1) != std::string::npos ||
                  fraction.find_first_not_of('0') != std::string_view::npos;
      above_half = more;
      tie = !more;
    }
    bool up = above_half || (tie && (kept.back() - '0') % 2 == 1);
    if (up) {
      std::size_t i = kept.size();
      while (i > 0 && kept[i - 1] == '9') kept[--i] = '0';
      if (i == 0) {
        kept.insert(kept.begin(), '1');
      } else {
        ++kept[i - 1];
      }
    }
    text = (std::signbit(x) ? "-" : "") + kept + std::string(k, '0');
  }
  double result = std::strtod(text.c_str(), nullptr);
  if (std::isinf(result)) fail("rounded value too large to represent");
  return result;
}

// Python's round(int, ndigits) for negative ndigits: to a multiple of 10^-ndigits, ties to even.
std::int64_t round_int(std::int64_t n, std::int64_t digits) {
  if (digits >= 0) return n;
  if (digits < -19) return 0;
  std::uint64_t power = 1;
  for (std::int64_t i = 0; i < -digits; ++i) power *= 10;
  bool negative = n < 0;
  std::uint64_t magnitude =
      negative ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  std::uint64_t quotient = magnitude / power, remainder = magnitude % power;
  std::uint64_t half = power / 2;
  if (remainder > half || (remainder == half && quotient % 2 == 1)) ++quotient;
  std::uint64_t result;
  std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  if (__builtin_mul_overflow(quotient, power, &result) || result > limit) {
    fail("integer overflow: round(" + std::to_string(n) + ", " + std::to_string(digits) +
         ") does not fit in 64 bits");
  }
  return negative ? static_cast<std::int64_t>(0 - result) : static_cast<std::int64_t>(result);
}

Value do_round(const Value& v, Arguments& args, const CallContext&) {
  const Value& precision = args.bound[0];
  const Value& method = args.bound[1];
  bool common = method.is_string() && method.as_string() == "common";
  bool ceil = method.is_string() && method.as_string() == "ceil";
  bool floor = method.is_string() && method.as_string() == "floor";
  if (!common && !ceil && !floor) fail("method must be common, ceil or floor");
  v.require_defined();
  if (common) {
    if (!v.is_number())
      fail(std::string("type ") + v.type_name() + " doesn't define __round__ method");
    if (precision.is_none()) {
      // round(x) without ndigits returns an int.
      if (!v.is_float()) return Value(v.as_int());
      return Value(detail::truncate_to_int(std::nearbyint(v.as_double())));
    }
    std::int64_t digits = detail::to_index(precision);
    if (!v.is_float()) return Value(round_int(v.as_int(), digits));
    return Value(round_float(v.as_double(), digits));
  }
  if (!v.is_number()) fail(std::string("must be real number, not ") + v.type_name());
  std::int64_t digits = detail::to_index(precision);
  // Jinja2: math.ceil/floor(value * 10**precision) / 10**precision, always a float.
  if (!v.is_float() && digits >= 0) return Value(v.as_double());
  if (digits > 308) fail("int too large to convert to float");
  double scale = std::pow(10.0, static_cast<double>(digits));
  double scaled = v.as_double() * scale;
  if (std::isnan(scaled)) fail("cannot convert float NaN to integer");
  if (std::isinf(scaled)) fail("cannot convert float infinity to integer");
  double rounded = ceil ? std::ceil(scaled) : std::floor(scaled);
  // Python's math.ceil/floor give an int, which has no -0: ceil(-0.5) is 0, and 0 / scale 0.0.
  if (rounded == 0) rounded = 0.0;
  return Value(rounded / scale);
}

// ---- strings ----------------------------------------------------------------------------

// `str(v)` for a filter that only reads it: a string is read where it is; the text of any
// other value is made in `storage`.
std::string_view text_of(const Value& v, std::string& storage) {
  if (v.is_string()) return v.as_string();
  storage = v.str();
  return storage;
}

// The filters that call a str method on soft_str(value) (upper, lower, capitalize, trim,
// center, ...) give Markup for Markup, as MarkupSafe's wrapped methods do.
Value do_lower(const Value& v, Arguments&, const CallContext&) {
  std::string storage;
  return detail::marked_like(v, detail::to_lower(text_of(v, storage)));
}
Value do_upper(const Value& v, Arguments&, const CallContext&) {
  std::string storage;
  return detail::marked_like(v, detail::to_upper(text_of(v, storage)));
}
Value do_title(const Value& v, Arguments&, const CallContext&) {
  std::string storage;
  return Value(detail::title(text_of(v, storage)));
}
Value do_capitalize(const Value& v, Arguments&, const CallContext&) {
  std::string storage;
  return detail::marked_like(v, detail::capitalize(text_of(v, storage)));
}

Value do_trim(const Value& v, Arguments& args, const CallContext&) {
  std::string text = v.str();
  const Value& chars = args.bound[0];
  chars.require_defined();
  if (chars.is_none()) return detail::marked_like(v, detail::strip(text, std::nullopt));
  if (!chars.is_string()) fail("strip arg must be None or str");
  return detail::marked_like(v, detail::strip(text, chars.as_string()));
}

Value do_replace(const Value& v, Arguments& args, const CallContext&) {
  std::string text = v.str();
  std::string old_text = args.bound[0].str();
  std::string new_text = args.bound[1].str();
  std::int64_t count = args.bound[2].is_none() ? -1 : detail::to_index(args.bound[2]);
  return Value(detail::replace(text, old_text, new_text, count));
}

Value do_center(const Value& v, Arguments& args, const CallContext&) {
  std::string text = v.str();
  return detail::marked_like(v, detail::center(text, detail::to_index(args.bound[0])));
}

Value do_wordcount(const Value& v, Arguments&, const CallContext&) {
  return int_value(detail::word_count(v.str()));
}

Value do_indent(const Value& v, Arguments& args, const CallContext&) {
  const Value& width = args.bound[0];
  std::string indention;
  if (width.is_string()) {
    indention = width.as_string();
  } else {
    width.require_defined();
    if (!width.is_int() && !width.is_bool()) {
      fail(std::string("can't multiply sequence by non-int of type '") + width.type_name() + "'");
    }
    detail::check_value_size(static_cast<std::uint64_t>(std::max<std::int64_t>(width.as_int(), 0)),
                             "indent");
    indention.assign(static_cast<std::size_t>(std::max<std::int64_t>(width.as_int(), 0)), ' ');
  }
  v.require_defined();
  if (!v.is_string()) {
    fail(std::string("unsupported operand type(s) for +=: '") + v.type_name() + "' and 'str'");
  }
  // Jinja2 appends a newline first so that a trailing newline survives splitlines().
  std::string text = v.as_string() + "\n";
  auto lines = detail::split_lines(text);
  detail::check_value_size(indention.size(), lines.size() + 1, "indent");
  std::string out;
  if (args.bound[2].truthy()) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i > 0) out.append("\n").append(indention);
      out.append(lines[i]);
    }
  } else {
    out.append(lines[0]);
    for (std::size_t i = 1; i < lines.size(); ++i) {
      out += '\n';
      if (!lines[i].empty()) out.append(indention);
      out.append(lines[i]);
    }
  }
  if (args.bound[1].truthy()) out.insert(0, indention);
  return detail::marked_like(v, std::move(out));  // Jinja2 makes the indention Markup too
}

Value do_truncate(const Value& v, Arguments& args, const CallContext&) {
  v.require_defined();
  std::int64_t length = detail::to_index(args.bound[0]);
  const Value& end = args.bound[2];
  auto end_length = static_cast<std::int64_t>(detail::python_len(end));
  std::int64_t leeway = args.bound[3].is_none() ? 5 : detail::to_index(args.bound[3]);
  if (length < end_length) {
    fail("expected length >= " + std::to_string(end_length) + ", got " + std::to_string(length));
  }
  if (leeway < 0) fail("expected leeway >= 0, got " + std::to_string(leeway));
  auto size = static_cast<std::int64_t>(detail::python_len(v));
  if (size <= length + leeway) return v;
  if (!v.is_string() || !end.is_string()) {
    fail(std::string("can only concatenate ") + v.type_name() + " (not \"" + end.type_name() +
         "\") to " + v.type_name());
  }
  auto points = detail::split_code_points(v.as_string());
  std::string head;
  for (std::int64_t i = 0; i < length - end_length; ++i) {
    head.append(points[static_cast<std::size_t>(i)]);
  }
  if (!args.bound[1].truthy()) {
    // Drop the last, possibly cut, word: everything from the last space on.
    std::size_t space = head.rfind(' ');
    if (space != std::string::npos) head.resize(space);
  }
  // Markup + end escapes end.
  return detail::marked_like(v, head + (v.is_markup() ? detail::escape(end) : end).as_string());
}

Value do_format(const Value& v, Arguments& args, const CallContext&) {
  if (!args.extra_positional.empty() && !args.extra_keywords.empty()) {
    fail("can't handle positional and keyword arguments at the same time");
  }
  std::string format = v.str();
  // Markup % args escapes the arguments (soft_str keeps the Markup).
  auto argument = [&](const Value& a) { return v.is_markup() ? detail::escape_argument(a) : a; };
  if (args.extra_keywords.empty()) {
    ValueList positional;
    for (const auto& a : args.extra_positional) positional.push_back(argument(a));
    return detail::marked_like(v, detail::percent_format(format, positional));
  }
  ValueDict mapping;
  for (auto& [key, value] : args.extra_keywords) mapping.set(key, argument(value));
  return detail::marked_like(v, detail::percent_format(format, Value(std::move(mapping))));
}

// `bytes < 1000 ** k`, compared exactly as Python compares a float with an int (the double 1e24
// lies just below 10 ** 24). 1000 ** k is 2 ** 3k times 5 ** 3k, which fits in 64 bits for
// k <= 9, and scaling by a power of two is exact.
bool below_power_of_1000(double bytes, int k) {
  if (std::isnan(bytes)) return false;
  double scaled = std::ldexp(bytes, -3 * k);
  if (scaled >= 18446744073709551616.0) return false;  // 2 ** 64
  std::uint64_t five = 1;
  for (int i = 0; i < 3 * k; ++i) five *= 5;
  return static_cast<std::uint64_t>(std::floor(scaled)) < five;
}

Value do_filesizeformat(const Value& v, Arguments& args, const CallContext&) {
  double bytes = python_float(v);
  bool binary = args.bound[0].truthy();
  static const char* const kDecimal[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
  static const char* const kBinary[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  // base ** (i + 2) for i = 0..7, as correctly rounded doubles (Python divides by these).
  static const double kDecimalUnits[] = {1e6, 1e9, 1e12, 1e15, 1e18, 1e21, 1e24, 1e27};
  double base = binary ? 1024.0 : 1000.0;
  if (bytes == 1) return Value("1 Byte");
  if (bytes < base) return Value(std::to_string(detail::truncate_to_int(bytes)) + " Bytes");
  std::size_t i = 0;
  double unit = 0;
  for (; i < 8; ++i) {
    unit = binary ? std::ldexp(1.0, 10 * static_cast<int>(i + 2)) : kDecimalUnits[i];
    if (binary ? bytes < unit : below_power_of_1000(bytes, static_cast<int>(i + 2))) break;
  }
  if (i == 8) i = 7;  // larger than every unit: Jinja2 keeps the last one
  double scaled = base * bytes / unit;
  char number[400];
  if (std::isnan(scaled)) {
    std::snprintf(number, sizeof number, "nan");
  } else {
    std::snprintf(number, sizeof number, "%.1f", scaled);
  }
  return Value(std::string(number) + " " + (binary ? kBinary[i] : kDecimal[i]));
}

Value do_tojson(const Value& v, Arguments& args, const CallContext&) {
  const Value& indent = args.bound[0];
  std::optional<std::string> prefix;
  // Scalars print the same with any indent (Python never reads it for them).
  bool scalar = v.is_none() || v.is_bool() || v.is_int();
  if (!scalar && indent.is_string()) {
    prefix = indent.as_string();
  } else if (!scalar && !indent.is_none()) {
    indent.require_defined();
    if (!indent.is_int() && !indent.is_bool()) {
      fail(std::string("can't multiply sequence by non-int of type '") + indent.type_name() + "'");
    }
    detail::check_value_size(static_cast<std::uint64_t>(std::max<std::int64_t>(indent.as_int(), 0)),
                             "tojson's indent");
    prefix = std::string(static_cast<std::size_t>(std::max<std::int64_t>(indent.as_int(), 0)), ' ');
  }
  std::string out;
  detail::append_tojson(out, v, prefix);
  return Value::markup(std::move(out));  // htmlsafe_json_dumps returns Markup
}

// ---- sequences --------------------------------------------------------------------------

Value do_default(const Value& v, Arguments& args, const CallContext&) {
  if (v.is_undefined() || (args.bound[1].truthy() && !v.truthy())) return args.bound[0];
  return v;
}

Value do_length(const Value& v, Arguments&, const CallContext&) {
  return int_value(detail::python_len(v));
}

Value do_list(const Value& v, Arguments&, const CallContext&) {
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  if (&items == &storage) return Value(std::move(storage));
  if (v.is_tuple() || v.is_range()) return Value(ValueList(items));  // list((1, 2)): [1, 2]
  return v;  // lists are immutable and shared, so list(x) may return x itself
}

Value do_first(const Value& v, Arguments&, const CallContext&) {
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  if (items.empty()) return Value::undefined("No first item, sequence was empty.");
  return items.front();
}

Value do_last(const Value& v, Arguments&, const CallContext&) {
  v.require_defined();
  if (!v.is_list() && !v.is_string() && !v.is_dict()) {
    fail(std::string("'") + v.type_name() + "' object is not reversible");
  }
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  if (items.empty()) return Value::undefined("No last item, sequence was empty.");
  if (v.is_markup()) return Value::markup(items.back().as_string());  // Markup's item is Markup
  return items.back();
}

Value do_reverse(const Value& v, Arguments&, const CallContext&) {
  v.require_defined();
  if (v.is_string()) {
    auto points = detail::split_code_points(v.as_string());
    std::string out;
    out.reserve(v.as_string().size());
    for (auto it = points.rbegin(); it != points.rend(); ++it) out.append(*it);
    return detail::marked_like(v, std::move(out));
  }
  if (!v.is_list() && !v.is_dict()) fail("argument must be iterable");
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  return Value(ValueList(items.rbegin(), items.rend()));
}

Value do_join(const Value& v, Arguments& args, const CallContext&) {
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  std::string separator = args.bound[0].str();
  auto parts = detail::attribute_parts(args.bound[1]);
  std::string out;
  detail::check_value_size(separator.size(), items.size(), "join");
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    if (parts.empty()) {
      items[i].append_str(out);
    } else {
      detail::lookup_path(items[i], parts, Value(nullptr)).append_str(out);
    }
    detail::check_value_size(out.size(), "join");
  }
  return Value(std::move(out));
}

// A sort or comparison key: the looked-up attribute, lower-cased unless case_sensitive.
Value make_key(const Value& item, const std::vector<Value>& parts, bool fold_case) {
  Value key = parts.empty() ? item : detail::lookup_path(item, parts, Value(nullptr));
  if (fold_case && key.is_string()) return Value(detail::to_lower(key.as_string()));
  return key;
}

Value min_or_max(const Value& v, Arguments& args, bool max) {
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  if (items.empty()) return Value::undefined("No aggregated item, sequence was empty.");
  bool fold = !args.bound[0].truthy();
  auto parts = detail::attribute_parts(args.bound[1]);
  std::size_t best = 0;
  Value best_key = make_key(items[0], parts, fold);
  for (std::size_t i = 1; i < items.size(); ++i) {
    Value key = make_key(items[i], parts, fold);
    // Python's min/max ask `item < best` / `item > best` and keep the first of equals.
    bool better =
        max ? detail::compare(key, best_key, ">") > 0 : detail::compare(key, best_key, "<") < 0;
    if (better) {
      best = i;
      best_key = std::move(key);
    }
  }
  return items[best];
}

Value do_min(const Value& v, Arguments& args, const CallContext&) {
  return min_or_max(v, args, false);
}
Value do_max(const Value& v, Arguments& args, const CallContext&) {
  return min_or_max(v, args, true);
}

Value do_sum(const Value& v, Arguments& args, const CallContext&) {
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  Value total = args.bound[1];
  if (total.is_string()) fail("sum() can't sum strings [use ''.join(seq) instead]");
  auto parts = detail::attribute_parts(args.bound[0]);
  for (const auto& item : items) {
    total =
        detail::add(total, parts.empty() ? item : detail::lookup_path(item, parts, Value(nullptr)));
  }
  return total;
}

// Sorts `items` by `keys` (one key vector per item), stably, the way Python's sorted() does.
ValueList sorted_by(const ValueList& items, const std::vector<std::vector<Value>>& keys,
                    bool reverse) {
  std::vector<std::size_t> order(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return reverse ? detail::compare_keys(keys[b], keys[a]) < 0
                   : detail::compare_keys(keys[a], keys[b]) < 0;
  });
  ValueList out;
  out.reserve(items.size());
  for (std::size_t i : order) out.push_back(items[i]);
  return out;
}

Value do_sort(const Value& v, Arguments& args, const CallContext&) {
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  bool reverse = args.bound[0].truthy();
  bool fold = !args.bound[1].truthy();
  const Value& attribute = args.bound[2];
  // `attribute="age,name"` sorts by several keys; each may be a dotted path.
  std::vector<std::vector<Value>> paths;
  if (attribute.is_string()) {
    const std::string& text = attribute.as_string();
    std::size_t start = 0;
    while (true) {
      std::size_t comma = text.find(',', start);
      paths.push_back(detail::attribute_parts(
          Value(text.substr(start, comma == std::string::npos ? comma : comma - start))));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else {
    paths.push_back(detail::attribute_parts(attribute));
  }
  std::vector<std::vector<Value>> keys(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (const auto& path : paths) keys[i].push_back(make_key(items[i], path, fold));
  }
  return Value(sorted_by(items, keys, reverse));
}

Value do_dictsort(const Value& v, Arguments& args, const CallContext&) {
  const Value& by = args.bound[1];
  by.require_defined();  // as comparing it with "key" would
  std::size_t position;
  if (by.is_string() && by.as_string() == "key") {
    position = 0;
  } else if (by.is_string() && by.as_string() == "value") {
    position = 1;
  } else {
    fail("You can only sort by either \"key\" or \"value\"");
  }
  v.require_defined();
  if (!v.is_dict()) fail(std::string("'") + v.type_name() + "' object has no attribute 'items'");
  const ValueDict& dict = v.as_dict();
  bool fold = !args.bound[0].truthy();
  // Python compares the bare keys (a case-folded copy of string keys), so two None values raise.
  std::vector<Value> keys;
  keys.reserve(dict.size());
  for (const auto& [key, value] : dict) {
    Value sort_key = position == 0 ? Value(key) : value;
    if (fold && sort_key.is_string()) sort_key = Value(detail::to_lower(sort_key.as_string()));
    keys.push_back(std::move(sort_key));
  }
  std::vector<std::size_t> order(dict.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  bool reverse = args.bound[2].truthy();
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return reverse ? detail::compare(keys[b], keys[a], "<") < 0
                   : detail::compare(keys[a], keys[b], "<") < 0;
  });
  ValueList out;
  out.reserve(order.size());
  for (std::size_t i : order) {
    const auto& [key, value] = dict.entries()[i];
    out.push_back(Value::tuple(ValueList{Value(key), value}));
  }
  return Value(std::move(out));
}

Value do_items(const Value& v, Arguments&, const CallContext&) {
  if (v.is_undefined()) return Value(ValueList{});
  if (!v.is_dict()) fail("Can only get item pairs from a mapping.");
  ValueList out;
  out.reserve(v.as_dict().size());
  for (const auto& [key, value] : v.as_dict())
    out.push_back(Value::tuple(ValueList{Value(key), value}));
  return Value(std::move(out));
}

// How `unique` tells values apart: Python's hash equality, where 1, 1.0 and True are one value.
std::string hash_key(const Value& key) {
  key.require_defined();
  switch (key.kind()) {
    case Value::Kind::None:
      return "n";
    case Value::Kind::Bool:
    case Value::Kind::Int:
      return "i" + std::to_string(key.as_int());
    case Value::Kind::Float: {
      double d = key.as_double();
      if (d == std::trunc(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
        return "i" + std::to_string(static_cast<std::int64_t>(d));
      }
      return "f" + key.str();
    }
    case Value::Kind::String:
      return "s" + key.as_string();
    case Value::Kind::Callable: {
      char address[32];
      std::snprintf(address, sizeof address, "%p",
                    static_cast<const void*>(key.as_callable().get()));
      return std::string("c") + address;
    }
    case Value::Kind::List: {
      if (!key.is_tuple() && !key.is_range()) break;
      // A tuple hashes by its items; length prefixes keep ('a,', 'b') and ('a', ',b') apart.
      // A range is hashable too, equal to the ranges with the same items.
      std::string out = key.is_range() ? "r" : "t";
      for (const auto& item : key.as_list()) {
        std::string part = hash_key(item);
        out += std::to_string(part.size()) + ":" + part;
      }
      return out;
    }
    default:
      break;
  }
  fail(std::string("unhashable type: '") + key.type_name() + "'");
}

Value do_unique(const Value& v, Arguments& args, const CallContext&) {
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  bool fold = !args.bound[0].truthy();
  auto parts = detail::attribute_parts(args.bound[1]);
  std::unordered_set<std::string> seen;
  ValueList out;
  for (const auto& item : items) {
    if (seen.insert(hash_key(make_key(item, parts, fold))).second) out.push_back(item);
  }
  return Value(std::move(out));
}

Value do_batch(const Value& v, Arguments& args, const CallContext&) {
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  const Value& count = args.bound[0];
  const Value& fill = args.bound[1];
  count.require_defined();
  ValueList out, row;
  for (const auto& item : items) {
    // Python tests `len(tmp) == linecount`, so a count of 0 yields one empty batch first.
    if (int_value(row.size()) == count) {
      out.emplace_back(std::move(row));
      row.clear();
    }
    row.push_back(item);
  }
  if (!row.empty()) {
    if (!fill.is_none() && detail::compare(int_value(row.size()), count, "<") < 0) {
      if (!count.is_int() && !count.is_bool()) {
        fail(std::string("can't multiply sequence by non-int of type '") + count.type_name() + "'");
      }
      detail::check_value_size(
          static_cast<std::uint64_t>(std::max<std::int64_t>(count.as_int(), 0)), "batch");
      row.resize(static_cast<std::size_t>(count.as_int()), fill);
    }
    out.emplace_back(std::move(row));
  }
  return Value(std::move(out));
}

Value do_slice(const Value& v, Arguments& args, const CallContext&) {
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  const Value& slices_value = args.bound[0];
  const Value& fill = args.bound[1];
  slices_value.require_defined();
  if (slices_value.is_float()) {
    if (slices_value.as_double() == 0) fail("float floor division by zero");
    detail::to_index(slices_value);
  } else if (!slices_value.is_int() && !slices_value.is_bool()) {
    fail(std::string("unsupported operand type(s) for //: 'int' and '") + slices_value.type_name() +
         "'");
  }
  std::int64_t slices = slices_value.as_int();
  if (slices == 0) fail("integer division or modulo by zero");
  ValueList out;
  if (slices < 0) return Value(std::move(out));  // range(negative) is empty
  auto length = static_cast<std::int64_t>(items.size());
  std::int64_t per_slice = length / slices, with_extra = length % slices, offset = 0;
  for (std::int64_t n = 0; n < slices; ++n) {
    std::int64_t start = offset + n * per_slice;
    if (n < with_extra) ++offset;
    std::int64_t end = offset + (n + 1) * per_slice;
    ValueList column(items.begin() + start, items.begin() + end);
    if (!fill.is_none() && n >= with_extra) column.push_back(fill);
    out.emplace_back(std::move(column));
  }
  return Value(std::move(out));
}

// ---- higher order: map, select, reject ----------------------------------------------------

std::string function_name(const Value& name, const char* kind) {
  if (!name.is_string()) fail(std::string("No ") + kind + " named " + name.repr() + ".");
  return name.as_string();
}

Value do_map(const Value& v, Arguments& args, const CallContext& context) {
  v.require_defined();
  if (!v.truthy()) return Value(ValueList{});  // Jinja2 checks `if value:` before iterating
  const auto& positional = args.extra_positional;
  const auto& keywords = args.extra_keywords;
  bool by_attribute =
      positional.empty() && std::any_of(keywords.begin(), keywords.end(),
                                        [](const auto& kw) { return kw.first == "attribute"; });
  ValueList out;
  if (by_attribute) {
    Value attribute, fallback(nullptr);
    for (const auto& [key, value] : keywords) {
      if (key == "attribute") {
        attribute = value;
      } else if (key == "default") {
        fallback = value;
      } else {
        fail("Unexpected keyword argument " + Value(key).repr());
      }
    }
    auto parts = detail::attribute_parts(attribute);
    ValueList storage;
    for (const auto& item : detail::iterate(v, storage)) {
      out.push_back(detail::lookup_path(item, parts, fallback));
    }
    return Value(std::move(out));
  }
  if (positional.empty()) fail("map requires a filter argument");
  ValueList filter_args(positional.begin() + 1, positional.end());
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  if (items.empty()) return Value(std::move(out));
  std::string name = function_name(positional[0], "filter");
  for (const auto& item : items)
    out.push_back(context.call_filter(name, item, filter_args, keywords));
  return Value(std::move(out));
}

// select, reject, selectattr and rejectattr: keep the items whose test (or truthiness, without
// a test name) equals `keep`, testing the looked-up attribute when `by_attribute`.
Value select_or_reject(const Value& v, Arguments& args, const CallContext& context, bool keep,
                       bool by_attribute) {
  v.require_defined();
  if (!v.truthy()) return Value(ValueList{});
  const auto& positional = args.extra_positional;
  std::size_t offset = 0;
  std::vector<Value> parts;
  if (by_attribute) {
    if (positional.empty()) fail("Missing parameter for attribute name");
    parts = detail::attribute_parts(positional[0]);
    offset = 1;
  }
  bool has_test = positional.size() > offset;
  std::string test;
  ValueList test_args;
  if (has_test) {
    test = function_name(positional[offset], "test");
    test_args.assign(positional.begin() + static_cast<std::ptrdiff_t>(offset) + 1,
                     positional.end());
  }
  ValueList storage, out;
  for (const auto& item : detail::iterate(v, storage)) {
    Value subject = by_attribute ? detail::lookup_path(item, parts, Value(nullptr)) : item;
    bool passed = has_test ? context.call_test(test, subject, test_args, args.extra_keywords)
                           : subject.truthy();
    if (passed == keep) out.push_back(item);
  }
  return Value(std::move(out));
}

Value do_select(const Value& v, Arguments& args, const CallContext& context) {
  return select_or_reject(v, args, context, true, false);
}
Value do_reject(const Value& v, Arguments& args, const CallContext& context) {
  return select_or_reject(v, args, context, false, false);
}
Value do_selectattr(const Value& v, Arguments& args, const CallContext& context) {
  return select_or_reject(v, args, context, true, true);
}
Value do_rejectattr(const Value& v, Arguments& args, const CallContext& context) {
  return select_or_reject(v, args, context, false, true);
}

Value do_attr(const Value& v, Arguments& args, const CallContext&) {
  v.require_defined();
  const Value& name = args.bound[0];
  name.require_defined();
  if (!name.is_string()) {
    fail(std::string("attribute name must be string, not '") + name.type_name() + "'");
  }
  // `attr` never falls back to items; the only Python attributes zeroforge values have are
  // their methods (`d|attr('items')` is the bound method, as in Jinja2).
  if (detail::has_method(v, name.as_string())) return detail::bind_method(v, name.as_string());
  return Value::undefined(detail::object_type_repr(v) + " has no attribute " + name.repr());
}

// ---- the table --------------------------------------------------------------------------

std::vector<FunctionSpec> builtin_filters() {
  const Value none(nullptr);
  return {
      {"abs", {}, false, do_abs},
      {"attr", {required("name")}, false, do_attr},
      {"batch", {required("linecount"), optional("fill_with", none)}, false, do_batch},
      {"capitalize", {}, false, do_capitalize},
      {"center", {optional("width", Value(80))}, false, do_center},
      {"default",
       {optional("default_value", Value("")), optional("boolean", Value(false))},
       false,
       do_default},
      {"dictsort",
       {optional("case_sensitive", Value(false)), optional("by", Value("key")),
        optional("reverse", Value(false))},
       false,
       do_dictsort},
      {"filesizeformat", {optional("binary", Value(false))}, false, do_filesizeformat},
      {"first", {}, false, do_first},
      {"float", {optional("default", Value(0.0))}, false, do_float},
      {"format", {}, true, do_format},
      {"indent",
       {optional("width", Value(4)), optional("first", Value(false)),
        optional("blank", Value(false))},
       false,
       do_indent},
      {"int", {optional("default", Value(0)), optional("base", Value(10))}, false, do_int},
      {"items", {}, false, do_items},
      {"join", {optional("d", Value("")), optional("attribute", none)}, false, do_join},
      {"last", {}, false, do_last},
      {"length", {}, false, do_length},
      {"list", {}, false, do_list},
      {"lower", {}, false, do_lower},
      {"map", {}, true, do_map},
      {"max",
       {optional("case_sensitive", Value(false)), optional("attribute", none)},
       false,
       do_max},
      {"min",
       {optional("case_sensitive", Value(false)), optional("attribute", none)},
       false,
       do_min},
      {"reject", {}, true, do_reject},
      {"rejectattr", {}, true, do_rejectattr},
      {"replace", {required("old"), required("new"), optional("count", none)}, false, do_replace},
      {"reverse", {}, false, do_reverse},
      {"round",
       {optional("precision", Value(0)), optional("method", Value("common"))},
       false,
       do_round},
      {"select", {}, true, do_select},
      {"selectattr", {}, true, do_selectattr},
      {"slice", {required("slices"), optional("fill_with", none)}, false, do_slice},
      {"sort",
       {optional("reverse", Value(false)), optional("case_sensitive", Value(false)),
        optional("attribute", none)},
       false,
       do_sort},
      {"string", {}, false, do_string},
      {"sum", {optional("attribute", none), optional("start", Value(0))}, false, do_sum},
      {"title", {}, false, do_title},
      {"tojson", {optional("indent", none)}, false, do_tojson},
      {"trim", {optional("chars", none)}, false, do_trim},
      {"truncate",
       {optional("length", Value(255)), optional("killwords", Value(false)),
        optional("end", Value("...")), optional("leeway", none)},
       false,
       do_truncate},
      {"unique",
       {optional("case_sensitive", Value(false)), optional("attribute", none)},
       false,
       do_unique},
      {"upper", {}, false, do_upper},
      {"wordcount", {}, false, do_wordcount},
  };
}

}  // namespace

namespace detail {

namespace {

// True when `spec` runs the built-in `body` (not a plugin's filter of the same name).
bool runs(const FunctionSpec& spec, Value (*body)(const Value&, Arguments&, const CallContext&)) {
  using Body = Value (*)(const Value&, Arguments&, const CallContext&);
  const Body* target = spec.body.target<Body>();
  return target && *target == body;
}

}  // namespace

bool is_builtin_default(const FunctionSpec& spec) { return runs(spec, &do_default); }

bool is_builtin_tojson(const FunctionSpec& spec) { return runs(spec, &do_tojson); }

void append_tojson(std::string& out, const Value& v, const std::optional<std::string>& indent) {
  const std::size_t start = out.size();
  try {
    append_python_json(out, v, indent);
  } catch (...) {
    out.resize(start);  // nothing half-written stays in the output
    throw;
  }
}

}  // namespace detail

void register_builtin_filters(FunctionRegistry& registry) {
  for (auto& spec : builtin_filters()) registry.add(FunctionKind::Filter, std::move(spec));
  registry.add_alias(FunctionKind::Filter, "d", "default");
  registry.add_alias(FunctionKind::Filter, "count", "length");
  detail::register_html_filters(registry);
  detail::register_text_filters(registry);
}

}  // namespace zf
