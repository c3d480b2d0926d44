// SPDX-License-Identifier: MIT
// zf::Environment: where templates come from (the search path), the options of the template
// language, and the registry of filters, tests and global functions templates may call.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "zeroforge/value.hpp"

namespace zf {

class Template;
namespace detail {
class IncludeMemo;
}

/// Options of the template language; the defaults are Jinja2's.
struct EnvironmentOptions {
  /// Remove the first newline after a block tag (`{% ... %}`).
  bool trim_blocks = false;
  /// Strip spaces and tabs from the start of a line up to a block tag.
  bool lstrip_blocks = false;
  /// Directories searched in order for templates, `include` and `extends`.
  std::vector<std::filesystem::path> search_path;
  /// Deepest nesting of includes, imports, macro calls and blocks before rendering stops
  /// with an error (a runaway recursion is an error, never a crash).
  int max_depth = 64;
  /// Deepest nesting of statements (`if`, `for`, `block`, ...) and expressions (parentheses,
  /// lists, dicts, `not`, conditionals, call arguments), counted together, that the parser
  /// accepts: it bounds the parser's recursion and the height of the tree it builds, which the
  /// resolver, the analysis, the renderer and the destructor walk. Rendering adds the heights
  /// of the includes, imports, parent templates, blocks and macro calls it enters, under the
  /// same bound. So this is what keeps a hostile template from overflowing the stack (an error
  /// naming the place, never a crash). Chains of one kind (`a + b + c`, `x | f | g`, `x.a.b`)
  /// are one level however long. Jinja2 itself stops near 100 levels.
  int max_nesting = 256;
  /// Largest string (bytes) or list (items) one operator or filter may build: `'x' * n`, `+`,
  /// `~`, `join`, `center`, `indent`, `replace`, `%`-format widths... Checked before anything
  /// is allocated, so `{{ 'x' * 10**10 }}` is an error at once, not minutes of growing memory.
  std::uint64_t max_value_size = std::uint64_t{256} << 20;
  /// Largest output of one render (and of any block or macro captured inside it), in bytes.
  std::uint64_t max_output_size = std::uint64_t{256} << 20;
  /// Most steps one render may take, counting loop iterations and macro calls (minijinja's
  /// "fuel"): no template loops for minutes. The shipped templates take fewer than 100.
  std::uint64_t max_steps = 10'000'000;
  /// Reuse what an include wrote in an earlier render (on the same thread) when every name
  /// it reads holds the same value again, instead of rendering it again. The output is the
  /// same either way: an include is memoized only when its output depends on nothing else
  /// (it defines no blocks, imports nothing with context, and no function was added with
  /// `add_function`, whose calls might have effects). A family's members share most of their
  /// values, so most of a member's includes are found this way.
  bool memoize_includes = true;
};

/// Which namespace a function lives in: `x | name`, `x is name` or `name(...)`.
enum class FunctionKind { Filter, Test, Global };

/// One declared parameter; a parameter without a default is required.
struct Parameter {
  std::string name;
  std::optional<Value> default_value;
};

/// The arguments of one call, bound to the declared parameters: `bound[i]` belongs to
/// `parameters[i]` (filled with its default when the call left it out).
struct Arguments {
  std::vector<Value> bound;
  /// Positional arguments past the declared ones (only for variadic functions).
  std::vector<Value> extra_positional;
  /// Keyword arguments that match no parameter (only for variadic functions).
  std::vector<std::pair<std::string, Value>> extra_keywords;
};

class FunctionRegistry;

/// What a running function may ask of the renderer, e.g. `map('upper')` calling a filter.
class CallContext {
 public:
  using KeywordArguments = std::vector<std::pair<std::string, Value>>;
  virtual ~CallContext() = default;
  /// Calls filter (test) `name` on `subject` with positional and keyword arguments.
  virtual Value call_filter(std::string_view name, const Value& subject, std::vector<Value> args,
                            KeywordArguments kwargs) const = 0;
  virtual bool call_test(std::string_view name, const Value& subject, std::vector<Value> args,
                         KeywordArguments kwargs) const = 0;
  virtual const EnvironmentOptions& options() const = 0;
  /// The filters, tests and globals of the environment (the `filter` and `test` tests).
  virtual const FunctionRegistry& functions() const = 0;
};

/// A function body. `subject` is the filtered or tested value (undefined for globals).
/// Errors are reported by throwing zf::Error without a location; the renderer adds it.
using FunctionBody =
    std::function<Value(const Value& subject, Arguments& args, const CallContext& context)>;

/// A filter, test or global function.
struct FunctionSpec {
  std::string name;
  std::vector<Parameter> parameters;
  /// Accepts positional and keyword arguments beyond `parameters`.
  bool variadic = false;
  FunctionBody body;
};

/// Filters, tests and globals by name. Builtins are registered when an Environment is made;
/// plugins add theirs with `Environment::add_function`.
class FunctionRegistry {
 public:
  /// Adds a function; throws zf::Error if the name is already taken in that namespace.
  void add(FunctionKind kind, FunctionSpec spec);
  /// Adds or replaces (used for aliases such as `d` for `default`).
  void add_alias(FunctionKind kind, std::string alias, std::string_view target);
  const FunctionSpec* find(FunctionKind kind, std::string_view name) const;
  std::vector<std::string> names(FunctionKind kind) const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  using Table =
      std::unordered_map<std::string, std::shared_ptr<const FunctionSpec>, Hash, std::equal_to<>>;
  Table tables_[3];
};

/// Registers the builtin filters, tests and globals (Jinja2's, see docs/template-language.md).
void register_builtin_filters(FunctionRegistry& registry);
void register_builtin_tests(FunctionRegistry& registry);
void register_builtin_globals(FunctionRegistry& registry);

/// Loads and caches templates. Templates keep a pointer to their Environment, which must
/// outlive them. Loading is thread-safe; rendering a loaded template is `const`.
///
///     zf::Environment env({.search_path = {"my-templates", "/usr/share/zeroforge/templates"}});
///     auto tpl = env.load("deepspeed/config.json.j2");
///     std::string text = tpl->render(values);
class Environment {
 public:
  explicit Environment(EnvironmentOptions options = {});
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  const EnvironmentOptions& options() const noexcept { return options_; }
  const FunctionRegistry& functions() const noexcept { return functions_; }
  /// Registers a plugin function; do this before loading templates that use it.
  void add_function(FunctionKind kind, FunctionSpec spec);
  /// Whether renders reuse includes' earlier output (EnvironmentOptions::memoize_includes,
  /// and no function was added).
  bool memoizes_includes() const noexcept { return options_.memoize_includes && !added_functions_; }
  /// A number no other Environment of this process has.
  std::uint64_t id() const noexcept { return id_; }
  /// The calling thread's memo of includes (internal to the renderer; it lives, and its
  /// memory is freed, with this Environment).
  detail::IncludeMemo& include_memo_of_this_thread() const;

