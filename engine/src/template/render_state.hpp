// SPDX-License-Identifier: MIT
// The renderer's per-call state (minijinja's `State`): one Renderer per render call holds the
// output, the blocks in force, imported modules, the depth and step budgets and the reusable
// argument buffers; the tree is never modified. The class is defined across files that each
// own one part of the language: render_state.cpp (entry, errors, budgets),
// render_expressions.cpp, render_calls.cpp (filters, tests, functions, macros),
// render_statements.cpp, render_inheritance.cpp (extends, blocks, super) and
// render_imports.cpp (include, import, loading templates).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "template/ast.hpp"
#include "template/frame.hpp"
#include "template/include_memo.hpp"
#include "template/native_function.hpp"
#include "template/renderer.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/value.hpp"

namespace zf {
class Template;
}

namespace zf::detail {

/// A macro as a value: its definition and the frame it was defined in (its globals).
class Macro final : public Callable {
 public:
  Macro(const MacroStmt& stmt, const TemplateTree& tree, const Frame& frame)
      : stmt_(stmt), tree_(tree), frame_(frame) {}
  const std::string& name() const noexcept override { return stmt_.target.name; }
  void append_str(std::string& out) const override {
    out += stmt_.anonymous ? "<Macro anonymous>" : "<Macro '" + stmt_.target.name + "'>";
  }
  const char* type_name() const noexcept override { return "Macro"; }
  const MacroStmt& stmt() const { return stmt_; }
  const TemplateTree& tree() const { return tree_; }
  const Frame& frame() const { return frame_; }

 private:
  const MacroStmt& stmt_;
  const TemplateTree& tree_;
  const Frame& frame_;
};

/// The macro `callable` is, or nullptr. Macro is final, so comparing type_info (the same
/// name pointer for a Macro) is cheaper than dynamic_cast.
inline const Macro* as_macro(const std::shared_ptr<const Callable>& callable) {
  if (!callable) return nullptr;
  const Callable& object = *callable;  // typeid of a plain reference: clang warns on `*callable`
  return typeid(object) == typeid(Macro) ? static_cast<const Macro*>(&object) : nullptr;
}

/// One template's definition of a block.
struct BlockLevel {
  const BlockStmt* block;
  const TemplateTree* tree;
};

/// The blocks in force while a template renders: each name's levels, the overriding template's
/// first, then those of the templates it extends. A template has few blocks, so the levels sit
/// in one flat list that is scanned: a render with blocks allocates that list once, not a map
/// node and a list per block.
class BlockTable {
 public:
  void add(std::string_view name, BlockLevel level) { entries_.push_back({name, level}); }
  bool empty() const noexcept { return entries_.empty(); }
  /// How many levels `name` has (0 when no template in force defines it).
  std::size_t count(std::string_view name) const {
    std::size_t n = 0;
    for (const Entry& entry : entries_) n += entry.name == name;
    return n;
  }
  /// Level `index` (< count(name)) of `name`.
  BlockLevel at(std::string_view name, std::size_t index) const {
    for (const Entry& entry : entries_) {
      if (entry.name == name && index-- == 0) return entry.level;
    }
    return {};
  }

 private:
  struct Entry {
    std::string_view name;
    BlockLevel level;
  };
  std::vector<Entry> entries_;
};

/// What an inline if without `else` yields when its condition is false.
inline constexpr const char* kInlineIfWithoutElse =
    "the inline if-expression evaluated to false and has no 'else'";

class Renderer : public CallContext {
 public:
  Renderer(const Environment& environment, std::string& out, std::vector<OutputMark>* marks,
           IncludeMemo& memo)
      : env_(environment), memo_(memo), out_(&out), root_out_(&out), marks_(marks) {}

  /// Renders `tree` as the render's entry template (render_tree).
  void render_root(const TemplateTree& tree, const Value& context, const Value* globals);

