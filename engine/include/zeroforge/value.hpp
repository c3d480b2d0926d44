// SPDX-License-Identifier: MIT
// zf::Value: the dynamically typed value templates compute with, with Python's semantics
// (what Jinja2 does): int vs float arithmetic, truthiness, equality, str() and repr().
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <new>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zf {

class Value;
class ValueDict;
class ValueReads;
class Callable;

/// A list value's elements.
using ValueList = std::vector<Value>;

/// A template value. Copies are cheap: lists, dicts and callables are shared and immutable
/// once built. An Undefined value remembers why it is undefined, and every operation on it
/// other than the `defined`/`undefined` tests and the `default` filter throws an
/// ErrorKind::Undefined zf::Error with that description (Jinja2's StrictUndefined).
///
///     zf::Value v = zf::Value::from_json(nlohmann::ordered_json::parse(R"({"stage": 3})"));
///     v.find("stage")->as_int();  // 3
class Value {
 public:
  /// The Python type a value behaves as.
  enum class Kind : std::uint8_t {
    Undefined,
    None,
    Bool,
    Int,
    Float,
    String,
    List,
    Dict,
    Callable
  };

  /// An undefined value with no description; prefer `undefined(hint)`.
  Value() noexcept = default;
  Value(std::nullptr_t) noexcept;
  Value(bool b) noexcept;
  Value(int i) noexcept;
  Value(long i) noexcept;
  Value(long long i) noexcept;
  Value(double d) noexcept;
  Value(std::string s);
  Value(std::string_view s);
  Value(const char* s);
  Value(ValueList list);
  Value(ValueDict dict);
  Value(std::shared_ptr<const Callable> callable);

  /// An undefined value; `description` is the error message when it is used, e.g.
  /// "undefined variable 'stage'" or "'dict object' has no attribute 'x'".
  static Value undefined(std::string description);
  /// The renderer's cheap forms of the same (no message is built unless it is needed):
  /// "undefined variable 'NAME'" and "'TYPE object' has no attribute 'NAME'". `name`
  /// must outlive the value (the renderer passes names owned by the parsed template).
  static Value undefined_variable(const std::string& name);
  static Value undefined_attribute(const char* object_type, const std::string& name);
  /// Jinja2's plain Undefined, which an inline `x if c` without `else` yields even under
  /// StrictUndefined: it prints as "", is false, iterates as empty and concatenates as "";
  /// anything else fails with `description`.
  static Value lenient_undefined(std::string description);
  /// A tuple: a list that prints as `(1, 2)` and is never equal to a list (Python).
  static Value tuple(ValueList items);
  /// A string marked safe, MarkupSafe's `Markup`: a `str` that `escape` leaves unchanged and
  /// that escapes what is concatenated to it; its repr is `Markup('...')`.
  static Value markup(std::string text);
  /// A named tuple (Python's `collections.namedtuple`): a tuple whose items are also
  /// attributes. `fields` names each item and must outlive the value (static storage).
  static Value named_tuple(ValueList items, const std::string_view* fields);
  /// For a named tuple, the item named `name`, or nullptr (also for any other value).
  const Value* field(std::string_view name) const noexcept;
  /// Python's `range(start, stop, step)` with its items listed: a list that prints as
  /// `range(0, 3)`, equals only a range with the same items, and cannot be ordered,
  /// concatenated, repeated or written as JSON.
  static Value range(std::int64_t start, std::int64_t stop, std::int64_t step, ValueList items);
  /// Converts JSON (null, bool, integer, float, string, array, object) to a Value.
  static Value from_json(const nlohmann::ordered_json& json);
  /// Converts back to JSON; throws zf::Error for undefined and callable values.
  nlohmann::ordered_json to_json() const;

  Kind kind() const noexcept { return data_.kind(); }
  bool is_undefined() const noexcept { return kind() == Kind::Undefined; }
  bool is_none() const noexcept { return kind() == Kind::None; }
  bool is_bool() const noexcept { return kind() == Kind::Bool; }
  bool is_int() const noexcept { return kind() == Kind::Int; }
  bool is_float() const noexcept { return kind() == Kind::Float; }
  /// int, float or bool (Python's bool is an int).
  bool is_number() const noexcept { return is_int() || is_float() || is_bool(); }
  bool is_string() const noexcept { return kind() == Kind::String; }
  bool is_list() const noexcept { return kind() == Kind::List; }
  /// A list made by `tuple()` (dict items, `(a, b)` literals).
  bool is_tuple() const noexcept;
  /// A string made by `markup()` (or by an operation on one that keeps the mark).
  bool is_markup() const noexcept { return kind() == Kind::String && data_.markup(); }
  /// A list made by `range()`.
  bool is_range() const noexcept;
  /// A range's start, stop and step (zeros for any other value).
  struct RangeBounds {
    std::int64_t start, stop, step;
  };
  RangeBounds range_bounds() const noexcept;
  /// An undefined value made by `lenient_undefined()`.
  bool is_lenient_undefined() const noexcept;
  bool is_dict() const noexcept { return kind() == Kind::Dict; }
  bool is_callable() const noexcept { return kind() == Kind::Callable; }

  /// Typed access. Each throws zf::Error (kind Render, or Undefined for an undefined value)
  /// naming the expected and the actual type when the value has another kind.
  bool as_bool() const;
  /// An int, or a bool as 0/1.
  std::int64_t as_int() const;
  /// An int, bool or float as a double.
  double as_double() const;
  const std::string& as_string() const;
  const ValueList& as_list() const;
  const ValueDict& as_dict() const;
  const std::shared_ptr<const Callable>& as_callable() const;

  /// Throws the undefined error if this value is undefined; otherwise does nothing.
  void require_defined() const;
  /// The message an undefined value fails with.
  std::string undefined_description() const;

  /// For dicts: the value under `key`, or nullptr. Throws for non-dicts.
  const Value* find(std::string_view key) const;

  /// Python truthiness: none, false, 0, 0.0, "" and empty containers are false.
  bool truthy() const;
  /// Python's `str(x)` as Jinja2 prints it: `True`, `None`, `1.0`, `['a', 1]`, `{'k': 2}`.
  std::string str() const;
  /// Appends `str()` to `out` without a temporary (the renderer's hot path).
  void append_str(std::string& out) const;
  /// Python's `repr(x)`: strings quoted the way Python quotes them.
  std::string repr() const;
  /// Python's type name: `int`, `float`, `str`, `bool`, `NoneType`, `list`, `dict`, `function`.
  const char* type_name() const noexcept;

  /// Python equality: `1 == 1.0`, `True == 1`, deep for lists and dicts, never throws
  /// except for undefined operands.
  friend bool operator==(const Value& a, const Value& b);
  /// Python ordering for `<` and sorting: numbers with numbers, strings with strings,
  /// lists lexicographically. Returns <0, 0, >0; throws zf::Error ("'<' not supported
  /// between instances of 'str' and 'int'") for other pairs.
  static int compare(const Value& a, const Value& b);

 private:
  // No default member initializers: the variant value-initialises its first alternative,
  // which zeroes these (Form::Text, null pointers).
  struct UndefinedData {
    enum class Form : std::uint8_t { Text, Variable, Attribute, Lenient } form;
    const std::string* name;
    const char* object_type;
    std::shared_ptr<const std::string> text;
  };
  struct ListData {
    ValueList items;
    bool tuple;
    const std::string_view* fields;  // a named tuple's field names, else nullptr
    bool range = false;
    RangeBounds bounds = {0, 0, 0};
  };

  // A tagged union of the alternatives below, in Kind order. Hand-written rather than a
  // std::variant so that copying, moving and destroying the scalar kinds (most values a
  // render touches) is an inlined branch instead of a dispatch through a table.
  class Data {
   public:
    Data() noexcept : kind_(Kind::Undefined) { new (&u_.undefined) UndefinedData{}; }
    explicit Data(std::nullptr_t) noexcept : kind_(Kind::None) {}
    explicit Data(bool b) noexcept : kind_(Kind::Bool) { u_.b = b; }
    explicit Data(std::int64_t i) noexcept : kind_(Kind::Int) { u_.i = i; }
    explicit Data(double d) noexcept : kind_(Kind::Float) { u_.d = d; }
    explicit Data(std::string s) noexcept : kind_(Kind::String), markup_(false) {
      new (&u_.s) std::string(std::move(s));
    }
    explicit Data(std::shared_ptr<const ListData> l) noexcept : kind_(Kind::List) {
      new (&u_.list) std::shared_ptr<const ListData>(std::move(l));
    }
    explicit Data(std::shared_ptr<const ValueDict> d) noexcept : kind_(Kind::Dict) {
      new (&u_.dict) std::shared_ptr<const ValueDict>(std::move(d));
    }
    explicit Data(std::shared_ptr<const Callable> c) noexcept : kind_(Kind::Callable) {
      new (&u_.callable) std::shared_ptr<const Callable>(std::move(c));
    }
    explicit Data(UndefinedData u) noexcept : kind_(Kind::Undefined) {
      new (&u_.undefined) UndefinedData(std::move(u));
    }
    Data(const Data& other) { copy_from(other); }
    Data(Data&& other) noexcept { move_from(other); }
    Data& operator=(const Data& other) {
      if (plain() && other.plain()) {
        copy_plain(other);
      } else if (this != &other) {
        Data copy(other);  // `other` may live inside this value (x = x[0])
        destroy();
        move_from(copy);
      }
      return *this;
    }
    Data& operator=(Data&& other) noexcept {
      if (plain() && other.plain()) {
        copy_plain(other);
      } else if (this != &other) {
        Data moved(std::move(other));
        destroy();
        move_from(moved);
      }
      return *this;
    }
    ~Data() { destroy(); }

    Kind kind() const noexcept { return kind_; }
    bool markup() const noexcept { return markup_; }
    void set_markup() noexcept { markup_ = true; }
    bool boolean() const noexcept { return u_.b; }
    std::int64_t integer() const noexcept { return u_.i; }
    double real() const noexcept { return u_.d; }
    const std::string& string() const noexcept { return u_.s; }
    const std::shared_ptr<const ListData>& list() const noexcept { return u_.list; }
    const std::shared_ptr<const ValueDict>& dict() const noexcept { return u_.dict; }
    const std::shared_ptr<const Callable>& callable() const noexcept { return u_.callable; }
    const UndefinedData& undefined() const noexcept { return u_.undefined; }

   private:
    // None, Bool, Int, Float, and an Undefined without a message: nothing to release, and
    // a copy is the payload bytes. Checked inline; the other kinds take the calls below.
    bool plain() const noexcept {
      return kind_ == Kind::Undefined ? !u_.undefined.text : kind_ <= Kind::Float;
    }
    void copy_from(const Data& o) {
      if (o.plain()) {
        copy_plain(o);
        return;
      }
      copy_slow(o);
    }
    void move_from(Data& o) noexcept {
      if (o.plain()) {
        copy_plain(o);
        return;
      }
      move_slow(o);
    }
    void destroy() noexcept {
      if (!plain()) destroy_slow();
    }
    void copy_plain(const Data& o) noexcept {
      kind_ = o.kind_;
      if (kind_ == Kind::Undefined) {
        new (&u_.undefined) UndefinedData{o.u_.undefined.form, o.u_.undefined.name,
                                          o.u_.undefined.object_type, nullptr};
      } else {
        u_.i = o.u_.i;  // the 8 payload bytes
      }
    }
    [[gnu::noinline]] void copy_slow(const Data& o) {
      kind_ = o.kind_;
      markup_ = kind_ == Kind::String && o.markup_;
      switch (kind_) {
        case Kind::Undefined:
          new (&u_.undefined) UndefinedData(o.u_.undefined);
          break;
        case Kind::String:
          new (&u_.s) std::string(o.u_.s);
          break;
        case Kind::List:
          new (&u_.list) std::shared_ptr<const ListData>(o.u_.list);
          break;
        case Kind::Dict:
          new (&u_.dict) std::shared_ptr<const ValueDict>(o.u_.dict);
          break;
        case Kind::Callable:
          new (&u_.callable) std::shared_ptr<const Callable>(o.u_.callable);
          break;
        default:
          u_.i = o.u_.i;
          break;  // None, Bool, Int, Float: the 8 payload bytes
      }
    }
    [[gnu::noinline]] void move_slow(Data& o) noexcept {
      kind_ = o.kind_;
      markup_ = kind_ == Kind::String && o.markup_;
      switch (kind_) {
        case Kind::Undefined:
          new (&u_.undefined) UndefinedData(std::move(o.u_.undefined));
          break;
        case Kind::String:
          new (&u_.s) std::string(std::move(o.u_.s));
          break;
        case Kind::List:
          new (&u_.list) std::shared_ptr<const ListData>(std::move(o.u_.list));
          break;
        case Kind::Dict:
          new (&u_.dict) std::shared_ptr<const ValueDict>(std::move(o.u_.dict));
          break;
        case Kind::Callable:
          new (&u_.callable) std::shared_ptr<const Callable>(std::move(o.u_.callable));
          break;
        default:
          u_.i = o.u_.i;
          break;
      }
    }
    [[gnu::noinline]] void destroy_slow() noexcept {
      switch (kind_) {
        case Kind::Undefined:
          u_.undefined.~UndefinedData();
          break;
        case Kind::String:
          u_.s.~basic_string();
          break;
        case Kind::List:
          u_.list.~shared_ptr();
          break;
        case Kind::Dict:
          u_.dict.~shared_ptr();
          break;
        case Kind::Callable:
          u_.callable.~shared_ptr();
          break;
        default:
          break;
      }
    }

    union Payload {
      Payload() noexcept : i(0) {}
      ~Payload() {}
      UndefinedData undefined;
      bool b;
      std::int64_t i;
      double d;
      std::string s;
      std::shared_ptr<const ListData> list;
      std::shared_ptr<const ValueDict> dict;
      std::shared_ptr<const Callable> callable;
    } u_;
    Kind kind_;
    // Markup: set by the string constructor and copied with strings only (the plain kinds
    // never read it, so their hot copies skip it); sits in the padding after kind_.
    bool markup_;
  };
  [[noreturn]] void throw_type(const char* expected) const;

  Data data_;
};

/// A dict value: string keys in insertion order (as the template or the JSON wrote them),
/// with each key's hash kept beside it so lookups compare hashes before bytes, and an
/// open-addressing index once the dict is large.
///
/// A dict that a ValueReads watches tells it what is read of it: each key looked up
/// (`find`, `contains`), and every use of the whole dict (its size, its entries, a copy).
class ValueDict {
 public:
  using Entry = std::pair<std::string, Value>;

  /// The hash ValueDict uses for keys (FNV-1a, 64-bit). The renderer computes it once per
  /// name when parsing, so a lookup by name never hashes at render time.
  static constexpr std::uint64_t hash(std::string_view key) noexcept {
    std::uint64_t h = 0xCBF29CE484222325ULL;
    for (char c : key) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ULL;
    return h;
  }

  ValueDict() = default;
  /// A copy (or a move) reads the whole of `other`, and is not watched itself.
  ValueDict(const ValueDict& other);
  ValueDict& operator=(const ValueDict& other);
  ValueDict(ValueDict&& other) noexcept;
  ValueDict& operator=(ValueDict&& other) noexcept;
  ~ValueDict() = default;

  /// Inserts or replaces; a replaced key keeps its original position (Python dict semantics).
  void set(std::string key, Value value);
  /// The value under `key`, or nullptr.
  const Value* find(std::string_view key) const { return find(key, hash(key)); }
  Value* find(std::string_view key) { return find(key, hash(key)); }
  /// The same, with `key_hash == hash(key)` already known.
  const Value* find(std::string_view key, std::uint64_t key_hash) const {
    if (reads_ != nullptr) [[unlikely]]
      note_key(key);
    return lookup(key, key_hash);
  }
  Value* find(std::string_view key, std::uint64_t key_hash) {
    return const_cast<Value*>(static_cast<const ValueDict*>(this)->find(key, key_hash));
  }
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  /// Asks the CPU to start loading the tables lookups read (no effect on the contents). A
  /// render calls it on its values first: a value set not used lately is out of cache, and
  /// loads issued together overlap where lookups one by one would each wait on memory.
  void prefetch() const;
  std::size_t size() const noexcept {
    note_whole();
    return entries_.size();
  }
  bool empty() const noexcept {
    note_whole();
    return entries_.empty();
  }
  /// Whether a ValueReads watches this dict.
  bool watched() const noexcept { return reads_ != nullptr; }
  /// Reserves room for `n` entries.
  void reserve(std::size_t n);
  const std::vector<Entry>& entries() const noexcept {
    note_whole();
    return entries_;
  }
  auto begin() const noexcept {
    note_whole();
    return entries_.begin();
  }
  auto end() const noexcept { return entries_.end(); }

 private:
  friend class ValueReads;
  // Slots hold entry index + 1 (0 = empty); the table is a power of two, at most half full.
  using Index = std::vector<std::uint32_t>;
  void rebuild_index();
  // A key whose bit is not in key_mask_ misses here, inline (most look-ups of names in a
  // render's layers miss); the search is out of line.
  const Value* lookup(std::string_view key, std::uint64_t key_hash) const {
    if (!(key_mask_ & (std::uint64_t{1} << (key_hash >> 58)))) return nullptr;
    return search(key, key_hash);
  }
  const Value* search(std::string_view key, std::uint64_t key_hash) const;
  // What a watched dict tells its ValueReads; a dict nobody watches pays one test of reads_.
  void note_whole() const noexcept {
    if (reads_ != nullptr) [[unlikely]]
      note_whole_slow();
  }
  [[gnu::noinline]] void note_whole_slow() const noexcept;
  [[gnu::noinline]] void note_key(std::string_view key) const;

  std::vector<Entry> entries_;
  std::vector<std::uint64_t> hashes_;  // hashes_[i] == hash(entries_[i].first)
  // Bit (hash >> 58) of every key: a lookup whose bit is clear misses without a search.
  std::uint64_t key_mask_ = 0;
  // A byte of the hash of each of the first kTagged keys, in order, 8 to a word: a dict too
  // small for the index is searched 8 keys per step (lookup), in the object's own memory.
  static constexpr std::size_t kTagged = 32;
  static constexpr std::uint8_t tag_of(std::uint64_t key_hash) noexcept {
    return static_cast<std::uint8_t>(key_hash >> 48);
  }
  std::array<std::uint64_t, kTagged / 8> tags_{};
  // Built once a dict is large enough that a linear scan stops being the fastest lookup;
  // copies of a dict share it until one of them is written to.
  std::shared_ptr<Index> index_;
  // The ValueReads watching this dict and the dict's node in it (none: nullptr).
  ValueReads* reads_ = nullptr;
  std::uint32_t reads_node_ = 0;
};

/// Which parts of a value tree a computation read, as its dicts saw it: what import's fit
/// asks to know that a render never looked at a value, so that leaving the value out cannot
/// change the render. Every dict reachable from the root through dicts is watched (a dict
/// inside a list is reached only through the list, which its own key's look-up records).
/// Recording costs a few look-ups in a hash table per read; a dict not watched pays nothing
/// but a pointer test.
///
///     zf::Value values = zf::Value::from_json(json);
///     zf::ValueReads reads(values);
///     tpl->render(values);
///     reads.may_have_read({"zero", "stage3_max_live_parameters"});  // false: never looked up
///
/// The tree must not be shared with another thread while it is watched, nor changed (dicts
/// are immutable once shared anyway). The ValueReads keeps the tree alive and stops watching
/// it when destroyed; a copy of a watched dict made meanwhile counts as reading all of it and
/// is not watched.
class ValueReads {
 public:
  /// Starts watching every dict of `root` reachable through dicts.
  explicit ValueReads(Value root);
  ValueReads(const ValueReads&) = delete;
  ValueReads& operator=(const ValueReads&) = delete;
  ~ValueReads();

  /// False when nothing read so far could have seen the value at `path` (keys from the root)
  /// or its absence: no dict on the way to it was used whole, its key was never looked up in
  /// its dict, and nothing under it was read. True for the empty path when anything was read.
  bool may_have_read(const std::vector<std::string>& path) const;

 private:
  friend class ValueDict;
  struct Node;
  void watch(const ValueDict& dict, std::uint32_t parent, std::string_view key);
  void unwatch(const ValueDict& dict);
  // Marks node `at` and the nodes above it as read below.
  void mark_below(std::uint32_t at) noexcept;

  Value root_;
  std::vector<Node> nodes_;  // nodes_[0] is the root dict's
};
/// Something a template can call: a macro, or a function a plugin registers.
class Callable {
 public:
  virtual ~Callable() = default;
  /// The name shown in errors and by `repr`.
  virtual const std::string& name() const noexcept = 0;
  /// Appends what printing it shows: `<function NAME>` unless the callable says otherwise
  /// (a `namespace()` prints as `<Namespace {'a': 1}>`, as in Jinja2).
  virtual void append_str(std::string& out) const { out += "<function " + name() + ">"; }
  /// The Python type name shown in errors: `function` unless the callable says otherwise.
  virtual const char* type_name() const noexcept { return "function"; }
};

}  // namespace zf
