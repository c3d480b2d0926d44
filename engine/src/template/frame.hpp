// SPDX-License-Identifier: MIT
// A render scope: the variables of one Scope (scope.hpp) in slots, a parent scope, and (for
// the template level) the values the render was called with. A resolved name is read by
// slot; the search by name that remains (names no enclosing scope of the template assigns,
// frames laid out otherwise than the resolver expected) compares precomputed hashes before
// bytes. Small scopes keep their slots inside the frame, so entering a macro, a loop or a
// block allocates nothing: these are the renderer's hottest paths.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

#include "template/scope.hpp"
#include "zeroforge/value.hpp"

namespace zf::detail {

class Frame {
 public:
  /// A frame for `scope` inside `parent_frame` (see attach).
  Frame(const Frame* parent_frame, const Scope& scope) : Frame(scope) { attach(parent_frame); }
  /// A frame for `scope` without a parent yet: attach it, or make it a root with set_context.
  explicit Frame(const Scope& scope) : scope_(&scope), slots_(inline_), mask_(scope.mask) {
    if (scope.names.size() > kInline) {
      heap_ = std::make_unique<Slot[]>(scope.names.size());
      slots_ = heap_.get();
    }
  }
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;
  ~Frame() { clear(); }

  /// Makes `parent_frame` this frame's enclosing scope. Which names it and its ancestors may
  /// hold is summarised here as it is now: a frame attached this way must not outlive a
  /// change to an ancestor's names kept outside its slots. The renderer's scopes nest like
  /// its call stack, so an ancestor only gains such names again once this frame is gone; a
  /// frame that does outlive its statement (an imported module's) is a root with a copy of
  /// what it sees instead.
  void attach(const Frame* parent_frame) noexcept {
    parent = parent_frame;
    outer_mask_ = parent_frame ? parent_frame->mask_ | parent_frame->outer_mask_ : 0;
    context_ = parent_frame ? parent_frame->context_ : nullptr;
    globals_ = parent_frame ? parent_frame->globals_ : nullptr;
  }
  /// Makes this frame a root whose lookups end in `values`, then in `globals` (dicts; anything
  /// else holds no names).
  void set_context(const Value* values, const Value* globals = nullptr) noexcept {
    parent = nullptr;
    outer_mask_ = 0;
    context_ = values && values->is_dict() ? &values->as_dict() : nullptr;
    globals_ = globals && globals->is_dict() ? &globals->as_dict() : nullptr;
  }

  const Frame* parent = nullptr;
  /// True for the frame of a template's top level: the template level that blocks see.
  bool is_template_level() const noexcept { return scope_->kind == Scope::Kind::Template; }
  /// The values the chain's root frame holds (nullptr when it holds none).
  const ValueDict* context() const noexcept { return context_; }
  /// The values under them, for names they lack (nullptr when there are none).
  const ValueDict* globals() const noexcept { return globals_; }

  /// The variable a resolved name refers to, or nullptr. `where` names the frame (this one's
  /// `where.hops`-th parent) and its slot; when that frame is not laid out for `where.scope`
  /// (see Resolved), the name is searched for from here instead.
  [[gnu::always_inline]] const Value* find(std::string_view name, std::uint64_t hash,
                                           const Resolved& where) const {
    const Frame* f = this;
    for (std::uint16_t hops = where.hops; hops != 0 && f; --hops) f = f->parent;
    // The common case, inline: the frame is laid out as expected and the slot is assigned.
    if (f && f->scope_ == where.scope && where.slot != kNoSlot && f->assigned(where.slot)) {
      return &f->slots_[where.slot].value;
    }
    return find_past(name, hash, where, f);
  }

  /// The innermost variable called `name` in this frame or its parents, or nullptr.
  const Value* find(std::string_view name, std::uint64_t hash) const {
    const std::uint64_t bit = name_bit(hash);
    for (const Frame* f = this;;) {
      if (f->mask_ & bit) {
        if (const Value* v = f->find_here(name, hash)) return v;
      }
      // No ancestor has a variable with this name's bit: skip straight to the context.
      if (!(f->outer_mask_ & bit)) break;
      f = f->parent;
    }
    return find_in_context(name, hash);
  }

  /// Assigns a statement's target: into its slot when this frame is laid out for the
  /// target's scope and the scope has a slot for it, else by name.
  /// (`V`: Value, moved in, or const Value&, copied.)
  template <typename V>
  void assign(const Target& target, V&& value) {
    if (scope_ == target.where.scope && target.where.slot != kNoSlot) {
      assign_slot(target.where.slot, std::forward<V>(value));
    } else {
      set(target.name, target.hash, std::forward<V>(value));
    }
  }

  /// Assigns slot `slot` of this frame's scope.
  template <typename V>
  void assign_slot(std::uint16_t slot, V&& value) {
    if (assigned(slot)) {
      slots_[slot].value = std::forward<V>(value);
    } else {
      new (&slots_[slot].value) Value(std::forward<V>(value));
      assigned_ |= std::uint64_t{1} << slot;
    }
  }

  /// Assigns `name` (`hash == ValueDict::hash(name)`): its slot when the scope has one,
  /// else a variable kept by name.
  void set(std::string_view name, std::uint64_t hash, Value value) {
    if (std::uint16_t slot = scope_->slot_of(name, hash); slot != kNoSlot) {
      assign_slot(slot, std::move(value));
      return;
    }
    if (!extra_) extra_ = std::make_unique<std::vector<Var>>();
    for (Var& var : *extra_) {
      if (var.hash == hash && var.name == name) {
        var.value = std::move(value);
        return;
      }
    }
    extra_->push_back(Var{name, hash, std::move(value)});
    mask_ |= name_bit(hash);
  }