  // CallContext
  Value call_filter(std::string_view name, const Value& subject, std::vector<Value> args,
                    KeywordArguments kwargs) const override;
  bool call_test(std::string_view name, const Value& subject, std::vector<Value> args,
                 KeywordArguments kwargs) const override;
  const EnvironmentOptions& options() const override { return env_.options(); }
  const FunctionRegistry& functions() const override { return env_.functions(); }

 private:
  // ----- state (render_state.cpp) -----

  // Runs `body`, giving an error without a location the place of `stmt`; memory and size
  // failures become errors there too.
  template <typename F>
  void guard(const Stmt& stmt, F&& body) {
    try {
      body();
    } catch (const Error& error) {
      if (error.has_location()) throw;
      throw locate(error, stmt.offset);
    } catch (const std::bad_alloc&) {
      // Values and output are bounded (limits.hpp), so this is a machine short of memory.
      throw locate(Error(ErrorKind::Render, "out of memory while rendering this statement"),
                   stmt.offset);
    } catch (const std::length_error&) {
      throw locate(Error(ErrorKind::Render, "a value too large to build"), stmt.offset);
    }
  }

  // One step of the render's budget (EnvironmentOptions::max_steps): a loop iteration or a
  // macro call, at `offset` (the loop or the macro).
  void step(std::size_t offset) {
    if (++steps_ > env_.options().max_steps) throw locate(too_many_steps(), offset);
  }
  // A macro call's step: its caller adds the call's location.
  void step() {
    if (++steps_ > env_.options().max_steps) throw too_many_steps();
  }
  Error too_many_steps() const;

  // After output grew: one render's output is bounded (EnvironmentOptions::max_output_size).
  void check_output() const {
    if (out_->size() > env_.options().max_output_size) output_too_large();
  }
  [[noreturn]] void output_too_large() const;

  // `error` at `offset` of the template running now.
  Error locate(const Error& error, std::size_t offset) const;

  bool muted() const { return out_ == muted_; }

  [[gnu::always_inline]] void emit(std::string_view text, std::size_t offset) {
    mark(offset);
    out_->append(text);
    check_output();
  }
  // Records where the output from here on comes from, when marks are kept and the output is
  // the render's own (not a capture).
  [[gnu::always_inline]] void mark(std::size_t offset) {
    if (marks_ && out_ == root_out_) marks_->push_back({out_->size(), tree_, offset});
  }

  // One include, import, block or macro call entered, for as long as it lives. Each counts
  // against max_depth, and its height (the statements and expressions it may nest) against
  // max_nesting, the budget the parser held each tree under: the levels open at once, the
  // renderer's recursion, are the sum of the heights entered, so no render can reach past the
  // stack however its templates include each other and call their macros.
  struct DepthGuard {
    Renderer& r;
    std::uint32_t height;
    DepthGuard(Renderer& renderer, const char* what, std::uint32_t levels)
        : r(renderer), height(levels) {
      if (++r.depth_ > r.env_.options().max_depth) {
        --r.depth_;
        too_deep(r.env_.options().max_depth, what);
      }
      r.levels_ += height;
      if (r.levels_ > r.env_.options().max_nesting) {
        r.levels_ -= height;
        --r.depth_;
        too_many_levels(r.env_.options().max_nesting, what);
      }
    }
    ~DepthGuard() {
      --r.depth_;
      r.levels_ -= height;
    }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    // Out of line, so that entering a macro, an include or a block stays a few instructions.
    [[noreturn, gnu::noinline]] static void too_deep(int max_depth, const char* what);
    [[noreturn, gnu::noinline]] static void too_many_levels(int max_nesting, const char* what);
  };

  // ----- templates and inheritance (render_inheritance.cpp) -----

  void render_template(const TemplateTree& tree, Frame& frame, ValueDict* exports = nullptr);
  static void export_names(const Frame& frame, ValueDict& exports);
  void render_body_until_extends(const TemplateTree& tree, Frame& frame,
                                 const std::vector<const TemplateTree*>& chain,
                                 const TemplateTree*& parent);
  static void require_no_cycle(const std::vector<const TemplateTree*>& chain,
                               const TemplateTree& parent);
  void exec_node(const Stmt& stmt, const ExtendsStmt& node, Frame& frame);
  void exec_node(const Stmt& stmt, const BlockStmt& node, Frame& frame);
  void render_block_level(BlockLevel level, std::string_view name, std::size_t index,
                          const Frame& frame, bool scoped, std::size_t site);
  std::size_t levels_of(std::string_view name) const;
  static const Frame* template_level_of(const Frame& frame);
  Value render_super(std::size_t offset);

