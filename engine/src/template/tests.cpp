// SPDX-License-Identifier: MIT
// The builtin tests (`x is name`): Jinja2 3.1's tests.py, one registration table at the end.
// Tests that only look at a value's type answer false for undefined values, as in Jinja2.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "template/percent_format.hpp"
#include "template/python_ops.hpp"
#include "template/python_text.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"

namespace zf {
namespace {

using detail::fail;

Parameter required(std::string name) { return Parameter{std::move(name), std::nullopt}; }

// Python's `a % b == target` for the numeric tests (odd, even, divisibleby).
bool remainder_equals(const Value& a, const Value& b, std::int64_t target) {
  a.require_defined();
  b.require_defined();
  if (a.is_string()) {
    // `str % x` is string formatting: it raises or gives a string, never equal to a number.
    detail::percent_format(a.as_string(), ValueList{b});
    return false;
  }
  if (!a.is_number() || !b.is_number()) {
    fail(std::string("unsupported operand type(s) for %: '") + a.type_name() + "' and '" +
         b.type_name() + "'");
  }
  if (!a.is_float() && !b.is_float()) {
    std::int64_t x = a.as_int(), y = b.as_int();
    if (y == 0) fail("integer modulo by zero");
    if (y == -1) return target == 0;  // avoids INT64_MIN % -1
    std::int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;  // Python's result takes the divisor's sign
    return r == target;
  }
  double x = a.as_double(), y = b.as_double();
  if (y == 0) fail("float modulo");
  double r = std::fmod(x, y);
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r == static_cast<double>(target);
}

bool has_nan(const Value& a, const Value& b) {
  return (a.is_float() && std::isnan(a.as_double())) || (b.is_float() && std::isnan(b.as_double()));
}

Value test_odd(const Value& v, Arguments&, const CallContext&) {
  return Value(remainder_equals(v, Value(2), 1));
}
Value test_even(const Value& v, Arguments&, const CallContext&) {
  return Value(remainder_equals(v, Value(2), 0));
}
Value test_divisibleby(const Value& v, Arguments& args, const CallContext&) {
  return Value(remainder_equals(v, args.bound[0], 0));
}

Value test_defined(const Value& v, Arguments&, const CallContext&) {
  return Value(!v.is_undefined());
}
Value test_undefined(const Value& v, Arguments&, const CallContext&) {
  return Value(v.is_undefined());
}
Value test_none(const Value& v, Arguments&, const CallContext&) { return Value(v.is_none()); }
Value test_boolean(const Value& v, Arguments&, const CallContext&) { return Value(v.is_bool()); }
Value test_true(const Value& v, Arguments&, const CallContext&) {
  return Value(v.is_bool() && v.as_bool());
}
Value test_false(const Value& v, Arguments&, const CallContext&) {
  return Value(v.is_bool() && !v.as_bool());
}
Value test_number(const Value& v, Arguments&, const CallContext&) { return Value(v.is_number()); }
Value test_integer(const Value& v, Arguments&, const CallContext&) { return Value(v.is_int()); }
Value test_float(const Value& v, Arguments&, const CallContext&) { return Value(v.is_float()); }
Value test_string(const Value& v, Arguments&, const CallContext&) { return Value(v.is_string()); }
Value test_mapping(const Value& v, Arguments&, const CallContext&) { return Value(v.is_dict()); }

Value test_sequence(const Value& v, Arguments&, const CallContext&) {
  // Python: anything with len() and __getitem__; dicts qualify, undefined does not.
  return Value(v.is_string() || v.is_list() || v.is_dict());
}

Value test_iterable(const Value& v, Arguments&, const CallContext&) {
  v.require_defined();  // iter() on StrictUndefined raises rather than answering false
  return Value(v.is_string() || v.is_list() || v.is_dict());
}

Value test_callable(const Value& v, Arguments&, const CallContext&) {
  // Jinja2's Undefined defines __call__, so callable(undefined) is true there too.
  return Value(v.is_callable() || v.is_undefined());
}

Value test_lower(const Value& v, Arguments&, const CallContext&) {
  return Value(detail::is_lower(v.str()));
}
Value test_upper(const Value& v, Arguments&, const CallContext&) {
  return Value(detail::is_upper(v.str()));
}

Value test_in(const Value& v, Arguments& args, const CallContext&) {
  const Value& container = args.bound[0];
  v.require_defined();
  container.require_defined();
  if (container.is_string()) {
    if (!v.is_string()) {
      fail(std::string("'in <string>' requires string as left operand, not ") + v.type_name());
    }
    return Value(container.as_string().find(v.as_string()) != std::string::npos);
  }
  if (container.is_list()) {
    for (const auto& item : container.as_list()) {
      if (item == v) return Value(true);
    }
    return Value(false);
  }
  if (container.is_dict()) {
    if ((v.is_list() && !v.is_tuple() && !v.is_range()) || v.is_dict())
      fail(std::string("unhashable type: '") + v.type_name() + "'");
    return Value(v.is_string() && container.as_dict().contains(v.as_string()));
  }
  fail(std::string("argument of type '") + container.type_name() + "' is not iterable");
}

Value test_sameas(const Value& v, Arguments& args, const CallContext&) {
  // Python's `is`. Values here are not Python objects, so identity is approximated: the
  // singletons and CPython's cached small ints compare by value, strings by value (literal
  // strings are interned), floats never, containers and functions by shared storage.
  const Value& other = args.bound[0];
  if (v.kind() != other.kind()) return Value(false);
  switch (v.kind()) {
    case Value::Kind::Undefined:
      return Value(false);
    case Value::Kind::None:
      return Value(true);
    case Value::Kind::Bool:
      return Value(v.as_bool() == other.as_bool());
    case Value::Kind::Int:
      return Value(v.as_int() == other.as_int() && v.as_int() >= -5 && v.as_int() <= 256);
    case Value::Kind::Float:
      return Value(false);
    case Value::Kind::String:
      return Value(v.as_string() == other.as_string());
    case Value::Kind::List:
      return Value(&v.as_list() == &other.as_list());
    case Value::Kind::Dict:
      return Value(&v.as_dict() == &other.as_dict());
    case Value::Kind::Callable:
      return Value(v.as_callable() == other.as_callable());
  }
  return Value(false);
}

Value test_eq(const Value& v, Arguments& args, const CallContext&) {
  return Value(v == args.bound[0]);
}
Value test_ne(const Value& v, Arguments& args, const CallContext&) {
  return Value(!(v == args.bound[0]));
}

// Ordering tests: Python's operators, where any comparison with NaN is false.
template <bool (*Holds)(int)>
FunctionBody ordering(const char* op) {
  return [op](const Value& v, Arguments& args, const CallContext&) {
    const Value& other = args.bound[0];
    int c = detail::compare(v, other, op);
    return Value(!has_nan(v, other) && Holds(c));
  };
}
bool is_less(int c) { return c < 0; }
bool is_less_equal(int c) { return c <= 0; }
bool is_greater(int c) { return c > 0; }
bool is_greater_equal(int c) { return c >= 0; }

// `hasattr(value, "__html__")`: a Markup string (from escape, safe, tojson...).
Value test_escaped(const Value& v, Arguments&, const CallContext&) { return Value(v.is_markup()); }

// `value in env.filters` / `env.tests`: a name the environment knows (an unhashable value
// raises, as Python's dict lookup does).
template <FunctionKind Kind>
Value test_known(const Value& v, Arguments&, const CallContext& context) {
  v.require_defined();
  if (v.is_list() && !v.is_tuple() && !v.is_range()) fail("unhashable type: 'list'");
  if (v.is_dict()) fail("unhashable type: 'dict'");
  return Value(v.is_string() && context.functions().find(Kind, v.as_string()) != nullptr);
}

std::vector<FunctionSpec> builtin_tests() {
  return {
      {"boolean", {}, false, test_boolean},
      {"callable", {}, false, test_callable},
      {"defined", {}, false, test_defined},
      {"divisibleby", {required("num")}, false, test_divisibleby},
      {"eq", {required("other")}, false, test_eq},
      {"escaped", {}, false, test_escaped},
      {"filter", {}, false, test_known<FunctionKind::Filter>},
      {"even", {}, false, test_even},
      {"false", {}, false, test_false},
      {"float", {}, false, test_float},
      {"ge", {required("other")}, false, ordering<is_greater_equal>(">=")},
      {"gt", {required("other")}, false, ordering<is_greater>(">")},
      {"in", {required("seq")}, false, test_in},
      {"integer", {}, false, test_integer},
      {"iterable", {}, false, test_iterable},
      {"le", {required("other")}, false, ordering<is_less_equal>("<=")},
      {"lower", {}, false, test_lower},
      {"lt", {required("other")}, false, ordering<is_less>("<")},
      {"mapping", {}, false, test_mapping},
      {"ne", {required("other")}, false, test_ne},
      {"none", {}, false, test_none},
      {"number", {}, false, test_number},
      {"odd", {}, false, test_odd},
      {"sameas", {required("other")}, false, test_sameas},
      {"sequence", {}, false, test_sequence},
      {"string", {}, false, test_string},
      {"test", {}, false, test_known<FunctionKind::Test>},
      {"true", {}, false, test_true},
      {"undefined", {}, false, test_undefined},
      {"upper", {}, false, test_upper},
  };
}

}  // namespace

void register_builtin_tests(FunctionRegistry& registry) {
  for (auto& spec : builtin_tests()) registry.add(FunctionKind::Test, std::move(spec));
  static const std::pair<const char*, const char*> kAliases[] = {
      {"==", "eq"}, {"equalto", "eq"}, {"!=", "ne"},          {"<", "lt"},  {"lessthan", "lt"},
      {"<=", "le"}, {">", "gt"},       {"greaterthan", "gt"}, {">=", "ge"},
  };
  for (const auto& [alias, target] : kAliases)
    registry.add_alias(FunctionKind::Test, alias, target);
}

}  // namespace zf
