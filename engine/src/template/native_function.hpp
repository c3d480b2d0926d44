// SPDX-License-Identifier: MIT
// NativeFunction: a callable value made by the renderer itself (loop.cycle, loop.changed),
// called with evaluated arguments like a Python function.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "zeroforge/environment.hpp"
#include "zeroforge/value.hpp"

namespace zf::detail {

/// Keyword arguments as a call evaluates them, in the order written.
using KeywordValues = std::vector<std::pair<std::string, Value>>;

/// A function value implemented in C++. It may keep state between calls (loop.changed
/// remembers its last arguments); the state lives as long as any copy of the value.
class NativeFunction final : public Callable {
 public:
  using Body = std::function<Value(const std::vector<Value>&, const KeywordValues&)>;
  NativeFunction(std::string name, Body body) : name_(std::move(name)), body_(std::move(body)) {}
  const std::string& name() const noexcept override { return name_; }
  Value call(const std::vector<Value>& args, const KeywordValues& kwargs) const {
    return body_(args, kwargs);
  }

 private:
  std::string name_;
  Body body_;
};

/// A global function (`range`, `dict`, `namespace`, a plugin's) named without being called,
/// which Jinja2 reads as the function itself: `range is defined` is true, and `{% set r =
/// range %}{{ r(3) }}` calls it. The parser gives such a name this value for when no
/// variable of the name is in scope.
class GlobalFunction final : public Callable {
 public:
  explicit GlobalFunction(const FunctionSpec& spec) : spec_(spec) {}
  const std::string& name() const noexcept override { return spec_.name; }
  const FunctionSpec& spec() const noexcept { return spec_; }
  /// As Jinja2 prints them: `range` and `dict` are Python's classes, `namespace` Jinja2's.
  void append_str(std::string& out) const override {
    if (spec_.name == "range" || spec_.name == "dict") {
      out += "<class '" + spec_.name + "'>";
    } else if (spec_.name == "namespace") {
      out += "<class 'jinja2.utils.Namespace'>";
    } else {
      Callable::append_str(out);
    }
  }

 private:
  const FunctionSpec& spec_;  // owned by the environment's registry, which outlives templates
};

/// The GlobalFunction `callable` is, or nullptr.
inline const GlobalFunction* as_global(const std::shared_ptr<const Callable>& callable) {
  if (!callable) return nullptr;
  const Callable& object = *callable;
  return typeid(object) == typeid(GlobalFunction) ? static_cast<const GlobalFunction*>(&object)
                                                  : nullptr;
}

/// The NativeFunction `callable` is, or nullptr (a final class: typeid is exact).
inline const NativeFunction* as_native(const std::shared_ptr<const Callable>& callable) {
  if (!callable) return nullptr;
  const Callable& object = *callable;
  return typeid(object) == typeid(NativeFunction) ? static_cast<const NativeFunction*>(&object)
                                                  : nullptr;
}

}  // namespace zf::detail
