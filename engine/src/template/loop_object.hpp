// SPDX-License-Identifier: MIT
// LoopContext: the `loop` variable of a `for`, with its attributes (`loop.index`, ...); in a
// `for ... recursive` loop it can be called, `loop(children)`, to run the loop's body over other
// items one level deeper.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <typeinfo>
#include <utility>

#include "zeroforge/error.hpp"
#include "zeroforge/value.hpp"

namespace zf::detail {

/// Jinja2's LoopContext: `loop.index`, `loop.depth`, ... and, in a recursive loop,
/// `loop(items)`. `recurse` (null unless the loop is recursive) renders the loop over `items`
/// and returns the text; it refuses once the loop it belongs to has finished (a `loop` kept in
/// a namespace and called later).
class LoopContext final : public Callable {
 public:
  using Recurse = std::function<Value(const Value& items)>;
  LoopContext(ValueDict attributes, std::shared_ptr<const Recurse> recurse)
      : attributes_(std::move(attributes)), recurse_(std::move(recurse)) {}
  const std::string& name() const noexcept override { return name_; }
  void append_str(std::string& out) const override {
    out += "<LoopContext ";
    attributes_.find("index")->append_str(out);
    out += "/";
    attributes_.find("length")->append_str(out);
    out += ">";
  }
  const char* type_name() const noexcept override { return "LoopContext"; }
  const Value* find(const std::string& attribute) const { return attributes_.find(attribute); }
  /// The same, with `hash == ValueDict::hash(attribute)` already known.
  const Value* find(const std::string& attribute, std::uint64_t hash) const {
    return attributes_.find(attribute, hash);
  }
  Value call(const std::vector<Value>& args, std::size_t keywords) const {
    if (!recurse_) {
      throw Error(ErrorKind::Render,
                  "the loop must have the 'recursive' marker to be called recursively");
    }
    if (keywords != 0)
      throw Error(ErrorKind::Render, "loop() of a recursive loop takes no keyword arguments");
    if (args.size() != 1) {
      throw Error(ErrorKind::Render, "loop() of a recursive loop takes 1 argument (" +
                                         std::to_string(args.size()) + " given)");
    }
    return (*recurse_)(args[0]);
  }

 private:
  inline static const std::string name_ = "loop";
  ValueDict attributes_;
  std::shared_ptr<const Recurse> recurse_;
};

/// The LoopContext `value` holds, or nullptr.
inline const LoopContext* as_loop_context(const Value& value) {
  if (!value.is_callable() || !value.as_callable()) return nullptr;
  const Callable& object = *value.as_callable();
  return typeid(object) == typeid(LoopContext) ? static_cast<const LoopContext*>(&object) : nullptr;
}

}  // namespace zf::detail