  /// Loads `name` (a relative path such as `deepspeed/config.json.j2`) from the first
  /// search-path directory that has it, parsing it once. Throws zf::Error (Template) when
  /// no directory has it or the name is absolute or climbs out with `..`, and (Syntax)
  /// when it does not parse.
  std::shared_ptr<const Template> load(std::string_view name) const;
  /// Like `load`, but returns nullptr when no search-path directory has `name` (the cache
  /// is consulted first, so a loaded template costs no file-system access).
  std::shared_ptr<const Template> try_load(std::string_view name) const;
  /// Parses a template given as text; `name` is used in errors and for relative lookups.
  std::shared_ptr<const Template> from_string(const std::string& source, std::string name) const;
  /// The file `name` resolves to, or nullopt.
  std::optional<std::filesystem::path> resolve(std::string_view name) const;
  /// Every template name reachable on the search path, sorted, first directory winning.
  std::vector<std::string> list_templates() const;
  /// Every file `resolve` (and so `load`, `include`, `import`, `extends`) found so far, in the
  /// order first found: what a build system must watch to know when output is stale.
  std::vector<std::filesystem::path> files_found() const;

 private:
  EnvironmentOptions options_;
  FunctionRegistry functions_;
  bool added_functions_ = false;  // add_function was called
  std::uint64_t id_;
  // One memo per thread that rendered through this environment (looked up under the lock
  // only when a thread switches environments: detail::IncludeMemo::of).
  mutable std::mutex memo_mutex_;
  mutable std::vector<std::pair<std::thread::id, std::unique_ptr<detail::IncludeMemo>>> memos_;
  mutable std::mutex cache_mutex_;
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  mutable std::unordered_map<std::string, std::shared_ptr<const Template>, NameHash,
                             std::equal_to<>>
      cache_;
  mutable std::mutex found_mutex_;
  mutable std::vector<std::filesystem::path> found_;
};

}  // namespace zf
