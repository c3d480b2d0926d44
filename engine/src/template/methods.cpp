// SPDX-License-Identifier: MIT
// Bound methods of dict, str and list values with Python's semantics (str methods count code
// points and share their Unicode rules with the filters, python_text.cpp).
#include "template/methods.hpp"

#include <algorithm>
#include <array>

#include "template/limits.hpp"
#include "template/markup.hpp"
#include "template/python_ops.hpp"
#include "template/python_text.hpp"
#include "template/str_methods.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {
namespace {

constexpr std::array<std::string_view, 4> kDictMethods = {"items", "keys", "values", "get"};
constexpr std::array<std::string_view, 15> kStrMethods = {
    "upper",   "lower", "strip",      "lstrip", "rstrip", "startswith", "endswith", "split",
    "replace", "title", "capitalize", "join",   "count",  "find",       "isdigit"};
constexpr std::array<std::string_view, 2> kListMethods = {"index", "count"};

template <std::size_t N>
bool in(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

class BoundMethod : public Callable {
 public:
  BoundMethod(Value self, std::string name)
      : self_(std::move(self)),
        name_(std::move(name)),
        display_(std::string(self_.type_name()) + "." + name_) {}
  const std::string& name() const noexcept override { return display_; }
  const Value& self() const { return self_; }
  const std::string& method() const { return name_; }

 private:
  Value self_;
  std::string name_;
  std::string display_;
};

void expect_args(const std::string& name, const std::vector<Value>& args, std::size_t min,
                 std::size_t max) {
  if (args.size() < min || args.size() > max) {
    throw Error(ErrorKind::Render,
                name + "() takes " +
                    (min == max ? std::to_string(min)
                                : std::to_string(min) + " to " + std::to_string(max)) +
                    " arguments (" + std::to_string(args.size()) + " given)");
  }
}

// Python's `s[start:end]` for the optional start/end arguments of find, count, startswith and
// endswith, in code points. `valid` is false when start lies past end (Python then finds
// nothing, not even the empty string).
struct Window {
  std::string_view text;
  std::int64_t first = 0;  // the code point index where `text` starts
  bool valid = true;
};

Window window(const std::string& s, const std::vector<Value>& args, std::size_t start_arg) {
  std::vector<std::string_view> points = split_code_points(s);
  const auto n = static_cast<std::int64_t>(points.size());
  auto bound = [&](std::size_t i, std::int64_t fallback) {
    if (args.size() <= i || args[i].is_none()) return fallback;
    std::int64_t x = to_index(args[i]);
    return x < 0 ? std::max<std::int64_t>(x + n, 0) : x;
  };
  std::int64_t begin = bound(start_arg, 0);
  std::int64_t end = std::min(bound(start_arg + 1, n), n);
  if (begin > end) return {{}, begin, false};
  auto offset = [&](std::int64_t index) {
    std::size_t bytes = 0;
    for (std::int64_t i = 0; i < index; ++i) bytes += points[static_cast<std::size_t>(i)].size();
    return bytes;
  };
  std::size_t b = offset(begin), e = offset(end);
  return {std::string_view(s).substr(b, e - b), begin, true};
}

bool affix_match(std::string_view s, const Value& affix, bool prefix) {
  auto one = [&](std::string_view a) {
    if (a.size() > s.size()) return false;
    return prefix ? s.substr(0, a.size()) == a : s.substr(s.size() - a.size()) == a;
  };
  if (affix.is_list()) {
    for (const auto& a : affix.as_list()) {
      if (one(a.as_string())) return true;
    }
    return false;
  }
  return one(affix.as_string());
}

// `str.split()` without a separator: runs of Unicode whitespace separate the words.
Value split_whitespace(const std::string& s, std::int64_t maxsplit) {
  ValueList out;
  std::size_t i = 0;
  auto space_at = [&](std::size_t pos, std::size_t& length) {
    char32_t c;
    length = decode_utf8(s, pos, c);
    return is_space(c);
  };
  std::size_t n = 0;
  while (true) {
    while (i < s.size() && space_at(i, n)) i += n;
    if (i >= s.size()) break;
    if (maxsplit >= 0 && static_cast<std::int64_t>(out.size()) == maxsplit) {
      out.emplace_back(strip(std::string_view(s).substr(i), std::nullopt, false, true));
      break;
    }
    std::size_t j = i;
    while (j < s.size() && !space_at(j, n)) j += n;
    out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return Value(std::move(out));
}

Value split(const std::string& s, const Value* sep, std::int64_t maxsplit) {
  if (!sep || sep->is_none()) return split_whitespace(s, maxsplit);
  ValueList out;
  const std::string& d = sep->as_string();
  if (d.empty()) throw Error(ErrorKind::Render, "empty separator");
  std::size_t start = 0;
  while (true) {
    std::size_t found = s.find(d, start);
    if (found == std::string::npos ||
        (maxsplit >= 0 && static_cast<std::int64_t>(out.size()) == maxsplit)) {
      out.emplace_back(s.substr(start));
      break;
    }
    out.emplace_back(s.substr(start, found - start));
    start = found + d.size();
  }
  return Value(std::move(out));
}

// `str.find(sub[, start[, end]])` and `str.count(...)`, counting code points.
Value find_or_count(const std::string& s, const std::string& m, const std::vector<Value>& args) {
  const std::string& sub = args[0].as_string();
  Window w = window(s, args, 1);
  if (m == "find") {
    std::size_t pos = w.valid ? w.text.find(sub) : std::string_view::npos;
    if (pos == std::string_view::npos) return Value(std::int64_t{-1});
    return Value(w.first + static_cast<std::int64_t>(code_point_count(w.text.substr(0, pos))));
  }
  if (!w.valid) return Value(std::int64_t{0});
  if (sub.empty()) return Value(static_cast<std::int64_t>(code_point_count(w.text) + 1));
  std::int64_t n = 0;
  for (std::size_t pos = w.text.find(sub); pos != std::string_view::npos;
       pos = w.text.find(sub, pos + sub.size()))
    ++n;
  return Value(n);
}

Value call_str(const std::string& s, const std::string& m, const std::vector<Value>& args) {
  const Value* a0 = args.size() > 0 ? &args[0] : nullptr;
  if (m == "upper" || m == "lower" || m == "title" || m == "capitalize") {
    expect_args(m, args, 0, 0);
    if (m == "upper") return Value(to_upper(s));
    if (m == "lower") return Value(to_lower(s));
    return Value(m == "title" ? str_title(s) : capitalize(s));
  }
  if (m == "strip" || m == "lstrip" || m == "rstrip") {
    expect_args(m, args, 0, 1);
    std::optional<std::string_view> chars;
    if (a0 && !a0->is_none()) chars = a0->as_string();
    return Value(strip(s, chars, m != "rstrip", m != "lstrip"));
  }
  if (m == "startswith" || m == "endswith") {
    expect_args(m, args, 1, 3);
    Window w = window(s, args, 1);
    return Value(w.valid && affix_match(w.text, *a0, m == "startswith"));
  }
  if (m == "split") {
    expect_args(m, args, 0, 2);
    return split(s, a0, args.size() > 1 ? args[1].as_int() : -1);
  }
  if (m == "replace") {
    expect_args(m, args, 2, 3);
    std::int64_t count = args.size() > 2 ? args[2].as_int() : -1;
    Value replaced(replace(s, args[0].as_string(), args[1].as_string(), count));
    return replaced;
  }
  if (m == "join") {
    expect_args(m, args, 1, 1);
    // Any iterable of strings, as Python's: a list, a string's characters, a dict's keys.
    ValueList items;
    if (a0->is_list()) {
      items = a0->as_list();
    } else if (a0->is_string()) {
      for (std::string_view point : split_code_points(a0->as_string()))
        items.emplace_back(std::string(point));
    } else if (a0->is_dict()) {
      for (const auto& [key, value] : a0->as_dict()) items.emplace_back(key);
    } else {
      a0->require_defined();
      throw Error(ErrorKind::Render, "can only join an iterable");
    }
    std::string out;
    check_value_size(s.size(), items.size(), "str.join");
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_string()) {
        items[i].require_defined();
        throw Error(ErrorKind::Render, "sequence item " + std::to_string(i) +
                                           ": expected str instance, " + items[i].type_name() +
                                           " found");
      }
      if (i > 0) out += s;
      out += items[i].as_string();
      check_value_size(out.size(), "str.join");
    }
    return Value(std::move(out));
  }
  if (m == "count" || m == "find") {
    expect_args(m, args, 1, 3);
    return find_or_count(s, m, args);
  }
  if (m == "isdigit") {
    expect_args(m, args, 0, 0);
    if (s.empty()) return Value(false);
    for (std::size_t pos = 0; pos < s.size();) {
      char32_t c;
      pos += decode_utf8(s, pos, c);
      if (!is_digit(c)) return Value(false);
    }
    return Value(true);
  }
  throw Error(ErrorKind::Render, "'str' object has no attribute '" + m + "'");
}

}  // namespace

