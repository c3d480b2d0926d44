// SPDX-License-Identifier: MIT
// zf::Value and zf::ValueDict: construction, JSON conversion, Python str/repr, equality and
// ordering.
#include "zeroforge/value.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "code_points.hpp"
#include "number_format.hpp"
#include "zeroforge/error.hpp"

namespace zf {
namespace {

// Up to this many keys a lookup scans the hashes, which sit in a few adjacent cache lines; the
// index costs two more lines in other places, which is slower when the dict is out of cache
// (a value set of ~20 keys: 3.4 -> 3.2 us per bench render).
constexpr std::size_t kIndexThreshold = 32;

// Python's escape of a code point that is not printable: \xNN, \uNNNN or \UNNNNNNNN.
void append_code_point_escape(std::string& out, char32_t c) {
  static const char* hex = "0123456789abcdef";
  int digits = c < 0x100 ? 2 : c < 0x10000 ? 4 : 8;
  out += digits == 2 ? "\\x" : digits == 4 ? "\\u" : "\\U";
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += hex[(c >> shift) & 15];
}

void append_repr_string(std::string& out, const std::string& s) {
  // Python prefers single quotes unless the text has a single quote and no double quote.
  char quote = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  out += quote;
  for (std::size_t pos = 0; pos < s.size();) {
    auto c = static_cast<unsigned char>(s[pos]);
    if (c >= 0x80) {
      char32_t code_point;
      std::size_t n = detail::decode_utf8(s, pos, code_point);
      if (n > 1 && !detail::is_printable(code_point)) {
        append_code_point_escape(out, code_point);
      } else {
        out.append(s, pos, n);  // a printable code point, or a malformed byte kept as it is
      }
      pos += n;
      continue;
    }
    ++pos;
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c == static_cast<unsigned char>(quote)) {
          out += '\\';
          out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
          append_code_point_escape(out, c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += quote;
}

void append_repr(std::string& out, const Value& v);

void append_container(std::string& out, const Value& v) {
  if (v.is_range()) {
    const Value::RangeBounds r = v.range_bounds();
    out += "range(" + std::to_string(r.start) + ", " + std::to_string(r.stop);
    if (r.step != 1) out += ", " + std::to_string(r.step);
    out += ')';
    return;
  }
  if (v.is_list()) {
    bool tuple = v.is_tuple();
    out += tuple ? '(' : '[';
    bool first = true;
    for (const auto& item : v.as_list()) {
      if (!first) out += ", ";
      first = false;
      append_repr(out, item);
    }
    if (tuple && v.as_list().size() == 1) out += ',';
    out += tuple ? ')' : ']';
    return;
  }
  out += '{';
  bool first = true;
  for (const auto& [key, item] : v.as_dict()) {
    if (!first) out += ", ";
    first = false;
    append_repr_string(out, key);
    out += ": ";
    append_repr(out, item);
  }
  out += '}';
}

void append_repr(std::string& out, const Value& v) {
  if (v.is_undefined()) {
    // Jinja2's repr of any Undefined, StrictUndefined too: a container holding one prints
    // (`[Undefined]`); printing the undefined value itself still fails (append_str).
    out += "Undefined";
  } else if (v.is_markup()) {
    out += "Markup(";
    append_repr_string(out, v.as_string());
    out += ')';
  } else if (v.is_string()) {
    append_repr_string(out, v.as_string());
  } else {
    v.append_str(out);
  }
}

}  // namespace

Value::Value(std::nullptr_t) noexcept : data_(nullptr) {}
Value::Value(bool b) noexcept : data_(b) {}
Value::Value(int i) noexcept : data_(static_cast<std::int64_t>(i)) {}
Value::Value(long i) noexcept : data_(static_cast<std::int64_t>(i)) {}
Value::Value(long long i) noexcept : data_(static_cast<std::int64_t>(i)) {}
Value::Value(double d) noexcept : data_(d) {}
Value::Value(std::string s) : data_(std::move(s)) {}
Value::Value(std::string_view s) : data_(std::string(s)) {}
Value::Value(const char* s) : data_(std::string(s)) {}
Value::Value(ValueList list)
    : data_(std::shared_ptr<const ListData>(
          std::make_shared<const ListData>(ListData{std::move(list), false, nullptr}))) {}

Value Value::markup(std::string text) {
  Value v(std::move(text));
  v.data_.set_markup();
  return v;
}

Value Value::named_tuple(ValueList items, const std::string_view* fields) {
  Value v;
  v.data_ = Data(std::shared_ptr<const ListData>(
      std::make_shared<const ListData>(ListData{std::move(items), true, fields})));
  return v;
}

const Value* Value::field(std::string_view name) const noexcept {
  if (kind() != Kind::List || !data_.list()->fields) return nullptr;
  const ListData& list = *data_.list();
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    if (list.fields[i] == name) return &list.items[i];
  }
  return nullptr;
}

Value Value::tuple(ValueList items) {
  Value v;
  v.data_ = Data(std::shared_ptr<const ListData>(
      std::make_shared<const ListData>(ListData{std::move(items), true, nullptr})));
  return v;
}

bool Value::is_tuple() const noexcept { return data_.kind() == Kind::List && data_.list()->tuple; }

Value Value::range(std::int64_t start, std::int64_t stop, std::int64_t step, ValueList items) {
  Value v;
  v.data_ = Data(std::shared_ptr<const ListData>(std::make_shared<const ListData>(
      ListData{std::move(items), false, nullptr, true, RangeBounds{start, stop, step}})));
  return v;
}

bool Value::is_range() const noexcept { return data_.kind() == Kind::List && data_.list()->range; }

Value::RangeBounds Value::range_bounds() const noexcept {
  return is_range() ? data_.list()->bounds : RangeBounds{0, 0, 0};
}
Value::Value(ValueDict dict)
    : data_(std::shared_ptr<const ValueDict>(std::make_shared<const ValueDict>(std::move(dict)))) {}
Value::Value(std::shared_ptr<const Callable> callable) : data_(std::move(callable)) {}

Value Value::undefined(std::string description) {
  Value v;
  v.data_ = Data(UndefinedData{UndefinedData::Form::Text, nullptr, nullptr,
                               std::make_shared<const std::string>(std::move(description))});
  return v;
}

Value Value::undefined_variable(const std::string& name) {
  Value v;
  v.data_ = Data(UndefinedData{UndefinedData::Form::Variable, &name, nullptr, nullptr});
  return v;
}

Value Value::undefined_attribute(const char* object_type, const std::string& name) {
  Value v;
  v.data_ = Data(UndefinedData{UndefinedData::Form::Attribute, &name, object_type, nullptr});
  return v;
}

Value Value::lenient_undefined(std::string description) {
  Value v;
  v.data_ = Data(UndefinedData{UndefinedData::Form::Lenient, nullptr, nullptr,
                               std::make_shared<const std::string>(std::move(description))});
  return v;
}

bool Value::is_lenient_undefined() const noexcept {
  return data_.kind() == Kind::Undefined && data_.undefined().form == UndefinedData::Form::Lenient;
}

Value Value::from_json(const nlohmann::ordered_json& json) {
  using T = nlohmann::ordered_json::value_t;
  switch (json.type()) {
    case T::null:
      return Value(nullptr);
    case T::boolean:
      return Value(json.get<bool>());
    case T::number_integer:
      return Value(json.get<std::int64_t>());
    case T::number_unsigned: {
      auto u = json.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(INT64_MAX)) return Value(static_cast<double>(u));
      return Value(static_cast<std::int64_t>(u));
    }
    case T::number_float:
      return Value(json.get<double>());
    case T::string:
      return Value(json.get_ref<const std::string&>());
    case T::array: {
      ValueList list;
      list.reserve(json.size());
      for (const auto& item : json) list.push_back(from_json(item));
      return Value(std::move(list));
    }
    case T::object: {
      ValueDict dict;
      dict.reserve(json.size());
      for (const auto& [key, item] : json.items()) dict.set(key, from_json(item));
      return Value(std::move(dict));
    }
    default:
      throw Error(ErrorKind::Values, "binary JSON values are not supported");
  }
}

nlohmann::ordered_json Value::to_json() const {
  switch (kind()) {
    case Kind::Undefined:
      require_defined();
      return nullptr;
    case Kind::None:
      return nullptr;
    case Kind::Bool:
      return data_.boolean();
    case Kind::Int:
      return data_.integer();
    case Kind::Float:
      return data_.real();
    case Kind::String:
      return data_.string();
    case Kind::List: {
      if (is_range())
        throw Error(ErrorKind::Render, "Object of type range is not JSON serializable");
      auto out = nlohmann::ordered_json::array();
      for (const auto& item : as_list()) out.push_back(item.to_json());
      return out;
    }
    case Kind::Dict: {
      auto out = nlohmann::ordered_json::object();
      for (const auto& [key, item] : as_dict()) out[key] = item.to_json();
      return out;
    }
    case Kind::Callable:
      break;
  }
  throw Error(ErrorKind::Render, "a function cannot be converted to JSON");
}

void Value::require_defined() const {
  if (is_undefined()) throw Error(ErrorKind::Undefined, undefined_description());
}

std::string Value::undefined_description() const {
  if (data_.kind() != Kind::Undefined) return "defined value";
  const UndefinedData* u = &data_.undefined();
  switch (u->form) {
    case UndefinedData::Form::Variable:
      return "undefined variable '" + *u->name + "'";
    case UndefinedData::Form::Attribute:
      return std::string("'") + u->object_type + " object' has no attribute '" + *u->name + "'";
    case UndefinedData::Form::Text:
    case UndefinedData::Form::Lenient:
      break;
  }
  return u->text ? *u->text : std::string("undefined value");
}

void Value::throw_type(const char* expected) const {
  require_defined();
  throw Error(ErrorKind::Render,
              std::string("expected ") + expected + ", got " + type_name() + " " + repr());
}

bool Value::as_bool() const {
  if (!is_bool()) throw_type("a boolean");
  return data_.boolean();
}

std::int64_t Value::as_int() const {
  if (is_int()) return data_.integer();
  if (is_bool()) return data_.boolean() ? 1 : 0;
  throw_type("an integer");
}

double Value::as_double() const {
  if (is_float()) return data_.real();
  if (is_int()) return static_cast<double>(data_.integer());
  if (is_bool()) return data_.boolean() ? 1.0 : 0.0;
  throw_type("a number");
}

const std::string& Value::as_string() const {
  if (!is_string()) throw_type("a string");
  return data_.string();
}

const ValueList& Value::as_list() const {
  if (!is_list()) throw_type("a list");
  return data_.list()->items;
}

const ValueDict& Value::as_dict() const {
  if (!is_dict()) throw_type("a dict");
  return *data_.dict();
}

const std::shared_ptr<const Callable>& Value::as_callable() const {
  if (!is_callable()) throw_type("a function");
  return data_.callable();
}

const Value* Value::find(std::string_view key) const { return as_dict().find(key); }

bool Value::truthy() const {
  switch (kind()) {
    case Kind::Undefined:
      if (is_lenient_undefined()) return false;
      require_defined();
      return false;
    case Kind::None:
      return false;
    case Kind::Bool:
      return data_.boolean();
    case Kind::Int:
      return data_.integer() != 0;
    case Kind::Float:
      return data_.real() != 0.0;
    case Kind::String:
      return !data_.string().empty();
    case Kind::List:
      return !as_list().empty();
    case Kind::Dict:
      return !as_dict().empty();
    case Kind::Callable:
      return true;
  }
  return false;
}

void Value::append_str(std::string& out) const {
  switch (kind()) {
    case Kind::Undefined:
      if (!is_lenient_undefined()) require_defined();
      return;
    case Kind::None:
      out += "None";
      return;
    case Kind::Bool:
      out += data_.boolean() ? "True" : "False";
      return;
    case Kind::Int: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, data_.integer());
      // (pointer, length): the iterator-range append goes through a much slower replace.
      out.append(buf, static_cast<std::size_t>(r.ptr - buf));
      return;
    }
    case Kind::Float:
      detail::append_python_float(out, data_.real());
      return;
    case Kind::String:
      out += data_.string();
      return;
    case Kind::List:
    case Kind::Dict:
      append_container(out, *this);
      return;
    case Kind::Callable:
      as_callable()->append_str(out);
      return;
  }
}