  // ----- include and import (render_imports.cpp) -----

  const Template* load(const Value& name, bool ignore_missing);
  const Template* load_named(const Expr& name_expr, const Frame& frame, bool ignore_missing);
  void exec_node(const Stmt& stmt, const IncludeStmt& node, Frame& frame);
  static bool watched(const Frame& frame);
  Value import_module(const Stmt& stmt, const Expr& name_expr, bool with_context, Frame& frame,
                      std::string* loaded_name = nullptr);
  static Value visible_names(const Frame& frame);
  void exec_node(const Stmt& stmt, const ImportStmt& node, Frame& frame);
  void exec_node(const Stmt& stmt, const FromImportStmt& node, Frame& frame);

  // ----- statements (render_statements.cpp) -----

  void exec_body(const Body& body, Frame& frame);
  void exec(const Stmt& stmt, Frame& frame);
  void exec_node(const Stmt& stmt, const TextStmt& node, Frame& frame);
  void exec_node(const Stmt& stmt, const PrintStmt& node, Frame& frame);
  void exec_node(const Stmt& stmt, const IfStmt& node, Frame& frame);
  // `targets` := `value`; unpacked (as Python unpacks an iterable) when `unpack` (a tuple of
  // targets, also of one name), errors at `offset`.
  void assign_targets(Frame& frame, const std::vector<Target>& targets, bool unpack, Value&& value,
                      std::size_t offset);
  void assign_targets(Frame& frame, const std::vector<Target>& targets, bool unpack,
                      const Value& value, std::size_t offset);
  void exec_node(const Stmt& stmt, const ForStmt& node, Frame& frame);
  void run_loop(const Stmt& stmt, const ForStmt& node, Frame& frame, const Value& iterable,
                std::int64_t depth, std::size_t iterable_offset);
  void exec_node(const Stmt& stmt, const SetStmt& node, Frame& frame);
  void set_attribute(const Stmt& stmt, const Expr& namespace_ref, const std::string& attribute,
                     Value&& value, Frame& frame);
  std::string capture(const Body& body, Frame& frame);
  void exec_node(const Stmt& stmt, const SetBlockStmt& node, Frame& frame);
  void exec_node(const Stmt& stmt, const FilterBlockStmt& node, Frame& frame);
  void exec_node(const Stmt& stmt, const WithStmt& node, Frame& frame);

  // ----- expressions (render_expressions.cpp) -----

  // The value of `expr` without copying it when it already exists (a variable, or a key of
  // a dict reached through variables); otherwise evaluates into `scratch`.
  // Names and literals, most of what templates look up, are handled inline; the rest
  // (whose stack frames are larger) out of line.
  [[gnu::always_inline]] const Value& lookup(const Expr& expr, const Frame& frame, Value& scratch) {
    if (const Value* v = existing(expr, frame)) return *v;
    return lookup_compound(expr, frame, scratch);
  }

  // The same where a scratch value is rarely needed: it is made only when it is.
  [[gnu::always_inline]] const Value& lookup(const Expr& expr, const Frame& frame,
                                             std::optional<Value>& scratch) {
    if (const Value* v = existing(expr, frame)) return *v;
    return lookup_compound(expr, frame, scratch.emplace());
  }

  // The value of a name or a literal, which exists already; nullptr for other expressions.
  [[gnu::always_inline]] const Value* existing(const Expr& expr, const Frame& frame) {
    if (auto* name = std::get_if<NameRef>(&expr.node)) {
      const Value* v = frame.find(name->name, name->hash, name->where);
      return v ? v : &name->missing;
    }
    if (auto* literal = std::get_if<Literal>(&expr.node)) return &literal->value;
    return nullptr;
  }

