// SPDX-License-Identifier: MIT
// Namespace: the object `namespace()` makes, the one value a template can change in place
// (`{% set ns.count = ns.count + 1 %}`), so that a loop body can carry state out of the loop.
#pragma once

#include <memory>
#include <string>
#include <typeinfo>

#include "zeroforge/error.hpp"
#include "zeroforge/value.hpp"

namespace zf::detail {

/// Jinja2's Namespace. Every copy of the value shares the attributes, and a `set` in any
/// scope changes them for all, which is what makes it useful across loop iterations.
class Namespace final : public Callable {
 public:
  explicit Namespace(ValueDict attributes) : attributes_(std::move(attributes)) {}
  const std::string& name() const noexcept override { return name_; }
  void append_str(std::string& out) const override {
    out += "<Namespace ";
    out += Value(attributes_).repr();
    out += ">";
  }
  const char* type_name() const noexcept override { return "Namespace"; }
  const Value* find(const std::string& attribute) const { return attributes_.find(attribute); }
  /// Every attribute, in the order they were first set.
  const ValueDict& attributes() const { return attributes_; }
  /// Values are shared and otherwise immutable; a namespace is the deliberate exception.
  /// A value that holds this namespace is refused: the cycle would print forever and never
  /// be freed.
  void set(const std::string& attribute, Value value) const {
    if (reaches(value)) {
      throw Error(ErrorKind::Render,
                  "cannot store a namespace inside itself (attribute '" + attribute + "')");
    }
    attributes_.set(attribute, std::move(value));
  }

 private:
  // Whether `value` is this namespace or holds it, through lists, dicts and namespaces.
  bool reaches(const Value& value) const {
    if (value.is_list()) {
      for (const Value& item : value.as_list())
        if (reaches(item)) return true;
    } else if (value.is_dict()) {
      for (const auto& [key, item] : value.as_dict())
        if (reaches(item)) return true;
    } else if (value.is_callable() && value.as_callable()) {
      const Callable& object = *value.as_callable();
      if (&object == this) return true;
      if (typeid(object) == typeid(Namespace)) {
        for (const auto& [key, item] : static_cast<const Namespace&>(object).attributes_)
          if (reaches(item)) return true;
      }
    }
    return false;
  }

  inline static const std::string name_ = "namespace";
  mutable ValueDict attributes_;
};

/// The Namespace `value` holds, or nullptr.
inline const Namespace* as_namespace(const Value& value) {
  if (!value.is_callable() || !value.as_callable()) return nullptr;
  const Callable& object = *value.as_callable();
  return typeid(object) == typeid(Namespace) ? static_cast<const Namespace*>(&object) : nullptr;
}

}  // namespace zf::detail