std::string Value::str() const {
  std::string out;
  append_str(out);
  return out;
}

std::string Value::repr() const {
  std::string out;
  append_repr(out, *this);
  return out;
}

const char* Value::type_name() const noexcept {
  switch (kind()) {
    case Kind::Undefined:
      return "undefined";
    case Kind::None:
      return "NoneType";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::String:
      return data_.markup() ? "Markup" : "str";
    case Kind::List:
      return is_range() ? "range" : is_tuple() ? "tuple" : "list";
    case Kind::Dict:
      return "dict";
    case Kind::Callable:
      return as_callable()->type_name();
  }
  return "?";
}

bool operator==(const Value& a, const Value& b) {
  a.require_defined();
  b.require_defined();
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.as_double() == b.as_double();
    return a.as_int() == b.as_int();
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::None:
      return true;
    case Value::Kind::String:
      return a.as_string() == b.as_string();
    case Value::Kind::List: {
      if (a.is_tuple() != b.is_tuple() || a.is_range() != b.is_range()) return false;
      const auto& x = a.as_list();
      const auto& y = b.as_list();
      return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
    }
    case Value::Kind::Dict: {
      const auto& x = a.as_dict();
      const auto& y = b.as_dict();
      if (x.size() != y.size()) return false;
      for (const auto& [key, item] : x) {
        const Value* other = y.find(key);
        if (!other || !(item == *other)) return false;
      }
      return true;
    }
    case Value::Kind::Callable:
      return a.as_callable() == b.as_callable();
    default:
      return false;
  }
}

