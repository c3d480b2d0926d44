// SPDX-License-Identifier: MIT
// Python arithmetic on Values: int results stay ints (with overflow errors instead of
// wrap-around), `/` is true division, `//` and `%` floor toward negative infinity.
#include "template/operators.hpp"

#include <cmath>
#include <limits>

#include "template/limits.hpp"
#include "template/markup.hpp"
#include "template/percent_format.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {
namespace {

const char* symbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "+";
    case BinaryOp::Subtract:
      return "-";
    case BinaryOp::Multiply:
      return "*";
    case BinaryOp::Divide:
      return "/";
    case BinaryOp::FloorDivide:
      return "//";
    case BinaryOp::Modulo:
      return "%";
    case BinaryOp::Power:
      return "** or pow()";
    case BinaryOp::Concat:
      return "~";
    case BinaryOp::And:
      return "and";
    case BinaryOp::Or:
      return "or";
  }
  return "?";
}

[[noreturn]] void unsupported(BinaryOp op, const Value& a, const Value& b) {
  throw Error(ErrorKind::Render, std::string("unsupported operand type(s) for ") + symbol(op) +
                                     ": '" + a.type_name() + "' and '" + b.type_name() + "'");
}

[[noreturn]] void overflow() {
  throw Error(ErrorKind::Render, "integer overflow (zeroforge integers are 64-bit)");
}

bool is_int_like(const Value& v) { return v.is_int() || v.is_bool(); }

Value repeat(const Value& sequence, std::int64_t count) {
  if (count <= 0)
    return sequence.is_string()  ? Value(std::string())
           : sequence.is_tuple() ? Value::tuple({})
                                 : Value(ValueList{});
  check_value_size(sequence.is_string() ? sequence.as_string().size() : sequence.as_list().size(),
                   static_cast<std::uint64_t>(count),
                   sequence.is_string() ? "str * int" : "list * int");
  if (sequence.is_string()) {
    std::string out;
    for (std::int64_t i = 0; i < count; ++i) out += sequence.as_string();
    return Value(std::move(out));
  }
  ValueList out;
  for (std::int64_t i = 0; i < count; ++i) {
    out.insert(out.end(), sequence.as_list().begin(), sequence.as_list().end());
  }
  return sequence.is_tuple() ? Value::tuple(std::move(out)) : Value(std::move(out));
}

// Python's list + list and tuple + tuple; a list and a tuple do not mix.
Value concatenate(const Value& a, const Value& b) {
  if (a.is_tuple() != b.is_tuple()) {
    const char* left = a.is_tuple() ? "tuple" : "list";
    const char* right = b.is_tuple() ? "tuple" : "list";
    throw Error(ErrorKind::Render, std::string("can only concatenate ") + left + " (not \"" +
                                       right + "\") to " + left);
  }
  check_value_size(a.as_list().size() + b.as_list().size(), "list + list");
  ValueList out = a.as_list();
  out.insert(out.end(), b.as_list().begin(), b.as_list().end());
  return a.is_tuple() ? Value::tuple(std::move(out)) : Value(std::move(out));
}

// Markup % args: every argument escaped first (MarkupSafe's _MarkupEscapeHelper), for %s and
// %r alike; numbers format as numbers.
Value markup_format(const Value& format, const Value& args) {
  auto escaped = escape_argument;
  if (args.is_dict()) {
    ValueDict mapping;
    for (const auto& [key, value] : args.as_dict()) mapping.set(key, escaped(value));
    return Value::markup(percent_format(format.as_string(), Value(std::move(mapping))));
  }
  ValueList items;
  if (args.is_tuple()) {
    for (const auto& item : args.as_list()) items.push_back(escaped(item));
  } else {
    items.push_back(escaped(args));
  }
  return Value::markup(percent_format(format.as_string(), items));
}

double python_fmod(double a, double b) {
  double m = std::fmod(a, b);
  if (m == 0) return std::copysign(0.0, b);  // Python: a zero result has the divisor's sign
  if ((m < 0) != (b < 0)) m += b;
  return m;
}

// Python's float floor division (CPython's float_floor_div): the quotient of a - fmod(a, b),
// so 7.0 // 0.1 is 69.0 (not floor(7.0 / 0.1) == 70.0), -5 // inf is -1.0 and inf // 1 is nan.
double python_floor_div(double a, double b) {
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, a / b);
  double floored = std::floor(div);
  if (div - floored > 0.5) floored += 1.0;
  return floored;
}

