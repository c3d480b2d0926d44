// SPDX-License-Identifier: MIT
// Pinned values (TemplatePins): an entry template such as deepspeed/zero3.json.j2 is its base
// template with some values fixed; a layer that changes one is refused here, before
// rendering, with an error placed where the change was written.
#include <string>

#include "zeroforge/output.hpp"
#include "zeroforge/sourced_values.hpp"
#include "zeroforge/template_defaults.hpp"

namespace zf {
namespace {

// `stage=3`, `offload_param=cpu`: as the contract's messages show values.
std::string shown(const std::string& name, const Value& value) {
  return name + "=" + (value.is_string() ? value.as_string() : value.to_json().dump());
}

std::string message(const TemplatePins& pins, const std::string& name, const Value& pinned,
                    const Value& given) {
  return shown(name, given) + ", but " + pins.template_name + " pins " + shown(name, pinned) +
         " (" + pins.file + " /pinned); leave " + name +
         " unset or render a template that does not pin it";
}

}  // namespace

nlohmann::ordered_json TemplatePins::names() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& [name, value] : values) out.push_back(name);
  return out;
}

std::vector<Error> check_pinned_values(const TemplatePins& pins,
                                       const nlohmann::ordered_json& values,
                                       const SourcedValues* sources) {
  std::vector<Error> problems;
  for (const auto& [name, pinned] : pins.values) {
    auto it = values.find(name);
    if (it == values.end()) continue;  // no layer has it: the template's entry supplies it
    Value given = Value::from_json(*it);
    if (given == pinned) continue;
    std::string pointer = "/" + escape_pointer_segment(name);
    std::string text = message(pins, name, pinned, given);
    problems.push_back(sources ? sources->error_at(pointer, std::move(text))
                               : Error(ErrorKind::Values, std::move(text), "", pointer));
  }
  return problems;
}

std::vector<Error> check_pinned_values(const TemplatePins& pins, const ValueDict& top,
                                       const ValueDict& base) {
  std::vector<Error> problems;
  for (const auto& [name, pinned] : pins.values) {
    const Value* given = top.find(name);
    if (!given) given = base.find(name);
    if (!given || *given == pinned) continue;
    problems.emplace_back(ErrorKind::Values, message(pins, name, pinned, *given), "",
                          "/" + escape_pointer_segment(name));
  }
  return problems;
}

}  // namespace zf