int Value::compare(const Value& a, const Value& b) {
  a.require_defined();
  b.require_defined();
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) {
      double x = a.as_double(), y = b.as_double();
      return x < y ? -1 : (y < x ? 1 : 0);
    }
    auto x = a.as_int(), y = b.as_int();
    return x < y ? -1 : (y < x ? 1 : 0);
  }
  if (a.is_string() && b.is_string()) {
    int c = a.as_string().compare(b.as_string());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.is_list() && b.is_list() && a.is_tuple() == b.is_tuple() && !a.is_range() &&
      !b.is_range()) {
    const auto& x = a.as_list();
    const auto& y = b.as_list();
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!(x[i] == y[i])) return compare(x[i], y[i]);
    }
    return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
  }
  throw Error(ErrorKind::Render, std::string("'<' not supported between instances of '") +
                                     a.type_name() + "' and '" + b.type_name() + "'");
}

void ValueDict::set(std::string key, Value value) {
  std::uint64_t key_hash = hash(key);
  // lookup, not find: writing a key is not reading it.
  if (Value* existing = const_cast<Value*>(lookup(key, key_hash))) {
    *existing = std::move(value);
    return;
  }
  entries_.emplace_back(std::move(key), std::move(value));
  hashes_.push_back(key_hash);
  key_mask_ |= std::uint64_t{1} << (key_hash >> 58);
  if (const std::size_t at = entries_.size() - 1; at < kTagged) {
    tags_[at / 8] |= std::uint64_t{tag_of(key_hash)} << (8 * (at % 8));
  }
  if (entries_.size() <= kIndexThreshold) return;
  // Copies of a dict share the index; the first write after a copy takes its own.
  if (!index_ || index_.use_count() > 1 || index_->size() < 2 * entries_.size()) {
    rebuild_index();
    return;
  }
  std::size_t mask = index_->size() - 1;
  std::size_t slot = key_hash & mask;
  while ((*index_)[slot] != 0) slot = (slot + 1) & mask;
  (*index_)[slot] = static_cast<std::uint32_t>(entries_.size());
}

