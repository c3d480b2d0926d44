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

/// The NativeFunction `callable` is, or nullptr (a final class: typeid is exact).
inline const NativeFunction* as_native(const std::shared_ptr<const Callable>& callable) {
  if (!callable) return nullptr;
  const Callable& object = *callable;
  return typeid(object) == typeid(NativeFunction) ? static_cast<const NativeFunction*>(&object)
                                                  : nullptr;
}

}  // namespace zf::detail