// Python's float `**`: a negative base to a fractional power is a complex number, which
// zeroforge does not have (Python would print `(1.7e-16+2.8j)`), and a finite result too
// large for a double is an OverflowError, never a silent `inf` or `nan`.
Value float_power(double base, double exponent) {
  if (base == 0 && exponent < 0) {
    throw Error(ErrorKind::Render, "0.0 cannot be raised to a negative power");
  }
  if (base < 0 && std::isfinite(exponent) && exponent != std::floor(exponent)) {
    throw Error(ErrorKind::Render,
                "a negative number raised to a fractional power is a complex number, which "
                "zeroforge does not support");
  }
  double result = std::pow(base, exponent);
  if (std::isinf(result) && std::isfinite(base) && std::isfinite(exponent)) {
    throw Error(ErrorKind::Render,
                "the result of ** is too large for a float (Python: OverflowError)");
  }
  return Value(result);
}

Value integer_power(std::int64_t base, std::int64_t exponent) {
  if (exponent < 0) {
    if (base == 0) throw Error(ErrorKind::Render, "0.0 cannot be raised to a negative power");
    return Value(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
  }
  std::int64_t result = 1;
  while (exponent > 0) {
    if (exponent & 1) {
      if (__builtin_mul_overflow(result, base, &result)) overflow();
    }
    exponent >>= 1;
    if (exponent > 0 && __builtin_mul_overflow(base, base, &base)) overflow();
  }
  return Value(result);
}

}  // namespace

Value apply_binary(BinaryOp op, const Value& a, const Value& b) {
  if (op == BinaryOp::Concat) {  // str() of each side; a lenient undefined is ""
    std::string out = a.str();
    b.append_str(out);
    check_value_size(out.size(), "~");
    return Value(std::move(out));
  }
  a.require_defined();
  b.require_defined();
  if (a.is_number() && b.is_number()) {
    bool ints = is_int_like(a) && is_int_like(b);
    switch (op) {
      case BinaryOp::Add:
        if (ints) {
          std::int64_t r;
          if (__builtin_add_overflow(a.as_int(), b.as_int(), &r)) overflow();
          return Value(r);
        }
        return Value(a.as_double() + b.as_double());
      case BinaryOp::Subtract:
        if (ints) {
          std::int64_t r;
          if (__builtin_sub_overflow(a.as_int(), b.as_int(), &r)) overflow();
          return Value(r);
        }
        return Value(a.as_double() - b.as_double());
      case BinaryOp::Multiply:
        if (ints) {
          std::int64_t r;
          if (__builtin_mul_overflow(a.as_int(), b.as_int(), &r)) overflow();
          return Value(r);
        }
        return Value(a.as_double() * b.as_double());
      case BinaryOp::Divide:
        if (b.as_double() == 0) throw Error(ErrorKind::Render, "division by zero");
        return Value(a.as_double() / b.as_double());
      case BinaryOp::FloorDivide:
        if (ints) {
          std::int64_t x = a.as_int(), y = b.as_int();
          if (y == 0) throw Error(ErrorKind::Render, "integer division or modulo by zero");
          if (x == std::numeric_limits<std::int64_t>::min() && y == -1) overflow();
          std::int64_t q = x / y;
          if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
          return Value(q);
        }
        if (b.as_double() == 0) throw Error(ErrorKind::Render, "float floor division by zero");
        return Value(python_floor_div(a.as_double(), b.as_double()));
      case BinaryOp::Modulo:
        if (ints) {
          std::int64_t x = a.as_int(), y = b.as_int();
          if (y == 0) throw Error(ErrorKind::Render, "integer division or modulo by zero");
          if (y == -1) return Value(static_cast<std::int64_t>(0));
          std::int64_t m = x % y;
          if (m != 0 && ((m < 0) != (y < 0))) m += y;
          return Value(m);
        }
        if (b.as_double() == 0) throw Error(ErrorKind::Render, "float modulo");
        return Value(python_fmod(a.as_double(), b.as_double()));
      case BinaryOp::Power:
        if (ints) return integer_power(a.as_int(), b.as_int());
        return float_power(a.as_double(), b.as_double());
      default:
        break;
    }
    unsupported(op, a, b);
  }
  if (op == BinaryOp::Add) {
    if (a.is_string() && b.is_string()) {
      check_value_size(a.as_string().size() + b.as_string().size(), "str + str");
      // Markup + str escapes the str, and so does str + Markup (Markup.__radd__).
      if (a.is_markup() || b.is_markup()) return markup_concatenate(a, b);
      return Value(a.as_string() + b.as_string());
    }
    // A range is a list here, but Python cannot add or repeat one.
    if (a.is_list() && b.is_list() && !a.is_range() && !b.is_range()) return concatenate(a, b);
  }
  if (op == BinaryOp::Multiply) {
    // A range is a list here, but Python cannot repeat one.
    const bool a_repeats = a.is_string() || (a.is_list() && !a.is_range());
    const bool b_repeats = b.is_string() || (b.is_list() && !b.is_range());
    const Value* sequence = a_repeats && is_int_like(b)   ? &a
                            : b_repeats && is_int_like(a) ? &b
                                                          : nullptr;
    if (sequence) {
      Value repeated = repeat(*sequence, (sequence == &a ? b : a).as_int());
      return sequence->is_markup() ? Value::markup(repeated.as_string()) : repeated;
    }
  }
  if (op == BinaryOp::Modulo && a.is_markup()) return markup_format(a, b);
  if (op == BinaryOp::Modulo && a.is_string()) {  // Python's printf-style formatting
    if (b.is_tuple()) return Value(percent_format(a.as_string(), b.as_list()));
    if (b.is_dict()) return Value(percent_format(a.as_string(), b));
    return Value(percent_format(a.as_string(), ValueList{b}));
  }
  unsupported(op, a, b);
}