void ValueDict::reserve(std::size_t n) {
  entries_.reserve(n);
  hashes_.reserve(n);
}

void ValueDict::rebuild_index() {
  std::size_t slots = 32;
  while (slots < 4 * entries_.size()) slots *= 2;
  auto index = std::make_shared<Index>(slots, 0);
  std::size_t mask = slots - 1;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    std::size_t slot = hashes_[i] & mask;
    while ((*index)[slot] != 0) slot = (slot + 1) & mask;
    (*index)[slot] = static_cast<std::uint32_t>(i + 1);
  }
  index_ = std::move(index);
}

void ValueDict::prefetch() const {
  constexpr std::size_t kLine = 64;
  auto prefetch_bytes = [](const void* data, std::size_t size) {
    const char* bytes = static_cast<const char*>(data);
    for (std::size_t offset = 0; offset < size; offset += kLine) __builtin_prefetch(bytes + offset);
  };
  prefetch_bytes(hashes_.data(), hashes_.size() * sizeof(std::uint64_t));
  prefetch_bytes(entries_.data(), entries_.size() * sizeof(Entry));
  // Then what the entries point to: long keys (compared on a hit) and nested tables.
  for (const Entry& entry : entries_) {
    __builtin_prefetch(entry.first.data());
    if (entry.second.is_dict()) {
      const ValueDict& nested = entry.second.as_dict();
      __builtin_prefetch(&nested);
    } else if (entry.second.is_string()) {
      __builtin_prefetch(entry.second.as_string().data());
    }
  }
}

