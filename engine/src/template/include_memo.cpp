// SPDX-License-Identifier: MIT
// IncludeMemo (see include_memo.hpp): the plan of an included template, identical-value keys
// and the per-thread table of include sites.
#include "template/include_memo.hpp"

#include <bit>
#include <cstring>
#include <set>

#include "template/ast_walk.hpp"
#include "zeroforge/template.hpp"

namespace zf::detail {
namespace {

// ----- the plan: which names an included template reads, and whether that is all -----

class Planner {
 public:
  explicit Planner(const Environment& environment) : env_(environment) {}

  IncludePlan run(const TemplateTree& tree) {
    visit_tree(tree);
    IncludePlan plan;
    plan.memoizable = memoizable_;
    if (memoizable_) {
      for (const auto& name : names_) plan.names.emplace_back(name, ValueDict::hash(name));
    }
    return plan;
  }

 private:
  void refuse() { memoizable_ = false; }

  void visit_tree(const TemplateTree& tree) {
    if (!visited_.insert(&tree).second) return;
    // Blocks render through the render's block table, which the includer's chain fills.
    if (tree.has_extends || !tree.blocks.empty()) refuse();
    visit_body(tree.body);
  }

  // A template named by a string literal, followed; any other name is known only at render
  // time, and so is what that template reads.
  void follow(const Expr& name) {
    const auto* literal = std::get_if<Literal>(&name.node);
    if (!literal || !literal->value.is_string()) {
      refuse();
      return;
    }
    try {
      if (!env_.resolve(literal->value.as_string())) return;  // missing: nothing is read
      std::shared_ptr<const Template> tpl = env_.load(literal->value.as_string());
      keep_.push_back(tpl);
      visit_tree(tpl->tree());
    } catch (const std::exception&) {
      refuse();  // the render reports it
    }
  }

  void visit_body(const Body& body) {
    for (const auto& stmt : body) {
      if (!memoizable_) return;
      std::visit([&](const auto& node) { visit_node(node); }, stmt->node);
    }
  }

  void visit_node(const TextStmt&) {}
  void visit_node(const PrintStmt& node) { visit(*node.expr); }
  void visit_node(const IfStmt& node) {
    for (const auto& [test, body] : node.branches) {
      visit(*test);
      visit_body(body);
    }
    visit_body(node.otherwise);
  }
  void visit_node(const ForStmt& node) {
    visit(*node.iterable);
    if (node.condition) visit(*node.condition);
    visit_body(node.body);
    visit_body(node.otherwise);
  }
  void visit_node(const SetStmt& node) {
    visit(*node.value);
    if (node.namespace_ref) visit(*node.namespace_ref);
  }
  void visit_node(const SetBlockStmt& node) {
    visit_body(node.body);
    visit_filters(node.filters);
    if (node.namespace_ref) visit(*node.namespace_ref);
  }
  void visit_node(const IncludeStmt& node) { follow(*node.name); }
  void visit_node(const ExtendsStmt&) { refuse(); }
  void visit_node(const BlockStmt&) { refuse(); }
  void visit_node(const MacroStmt& node) { visit_macro(node); }
  void visit_macro(const MacroStmt& node) {
    for (const auto& p : node.params) {
      if (p.default_value) visit(*p.default_value);
    }
    visit_body(node.body);
  }
  void visit_node(const CallBlockStmt& node) {
    visit(*node.call);
    visit_macro(node.caller);
  }
  void visit_node(const FilterBlockStmt& node) {
    visit_filters(node.filters);
    visit_body(node.body);
  }
  // A module imported without context sees none of the includer's names; with context it
  // sees all of them.
  void visit_node(const ImportStmt& node) {
    if (node.with_context) refuse();
    visit(*node.name);
  }
  void visit_node(const FromImportStmt& node) {
    if (node.with_context) refuse();
    visit(*node.name);
  }
  void visit_node(const WithStmt& node) {
    for (const auto& [target, expr] : node.assignments) visit(*expr);
    visit_body(node.body);
  }