  [[gnu::noinline]] const Value& lookup_outlined(const Expr& expr, const Frame& frame,
                                                 Value& scratch);
  [[gnu::noinline]] const Value& lookup_compound(const Expr& expr, const Frame& frame,
                                                 Value& scratch);
  const Value& default_in_place(const FilterExpr& filter, const Frame& frame, Value& scratch);
  const Value& default_of(const FilterExpr& filter, const Value& subject, const Frame& frame,
                          Value& scratch);
  const Value& lookup_located(const Expr& expr, const Frame& frame, Value& scratch);
  bool truthy(const Expr& expr, const Frame& frame);
  ValueList iterate(const Value& iterable, std::size_t offset);

  Value eval(const Expr& expr, const Frame& frame);
  Value eval_node(const Expr& expr, const Literal& node, const Frame& frame);
  Value eval_node(const Expr& expr, const NameRef& node, const Frame& frame);
  static const char* object_type(const Value& object);
  static Value missing_member(const Value& object, const Value& key);
  static std::optional<Value> macro_attribute(const Macro& macro, const std::string& name);
  Value get_attribute(const Value& object, const std::string& name);
  Value get_item(const Value& object, const Value& key);
  void require_object(const Value& object, std::size_t at) const;
  Value eval_node(const Expr& expr, const GetAttr& node, const Frame& frame);
  Value eval_node(const Expr& expr, const GetItem& node, const Frame& frame);
  Value item_of(const GetItem& node, const Value& object, const Frame& frame);
  Value eval_node(const Expr& expr, const SliceExpr& node, const Frame& frame);
  Value slice_of(const SliceExpr& node, const Value& object, const Frame& frame);
  static Value range_slice(Value::RangeBounds range, std::int64_t b, std::int64_t e,
                           std::int64_t step, ValueList items);
  Value eval_node(const Expr& expr, const Unary& node, const Frame& frame);
  Value eval_node(const Expr& expr, const Binary& node, const Frame& frame);
  Value apply_at(const BinaryOperand& operand, const Value& left, const Value& right) const;
  Value concat_chain(const Binary& node, const Frame& frame);
  Value eval_node(const Expr& expr, const Compare& node, const Frame& frame);
  bool compare_chain(const Compare& node, const Frame& frame);
  Value eval_node(const Expr& expr, const Conditional& node, const Frame& frame);
  Value eval_node(const Expr& expr, const ListExpr& node, const Frame& frame);
  Value eval_node(const Expr& expr, const DictExpr& node, const Frame& frame);
  Value eval_node(const Expr& expr, const Chain& node, const Frame& frame);
  Value apply_link(const Expr& link, const Value& value, std::size_t previous, const Frame& frame);

  // ----- calls and macros (render_calls.cpp) -----

  std::pair<std::vector<Value>, std::vector<std::pair<std::string, Value>>> eval_args(
      const CallArguments& args, const Frame& frame);
  template <typename Positional, typename KeywordName, typename KeywordValue>
  static void bind_core(const FunctionSpec& spec, const char* kind, std::size_t positional_count,
                        Positional&& positional, std::size_t keyword_count,
                        KeywordName&& keyword_name, KeywordValue&& keyword_value, Arguments& args);
  static Arguments bind(const FunctionSpec& spec, const char* kind, std::vector<Value> positional,
                        std::vector<std::pair<std::string, Value>> keyword);
  void bind_call(const FunctionSpec& spec, const char* kind, const CallArguments& call,
                 const Frame& frame, Arguments& args);