const Value* ValueDict::search(std::string_view key, std::uint64_t key_hash) const {
  if (index_) {
    std::size_t mask = index_->size() - 1;
    for (std::size_t slot = key_hash & mask;; slot = (slot + 1) & mask) {
      std::uint32_t entry = (*index_)[slot];
      if (entry == 0) return nullptr;
      if (hashes_[entry - 1] == key_hash && entries_[entry - 1].first == key)
        return &entries_[entry - 1].second;
    }
  }
  // Up to kIndexThreshold keys: their tags, 8 per word, are compared at once (a byte of
  // `x` is zero where the tag matches; the test flags every such byte, and sometimes the byte
  // above one, which the hash then rules out).
  static_assert(kIndexThreshold <= kTagged);
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  const std::size_t n = hashes_.size();
  const std::uint64_t pattern = kOnes * tag_of(key_hash);
  for (std::size_t word = 0; word * 8 < n; ++word) {
    const std::uint64_t x = tags_[word] ^ pattern;
    for (std::uint64_t match = (x - kOnes) & ~x & kHighs; match != 0; match &= match - 1) {
      const std::size_t i = word * 8 + static_cast<std::size_t>(__builtin_ctzll(match) >> 3);
      if (i >= n) return nullptr;  // the bytes past the last key
      if (hashes_[i] == key_hash && entries_[i].first == key) return &entries_[i].second;
    }
  }
  return nullptr;
}

ValueDict::ValueDict(const ValueDict& other)
    : entries_(other.entries_),
      hashes_(other.hashes_),
      key_mask_(other.key_mask_),
      tags_(other.tags_),
      index_(other.index_) {
  other.note_whole();
}

