// SPDX-License-Identifier: MIT
// Evaluating expressions: names, literals, attributes, items, slices, operators, comparisons,
// conditionals, list and dict displays, and flat chains; values are looked up in place where
// they exist, so most expressions copy nothing.
#include <algorithm>

#include "template/limits.hpp"
#include "template/loop_object.hpp"
#include "template/methods.hpp"
#include "template/namespace_object.hpp"
#include "template/operators.hpp"
#include "template/python_ops.hpp"
#include "template/render_state.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {
bool Renderer::truthy(const Expr& expr, const Frame& frame) {
  // Comparisons and tests, the usual conditions, answer without making a bool Value; their
  // errors get the location eval() would give them.
  auto* compare = std::get_if<Compare>(&expr.node);
  auto* test = std::get_if<TestExpr>(&expr.node);
  if (compare || test) {
    try {
      return compare ? compare_chain(*compare, frame) : test_result(expr, *test, frame);
    } catch (const Error& error) {
      throw error.has_location() ? error : locate(error, expr.offset);
    }
  }
  std::optional<Value> scratch;
  const Value& v = lookup(expr, frame, scratch);
  try {
    return v.truthy();
  } catch (const Error& error) {
    throw error.has_location() ? error : locate(error, expr.offset);
  }
}

ValueList Renderer::iterate(const Value& iterable, std::size_t offset) {
  try {
    if (iterable.is_lenient_undefined()) return {};
    iterable.require_defined();
    if (iterable.is_list()) return iterable.as_list();
    if (iterable.is_dict()) {
      ValueList keys;
      for (const auto& [key, value] : iterable.as_dict()) keys.emplace_back(key);
      return keys;
    }
    if (iterable.is_string()) {
      ValueList chars;
      const std::string& s = iterable.as_string();
      for (std::size_t i = 0; i < s.size();) {
        std::size_t n = 1;
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0xF0)
          n = 4;
        else if (c >= 0xE0)
          n = 3;
        else if (c >= 0xC0)
          n = 2;
        chars.emplace_back(s.substr(i, n));
        i += n;
      }
      return chars;
    }
    throw Error(ErrorKind::Render,
                std::string("'") + iterable.type_name() + "' object is not iterable");
  } catch (const Error& error) {
    throw error.has_location() ? error : locate(error, offset);
  }
}

// The same, as a call: GCC cannot tell that default_in_place never returns its local
// scratch value when it sees through lookup.
const Value& Renderer::lookup_outlined(const Expr& expr, const Frame& frame, Value& scratch) {
  return lookup(expr, frame, scratch);
}

const Value& Renderer::lookup_compound(const Expr& expr, const Frame& frame, Value& scratch) {
  if (auto* conditional = std::get_if<Conditional>(&expr.node)) {
    if (truthy(*conditional->test, frame)) return lookup(*conditional->then, frame, scratch);
    if (conditional->otherwise) return lookup(*conditional->otherwise, frame, scratch);
    scratch = Value::lenient_undefined(kInlineIfWithoutElse);
    return scratch;
  } else if (auto* filter = std::get_if<FilterExpr>(&expr.node);
             filter && filter->builtin_default) {
    return default_in_place(*filter, frame, scratch);
  } else if (auto* attr = std::get_if<GetAttr>(&expr.node)) {
    Value object_scratch;
    const Value& object = lookup(*attr->object, frame, object_scratch);
    require_object(object, attr->object->offset);
    if (const LoopContext* loop = as_loop_context(object)) {
      // `loop.index` and the like, read in place as a dict's keys are.
      if (const Value* v = loop->find(attr->attribute, attr->hash)) return *v;
    } else if (object.is_dict() && !(attr->maybe_method && has_method(object, attr->attribute))) {
      // A key: the value where it is (unless the dict itself is a temporary), or the
      // attribute's undefined value.
      const Value* v = object.as_dict().find(attr->attribute, attr->hash);
      if (!v) return attr->missing_key;
      if (&object != &object_scratch) return *v;
    }
    try {
      scratch = get_attribute(object, attr->attribute);
    } catch (const Error& error) {
      if (error.has_location()) throw;
      throw locate(error, expr.offset);
    }
    return scratch;
  }
  scratch = eval(expr, frame);
  return scratch;
}