  void visit_filters(const std::vector<FilterCall>& filters) {
    for (const auto& f : filters) for_each_argument(f.args, [&](const Expr& arg) { visit(arg); });
  }

  void visit(const Expr& expr) {
    if (const auto* name = std::get_if<NameRef>(&expr.node)) {
      // `self` and `super` reach the render's blocks, not a variable.
      if (name->name == "self" || name->name == "super") refuse();
      if (name->reaches_outside) names_.insert(name->name);
      return;
    }
    std::visit([&](const auto& node) { for_each_operand(node, [&](const Expr& e) { visit(e); }); },
               expr.node);
  }

  const Environment& env_;
  bool memoizable_ = true;
  std::set<std::string> names_;
  std::set<const TemplateTree*> visited_;
  std::vector<std::shared_ptr<const Template>> keep_;
};

// ----- keys: identical values -----

constexpr std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept {
  h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  return h * 0xFF51AFD7ED558CCDULL;
}

// The most values (counting those inside lists and dicts) one name's value may have to key an
// entry: a larger one (a config's thousands of `extra` keys) costs as much to hash and to hold
// as the include costs to render.
constexpr std::size_t kMaxKeyValues = 512;

// Hashes `v` into `h`; false when `v` is not plain data (an undefined value, a callable, a
// tuple or a range anywhere inside), which cannot key an entry, or has more than `budget`
// values.
bool hash_data(const Value& v, std::uint64_t& h, std::size_t& budget) {
  if (budget-- == 0) return false;
  switch (v.kind()) {
    case Value::Kind::None:
      h = mix(h, 1);
      return true;
    case Value::Kind::Bool:
      h = mix(h, v.as_bool() ? 3 : 2);
      return true;
    case Value::Kind::Int:
      h = mix(mix(h, 4), static_cast<std::uint64_t>(v.as_int()));
      return true;
    case Value::Kind::Float:
      h = mix(mix(h, 5), std::bit_cast<std::uint64_t>(v.as_double()));
      return true;
    case Value::Kind::String:
      h = mix(mix(h, v.is_markup() ? 7 : 6), ValueDict::hash(v.as_string()));
      return true;
    case Value::Kind::List:
      if (v.is_tuple() || v.is_range()) return false;
      h = mix(h, 8);
      for (const Value& item : v.as_list()) {
        if (!hash_data(item, h, budget)) return false;
      }
      h = mix(h, v.as_list().size());
      return true;
    case Value::Kind::Dict:
      h = mix(h, 9);
      for (const auto& [key, item] : v.as_dict()) {
        h = mix(h, ValueDict::hash(key));
        if (!hash_data(item, h, budget)) return false;
      }
      h = mix(h, v.as_dict().entries().size());
      return true;
    case Value::Kind::Undefined:
    case Value::Kind::Callable:
      return false;
  }
  return false;
}

// Whether `a` and `b` (plain data, as hash_data accepted) print and behave the same.
bool identical(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::None:
      return true;
    case Value::Kind::Bool:
      return a.as_bool() == b.as_bool();
    case Value::Kind::Int:
      return a.as_int() == b.as_int();
    case Value::Kind::Float:
      return std::bit_cast<std::uint64_t>(a.as_double()) ==
             std::bit_cast<std::uint64_t>(b.as_double());
    case Value::Kind::String:
      return a.is_markup() == b.is_markup() && a.as_string() == b.as_string();
    case Value::Kind::List: {
      const ValueList& x = a.as_list();
      const ValueList& y = b.as_list();
      if (&x == &y) return true;
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!identical(x[i], y[i])) return false;
      }
      return true;
    }
    case Value::Kind::Dict: {
      const auto& x = a.as_dict().entries();
      const auto& y = b.as_dict().entries();
      if (&x == &y) return true;
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (x[i].first != y[i].first || !identical(x[i].second, y[i].second)) return false;
      }
      return true;
    }
    case Value::Kind::Undefined:
    case Value::Kind::Callable:
      return false;
  }
  return false;
}

