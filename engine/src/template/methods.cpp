// SPDX-License-Identifier: MIT
// Bound methods of dict, str and list values with Python's semantics.
#include "template/methods.hpp"

#include <algorithm>
#include <array>

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

bool is_py_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string strip(const std::string& s, const Value* chars, bool left, bool right) {
  auto strip_char = [&](char c) {
    if (chars && !chars->is_none()) return chars->as_string().find(c) != std::string::npos;
    return is_py_space(c);
  };
  std::size_t b = 0, e = s.size();
  if (left)
    while (b < e && strip_char(s[b])) ++b;
  if (right)
    while (e > b && strip_char(s[e - 1])) --e;
  return s.substr(b, e - b);
}

bool affix_match(const std::string& s, const Value& affix, bool prefix) {
  auto one = [&](const std::string& a) {
    if (a.size() > s.size()) return false;
    return prefix ? s.compare(0, a.size(), a) == 0
                  : s.compare(s.size() - a.size(), a.size(), a) == 0;
  };
  if (affix.is_list()) {
    for (const auto& a : affix.as_list()) {
      if (one(a.as_string())) return true;
    }
    return false;
  }
  return one(affix.as_string());
}

Value split(const std::string& s, const Value* sep, std::int64_t maxsplit) {
  ValueList out;
  if (!sep || sep->is_none()) {
    std::size_t i = 0;
    while (true) {
      while (i < s.size() && is_py_space(s[i])) ++i;
      if (i >= s.size()) break;
      if (maxsplit >= 0 && static_cast<std::int64_t>(out.size()) == maxsplit) {
        std::size_t e = s.size();
        while (e > i && is_py_space(s[e - 1])) --e;
        out.emplace_back(s.substr(i, e - i));
        break;
      }
      std::size_t j = i;
      while (j < s.size() && !is_py_space(s[j])) ++j;
      out.emplace_back(s.substr(i, j - i));
      i = j;
    }
    return Value(std::move(out));
  }
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

std::string title_case(const std::string& s, bool capitalize_only) {
  std::string out = s;
  bool start = true;
  for (std::size_t i = 0; i < out.size(); ++i) {
    char& c = out[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (capitalize_only) {
      c = static_cast<char>(i == 0 ? std::toupper(static_cast<unsigned char>(c))
                                   : std::tolower(static_cast<unsigned char>(c)));
      continue;
    }
    if (alpha) {
      c = static_cast<char>(start ? std::toupper(static_cast<unsigned char>(c))
                                  : std::tolower(static_cast<unsigned char>(c)));
      start = false;
    } else {
      start = true;
    }
  }
  return out;
}

Value call_str(const std::string& s, const std::string& m, const std::vector<Value>& args) {
  const Value* a0 = args.size() > 0 ? &args[0] : nullptr;
  if (m == "upper" || m == "lower") {
    expect_args(m, args, 0, 0);
    std::string out = s;
    for (char& c : out)
      c = static_cast<char>(m == "upper" ? std::toupper(static_cast<unsigned char>(c))
                                         : std::tolower(static_cast<unsigned char>(c)));
    return Value(std::move(out));
  }
  if (m == "strip" || m == "lstrip" || m == "rstrip") {
    expect_args(m, args, 0, 1);
    return Value(strip(s, a0, m != "rstrip", m != "lstrip"));
  }
  if (m == "startswith" || m == "endswith") {
    expect_args(m, args, 1, 1);
    return Value(affix_match(s, *a0, m == "startswith"));
  }
  if (m == "split") {
    expect_args(m, args, 0, 2);
    return split(s, a0, args.size() > 1 ? args[1].as_int() : -1);
  }
  if (m == "replace") {
    expect_args(m, args, 2, 3);
    const std::string& from = args[0].as_string();
    const std::string& to = args[1].as_string();
    std::int64_t count = args.size() > 2 ? args[2].as_int() : -1;
    std::string out;
    std::size_t start = 0;
    std::int64_t done = 0;
    if (from.empty()) {
      // Python inserts `to` between every character (and at both ends).
      for (std::size_t i = 0; i <= s.size(); ++i) {
        if (count < 0 || done < count) {
          out += to;
          ++done;
        }
        if (i < s.size()) out += s[i];
      }
      return Value(std::move(out));
    }
    while (count < 0 || done < count) {
      std::size_t found = s.find(from, start);
      if (found == std::string::npos) break;
      out.append(s, start, found - start);
      out += to;
      start = found + from.size();
      ++done;
    }
    out.append(s, start);
    return Value(std::move(out));
  }
  if (m == "title" || m == "capitalize") {
    expect_args(m, args, 0, 0);
    return Value(title_case(s, m == "capitalize"));
  }
  if (m == "join") {
    expect_args(m, args, 1, 1);
    std::string out;
    bool first = true;
    for (const auto& item : a0->as_list()) {
      if (!first) out += s;
      first = false;
      out += item.as_string();
    }
    return Value(std::move(out));
  }
  if (m == "count" || m == "find") {
    expect_args(m, args, 1, 1);
    const std::string& sub = a0->as_string();
    if (m == "find") {
      auto pos = s.find(sub);
      return Value(pos == std::string::npos ? std::int64_t{-1} : static_cast<std::int64_t>(pos));
    }
    if (sub.empty()) return Value(static_cast<std::int64_t>(s.size() + 1));
    std::int64_t n = 0;
    for (std::size_t pos = s.find(sub); pos != std::string::npos;
         pos = s.find(sub, pos + sub.size()))
      ++n;
    return Value(n);
  }
  if (m == "isdigit") {
    expect_args(m, args, 0, 0);
    return Value(!s.empty() &&
                 std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }));
  }
  throw Error(ErrorKind::Render, "'str' object has no attribute '" + m + "'");
}

}  // namespace

bool is_method_name(std::string_view name) {
  return in(kDictMethods, name) || in(kStrMethods, name) || in(kListMethods, name);
}

bool has_method(const Value& object, std::string_view name) {
  if (object.is_dict()) return in(kDictMethods, name);
  if (object.is_string()) return in(kStrMethods, name);
  if (object.is_list()) return in(kListMethods, name);
  return false;
}

Value bind_method(const Value& object, std::string name) {
  return Value(
      std::shared_ptr<const Callable>(std::make_shared<BoundMethod>(object, std::move(name))));
}

Value call_method(const Value& self, const std::string& m, const std::vector<Value>& args,
                  const std::vector<std::pair<std::string, Value>>& kwargs) {
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
