// SPDX-License-Identifier: MIT
// FunctionRegistry: filters, tests and globals by name, one table per namespace.
#include <algorithm>

#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"

namespace zf {
namespace {
const char* namespace_name(FunctionKind kind) {
  switch (kind) {
    case FunctionKind::Filter:
      return "filter";
    case FunctionKind::Test:
      return "test";
    case FunctionKind::Global:
      return "function";
  }
  return "function";
}
}  // namespace

void FunctionRegistry::add(FunctionKind kind, FunctionSpec spec) {
  auto& table = tables_[static_cast<int>(kind)];
  std::string name = spec.name;
  if (table.count(name) != 0) {
    throw Error(ErrorKind::Plugin,
                std::string(namespace_name(kind)) + " '" + name + "' is already registered");
  }
  table.emplace(std::move(name), std::make_shared<const FunctionSpec>(std::move(spec)));
}

void FunctionRegistry::add_alias(FunctionKind kind, std::string alias, std::string_view target) {
  auto& table = tables_[static_cast<int>(kind)];
  auto it = table.find(target);
  if (it == table.end()) {
    throw Error(ErrorKind::Plugin, std::string("alias '") + alias + "' names unknown " +
                                       namespace_name(kind) + " '" + std::string(target) + "'");
  }
  auto spec = it->second;
  table[std::move(alias)] = std::move(spec);
}

const FunctionSpec* FunctionRegistry::find(FunctionKind kind, std::string_view name) const {
  const auto& table = tables_[static_cast<int>(kind)];
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second.get();
}

std::vector<std::string> FunctionRegistry::names(FunctionKind kind) const {
  std::vector<std::string> out;
  for (const auto& [name, spec] : tables_[static_cast<int>(kind)]) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace zf
