// SPDX-License-Identifier: MIT
// RecursiveLoop: the `loop` variable of a `for ... recursive` loop, which has the attributes of
// every loop and can be called, `loop(children)`, to run the loop's body over other items one
// level deeper.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <typeinfo>
#include <utility>

#include "zeroforge/error.hpp"
#include "zeroforge/value.hpp"

namespace zf::detail {

/// Jinja2's LoopContext of a recursive loop: `loop.index`, `loop.depth`, ... and `loop(items)`.
/// `recurse` renders the loop over `items` and returns the text; it refuses once the loop it
/// belongs to has finished (a `loop` kept in a namespace and called later).
class RecursiveLoop final : public Callable {
 public:
  using Recurse = std::function<Value(const Value& items)>;
  RecursiveLoop(ValueDict attributes, std::shared_ptr<const Recurse> recurse)
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
  Value call(const std::vector<Value>& args, std::size_t keywords) const {
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

/// The RecursiveLoop `value` holds, or nullptr.
inline const RecursiveLoop* as_recursive_loop(const Value& value) {
  if (!value.is_callable() || !value.as_callable()) return nullptr;
  const Callable& object = *value.as_callable();
  return typeid(object) == typeid(RecursiveLoop) ? static_cast<const RecursiveLoop*>(&object)
                                                 : nullptr;
}

}  // namespace zf::detail