bool is_method_name(std::string_view name) {
  return in(kDictMethods, name) || in(kStrMethods, name) || in(kListMethods, name) ||
         is_str_method(name);
}

bool has_method(const Value& object, std::string_view name) {
  if (object.is_dict()) return in(kDictMethods, name);
  if (object.is_markup() && (name == "unescape" || name == "striptags")) return true;
  if (object.is_string()) return in(kStrMethods, name) || is_str_method(name);
  if (object.is_list()) return in(kListMethods, name);
  return false;
}

Value bind_method(const Value& object, std::string name) {
  return Value(
      std::shared_ptr<const Callable>(std::make_shared<BoundMethod>(object, std::move(name))));
}

namespace {

// MarkupSafe's Markup methods: the str methods it overrides return Markup (split and
// partition Markup pieces), escaping only the text they insert (replace's `new`, the fill
// character of center/ljust/rjust); join escapes the items and format the fields. The rest
// (find, startswith, the predicates, ...) are str's own.
Value call_markup_method(const Value& self, const std::string& m, const std::vector<Value>& args,
                         const std::vector<std::pair<std::string, Value>>& kwargs) {
  static constexpr std::array<std::string_view, 19> kMarked = {
      "capitalize", "title",        "lower",        "upper",     "replace",    "ljust",    "rjust",
      "lstrip",     "rstrip",       "center",       "strip",     "expandtabs", "swapcase", "zfill",
      "casefold",   "removeprefix", "removesuffix", "partition", "rpartition"};
  const Value plain(self.as_string());
  auto mark_items = [](const Value& result) {
    ValueList items;
    for (const auto& item : result.as_list()) items.push_back(Value::markup(item.as_string()));
    return result.is_tuple() ? Value::tuple(std::move(items)) : Value(std::move(items));
  };
  if (in(kMarked, m)) {
    std::vector<Value> inserted = args;
    bool inserts = m == "replace" || m == "ljust" || m == "rjust" || m == "center";
    if (inserts && inserted.size() > 1) inserted[1] = escape_argument(inserted[1]);
    Value result = call_method(plain, m, inserted, kwargs);
    return result.is_string() ? Value::markup(result.as_string()) : mark_items(result);
  }
  if (m == "split" || m == "rsplit" || m == "splitlines")
    return mark_items(call_method(plain, m, args, kwargs));
  if (m == "join" && args.size() == 1 && args[0].is_list()) {
    ValueList escaped;
    for (const auto& item : args[0].as_list()) escaped.push_back(escape_argument(item));
    return Value::markup(call_method(plain, m, {Value(std::move(escaped))}, kwargs).as_string());
  }
  if (m == "format")
    return Value::markup(call_str_method(plain.as_string(), m, args, kwargs, true).as_string());
  // Markup's own methods, which give plain strings.
  if (m == "unescape" || m == "striptags") {
    expect_args(m, args, 0, 0);
    return Value(m == "unescape" ? html_unescape(plain.as_string())
                                 : strip_tags(plain.as_string()));
  }
  return call_method(plain, m, args, kwargs);
}

}  // namespace