  // Arguments objects reused by the calls of one render: a call takes the next free one
  // and returns it emptied (its vectors keep their capacity), so binding allocates nothing
  // once the render has warmed up. Nested calls (a filter argument that calls a filter)
  // take the next one; the first few live inside the Renderer.
  struct ArgumentsLease {
    Renderer& renderer;
    Arguments& args;
    explicit ArgumentsLease(Renderer& r) : renderer(r), args(r.acquire_arguments()) {}
    ArgumentsLease(const ArgumentsLease&) = delete;
    ArgumentsLease& operator=(const ArgumentsLease&) = delete;
    ~ArgumentsLease() {
      args.bound.clear();
      args.extra_positional.clear();
      args.extra_keywords.clear();
      --renderer.arguments_in_use_;
    }
  };
  Arguments& acquire_arguments();
  static constexpr std::size_t kBoundCapacity = 8;

  Value call_function(const FunctionSpec& spec, DirectBody direct, const char* kind,
                      const CallArguments& call, const Value& subject, const Frame& frame);
  Value apply_filters(Value value, const std::vector<FilterCall>& filters, const Frame& frame);
  Value eval_node(const Expr& expr, const FilterExpr& node, const Frame& frame);
  Value filter_of(const Expr& expr, const FilterExpr& node, const Value& subject,
                  const Frame& frame);
  Value eval_node(const Expr& expr, const TestExpr& node, const Frame& frame);
  bool test_result(const Expr& expr, const TestExpr& node, const Frame& frame);
  bool test_of(const Expr& expr, const TestExpr& node, const Value& subject, const Frame& frame);
  Value eval_node(const Expr& expr, const Call& node, const Frame& frame);
  Value call_of(const Call& node, const Value& callee, const Frame& frame);
  void exec_node(const Stmt& stmt, const MacroStmt& node, Frame& frame);
  void call_macro(const Macro& macro, const CallArguments& call, const Frame& caller,
                  std::string* target);
  void run_macro(const Macro& macro, Frame& inner, std::uint64_t given, std::string* target);
  void invoke_macro(const Macro& macro, std::vector<Value> positional, KeywordValues keyword,
                    std::string* target);
  void exec_node(const Stmt& stmt, const CallBlockStmt& node, Frame& frame);

  // ----- the state -----

  const Environment& env_;
  IncludeMemo& memo_;  // this thread's, for env_ (include_memo.hpp)
  std::string* out_;
  const std::string* root_out_;
  // A child template's top level after its 'extends' writes here. As in Jinja2, its output
  // statements are not evaluated at all (`{{ 1 // 0 }}` there does not fail), while other
  // statements still run; a capture (set block, macro body) writes elsewhere and prints.
  const std::string* muted_ = nullptr;
  std::string* unmuted_out_ = nullptr;  // where the output went before the 'extends'
  std::vector<OutputMark>* marks_;
  const TemplateTree* tree_ = nullptr;
  int depth_ = 0;            // includes, imports, blocks and macro calls open (max_depth)
  std::int64_t levels_ = 0;  // the sum of their heights and the root's (max_nesting)
  BlockTable blocks_;
  struct ActiveBlock {
    std::string_view name;
    std::size_t level;
    const Frame* frame;  // the frame the block was entered from, reused by super()
    bool scoped;
  };
  std::vector<ActiveBlock> block_stack_;
  struct Module {
    explicit Module(const Scope& scope) : frame(scope) {}
    Value context;  // what a module imported `with context` sees besides its own names
    Frame frame;
  };
  std::vector<std::unique_ptr<Module>> modules_;  // imported modules, alive for the render
  // What each template imported without context exported, by template: imported again in the
  // same render it is the same module, as Jinja2 keeps a template's default module (so the
  // config template's partials, which each import the same helpers, run them once).
  std::vector<std::pair<const Template*, Value>> plain_modules_;
  std::array<Arguments, 2> arguments_inline_;
  std::vector<std::unique_ptr<Arguments>> arguments_more_;  // for calls nested deeper
  std::size_t arguments_in_use_ = 0;
  std::uint64_t steps_ = 0;  // loop iterations and macro calls so far (max_steps)
  // Per-render objects released together (macros): a few inside the Renderer, more on the heap.
  alignas(std::max_align_t) std::byte arena_buffer_[512];
  std::pmr::monotonic_buffer_resource arena_{arena_buffer_, sizeof arena_buffer_};
};

}  // namespace zf::detail