// `x | default(v, boolean)`: the subject when it is defined (and, with `boolean`, true),
// else `v`; either is returned without a copy. Same semantics as the filter's body.
const Value& Renderer::default_in_place(const FilterExpr& filter, const Frame& frame,
                                        Value& scratch) {
  return default_of(filter, lookup(*filter.subject, frame, scratch), frame, scratch);
}

// The same for a `subject` at hand, which may live in `scratch`.
const Value& Renderer::default_of(const FilterExpr& filter, const Value& subject,
                                  const Frame& frame, Value& scratch) {
  // Every argument is evaluated, as Jinja2 does, even when the subject is kept.
  const auto& args = filter.args.positional;
  // The usual forms: no argument, or one literal (nothing to evaluate).
  if (args.empty())
    return subject.is_undefined() ? *filter.spec->parameters[0].default_value : subject;
  if (auto* literal = std::get_if<Literal>(&args[0]->node); literal && args.size() == 1) {
    return subject.is_undefined() ? literal->value : subject;
  }
  Value fallback_scratch, flag_scratch;
  const Value* fallback = &lookup_outlined(*args[0], frame, fallback_scratch);
  bool use_default = subject.is_undefined();
  if (!use_default && args.size() == 2) {
    const Value& flag = lookup(*args[1], frame, flag_scratch);
    try {
      use_default = flag.truthy() && !subject.truthy();
    } catch (const Error& error) {
      throw error.has_location() ? error : locate(error, args[1]->offset);
    }
  }
  if (!use_default) return subject;
  if (fallback == &fallback_scratch) {
    scratch = std::move(fallback_scratch);
    return scratch;
  }
  return *fallback;
}

// What eval() gives, without copying a value that exists (the name of an included
// template): lookup() with eval()'s error location.
const Value& Renderer::lookup_located(const Expr& expr, const Frame& frame, Value& scratch) {
  try {
    return lookup(expr, frame, scratch);
  } catch (const Error& error) {
    if (error.has_location()) throw;
    throw locate(error, expr.offset);
  }
}

Value Renderer::eval(const Expr& expr, const Frame& frame) {
  try {
    return std::visit([&](const auto& node) { return eval_node(expr, node, frame); }, expr.node);
  } catch (const Error& error) {
    if (error.has_location()) throw;
    throw locate(error, expr.offset);
  }
}

Value Renderer::eval_node(const Expr&, const Literal& node, const Frame&) { return node.value; }

Value Renderer::eval_node(const Expr&, const NameRef& node, const Frame& frame) {
  if (const Value* v = frame.find(node.name, node.hash, node.where)) return *v;
  return node.missing;
}

const char* Renderer::object_type(const Value& object) {
  switch (object.kind()) {
    case Value::Kind::Dict:
      return "dict";
    case Value::Kind::List:
      return object.is_range() ? "range" : object.is_tuple() ? "tuple" : "list";
    case Value::Kind::String:
      // Jinja2 names a type outside builtins by its module: MarkupSafe's Markup.
      return object.is_markup() ? "markupsafe.Markup" : "str";
    case Value::Kind::Int:
      return "int";
    case Value::Kind::Float:
      return "float";
    case Value::Kind::Bool:
      return "bool";
    case Value::Kind::None:
      return "NoneType";
    default:
      return "function";
  }
}

Value Renderer::missing_member(const Value& object, const Value& key) {
  std::string type = std::string(object_type(object)) + " object";
  if (key.is_string())
    return Value::undefined("'" + type + "' has no attribute '" + key.as_string() + "'");
  return Value::undefined("'" + type + "' has no element " + key.repr());
}

// `object.name`: Jinja2 tries the Python attribute (a method) first, then the key.
// The attributes of Jinja2's Macro object (runtime.py): `name` (none for a call block's
// caller), `arguments` (a tuple of the parameter names), `catch_kwargs`, `catch_varargs` and
// `caller` (whether the body reads them).
std::optional<Value> Renderer::macro_attribute(const Macro& macro, const std::string& name) {
  const MacroStmt& stmt = macro.stmt();
  if (name == "name") return stmt.anonymous ? Value(nullptr) : Value(stmt.target.name);
  if (name == "arguments") {
    ValueList names;
    for (const auto& param : stmt.params) names.emplace_back(param.name);
    return Value::tuple(std::move(names));
  }
  if (name == "catch_kwargs") return Value(stmt.catch_kwargs);
  if (name == "catch_varargs") return Value(stmt.catch_varargs);
  if (name == "caller") return Value(stmt.accesses_caller);
  return std::nullopt;
}