Value call_method(const Value& self, const std::string& m, const std::vector<Value>& args,
                  const std::vector<std::pair<std::string, Value>>& kwargs) {
  if (self.is_markup()) return call_markup_method(self, m, args, kwargs);
  if (self.is_string() && is_str_method(m))
    return call_str_method(self.as_string(), m, args, kwargs);
  if (!kwargs.empty()) {
    throw Error(ErrorKind::Render,
                std::string(self.type_name()) + "." + m + "() takes no keyword arguments");
  }
  if (self.is_dict()) {
    const ValueDict& dict = self.as_dict();
    if (m == "get") {
      expect_args(m, args, 1, 2);
      const Value* found = args[0].is_string() ? dict.find(args[0].as_string()) : nullptr;
      return found ? *found : (args.size() > 1 ? args[1] : Value(nullptr));
    }
    expect_args(m, args, 0, 0);
    ValueList out;
    out.reserve(dict.size());
    for (const auto& [key, value] : dict) {
      if (m == "items") {
        out.push_back(Value::tuple(ValueList{Value(key), value}));
      } else if (m == "keys") {
        out.emplace_back(key);
      } else {
        out.push_back(value);
      }
    }
    return Value(std::move(out));
  }
  if (self.is_string()) return call_str(self.as_string(), m, args);
  const ValueList& list = self.as_list();
  expect_args(m, args, 1, 1);
  std::int64_t count = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i] == args[0]) {
      if (m == "index") return Value(static_cast<std::int64_t>(i));
      ++count;
    }
  }
  if (m == "index") throw Error(ErrorKind::Render, args[0].repr() + " is not in list");
  return Value(count);
}

bool call_bound_method(const Value& callee, const std::vector<Value>& args,
                       const std::vector<std::pair<std::string, Value>>& kwargs, Value& result) {
  auto* bound = dynamic_cast<const BoundMethod*>(callee.as_callable().get());
  if (!bound) return false;
  result = call_method(bound->self(), bound->method(), args, kwargs);
  return true;
}

}  // namespace zf::detail
