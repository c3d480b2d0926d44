// SPDX-License-Identifier: MIT
// A render scope: the variables a statement body sets, a parent scope, and (for the template
// level) the values the render was called with. Lookups compare precomputed hashes before
// bytes, and the first few variables live inside the frame, so entering a macro, a loop
// iteration or a block allocates nothing: these are the renderer's hottest paths.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

#include "zeroforge/value.hpp"

namespace zf::detail {

class Frame {
 public:
  struct Var {
    std::string_view name;  // points into the AST (or a static string), which outlives renders
    std::uint64_t hash;     // ValueDict::hash(name)
    Value value;
  };

  Frame() = default;
  explicit Frame(const Frame* parent_frame) noexcept { attach(parent_frame); }
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;
  ~Frame() { clear(); }

  /// Makes `parent_frame` this frame's enclosing scope. Its variables (and its ancestors')
  /// are summarised here as they are now: a frame attached this way must not outlive a
  /// change to an ancestor. The renderer's scopes nest like its call stack, so an ancestor
  /// only gains variables again once this frame is gone; a frame that does outlive its
  /// statement (an imported module's) is a root with a copy of what it sees instead.
  void attach(const Frame* parent_frame) noexcept {
    parent = parent_frame;
    outer_mask_ = parent_frame ? parent_frame->mask_ | parent_frame->outer_mask_ : 0;
    context_ = parent_frame ? parent_frame->context_ : nullptr;
  }
  /// Makes this frame a root whose lookups end in `values` (a dict; anything else holds no names).
  void set_context(const Value* values) noexcept {
    parent = nullptr;
    outer_mask_ = 0;
    context_ = values && values->is_dict() ? &values->as_dict() : nullptr;
    is_root_ = true;
  }

  const Frame* parent = nullptr;
  /// True for a frame made by set_context: the template level that blocks see.
  bool is_root() const noexcept { return is_root_; }
  /// The values the chain's root frame holds (nullptr when it holds none).
  const ValueDict* context() const noexcept { return context_; }

  /// The innermost variable called `name` in this frame or its parents, or nullptr.
  const Value* find(std::string_view name, std::uint64_t hash) const {
    const std::uint64_t bit = mask_bit(hash);
    for (const Frame* f = this;;) {
      if (f->mask_ & bit) {
        if (const Value* v = f->find_here(name, hash)) return v;
      }
      // No ancestor has a variable with this name's bit: skip straight to the context.
      if (!(f->outer_mask_ & bit)) break;
      f = f->parent;
    }
    return context_ ? context_->find(name, hash) : nullptr;
  }

  /// Sets `name` in this frame (replacing it if this frame already has it).
  void set(std::string_view name, Value value) {
    set(name, ValueDict::hash(name), std::move(value));
  }
  /// The same with `hash == ValueDict::hash(name)` already known.
  void set(std::string_view name, std::uint64_t hash, Value value) {
    if (!(mask_ & mask_bit(hash))) {
      push(name, hash, std::move(value));
      return;
    }
    for (std::size_t i = 0; i < size_; ++i) {
      Var& var = at(i);
      if (var.hash == hash && var.name == name) {
        var.value = std::move(value);
        return;
      }
    }
    push(name, hash, std::move(value));
  }

  /// Appends without looking for an existing variable (the caller knows it is new).
  void push(std::string_view name, std::uint64_t hash, Value value) {
    mask_ |= mask_bit(hash);
    if (size_ < kInline) {
      hashes_[size_] = hash;
      new (&inline_[size_].var) Var{name, hash, std::move(value)};
    } else {
      if (!overflow_) overflow_ = std::make_unique<std::vector<Var>>();
      overflow_->push_back(Var{name, hash, std::move(value)});
    }
    ++size_;
  }

  /// Drops every variable (a loop frame between iterations).
  void clear() noexcept {
    for (std::size_t i = 0; i < size_ && i < kInline; ++i) inline_[i].var.~Var();
    if (overflow_) overflow_->clear();
    size_ = 0;
    mask_ = 0;
  }

  std::size_t size() const noexcept { return size_; }
  const Var& at(std::size_t i) const {
    return i < kInline ? inline_[i].var : (*overflow_)[i - kInline];
  }
  Var& at(std::size_t i) { return i < kInline ? inline_[i].var : (*overflow_)[i - kInline]; }

 private:
  // Enough for a typical template level (its `set`s and macros) without touching the heap.
  static constexpr std::size_t kInline = 12;
  // Raw storage: only the first size_ slots hold live Vars.
  union Slot {
    Slot() noexcept {}
    ~Slot() {}
    Var var;
  };
  // One bit per variable, chosen by its hash: a lookup skips a frame whose mask lacks the
  // name's bit (most frames, for most names) without comparing anything.
  static constexpr std::uint64_t mask_bit(std::uint64_t hash) noexcept { return std::uint64_t{1} << (hash >> 58); }

  // This frame's variable called `name`: the hashes of the inline variables sit together,
  // so the scan touches one cache line until a hash matches.
  const Value* find_here(std::string_view name, std::uint64_t hash) const {
    const std::size_t inline_count = size_ < kInline ? size_ : kInline;
    for (std::size_t i = 0; i < inline_count; ++i) {
      if (hashes_[i] == hash && inline_[i].var.name == name) return &inline_[i].var.value;
    }
    if (size_ > kInline) {
      for (const Var& var : *overflow_) {
        if (var.hash == hash && var.name == name) return &var.value;
      }
    }
    return nullptr;
  }

  std::uint64_t hashes_[kInline];  // of the inline variables, in order
  Slot inline_[kInline];
  std::size_t size_ = 0;
  std::uint64_t mask_ = 0;              // mask_bit of this frame's variables
  std::uint64_t outer_mask_ = 0;        // mask_bit of the ancestors' variables (see attach)
  const ValueDict* context_ = nullptr;  // the chain's root values, where every lookup may end
  bool is_root_ = false;
  std::unique_ptr<std::vector<Var>> overflow_;
};

}  // namespace zf::detail