Value apply_unary(UnaryOp op, const Value& v) {
  v.require_defined();
  switch (op) {
    case UnaryOp::Not:
      return Value(!v.truthy());
    case UnaryOp::Negate:
      if (is_int_like(v)) {
        if (v.as_int() == std::numeric_limits<std::int64_t>::min()) overflow();
        return Value(-v.as_int());
      }
      if (v.is_float()) return Value(-v.as_double());
      break;
    case UnaryOp::Plus:
      if (is_int_like(v)) return Value(v.as_int());
      if (v.is_float()) return v;
      break;
  }
  throw Error(ErrorKind::Render, std::string("bad operand type for unary ") +
                                     (op == UnaryOp::Negate ? "-" : "+") + ": '" + v.type_name() +
                                     "'");
}

bool contains(const Value& container, const Value& item) {
  container.require_defined();
  item.require_defined();
  if (container.is_string()) {
    if (!item.is_string()) {
      throw Error(
          ErrorKind::Render,
          std::string("'in <string>' requires string as left operand, not ") + item.type_name());
    }
    return container.as_string().find(item.as_string()) != std::string::npos;
  }
  if (container.is_list()) {
    for (const auto& element : container.as_list()) {
      if (element == item) return true;
    }
    return false;
  }
  if (container.is_dict()) {
    // Tuples and ranges are hashable; lists and dicts are not.
    if ((item.is_list() && !item.is_tuple() && !item.is_range()) || item.is_dict()) {
      throw Error(ErrorKind::Render, std::string("unhashable type: '") + item.type_name() + "'");
    }
    if (!item.is_string()) return false;
    return container.as_dict().contains(item.as_string());
  }
  throw Error(ErrorKind::Render,
              std::string("argument of type '") + container.type_name() + "' is not iterable");
}

bool apply_compare(CompareOp op, const Value& a, const Value& b) {
  switch (op) {
    case CompareOp::Equal:
      return a == b;
    case CompareOp::NotEqual:
      return !(a == b);
    case CompareOp::Less:
      return Value::compare(a, b) < 0;
    case CompareOp::LessEqual:
      return Value::compare(a, b) <= 0;
    case CompareOp::Greater:
      return Value::compare(a, b) > 0;
    case CompareOp::GreaterEqual:
      return Value::compare(a, b) >= 0;
    case CompareOp::In:
      return contains(b, a);
    case CompareOp::NotIn:
      return !contains(b, a);
  }
  return false;
}

}  // namespace zf::detail