Value Renderer::get_attribute(const Value& object, const std::string& name) {
  object.require_defined();
  if (has_method(object, name)) return bind_method(object, name);
  if (object.is_dict()) {
    if (const Value* v = object.as_dict().find(name)) return *v;
  } else if (object.is_range()) {  // a range is a list too: asked first
    if (name == "start" || name == "stop" || name == "step") {
      const Value::RangeBounds r = object.range_bounds();
      return Value(name == "start" ? r.start : name == "stop" ? r.stop : r.step);
    }
  } else if (object.is_list()) {
    if (const Value* field = object.field(name)) return *field;  // groupby's (grouper, list)
  } else if (const Namespace* ns = as_namespace(object)) {
    if (const Value* v = ns->find(name)) return *v;
  } else if (const LoopContext* loop = as_loop_context(object)) {
    if (const Value* v = loop->find(name)) return *v;
  } else if (const Macro* macro = object.is_callable() ? as_macro(object.as_callable()) : nullptr) {
    if (std::optional<Value> v = macro_attribute(*macro, name)) return *std::move(v);
  }
  return Value::undefined_attribute(object_type(object), name);
}

// `object[key]`: Jinja2 tries the key first, then the attribute.
Value Renderer::get_item(const Value& object, const Value& key) {
  object.require_defined();
  if (const LoopContext* loop = as_loop_context(object); loop && key.is_string()) {
    if (const Value* v = loop->find(key.as_string())) return *v;
  }
  if (object.is_dict()) {
    if (key.is_string()) {
      if (const Value* v = object.as_dict().find(key.as_string())) return *v;
      if (has_method(object, key.as_string())) return bind_method(object, key.as_string());
    }
    return missing_member(object, key);
  }
  if (object.is_list() || object.is_string()) {
    if (key.is_string()) {
      if (has_method(object, key.as_string())) return bind_method(object, key.as_string());
      if (const Value* field = object.field(key.as_string())) return *field;
      return missing_member(object, key);
    }
    if (!key.is_int() && !key.is_bool()) return missing_member(object, key);
    std::int64_t index = key.as_int();
    if (object.is_list()) {
      const auto& list = object.as_list();
      auto size = static_cast<std::int64_t>(list.size());
      if (index < 0) index += size;
      if (index < 0 || index >= size) return missing_member(object, key);
      return list[static_cast<std::size_t>(index)];
    }
    ValueList chars = iterate(object, 0);
    auto size = static_cast<std::int64_t>(chars.size());
    if (index < 0) index += size;
    if (index < 0 || index >= size) return missing_member(object, key);
    // Markup's __getitem__ keeps the mark: `Markup('<b>')[0]` is Markup.
    Value& item = chars[static_cast<std::size_t>(index)];
    return object.is_markup() ? Value::markup(item.as_string()) : std::move(item);
  }
  return missing_member(object, key);
}

// `object.name` fails on an undefined object, where the object was written (`at`).
void Renderer::require_object(const Value& object, std::size_t at) const {
  if (object.is_undefined()) {
    throw locate(Error(ErrorKind::Undefined, object.undefined_description()), at);
  }
}

Value Renderer::eval_node(const Expr&, const GetAttr& node, const Frame& frame) {
  Value scratch;
  const Value& object = lookup(*node.object, frame, scratch);
  require_object(object, node.object->offset);
  return get_attribute(object, node.attribute);
}

Value Renderer::eval_node(const Expr&, const GetItem& node, const Frame& frame) {
  return item_of(node, eval(*node.object, frame), frame);
}

Value Renderer::item_of(const GetItem& node, const Value& object, const Frame& frame) {
  Value key = eval(*node.key, frame);
  key.require_defined();
  return get_item(object, key);
}

// Python's range slicing: `range(a, b, s)[i:j:k]` is `range(a + i*s, a + j*s, s*k)`, with i, j
// and k as slice.indices() gives them (`b`, `e` and `step` here); `items` are its items.
Value Renderer::range_slice(Value::RangeBounds range, std::int64_t b, std::int64_t e,
                            std::int64_t step, ValueList items) {
  std::int64_t start, stop, new_step, offset_b, offset_e;
  if (__builtin_mul_overflow(b, range.step, &offset_b) ||
      __builtin_mul_overflow(e, range.step, &offset_e) ||
      __builtin_add_overflow(range.start, offset_b, &start) ||
      __builtin_add_overflow(range.start, offset_e, &stop) ||
      __builtin_mul_overflow(range.step, step, &new_step)) {
    throw Error(ErrorKind::Render, "integer overflow (zeroforge integers are 64-bit)");
  }
  return Value::range(start, stop, new_step, std::move(items));
}