  /// Drops every variable (a loop frame between iterations).
  void clear() noexcept {
    for (std::uint64_t bits = assigned_; bits != 0; bits &= bits - 1) {
      slots_[__builtin_ctzll(bits)].value.~Value();
    }
    assigned_ = 0;
    if (extra_) extra_->clear();
    mask_ = scope_->mask;
  }

  /// Calls `visit(name, value)` for every variable: the slots in order, then the others.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (std::size_t i = 0; i < scope_->names.size(); ++i) {
      if (assigned(static_cast<std::uint16_t>(i))) visit(scope_->names[i], slots_[i].value);
    }
    if (extra_) {
      for (const Var& var : *extra_) visit(var.name, var.value);
    }
  }

 private:
  // A variable kept by name: `name` points into the AST, which outlives renders.
  struct Var {
    std::string_view name;
    std::uint64_t hash;
    Value value;
  };
  // Raw storage: a slot holds a live Value only while its assigned_ bit is set.
  union Slot {
    Slot() noexcept {}
    ~Slot() {}
    Value value;
  };
  // Enough for a typical template level (its `set`s and macros) without touching the heap.
  static constexpr std::size_t kInline = 12;

  bool assigned(std::uint16_t slot) const noexcept { return (assigned_ >> slot) & 1; }

  // This frame's variable called `name`: the scope's hashes sit together, so the scan
  // touches one cache line until a hash matches.
  const Value* find_here(std::string_view name, std::uint64_t hash) const {
    const std::vector<std::uint64_t>& hashes = scope_->hashes;
    for (std::size_t i = 0; i < hashes.size(); ++i) {
      if (hashes[i] == hash && assigned(static_cast<std::uint16_t>(i)) &&
          scope_->names[i] == name) {
        return &slots_[i].value;
      }
    }
    return extra_ ? find_extra(name, hash) : nullptr;
  }

  const Value* find_extra(std::string_view name, std::uint64_t hash) const {
    for (const Var& var : *extra_) {
      if (var.hash == hash && var.name == name) return &var.value;
    }
    return nullptr;
  }

  // find(name, hash, where) when the slot does not answer: `f` is the frame `where` names.
  [[gnu::noinline]] const Value* find_past(std::string_view name, std::uint64_t hash,
                                           const Resolved& where, const Frame* f) const {
    if (!f || f->scope_ != where.scope) return find(name, hash);
    if (where.slot != kNoSlot) {
      // The slot is unassigned, so the name is nowhere else in f either.
      if (f->scope_->starts_undefined(where.slot)) return nullptr;
    } else if (f->extra_) {
      if (const Value* v = f->find_extra(name, hash)) return v;
    }
    // Most names that get here are the values', read at the top level or in a block.
    if (f->scope_->kind != Scope::Kind::Nested) return f->find_outside(name, hash);
    return f->find_in_enclosing_scopes(name, hash);
  }

  // `name` in the chain's context, then in its globals.
  const Value* find_in_context(std::string_view name, std::uint64_t hash) const {
    if (context_) {
      if (const Value* v = context_->find(name, hash)) return v;
    }
    return globals_ ? globals_->find(name, hash) : nullptr;
  }

  // `name` in this frame's parents, then in the context: what Jinja2 reads as the context
  // around a template's top level or a block (an includer's variables, the template level),
  // where a variable not assigned yet is simply not there.
  const Value* find_outside(std::string_view name, std::uint64_t hash) const {
    if (parent && (outer_mask_ & name_bit(hash))) return parent->find(name, hash);
    return find_in_context(name, hash);
  }

  // `name` outside this frame of a nested scope. Up to the frame of the template's top level
  // or of a block, the parents are the frames of the scopes around this one in its template,
  // where an unassigned variable that starts undefined (Scope::starts_undefined) reads as
  // undefined; past it, find_outside.
  [[gnu::noinline]] const Value* find_in_enclosing_scopes(std::string_view name,
                                                          std::uint64_t hash) const {
    const std::uint64_t bit = name_bit(hash);
    const Frame* f = this;
    while (f->scope_->kind == Scope::Kind::Nested && f->parent && (f->outer_mask_ & bit)) {
      f = f->parent;
      if (!(f->mask_ & bit)) continue;
      if (std::uint16_t slot = f->scope_->slot_of(name, hash); slot != kNoSlot) {
        if (f->assigned(slot)) return &f->slots_[slot].value;
        if (f->scope_->starts_undefined(slot)) return nullptr;
      } else if (f->extra_) {
        if (const Value* v = f->find_extra(name, hash)) return v;
      }
    }
    return f->find_outside(name, hash);
  }

  const Scope* scope_;
  Slot inline_[kInline];
  Slot* slots_;  // inline_, or heap_ for a scope with more slots
  std::unique_ptr<Slot[]> heap_;
  std::uint64_t assigned_ = 0;               // bit i: slot i holds a value
  std::uint64_t mask_;                       // name_bit of the scope's names and of extra_'s
  std::uint64_t outer_mask_ = 0;             // mask_ of the ancestors (see attach)
  const ValueDict* context_ = nullptr;       // the chain's root values, where every lookup may end
  const ValueDict* globals_ = nullptr;       // under context_: names it lacks are looked up here
  std::unique_ptr<std::vector<Var>> extra_;  // names the scope has no slot for
};

}  // namespace zf::detail
