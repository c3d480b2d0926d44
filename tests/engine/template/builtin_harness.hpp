// SPDX-License-Identifier: MIT
// Calls builtin filters, tests and globals straight from a FunctionRegistry, without the
// parser or renderer: a tiny CallContext and an argument binder, for table-driven tests.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"

namespace zf::testing {

/// One table row. `subject` is JSON, or nullptr for an undefined subject (named `nope`, so
/// errors read like Jinja2's "'nope' is undefined"). `args` is a JSON array of positional
/// arguments and `kwargs` a JSON object of keyword arguments in call order. `expected` is
/// Python's repr of the result, "<undefined: why>" for an undefined result, or "!message"
/// for a zf::Error. The expectations were produced by Python Jinja2 3.1.6 with
/// StrictUndefined, except where a row's name says it documents a deliberate difference.
struct BuiltinCase {
  const char* name;
  const char* function;
  const char* subject;
  const char* args;
  const char* kwargs;
  const char* expected;
};

class BuiltinHarness : public CallContext {
 public:
  BuiltinHarness() {
    register_builtin_filters(registry_);
    register_builtin_tests(registry_);
    register_builtin_globals(registry_);
  }

  const FunctionRegistry& registry() const { return registry_; }

  Value call_filter(std::string_view name, const Value& subject, std::vector<Value> args,
                    KeywordArguments kwargs) const override {
    return invoke(FunctionKind::Filter, name, subject, std::move(args), std::move(kwargs));
  }
  bool call_test(std::string_view name, const Value& subject, std::vector<Value> args,
                 KeywordArguments kwargs) const override {
    return invoke(FunctionKind::Test, name, subject, std::move(args), std::move(kwargs)).truthy();
  }
  const EnvironmentOptions& options() const override { return options_; }
  const FunctionRegistry& functions() const override { return registry_; }

  /// Binds the arguments the way the renderer does and runs the function body.
  Value invoke(FunctionKind kind, std::string_view name, const Value& subject,
               std::vector<Value> positional,
               std::vector<std::pair<std::string, Value>> keywords) const {
    const FunctionSpec* spec = registry_.find(kind, name);
    if (spec == nullptr) throw Error(ErrorKind::Render, "no function '" + std::string(name) + "'");
    Arguments args;
    args.bound.resize(spec->parameters.size());
    std::vector<bool> given(spec->parameters.size(), false);
    for (std::size_t i = 0; i < positional.size(); ++i) {
      if (i < spec->parameters.size()) {
        args.bound[i] = std::move(positional[i]);
        given[i] = true;
      } else {
        if (!spec->variadic) throw Error(ErrorKind::Render, "too many positional arguments");
        args.extra_positional.push_back(std::move(positional[i]));
      }
    }
    for (auto& [key, value] : keywords) {
      std::size_t i = 0;
      while (i < spec->parameters.size() && spec->parameters[i].name != key) ++i;
      if (i < spec->parameters.size()) {
        args.bound[i] = std::move(value);
        given[i] = true;
      } else {
        if (!spec->variadic) throw Error(ErrorKind::Render, "unexpected keyword " + key);
        args.extra_keywords.emplace_back(key, std::move(value));
      }
    }
    for (std::size_t i = 0; i < given.size(); ++i) {
      if (given[i]) continue;
      if (!spec->parameters[i].default_value) {
        throw Error(ErrorKind::Render, "missing argument " + spec->parameters[i].name);
      }
      args.bound[i] = *spec->parameters[i].default_value;
    }
    return spec->body(subject, args, *this);
  }

  /// Runs one table row and describes the outcome in the form of `BuiltinCase::expected`.
  std::string run(FunctionKind kind, const BuiltinCase& c) const {
    Value subject = c.subject == nullptr
                        ? Value::undefined("'nope' is undefined")
                        : Value::from_json(nlohmann::ordered_json::parse(c.subject));
    // Named, not iterated as temporaries: GCC's -Wmaybe-uninitialized misfires on those.
    const nlohmann::ordered_json args = nlohmann::ordered_json::parse(c.args);
    const nlohmann::ordered_json kwargs = nlohmann::ordered_json::parse(c.kwargs);
    std::vector<Value> positional;
    for (std::size_t i = 0; i < args.size(); ++i) positional.push_back(Value::from_json(args[i]));
    std::vector<std::pair<std::string, Value>> keywords;
    for (auto it = kwargs.begin(); it != kwargs.end(); ++it) {
      keywords.emplace_back(it.key(), Value::from_json(it.value()));
    }
    try {
      Value result = invoke(kind, c.function, subject, std::move(positional), std::move(keywords));
      if (result.is_undefined()) return "<undefined: " + result.undefined_description() + ">";
      return result.repr();
    } catch (const Error& e) {
      return "!" + e.message();
    }
  }

  void check_table(FunctionKind kind, const std::vector<BuiltinCase>& cases) const {
    for (const auto& c : cases) {
      SCOPED_TRACE(c.name);
      EXPECT_EQ(run(kind, c), c.expected);
    }
  }

 private:
  FunctionRegistry registry_;
  EnvironmentOptions options_;
};

/// A template rendered end to end: `expected` is the output, or "!message" for a zf::Error.
/// Expectations come from Python Jinja2 3.1.6 with StrictUndefined rendering the same source.
struct TemplateCase {
  const char* name;
  const char* source;
  const char* values;
  const char* expected;
};

inline std::string render_case(const Environment& env, const TemplateCase& c) {
  try {
    auto tpl = env.from_string(c.source, "case.j2");
    return tpl->render(Value::from_json(nlohmann::ordered_json::parse(c.values)));
  } catch (const Error& e) {
    return "!" + e.message();
  }
}

inline void check_templates(const std::vector<TemplateCase>& cases) {
  Environment env;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(render_case(env, c), c.expected);
  }
}

}  // namespace zf::testing