Value Renderer::eval_node(const Expr&, const SliceExpr& node, const Frame& frame) {
  return slice_of(node, eval(*node.object, frame), frame);
}

Value Renderer::slice_of(const SliceExpr& node, const Value& object, const Frame& frame) {
  object.require_defined();
  // Jinja2 subscripts a slice directly: a dict is not sliced by its keys, nor is any other
  // value that is not a sequence.
  if (object.is_dict()) throw Error(ErrorKind::Render, "unhashable type: 'slice'");
  if (!object.is_list() && !object.is_string()) {
    throw Error(ErrorKind::Render,
                std::string("'") + object.type_name() + "' object is not subscriptable");
  }
  auto bound = [&](const ExprPtr& e) -> std::optional<std::int64_t> {
    if (!e) return std::nullopt;
    Value v = eval(*e, frame);
    if (v.is_none()) return std::nullopt;
    return v.as_int();
  };
  auto start = bound(node.start), stop = bound(node.stop), step_opt = bound(node.step);
  std::int64_t step = step_opt.value_or(1);
  if (step == 0) throw Error(ErrorKind::Render, "slice step cannot be zero");
  ValueList items = object.is_list() ? object.as_list() : iterate(object, 0);
  auto n = static_cast<std::int64_t>(items.size());
  auto clamp = [&](std::optional<std::int64_t> v, std::int64_t dflt) {
    if (!v) return dflt;
    std::int64_t x = *v;
    if (x < 0) x += n;
    if (step > 0) return std::clamp<std::int64_t>(x, 0, n);
    return std::clamp<std::int64_t>(x, -1, n - 1);
  };
  std::int64_t b = clamp(start, step > 0 ? 0 : n - 1);
  std::int64_t e = clamp(stop, step > 0 ? n : -1);
  ValueList out;
  for (std::int64_t i = b; step > 0 ? i < e : i > e; i += step)
    out.push_back(items[static_cast<std::size_t>(i)]);
  if (object.is_range()) return range_slice(object.range_bounds(), b, e, step, std::move(out));
  if (object.is_string()) {
    std::string s;
    for (const auto& c : out) s += c.as_string();
    // A slice of Markup is Markup (MarkupSafe's __getitem__).
    return object.is_markup() ? Value::markup(std::move(s)) : Value(std::move(s));
  }
  return object.is_tuple() ? Value::tuple(std::move(out)) : Value(std::move(out));
}

Value Renderer::eval_node(const Expr&, const Unary& node, const Frame& frame) {
  Value scratch;
  return apply_unary(node.op, lookup(*node.operand, frame, scratch));
}

// A chain of one precedence level, left to right, each operator's errors at the operator.
Value Renderer::eval_node(const Expr&, const Binary& node, const Frame& frame) {
  const BinaryOp level = node.rest.front().op;
  if (level == BinaryOp::And || level == BinaryOp::Or) {
    // `a and b and c` is `(a and b) and c`: each operator keeps the value so far, or takes
    // its operand's (evaluated only then).
    Value value = eval(*node.first, frame);
    for (const BinaryOperand& operand : node.rest) {
      bool keep;
      try {
        const bool t = value.truthy();
        keep = operand.op == BinaryOp::And ? !t : t;
      } catch (const Error& error) {
        throw error.has_location() ? error : locate(error, operand.offset);
      }
      if (!keep) value = eval(*operand.operand, frame);
    }
    return value;
  }
  if (level == BinaryOp::Concat) return concat_chain(node, frame);
  std::optional<Value> first_scratch, operand_scratch;
  const Value& first = lookup(*node.first, frame, first_scratch);
  const BinaryOperand& second = node.rest.front();
  Value value = apply_at(second, first, lookup(*second.operand, frame, operand_scratch));
  for (std::size_t i = 1; i < node.rest.size(); ++i) {
    std::optional<Value> scratch;
    value = apply_at(node.rest[i], value, lookup(*node.rest[i].operand, frame, scratch));
  }
  return value;
}