// Whether `a` and `b` are the same list or the same dict (not merely equal ones).
bool identical_object(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  if (a.is_list()) return &a.as_list() == &b.as_list();
  if (a.is_dict()) return &a.as_dict() == &b.as_dict();
  return false;
}

// About what a copy of `v` costs to hold (containers counted whole, though often shared).
std::size_t held_size(const Value& v) {
  std::size_t n = sizeof(Value);
  if (v.is_string()) return n + v.as_string().size();
  if (v.is_list()) {
    for (const Value& item : v.as_list()) n += held_size(item);
  } else if (v.is_dict()) {
    for (const auto& [key, item] : v.as_dict()) n += key.size() + 8 + held_size(item);
  }
  return n;
}

// A site stops memoizing when, after this many look-ups, fewer than one in kMinHitShare hit.
constexpr std::uint64_t kTrialLookups = 256;
constexpr std::uint64_t kMinHitShare = 8;

}  // namespace

IncludePlan plan_include(const TemplateTree& tree, const Environment& environment) {
  return Planner(environment).run(tree);
}

const std::string* IncludeMemo::Site::find(const Frame& frame, std::uint64_t& key_hash,
                                           bool& keyable) {
  const std::size_t n = plan_.names.size();
  if (seen_.size() != n) seen_.resize(n);
  found_.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    found_[i] = frame.find(plan_.names[i].first, plan_.names[i].second);
  keyable = true;
  // The entry found or stored last: the members of a family come in an order where the next
  // one most often includes with the same values, and comparing with it needs no hash. (A
  // name whose value is undefined is never keyable; it takes the way below, which says so.)
  if (last_ != nullptr && holds_key_of(*last_)) {
    ++lookups_;
    ++hits_;
    key_hash = last_hash_;
    return &last_->text;
  }
  std::uint64_t h = 0x84222325CBF29CE4ULL;
  for (std::size_t i = 0; i < n; ++i) {
    const Value* v = found_[i];
    if (v == nullptr) {
      h = mix(h, 0);
      continue;
    }
    std::uint64_t item = 0;
    if (!hash_once(*v, seen_[i], item)) {
      keyable = false;
      return nullptr;
    }
    h = mix(h, item);
  }
  key_hash = h;
  ++lookups_;
  auto [first, last] = entries_.equal_range(h);
  for (auto it = first; it != last; ++it) {
    const Entry& entry = it->second;
    if (holds_key_of(entry)) {
      ++hits_;
      last_ = &entry;
      last_hash_ = h;
      return &entry.text;
    }
  }
  return nullptr;
}

// Whether the values find looked up are `entry`'s key: each name there when the key has it,
// with an identical value (an undefined one never is: it is never keyable).
bool IncludeMemo::Site::holds_key_of(const Entry& entry) const {
  for (std::size_t i = 0; i < found_.size(); ++i) {
    const Value* v = found_[i];
    if (v == nullptr ? !entry.key[i].is_undefined()
                     : v->is_undefined() || !identical(*v, entry.key[i]))
      return false;
  }
  return true;
}

// The hash of `v`; a list or dict that is the one hashed last time at this name (the
// members of a family share their tier's values) is not hashed again.
bool IncludeMemo::Site::hash_once(const Value& v, Seen& seen, std::uint64_t& out) {
  const bool container = v.is_list() || v.is_dict();
  if (container && identical_object(v, seen.value)) {
    out = seen.hash;
    return true;
  }
  std::uint64_t h = 0;
  std::size_t budget = kMaxKeyValues;
  if (!hash_data(v, h, budget)) return false;
  if (container) seen = {v, h};  // held, so the container cannot be freed and its address reused
  out = h;
  return true;
}