ValueDict& ValueDict::operator=(const ValueDict& other) {
  if (this != &other) {
    other.note_whole();
    entries_ = other.entries_;
    hashes_ = other.hashes_;
    key_mask_ = other.key_mask_;
    tags_ = other.tags_;
    index_ = other.index_;
    reads_ = nullptr;
  }
  return *this;
}

ValueDict::ValueDict(ValueDict&& other) noexcept
    : entries_(std::move(other.entries_)),
      hashes_(std::move(other.hashes_)),
      key_mask_(other.key_mask_),
      tags_(other.tags_),
      index_(std::move(other.index_)) {
  other.note_whole();
}

ValueDict& ValueDict::operator=(ValueDict&& other) noexcept {
  if (this != &other) {
    other.note_whole();
    entries_ = std::move(other.entries_);
    hashes_ = std::move(other.hashes_);
    key_mask_ = other.key_mask_;
    tags_ = other.tags_;
    index_ = std::move(other.index_);
    reads_ = nullptr;
  }
  return *this;
}

// ---- ValueReads -------------------------------------------------------------------------

struct ValueReads::Node {
  std::uint32_t parent = 0;
  bool whole = false;                    // used whole: its size, its entries, a copy
  bool below = false;                    // something in it or in a dict under it was read
  std::unordered_set<std::string> keys;  // keys looked up in it
  std::unordered_map<std::string, std::uint32_t> children;  // its dicts' nodes, by key
};

void ValueDict::note_whole_slow() const noexcept {
  reads_->nodes_[reads_node_].whole = true;
  reads_->mark_below(reads_node_);
}

void ValueDict::note_key(std::string_view key) const {
  ValueReads::Node& node = reads_->nodes_[reads_node_];
  node.keys.emplace(key);
  reads_->mark_below(reads_node_);
}

ValueReads::ValueReads(Value root) : root_(std::move(root)) {
  if (root_.is_dict()) watch(root_.as_dict(), 0, {});
}

ValueReads::~ValueReads() {
  if (root_.is_dict()) unwatch(root_.as_dict());
}

void ValueReads::watch(const ValueDict& dict, std::uint32_t parent, std::string_view key) {
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.emplace_back();
  nodes_.back().parent = parent;
  if (index != 0) nodes_[parent].children.emplace(key, index);
  if (dict.reads_ != nullptr) {
    // Reached twice (one dict under two keys): its reads cannot tell the two places apart.
    nodes_[index].whole = true;
    if (dict.reads_ == this) nodes_[dict.reads_node_].whole = true;
    return;
  }
  auto& watched = const_cast<ValueDict&>(dict);  // only the two fields that watch it
  watched.reads_ = this;
  watched.reads_node_ = index;
  for (const auto& [name, value] : dict.entries_) {
    if (value.is_dict()) watch(value.as_dict(), index, name);
  }
}

void ValueReads::unwatch(const ValueDict& dict) {
  if (dict.reads_ != this) return;
  const_cast<ValueDict&>(dict).reads_ = nullptr;
  for (const auto& entry : dict.entries_) {
    if (entry.second.is_dict()) unwatch(entry.second.as_dict());
  }
}

void ValueReads::mark_below(std::uint32_t at) noexcept {
  while (!nodes_[at].below) {
    nodes_[at].below = true;
    if (at == 0) break;
    at = nodes_[at].parent;
  }
}

bool ValueReads::may_have_read(const std::vector<std::string>& path) const {
  if (nodes_.empty()) return true;  // the root is not a dict: nothing is known
  std::uint32_t at = 0;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const Node& node = nodes_[at];
    if (node.whole) return true;
    const bool last = i + 1 == path.size();
    if (last && node.keys.contains(path[i])) return true;
    auto child = node.children.find(path[i]);
    if (child == node.children.end()) {
      // Not a dict here: what lies on the way to the value is read through this key.
      return node.keys.contains(path[i]);
    }
    if (last) return nodes_[child->second].below;
    at = child->second;
  }
  return nodes_[at].below;
}

}  // namespace zf