Value Renderer::apply_at(const BinaryOperand& operand, const Value& left,
                         const Value& right) const {
  try {
    return apply_binary(operand.op, left, right);
  } catch (const Error& error) {
    throw error.has_location() ? error : locate(error, operand.offset);
  }
}

// `a ~ b ~ c` appends each operand's text to one string, as Jinja2 joins a Concat node's
// operands: a long chain takes linear time, not the quadratic of one new string per `~`.
// Each step's value and error are apply_binary's.
Value Renderer::concat_chain(const Binary& node, const Frame& frame) {
  std::optional<Value> first_scratch;
  const Value& first = lookup(*node.first, frame, first_scratch);
  std::string out;
  for (const BinaryOperand& operand : node.rest) {
    std::optional<Value> scratch;
    const Value& right = lookup(*operand.operand, frame, scratch);
    try {
      if (&operand == &node.rest.front()) out = first.str();
      right.append_str(out);
      check_value_size(out.size(), "~");
    } catch (const Error& error) {
      throw error.has_location() ? error : locate(error, operand.offset);
    }
  }
  return Value(std::move(out));
}

Value Renderer::eval_node(const Expr&, const Compare& node, const Frame& frame) {
  return Value(compare_chain(node, frame));
}

bool Renderer::compare_chain(const Compare& node, const Frame& frame) {
  // Operands are looked up in place; a chain `a < b < c` alternates two scratch values.
  std::optional<Value> scratch[2];
  const Value* left = &lookup(*node.first, frame, scratch[0]);
  std::size_t next = 1;
  for (const auto& [op, expr] : node.rest) {
    const Value& right = lookup(*expr, frame, scratch[next]);
    if (!apply_compare(op, *left, right)) return false;
    left = &right;
    next ^= 1;
  }
  return true;
}

Value Renderer::eval_node(const Expr&, const Conditional& node, const Frame& frame) {
  if (truthy(*node.test, frame)) return eval(*node.then, frame);
  if (node.otherwise) return eval(*node.otherwise, frame);
  return Value::lenient_undefined(kInlineIfWithoutElse);
}

Value Renderer::eval_node(const Expr&, const ListExpr& node, const Frame& frame) {
  ValueList list;
  list.reserve(node.items.size());
  for (const auto& item : node.items) list.push_back(eval(*item, frame));
  return node.tuple ? Value::tuple(std::move(list)) : Value(std::move(list));
}

Value Renderer::eval_node(const Expr&, const DictExpr& node, const Frame& frame) {
  ValueDict dict;
  for (const auto& [key_expr, value_expr] : node.items) {
    Value key = eval(*key_expr, frame);
    key.require_defined();
    if (!key.is_string()) {
      throw Error(ErrorKind::Render,
                  std::string("dict keys must be strings here, got ") + key.type_name());
    }
    dict.set(key.as_string(), eval(*value_expr, frame));
  }
  return Value(std::move(dict));
}

// A long chain stored flat: each link applied to the value so far, with the value and the
// errors the nested nodes would give. `previous`: where the value so far was written.
Value Renderer::eval_node(const Expr&, const Chain& node, const Frame& frame) {
  Value value = eval(*node.subject, frame);
  std::size_t previous = node.subject->offset;
  for (const ExprPtr& link : node.links) {
    value = apply_link(*link, value, previous, frame);
    previous = link->offset;
  }
  return value;
}

Value Renderer::apply_link(const Expr& link, const Value& value, std::size_t previous,
                           const Frame& frame) {
  try {
    if (auto* attr = std::get_if<GetAttr>(&link.node)) {
      require_object(value, previous);
      return get_attribute(value, attr->attribute);
    }
    if (auto* item = std::get_if<GetItem>(&link.node)) return item_of(*item, value, frame);
    if (auto* slice = std::get_if<SliceExpr>(&link.node)) return slice_of(*slice, value, frame);
    if (auto* call = std::get_if<Call>(&link.node)) return call_of(*call, value, frame);
    if (auto* filter = std::get_if<FilterExpr>(&link.node)) {
      if (!filter->builtin_default) return filter_of(link, *filter, value, frame);
      Value scratch;
      return default_of(*filter, value, frame, scratch);
    }
    return Value(test_of(link, std::get<TestExpr>(link.node), value, frame));
  } catch (const Error& error) {
    if (error.has_location()) throw;
    throw locate(error, link.offset);
  }
}

}  // namespace zf::detail