std::size_t IncludeMemo::Site::store(const Frame& frame, std::uint64_t key_hash,
                                     std::string_view text) {
  if (lookups_ >= kTrialLookups && hits_ * kMinHitShare < lookups_) {
    active_ = false;  // its values rarely repeat: memoizing costs more than it saves
    clear();
    return 0;
  }
  Entry entry;
  entry.key.reserve(plan_.names.size());
  std::size_t bytes = sizeof(Entry) + 32 + text.size();
  for (std::size_t i = 0; i < plan_.names.size(); ++i) {
    const Value* v = frame.find(plan_.names[i].first, plan_.names[i].second);
    entry.key.push_back(v ? *v : Value());
    // A container the site saw last is most often the tier's, shared by every entry.
    const bool shared = v && i < seen_.size() && identical_object(*v, seen_[i].value);
    bytes += shared ? sizeof(Value) : held_size(entry.key.back());
  }
  entry.text = text;
  last_ = &entries_.emplace(key_hash, std::move(entry))->second;
  last_hash_ = key_hash;
  return bytes;
}

void IncludeMemo::Site::clear() noexcept {
  entries_.clear();
  last_ = nullptr;
}

IncludeMemo& IncludeMemo::of(const Environment& environment) {
  // Environments are known by id: a later one may take a dead one's address.
  thread_local std::uint64_t last_environment = 0;
  thread_local IncludeMemo* last = nullptr;
  if (last_environment != environment.id()) {
    last = &environment.include_memo_of_this_thread();
    last_environment = environment.id();
  }
  return *last;
}

std::size_t IncludeMemo::SiteKeyHash::operator()(const SiteKey& k) const noexcept {
  return mix(mix(k.includer, reinterpret_cast<std::uintptr_t>(k.stmt)), k.included);
}

IncludeMemo::Site* IncludeMemo::site(const TemplateTree& includer, const IncludeStmt& stmt,
                                     const TemplateTree& included, const Environment& environment) {
  SiteKey key{includer.id, &stmt, included.id};
  if (auto it = sites_.find(key); it != sites_.end()) {
    Site* found = it->second.get();
    return found && found->active() ? found : nullptr;
  }
  auto& plan = plans_[included.id];
  if (!plan) {
    plan = std::make_unique<IncludePlan>(plan_include(included, environment));
    kept_bytes_ += sizeof(IncludePlan) + 64;
    for (const auto& [name, hash] : plan->names) kept_bytes_ += sizeof(name) + 8 + name.size();
  }
  auto& made = sites_[key];
  kept_bytes_ += sizeof(Site) + 64;
  if (plan->memoizable) made = std::make_unique<Site>(*plan);
  return made.get();
}

std::size_t IncludeMemo::NameKeyHash::operator()(const NameKey& k) const noexcept {
  return mix(k.includer, reinterpret_cast<std::uintptr_t>(k.name));
}

const Template* IncludeMemo::loaded(const TemplateTree& includer, const Expr& name) const {
  auto it = loaded_.find(NameKey{includer.id, &name});
  return it == loaded_.end() ? nullptr : it->second;
}

void IncludeMemo::remember(const TemplateTree& includer, const Expr& name, const Template* loaded) {
  loaded_[NameKey{includer.id, &name}] = loaded;
  kept_bytes_ += sizeof(NameKey) + 32;
}

void IncludeMemo::render_started() {
  if (renders_++ != 0 || kept_bytes_ + bytes_ <= kBudget) return;
  sites_.clear();
  plans_.clear();
  loaded_.clear();
  kept_bytes_ = 0;
  bytes_ = 0;
}

void IncludeMemo::held(std::size_t bytes) {
  bytes_ += bytes;
  if (bytes_ <= kBudget) return;
  for (auto& [key, site] : sites_) {
    if (site) site->clear();
  }
  bytes_ = 0;
}

}  // namespace zf::detail
