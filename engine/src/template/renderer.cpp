// SPDX-License-Identifier: MIT
// Tree-walking renderer. One Renderer per render call holds the per-call state (output,
// frames, block stacks, imported modules, recursion depth); the tree is never modified.
#include "template/renderer.hpp"

#include <array>
#include <cstddef>
#include <deque>
#include <memory>
#include <memory_resource>
#include <new>
#include <optional>
#include <typeinfo>

#include "source_position.hpp"
#include "template/builtin_filters.hpp"
#include "template/frame.hpp"
#include "template/limits.hpp"
#include "template/methods.hpp"
#include "template/operators.hpp"
#include "template/python_ops.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"

namespace zf::detail {
namespace {

constexpr const char* kInlineIfWithoutElse =
    "the inline if-expression evaluated to false and has no 'else'";

// A macro as a value: its definition and the frame it was defined in (its globals).
class Macro final : public Callable {
 public:
  Macro(const MacroStmt& stmt, const TemplateTree& tree, const Frame& frame)
      : stmt_(stmt), tree_(tree), frame_(frame) {}
  const std::string& name() const noexcept override { return stmt_.target.name; }
  const MacroStmt& stmt() const { return stmt_; }
  const TemplateTree& tree() const { return tree_; }
  const Frame& frame() const { return frame_; }

 private:
  const MacroStmt& stmt_;
  const TemplateTree& tree_;
  const Frame& frame_;
};

// The macro `callable` is, or nullptr. Macro is final and has internal linkage, so comparing
// type_info is a pointer compare, cheaper than dynamic_cast.
const Macro* as_macro(const std::shared_ptr<const Callable>& callable) {
  if (!callable) return nullptr;
  const Callable& object = *callable;  // typeid of a plain reference: clang warns on `*callable`
  return typeid(object) == typeid(Macro) ? static_cast<const Macro*>(&object) : nullptr;
}

struct BlockLevel {
  const BlockStmt* block;
  const TemplateTree* tree;
};

// The blocks in force while a template renders: each name's levels, the overriding template's
// first, then those of the templates it extends. A template has few blocks, so the levels sit
// in one flat list that is scanned: a render with blocks allocates that list once, not a map
// node and a list per block.
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

class Renderer : public CallContext {
 public:
  Renderer(const Environment& environment, std::string& out, std::vector<OutputMark>* marks)
      : env_(environment), out_(&out), root_out_(&out), marks_(marks) {}

  void render_root(const TemplateTree& tree, const Value& context, const Value* globals) {
    levels_ = tree.height;  // within max_nesting: the parser saw to it
    Frame root(tree.scope);
    root.set_context(&context, globals);
    if (context.is_dict()) context.as_dict().prefetch();
    render_template(tree, root);
  }

  // CallContext
  Value call_filter(std::string_view name, const Value& subject,
                    std::vector<Value> args) const override {
    const FunctionSpec* spec = env_.functions().find(FunctionKind::Filter, name);
    if (!spec) throw Error(ErrorKind::Render, "unknown filter '" + std::string(name) + "'");
    Arguments bound = bind(*spec, "filter", std::move(args), {});
    return spec->body(subject, bound, *this);
  }
  bool call_test(std::string_view name, const Value& subject,
                 std::vector<Value> args) const override {
    const FunctionSpec* spec = env_.functions().find(FunctionKind::Test, name);
    if (!spec) throw Error(ErrorKind::Render, "unknown test '" + std::string(name) + "'");
    Arguments bound = bind(*spec, "test", std::move(args), {});
    return spec->body(subject, bound, *this).truthy();
  }
  const EnvironmentOptions& options() const override { return env_.options(); }

 private:
  // ----- templates, inheritance -----

  // Renders a template at the top level: runs its body; if it extends a parent, the rest of
  // its output is dropped and the parent renders with this template's blocks on top. Each
  // parent runs its top level in a frame of its own, attached to the frame of the template
  // that extends it: as in Jinja2, where each template of the chain has its own top-level
  // variables and sees those of the templates below it only as the context does.
  // With `exports` (an import), the names the chain's top levels assigned are added to it.
  void render_template(const TemplateTree& tree, Frame& frame, ValueDict* exports = nullptr) {
    if (!tree.has_extends && tree.blocks.empty() && blocks_.empty()) {
      // No inheritance and no blocks, here or in force: the body runs as it is.
      const TemplateTree* saved_tree = tree_;
      tree_ = &tree;
      exec_body(tree.body, frame);
      tree_ = saved_tree;
      if (exports) export_names(frame, *exports);
      return;
    }
    BlockTable saved = std::move(blocks_);
    blocks_ = BlockTable();
    if (!tree.has_extends) {
      // Its own blocks only (an included template does not see its includer's): one level,
      // and nothing to allocate for a chain (most includes run here, once per render).
      for (const auto& [name, block] : tree.blocks) blocks_.add(block->name, {block, &tree});
      const TemplateTree* saved_tree = tree_;
      tree_ = &tree;
      try {
        exec_body(tree.body, frame);
      } catch (...) {
        tree_ = saved_tree;
        blocks_ = std::move(saved);
        throw;
      }
      tree_ = saved_tree;
      blocks_ = std::move(saved);
      if (exports) export_names(frame, *exports);
      return;
    }
    const TemplateTree* current = &tree;
    std::vector<const TemplateTree*> chain;  // `current` and the templates it extends
    std::deque<Frame> parent_frames;         // the top-level frames of those it extends
    // A parent's top level runs once its child's is done, in its place: its height replaces
    // the child's on the depth budget until the chain is done.
    struct ParentLevels {
      std::int64_t& levels;
      std::int64_t held = 0;
      ~ParentLevels() { levels -= held; }
    } parent_levels{levels_};
    Frame* level_frame = &frame;
    while (true) {
      for (const auto& [name, block] : current->blocks) blocks_.add(block->name, {block, current});
      const TemplateTree* parent = nullptr;
      chain.push_back(current);
      render_body_until_extends(*current, *level_frame, chain, parent);
      if (!parent) break;
      const std::int64_t change = std::int64_t{parent->height} - current->height;
      levels_ += change;  // checked at the 'extends'
      parent_levels.held += change;
      current = parent;
      level_frame = &parent_frames.emplace_back(level_frame, parent->scope);
    }
    blocks_ = std::move(saved);
    if (exports) {
      // A parent's top level runs after its child's, so its names win.
      export_names(frame, *exports);
      for (const Frame& parent_frame : parent_frames) export_names(parent_frame, *exports);
    }
  }

  // Adds the variables of a template's top-level `frame` to `exports`, but private ones
  // (`_name`), as Jinja2 exports a module's names.
  static void export_names(const Frame& frame, ValueDict& exports) {
    frame.for_each([&](std::string_view name, const Value& value) {
      if (!name.empty() && name.front() != '_') exports.set(std::string(name), value);
    });
  }

  // Runs `tree`, the last template of `chain`, and sets `parent` to the template it extends.
  void render_body_until_extends(const TemplateTree& tree, Frame& frame,
                                 const std::vector<const TemplateTree*>& chain,
                                 const TemplateTree*& parent) {
    const TemplateTree* saved_tree = tree_;
    tree_ = &tree;
    std::string discard;
    std::string* real_out = out_;
    for (const auto& stmt : tree.body) {
      if (auto* extends = std::get_if<ExtendsStmt>(&stmt->node)) {
        guard(*stmt, [&] {
          Value scratch;
          parent = &load(lookup_located(*extends->name, frame, scratch), false)->tree();
          require_no_cycle(chain, *parent);
          if (levels_ - tree.height + parent->height > env_.options().max_nesting)
            DepthGuard::too_many_levels(env_.options().max_nesting, "extends");
        });
        out_ = &discard;  // after 'extends', only blocks and definitions matter
        continue;
      }
      if (parent && std::holds_alternative<BlockStmt>(stmt->node)) continue;
      exec(*stmt, frame);
    }
    out_ = real_out;
    tree_ = saved_tree;
  }

  static void require_no_cycle(const std::vector<const TemplateTree*>& chain,
                               const TemplateTree& parent) {
    for (const TemplateTree* seen : chain) {
      if (seen != &parent) continue;
      std::string cycle;
      for (const TemplateTree* t : chain) cycle += t->name + " -> ";
      throw Error(ErrorKind::Template, "'extends' cycle: " + cycle + parent.name);
    }
  }

  // The template `name` (or the first of a list of names) names, or nullptr when missing is
  // allowed. The Environment caches what it loads for its lifetime, which outlasts the
  // render, so the template is held by pointer.
  const Template* load(const Value& name, bool ignore_missing) {
    auto try_one = [&](const Value& candidate) -> const Template* {
      if (!candidate.is_string()) {
        throw Error(ErrorKind::Template,
                    std::string("template name must be a string, got ") + candidate.type_name());
      }
      return env_.try_load(candidate.as_string()).get();
    };
    name.require_defined();
    if (name.is_list()) {
      for (const auto& candidate : name.as_list()) {
        if (const Template* loaded = try_one(candidate)) return loaded;
      }
      if (ignore_missing) return nullptr;
      throw Error(ErrorKind::Template,
                  "none of the templates " + name.repr() + " was found on the search path");
    }
    if (const Template* loaded = try_one(name)) return loaded;
    if (ignore_missing) return nullptr;
    env_.load(name.as_string());  // throws the loader's precise error
    return nullptr;
  }

  // ----- statements -----

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
  Error too_many_steps() const {
    return Error(ErrorKind::Render, "this render took more than " +
                                        std::to_string(env_.options().max_steps) +
                                        " steps (loop iterations and macro calls; "
                                        "EnvironmentOptions::max_steps)");
  }

  // After output grew: one render's output is bounded (EnvironmentOptions::max_output_size).
  void check_output() const {
    if (out_->size() > env_.options().max_output_size) {
      throw Error(ErrorKind::Render, "the output grew past " +
                                         std::to_string(env_.options().max_output_size) +
                                         " bytes (EnvironmentOptions::max_output_size)");
    }
  }

  Error locate(const Error& error, std::size_t offset) const {
    auto [line, column] = line_column(tree_->source, offset);
    Location where{tree_->origin, line, column};
    return error.located(where, std::string(line_text(tree_->source, offset)));
  }

  void emit(std::string_view text, std::size_t offset) {
    if (marks_ && out_ == root_out()) marks_->push_back({out_->size(), tree_, offset});
    out_->append(text);
    check_output();
  }
  const std::string* root_out() const { return root_out_; }

  void exec_body(const Body& body, Frame& frame) {
    for (const auto& stmt : body) exec(*stmt, frame);
  }

  void exec(const Stmt& stmt, Frame& frame) {
    // Text, most of what a template runs, is written without the dispatch.
    if (auto* text = std::get_if<TextStmt>(&stmt.node)) {
      exec_node(stmt, *text, frame);
      return;
    }
    std::visit([&](const auto& node) { exec_node(stmt, node, frame); }, stmt.node);
  }

  void exec_node(const Stmt& stmt, const TextStmt& node, Frame&) { emit(node.text, stmt.offset); }

  void exec_node(const Stmt& stmt, const PrintStmt& node, Frame& frame) {
    // `{{ macro(...) }}` renders the macro straight into the output instead of capturing
    // its text and copying it (the output is the same).
    if (auto* call = std::get_if<Call>(&node.expr->node)) {
      if (auto* name = std::get_if<NameRef>(&call->callee->node)) {
        const Value* callee = frame.find(name->name, name->hash, name->where);
        if (callee && callee->is_callable()) {
          if (auto* macro = as_macro(callee->as_callable())) {
            if (marks_ && out_ == root_out()) marks_->push_back({out_->size(), tree_, stmt.offset});
            try {
              call_macro(*macro, call->args, frame, out_);
            } catch (const Error& error) {
              if (error.has_location()) throw;
              throw locate(error, node.expr->offset);
            }
            return;
          }
        }
      }
    }
    Value scratch;
    if (auto* filter = std::get_if<FilterExpr>(&node.expr->node);
        filter && filter->builtin_tojson) {
      // `{{ x | tojson }}`, the commonest print in a .json template: the subject is looked up
      // in place and its JSON appended, with no text value in between.
      const Value& subject = lookup(*filter->subject, frame, scratch);
      if (marks_ && out_ == root_out()) marks_->push_back({out_->size(), tree_, stmt.offset});
      try {
        append_tojson(*out_, subject);
      } catch (const Error& error) {
        if (error.has_location()) throw;
        throw locate(error, node.expr->offset);
      }
      return;
    }
    const Value& value = lookup(*node.expr, frame, scratch);
    if (marks_ && out_ == root_out()) marks_->push_back({out_->size(), tree_, stmt.offset});
    try {
      value.append_str(*out_);
      check_output();
    } catch (const Error& error) {
      throw error.has_location() ? error : locate(error, node.expr->offset);
    }
  }

  void exec_node(const Stmt&, const IfStmt& node, Frame& frame) {
    for (const auto& [test, body] : node.branches) {
      if (truthy(*test, frame)) {
        exec_body(body, frame);
        return;
      }
    }
    exec_body(node.otherwise, frame);
  }

  bool truthy(const Expr& expr, const Frame& frame) {
    // Comparisons and tests, the usual conditions, answer without making a bool Value; their
    // errors get the location eval() would give them.
    auto* compare = std::get_if<Compare>(&expr.node);
    auto* test = std::get_if<TestExpr>(&expr.node);
    if (compare || test) {
      try {
        return compare ? compare_chain(*compare, frame) : test_result(expr, *test, frame);
      } catch (const Error& error) {
        throw error.has_location() ? error : locate(error, expr.offset);
      }
    }
    std::optional<Value> scratch;
    const Value& v = lookup(expr, frame, scratch);
    try {
      return v.truthy();
    } catch (const Error& error) {
      throw error.has_location() ? error : locate(error, expr.offset);
    }
  }

  ValueList iterate(const Value& iterable, std::size_t offset) {
    try {
      if (iterable.is_lenient_undefined()) return {};
      iterable.require_defined();
      if (iterable.is_list()) return iterable.as_list();
      if (iterable.is_dict()) {
        ValueList keys;
        for (const auto& [key, value] : iterable.as_dict()) keys.emplace_back(key);
        return keys;
      }
      if (iterable.is_string()) {
        ValueList chars;
        const std::string& s = iterable.as_string();
        for (std::size_t i = 0; i < s.size();) {
          std::size_t n = 1;
          unsigned char c = static_cast<unsigned char>(s[i]);
          if (c >= 0xF0)
            n = 4;
          else if (c >= 0xE0)
            n = 3;
          else if (c >= 0xC0)
            n = 2;
          chars.emplace_back(s.substr(i, n));
          i += n;
        }
        return chars;
      }
      throw Error(ErrorKind::Render,
                  std::string("'") + iterable.type_name() + "' object is not iterable");
    } catch (const Error& error) {
      throw error.has_location() ? error : locate(error, offset);
    }
  }

  void assign_targets(Frame& frame, const std::vector<Target>& targets, Value&& value,
                      std::size_t offset) {
    if (targets.size() == 1) {
      frame.assign(targets.front(), std::move(value));
      return;
    }
    assign_targets(frame, targets, static_cast<const Value&>(value), offset);
  }

  void assign_targets(Frame& frame, const std::vector<Target>& targets, const Value& value,
                      std::size_t offset) {
    if (targets.size() == 1) {
      frame.assign(targets.front(), value);
      return;
    }
    try {
      value.require_defined();
      // Python unpacks any iterable: a string gives its characters, a dict its keys.
      if (!value.is_list() && !value.is_string() && !value.is_dict()) {
        throw Error(ErrorKind::Render,
                    std::string("cannot unpack non-iterable ") + value.type_name() + " object");
      }
      ValueList storage;
      const ValueList& items = detail::iterate(value, storage);
      if (items.size() != targets.size()) {
        throw Error(ErrorKind::Render,
                    (items.size() < targets.size() ? "not enough values to unpack (expected "
                                                   : "too many values to unpack (expected ") +
                        std::to_string(targets.size()) + ", got " + std::to_string(items.size()) +
                        ")");
      }
      for (std::size_t i = 0; i < targets.size(); ++i) frame.assign(targets[i], items[i]);
    } catch (const Error& error) {
      throw error.has_location() ? error : locate(error, offset);
    }
  }

  void exec_node(const Stmt& stmt, const ForStmt& node, Frame& frame) {
    Value iterable = eval(*node.iterable, frame);
    // A list is iterated in place (values are immutable); other iterables are listed first.
    ValueList storage;
    const ValueList* list = &storage;
    if (iterable.is_list()) {
      list = &iterable.as_list();
    } else {
      storage = iterate(iterable, node.iterable->offset);
    }
    Frame loop_frame(&frame, node.scope);
    if (node.condition) {
      ValueList kept;
      for (const auto& item : *list) {
        step(stmt.offset);
        loop_frame.clear();
        assign_targets(loop_frame, node.targets, item, stmt.offset);
        if (truthy(*node.condition, loop_frame)) kept.push_back(item);
      }
      storage = std::move(kept);
      list = &storage;
    }
    const ValueList& items = *list;
    if (items.empty()) {
      Frame else_frame(&frame, node.else_scope);
      exec_body(node.otherwise, else_frame);
      return;
    }
    const auto length = static_cast<std::int64_t>(items.size());
    for (std::int64_t i = 0; i < length; ++i) {
      step(stmt.offset);
      loop_frame.clear();
      if (node.uses_loop) {
        ValueDict loop;
        loop.set("index", Value(i + 1));
        loop.set("index0", Value(i));
        loop.set("revindex", Value(length - i));
        loop.set("revindex0", Value(length - i - 1));
        loop.set("first", Value(i == 0));
        loop.set("last", Value(i == length - 1));
        loop.set("length", Value(length));
        loop.set("depth", Value(1));
        loop.set("depth0", Value(0));
        loop.set("previtem",
                 i > 0 ? items[static_cast<std::size_t>(i - 1)]
                       : Value::undefined("'loop.previtem' is undefined on the first iteration"));
        loop.set("nextitem",
                 i + 1 < length
                     ? items[static_cast<std::size_t>(i + 1)]
                     : Value::undefined("'loop.nextitem' is undefined on the last iteration"));
        loop_frame.assign(node.loop, Value(std::move(loop)));
      }
      assign_targets(loop_frame, node.targets, items[static_cast<std::size_t>(i)], stmt.offset);
      exec_body(node.body, loop_frame);
    }
  }

  void exec_node(const Stmt& stmt, const SetStmt& node, Frame& frame) {
    assign_targets(frame, node.targets, eval(*node.value, frame), stmt.offset);
  }

  std::string capture(const Body& body, Frame& frame) {
    std::string buffer;
    std::string* saved = out_;
    out_ = &buffer;
    try {
      exec_body(body, frame);
    } catch (...) {
      out_ = saved;
      throw;
    }
    out_ = saved;
    return buffer;
  }

  Value apply_filters(Value value, const std::vector<FilterCall>& filters, const Frame& frame) {
    for (const auto& filter : filters) {
      try {
        ArgumentsLease bound(*this);
        bind_call(*filter.spec, "filter", filter.args, frame, bound.args);
        value = filter.spec->body(value, bound.args, *this);
      } catch (const Error& error) {
        throw error.has_location() ? error : locate(error, filter.offset);
      }
    }
    return value;
  }

  // As in Jinja2, the filters of a set or filter block run in the block's scope, after its
  // body: their arguments see what the body assigned.
  void exec_node(const Stmt&, const SetBlockStmt& node, Frame& frame) {
    Frame inner(&frame, node.scope);
    Value value(capture(node.body, inner));
    frame.assign(node.target, apply_filters(std::move(value), node.filters, inner));
  }

  void exec_node(const Stmt&, const FilterBlockStmt& node, Frame& frame) {
    Frame inner(&frame, node.scope);
    Value value(capture(node.body, inner));
    Value result = apply_filters(std::move(value), node.filters, inner);
    emit(result.str(), 0);
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
    [[noreturn, gnu::noinline]] static void too_deep(int max_depth, const char* what) {
      throw Error(ErrorKind::Render,
                  std::string("recursion too deep: more than ") + std::to_string(max_depth) +
                      " nested includes, macro calls or blocks (at " + what + ")");
    }
    [[noreturn, gnu::noinline]] static void too_many_levels(int max_nesting, const char* what) {
      throw Error(ErrorKind::Render,
                  std::string("recursion too deep: the includes, imports, parent templates, "
                              "blocks and macro calls open here nest their statements and "
                              "expressions deeper than ") +
                      std::to_string(max_nesting) + " levels (at " + what +
                      "; EnvironmentOptions::max_nesting raises the limit)");
    }
  };

  void exec_node(const Stmt& stmt, const IncludeStmt& node, Frame& frame) {
    const Template* included = nullptr;
    std::optional<DepthGuard> depth;
    guard(stmt, [&] {
      Value scratch;
      included = load(lookup_located(*node.name, frame, scratch), node.ignore_missing);
      if (included) depth.emplace(*this, "include", included->tree().height);
    });
    if (!included) return;
    const TemplateTree* saved_tree = tree_;
    Frame inner(included->tree().scope);
    if (node.with_context) {
      inner.attach(&frame);
    } else {
      inner.set_context(nullptr);  // no names at all
    }
    try {
      render_template(included->tree(), inner);
    } catch (const Error& error) {
      tree_ = saved_tree;
      if (error.has_location()) throw;
      throw locate(error, stmt.offset);
    }
    tree_ = saved_tree;
  }

  void exec_node(const Stmt& stmt, const ExtendsStmt&, Frame&) {
    // Handled by render_body_until_extends; reaching it here means a nested body.
    throw locate(Error(ErrorKind::Syntax, "'extends' must be at the top level of a template"),
                 stmt.offset);
  }

  void exec_node(const Stmt& stmt, const BlockStmt& node, Frame& frame) {
    if (blocks_.count(node.name) == 0) {
      render_block_level({&node, tree_}, node.name, 0, frame, node.scoped, stmt.offset);
      return;
    }
    // Jinja2 takes `scoped` from the block where it stands; overrides need not repeat it.
    BlockLevel first = blocks_.at(node.name, 0);
    render_block_level(first, node.name, 0, frame, node.scoped || first.block->scoped, stmt.offset);
  }

  // `site`: where the current template enters the block (the block statement, or super()).
  void render_block_level(BlockLevel level, std::string_view name, std::size_t index,
                          const Frame& frame, bool scoped, std::size_t site) {
    std::optional<DepthGuard> depth;
    try {
      depth.emplace(*this, "block", level.block->height);
    } catch (const Error& error) {
      throw locate(error, site);
    }
    if (level.block->required && level.block->body.empty() && index + 1 >= levels_of(name)) {
      throw locate(
          Error(ErrorKind::Render, "required block '" + std::string(name) + "' was not overridden"),
          0);
    }
    const TemplateTree* saved_tree = tree_;
    tree_ = level.tree;
    block_stack_.push_back({name, index, &frame, scoped});
    Frame inner(scoped ? &frame : template_level_of(frame), level.block->scope);
    try {
      exec_body(level.block->body, inner);
    } catch (...) {
      block_stack_.pop_back();
      tree_ = saved_tree;
      throw;
    }
    block_stack_.pop_back();
    tree_ = saved_tree;
  }

  std::size_t levels_of(std::string_view name) const {
    std::size_t levels = blocks_.count(name);
    return levels == 0 ? 1 : levels;
  }

  // The frame of the top level of the template `frame` runs in, which an unscoped block
  // sees (as Jinja2's blocks see the template's context): in an included template, its own
  // top level, attached to the includer's frame, and not the includer's top level.
  static const Frame* template_level_of(const Frame& frame) {
    const Frame* f = &frame;
    while (f->parent && !f->is_template_level()) f = f->parent;
    return f;
  }

  Value render_super(std::size_t offset) {
    if (block_stack_.empty())
      throw locate(Error(ErrorKind::Render, "'super()' called outside a block"), offset);
    auto [name, index, frame, scoped] = block_stack_.back();
    if (index + 1 >= blocks_.count(name)) {
      throw locate(Error(ErrorKind::Render,
                         "block '" + std::string(name) + "' has no parent block for 'super()'"),
                   offset);
    }
    std::string buffer;
    std::string* saved = out_;
    out_ = &buffer;
    try {
      render_block_level(blocks_.at(name, index + 1), name, index + 1, *frame, scoped, offset);
    } catch (...) {
      out_ = saved;
      throw;
    }
    out_ = saved;
    return Value(std::move(buffer));
  }

  void exec_node(const Stmt&, const MacroStmt& node, Frame& frame) {
    // The Macro lives in the render's arena and the value points at it without owning it
    // (an aliasing shared_ptr with no owner): defining a macro allocates nothing, and passing
    // it around counts no references. A Macro holds only references, so the arena releases
    // it without running its destructor; no value outlives the render.
    const Macro* macro =
        new (arena_.allocate(sizeof(Macro), alignof(Macro))) Macro(node, *tree_, frame);
    frame.assign(node.target,
                 Value(std::shared_ptr<const Callable>(std::shared_ptr<const Callable>(), macro)));
  }

  // Runs a template as a module (for import) and returns its exported names.
  Value import_module(const Stmt& stmt, const Expr& name_expr, bool with_context, Frame& frame) {
    const Template* loaded = nullptr;
    guard(stmt, [&] {
      Value scratch;
      loaded = load(lookup_located(name_expr, frame, scratch), false);
    });
    std::optional<DepthGuard> depth;
    guard(stmt, [&] { depth.emplace(*this, "import", loaded->tree().height); });
    auto& module = *modules_.emplace_back(std::make_unique<Module>(loaded->tree().scope));
    // As in Jinja2, `with context` hands the module the names visible here as they are now:
    // its macros, called later, do not see what the importer sets after the import.
    if (with_context) module.context = visible_names(frame);
    Frame& module_frame = module.frame;
    module_frame.set_context(with_context ? &module.context : nullptr);
    std::string discard;
    std::string* saved = out_;
    const TemplateTree* saved_tree = tree_;
    out_ = &discard;
    ValueDict exported;
    try {
      render_template(loaded->tree(), module_frame, &exported);
    } catch (...) {
      out_ = saved;
      tree_ = saved_tree;
      throw;
    }
    out_ = saved;
    tree_ = saved_tree;
    return Value(std::move(exported));
  }

  // Every name `frame` sees, with its innermost value, as one dict.
  static Value visible_names(const Frame& frame) {
    std::vector<const Frame*> chain;
    for (const Frame* f = &frame; f; f = f->parent) chain.push_back(f);
    ValueDict names;
    if (const ValueDict* globals = frame.globals()) names = *globals;
    if (const ValueDict* context = frame.context()) {
      if (names.empty()) {
        names = *context;
      } else {
        for (const auto& [name, value] : *context) names.set(name, value);
      }
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      (*it)->for_each(
          [&](std::string_view name, const Value& value) { names.set(std::string(name), value); });
    }
    return Value(std::move(names));
  }

  void exec_node(const Stmt& stmt, const ImportStmt& node, Frame& frame) {
    frame.assign(node.alias, import_module(stmt, *node.name, node.with_context, frame));
  }

  void exec_node(const Stmt& stmt, const FromImportStmt& node, Frame& frame) {
    Value module = import_module(stmt, *node.name, node.with_context, frame);
    for (const auto& [name, alias] : node.names) {
      const Value* value = module.as_dict().find(name);
      if (!value) {
        throw locate(
            Error(ErrorKind::Template, "the imported template does not export '" + name + "'"),
            stmt.offset);
      }
      frame.assign(alias, *value);
    }
  }

  void exec_node(const Stmt&, const WithStmt& node, Frame& frame) {
    Frame inner(&frame, node.scope);
    std::vector<Value> values;
    for (const auto& [target, expr] : node.assignments) values.push_back(eval(*expr, frame));
    for (std::size_t i = 0; i < values.size(); ++i)
      inner.assign(node.assignments[i].first, std::move(values[i]));
    exec_body(node.body, inner);
  }

  // ----- expressions -----

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

  // The same, as a call: GCC cannot tell that default_in_place never returns its local
  // scratch value when it sees through lookup.
  [[gnu::noinline]] const Value& lookup_outlined(const Expr& expr, const Frame& frame,
                                                 Value& scratch) {
    return lookup(expr, frame, scratch);
  }

  [[gnu::noinline]] const Value& lookup_compound(const Expr& expr, const Frame& frame,
                                                 Value& scratch) {
    if (auto* conditional = std::get_if<Conditional>(&expr.node)) {
      if (truthy(*conditional->test, frame)) return lookup(*conditional->then, frame, scratch);
      if (conditional->otherwise) return lookup(*conditional->otherwise, frame, scratch);
      scratch = Value::lenient_undefined(kInlineIfWithoutElse);
      return scratch;
    } else if (auto* filter = std::get_if<FilterExpr>(&expr.node);
               filter && filter->builtin_default) {
      return default_in_place(*filter, frame, scratch);
    } else if (auto* attr = std::get_if<GetAttr>(&expr.node)) {
      Value object_scratch;
      const Value& object = lookup(*attr->object, frame, object_scratch);
      require_object(object, attr->object->offset);
      if (object.is_dict() && !(attr->maybe_method && has_method(object, attr->attribute))) {
        // A key: the value where it is (unless the dict itself is a temporary), or the
        // attribute's undefined value.
        const Value* v = object.as_dict().find(attr->attribute, attr->hash);
        if (!v) return attr->missing_key;
        if (&object != &object_scratch) return *v;
      }
      try {
        scratch = get_attribute(object, attr->attribute);
      } catch (const Error& error) {
        if (error.has_location()) throw;
        throw locate(error, expr.offset);
      }
      return scratch;
    }
    scratch = eval(expr, frame);
    return scratch;
  }

  // `x | default(v, boolean)`: the subject when it is defined (and, with `boolean`, true),
  // else `v`; either is returned without a copy. Same semantics as the filter's body.
  const Value& default_in_place(const FilterExpr& filter, const Frame& frame, Value& scratch) {
    return default_of(filter, lookup(*filter.subject, frame, scratch), frame, scratch);
  }
  // The same for a `subject` at hand, which may live in `scratch`.
  const Value& default_of(const FilterExpr& filter, const Value& subject, const Frame& frame,
                          Value& scratch) {
    // Every argument is evaluated, as Jinja2 does, even when the subject is kept.
    const auto& args = filter.args.positional;
    // The usual forms: no argument, or one literal (nothing to evaluate).
    if (args.empty())
      return subject.is_undefined() ? *filter.spec->parameters[0].default_value : subject;
    if (auto* literal = std::get_if<Literal>(&args[0]->node); literal && args.size() == 1) {
      return subject.is_undefined() ? literal->value : subject;
    }
    Value fallback_scratch, flag_scratch;
    const Value* fallback = &lookup_outlined(*args[0], frame, fallback_scratch);
    bool use_default = subject.is_undefined();
    if (!use_default && args.size() == 2) {
      const Value& flag = lookup(*args[1], frame, flag_scratch);
      try {
        use_default = flag.truthy() && !subject.truthy();
      } catch (const Error& error) {
        throw error.has_location() ? error : locate(error, args[1]->offset);
      }
    }
    if (!use_default) return subject;
    if (fallback == &fallback_scratch) {
      scratch = std::move(fallback_scratch);
      return scratch;
    }
    return *fallback;
  }

  // What eval() gives, without copying a value that exists (the name of an included
  // template): lookup() with eval()'s error location.
  const Value& lookup_located(const Expr& expr, const Frame& frame, Value& scratch) {
    try {
      return lookup(expr, frame, scratch);
    } catch (const Error& error) {
      if (error.has_location()) throw;
      throw locate(error, expr.offset);
    }
  }

  Value eval(const Expr& expr, const Frame& frame) {
    try {
      return std::visit([&](const auto& node) { return eval_node(expr, node, frame); }, expr.node);
    } catch (const Error& error) {
      if (error.has_location()) throw;
      throw locate(error, expr.offset);
    }
  }

  Value eval_node(const Expr&, const Literal& node, const Frame&) { return node.value; }

  Value eval_node(const Expr&, const NameRef& node, const Frame& frame) {
    if (const Value* v = frame.find(node.name, node.hash, node.where)) return *v;
    return node.missing;
  }

  static const char* object_type(const Value& object) {
    switch (object.kind()) {
      case Value::Kind::Dict:
        return "dict";
      case Value::Kind::List:
        return object.is_tuple() ? "tuple" : "list";
      case Value::Kind::String:
        return "str";
      case Value::Kind::Int:
        return "int";
      case Value::Kind::Float:
        return "float";
      case Value::Kind::Bool:
        return "bool";
      case Value::Kind::None:
        return "NoneType";
      default:
        return "function";
    }
  }

  static Value missing_member(const Value& object, const Value& key) {
    std::string type = std::string(object_type(object)) + " object";
    if (key.is_string())
      return Value::undefined("'" + type + "' has no attribute '" + key.as_string() + "'");
    return Value::undefined("'" + type + "' has no element " + key.repr());
  }

  // `object.name`: Jinja2 tries the Python attribute (a method) first, then the key.
  Value get_attribute(const Value& object, const std::string& name) {
    object.require_defined();
    if (has_method(object, name)) return bind_method(object, name);
    if (object.is_dict()) {
      if (const Value* v = object.as_dict().find(name)) return *v;
    }
    return Value::undefined_attribute(object_type(object), name);
  }

  // `object[key]`: Jinja2 tries the key first, then the attribute.
  Value get_item(const Value& object, const Value& key) {
    object.require_defined();
    if (object.is_dict()) {
      if (key.is_string()) {
        if (const Value* v = object.as_dict().find(key.as_string())) return *v;
        if (has_method(object, key.as_string())) return bind_method(object, key.as_string());
      }
      return missing_member(object, key);
    }
    if (object.is_list() || object.is_string()) {
      if (key.is_string()) {
        if (has_method(object, key.as_string())) return bind_method(object, key.as_string());
        return missing_member(object, key);
      }
      if (!key.is_int() && !key.is_bool()) return missing_member(object, key);
      std::int64_t index = key.as_int();
      if (object.is_list()) {
        const auto& list = object.as_list();
        auto size = static_cast<std::int64_t>(list.size());
        if (index < 0) index += size;
        if (index < 0 || index >= size) return missing_member(object, key);
        return list[static_cast<std::size_t>(index)];
      }
      ValueList chars = iterate(object, 0);
      auto size = static_cast<std::int64_t>(chars.size());
      if (index < 0) index += size;
      if (index < 0 || index >= size) return missing_member(object, key);
      return chars[static_cast<std::size_t>(index)];
    }
    return missing_member(object, key);
  }

  // `object.name` fails on an undefined object, where the object was written (`at`).
  void require_object(const Value& object, std::size_t at) const {
    if (object.is_undefined()) {
      throw locate(Error(ErrorKind::Undefined, object.undefined_description()), at);
    }
  }

  Value eval_node(const Expr&, const GetAttr& node, const Frame& frame) {
    Value scratch;
    const Value& object = lookup(*node.object, frame, scratch);
    require_object(object, node.object->offset);
    return get_attribute(object, node.attribute);
  }

  Value eval_node(const Expr&, const GetItem& node, const Frame& frame) {
    return item_of(node, eval(*node.object, frame), frame);
  }
  Value item_of(const GetItem& node, const Value& object, const Frame& frame) {
    Value key = eval(*node.key, frame);
    key.require_defined();
    return get_item(object, key);
  }

  Value eval_node(const Expr&, const SliceExpr& node, const Frame& frame) {
    return slice_of(node, eval(*node.object, frame), frame);
  }
  Value slice_of(const SliceExpr& node, const Value& object, const Frame& frame) {
    object.require_defined();
    auto bound = [&](const ExprPtr& e) -> std::optional<std::int64_t> {
      if (!e) return std::nullopt;
      Value v = eval(*e, frame);
      if (v.is_none()) return std::nullopt;
      return v.as_int();
    };
    auto start = bound(node.start), stop = bound(node.stop), step_opt = bound(node.step);
    std::int64_t step = step_opt.value_or(1);
    if (step == 0) throw Error(ErrorKind::Render, "slice step cannot be zero");
    ValueList items = object.is_list() ? object.as_list() : iterate(object, 0);
    auto n = static_cast<std::int64_t>(items.size());
    auto clamp = [&](std::optional<std::int64_t> v, std::int64_t dflt) {
      if (!v) return dflt;
      std::int64_t x = *v;
      if (x < 0) x += n;
      if (step > 0) return std::clamp<std::int64_t>(x, 0, n);
      return std::clamp<std::int64_t>(x, -1, n - 1);
    };
    std::int64_t b = clamp(start, step > 0 ? 0 : n - 1);
    std::int64_t e = clamp(stop, step > 0 ? n : -1);
    ValueList out;
    for (std::int64_t i = b; step > 0 ? i < e : i > e; i += step)
      out.push_back(items[static_cast<std::size_t>(i)]);
    if (object.is_string()) {
      std::string s;
      for (const auto& c : out) s += c.as_string();
      return Value(std::move(s));
    }
    return object.is_tuple() ? Value::tuple(std::move(out)) : Value(std::move(out));
  }

  Value eval_node(const Expr&, const Unary& node, const Frame& frame) {
    Value scratch;
    return apply_unary(node.op, lookup(*node.operand, frame, scratch));
  }

  // A chain of one precedence level, left to right, each operator's errors at the operator.
  Value eval_node(const Expr&, const Binary& node, const Frame& frame) {
    const BinaryOp level = node.rest.front().op;
    if (level == BinaryOp::And || level == BinaryOp::Or) {
      // `a and b and c` is `(a and b) and c`: each operator keeps the value so far, or takes
      // its operand's (evaluated only then).
      Value value = eval(*node.first, frame);
      for (const BinaryOperand& operand : node.rest) {
        bool keep;
        try {
          const bool t = value.truthy();
          keep = operand.op == BinaryOp::And ? !t : t;
        } catch (const Error& error) {
          throw error.has_location() ? error : locate(error, operand.offset);
        }
        if (!keep) value = eval(*operand.operand, frame);
      }
      return value;
    }
    if (level == BinaryOp::Concat) return concat_chain(node, frame);
    std::optional<Value> first_scratch, operand_scratch;
    const Value& first = lookup(*node.first, frame, first_scratch);
    const BinaryOperand& second = node.rest.front();
    Value value = apply_at(second, first, lookup(*second.operand, frame, operand_scratch));
    for (std::size_t i = 1; i < node.rest.size(); ++i) {
      std::optional<Value> scratch;
      value = apply_at(node.rest[i], value, lookup(*node.rest[i].operand, frame, scratch));
    }
    return value;
  }
  Value apply_at(const BinaryOperand& operand, const Value& left, const Value& right) const {
    try {
      return apply_binary(operand.op, left, right);
    } catch (const Error& error) {
      throw error.has_location() ? error : locate(error, operand.offset);
    }
  }
  // `a ~ b ~ c` appends each operand's text to one string, as Jinja2 joins a Concat node's
  // operands: a long chain takes linear time, not the quadratic of one new string per `~`.
  // Each step's value and error are apply_binary's.
  Value concat_chain(const Binary& node, const Frame& frame) {
    std::optional<Value> first_scratch;
    const Value& first = lookup(*node.first, frame, first_scratch);
    std::string out;
    for (const BinaryOperand& operand : node.rest) {
      std::optional<Value> scratch;
      const Value& right = lookup(*operand.operand, frame, scratch);
      try {
        if (&operand == &node.rest.front()) out = first.str();
        right.append_str(out);
        check_value_size(out.size(), "~");
      } catch (const Error& error) {
        throw error.has_location() ? error : locate(error, operand.offset);
      }
    }
    return Value(std::move(out));
  }

  Value eval_node(const Expr&, const Compare& node, const Frame& frame) {
    return Value(compare_chain(node, frame));
  }

  bool compare_chain(const Compare& node, const Frame& frame) {
    // Operands are looked up in place; a chain `a < b < c` alternates two scratch values.
    std::optional<Value> scratch[2];
    const Value* left = &lookup(*node.first, frame, scratch[0]);
    std::size_t next = 1;
    for (const auto& [op, expr] : node.rest) {
      const Value& right = lookup(*expr, frame, scratch[next]);
      if (!apply_compare(op, *left, right)) return false;
      left = &right;
      next ^= 1;
    }
    return true;
  }

  Value eval_node(const Expr&, const Conditional& node, const Frame& frame) {
    if (truthy(*node.test, frame)) return eval(*node.then, frame);
    if (node.otherwise) return eval(*node.otherwise, frame);
    return Value::lenient_undefined(kInlineIfWithoutElse);
  }

  Value eval_node(const Expr&, const ListExpr& node, const Frame& frame) {
    ValueList list;
    list.reserve(node.items.size());
    for (const auto& item : node.items) list.push_back(eval(*item, frame));
    return node.tuple ? Value::tuple(std::move(list)) : Value(std::move(list));
  }

  Value eval_node(const Expr&, const DictExpr& node, const Frame& frame) {
    ValueDict dict;
    for (const auto& [key_expr, value_expr] : node.items) {
      Value key = eval(*key_expr, frame);
      key.require_defined();
      if (!key.is_string()) {
        throw Error(ErrorKind::Render,
                    std::string("dict keys must be strings here, got ") + key.type_name());
      }
      dict.set(key.as_string(), eval(*value_expr, frame));
    }
    return Value(std::move(dict));
  }

  std::pair<std::vector<Value>, std::vector<std::pair<std::string, Value>>> eval_args(
      const CallArguments& args, const Frame& frame) {
    std::vector<Value> positional;
    positional.reserve(args.positional.size());
    for (const auto& arg : args.positional) positional.push_back(eval(*arg, frame));
    std::vector<std::pair<std::string, Value>> keyword;
    for (const auto& [name, arg] : args.keyword) keyword.emplace_back(name, eval(*arg, frame));
    return {std::move(positional), std::move(keyword)};
  }

  // Binds call arguments to `spec`'s parameters in `args`. `positional(i)` and
  // `keyword_value(i)` produce the arguments in call order; every one is produced before a
  // binding error is raised, as in Python. `kind` and `spec.name` name the function in
  // errors ("filter 'round' got ..."); the text is only built when there is an error.
  template <typename Positional, typename KeywordName, typename KeywordValue>
  static void bind_core(const FunctionSpec& spec, const char* kind, std::size_t positional_count,
                        Positional&& positional, std::size_t keyword_count,
                        KeywordName&& keyword_name, KeywordValue&& keyword_value, Arguments& args) {
    auto what = [&] { return std::string(kind) + " '" + spec.name + "'"; };
    const auto& params = spec.parameters;
    if (params.size() > 64)
      throw Error(ErrorKind::Plugin, what() + " declares more than 64 parameters");
    args.bound.resize(params.size());
    std::unique_ptr<Error> deferred;  // the first binding error (cheaper than an optional)
    std::uint64_t given = 0;          // bit i: parameter i was passed
    for (std::size_t i = 0; i < positional_count; ++i) {
      if (i < params.size()) {
        args.bound[i] = positional(i);
        given |= std::uint64_t{1} << i;
      } else if (spec.variadic) {
        args.extra_positional.push_back(positional(i));
      } else {
        (void)positional(i);
        if (!deferred) {
          deferred = std::make_unique<Error>(
              ErrorKind::Render, what() + " takes at most " + std::to_string(params.size()) +
                                     " argument" + (params.size() == 1 ? "" : "s") + " (" +
                                     std::to_string(positional_count) + " given)");
        }
      }
    }
    for (std::size_t k = 0; k < keyword_count; ++k) {
      const std::string& name = keyword_name(k);
      Value value = keyword_value(k);
      std::size_t i = 0;
      while (i < params.size() && params[i].name != name) ++i;
      if (i < params.size()) {
        if (given & (std::uint64_t{1} << i)) {
          if (!deferred)
            deferred = std::make_unique<Error>(
                ErrorKind::Render, what() + " got multiple values for argument '" + name + "'");
          continue;
        }
        args.bound[i] = std::move(value);
        given |= std::uint64_t{1} << i;
      } else if (spec.variadic) {
        args.extra_keywords.emplace_back(name, std::move(value));
      } else if (!deferred) {
        deferred = std::make_unique<Error>(
            ErrorKind::Render, what() + " got an unexpected keyword argument '" + name + "'");
      }
    }
    if (deferred) throw *deferred;
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (given & (std::uint64_t{1} << i)) continue;
      if (!params[i].default_value) {
        throw Error(ErrorKind::Render,
                    what() + " is missing required argument '" + params[i].name + "'");
      }
      args.bound[i] = *params[i].default_value;
    }
  }

  // Binds already evaluated arguments (filters and tests that other filters call).
  static Arguments bind(const FunctionSpec& spec, const char* kind, std::vector<Value> positional,
                        std::vector<std::pair<std::string, Value>> keyword) {
    Arguments args;
    bind_core(
        spec, kind, positional.size(), [&](std::size_t i) { return std::move(positional[i]); },
        keyword.size(), [&](std::size_t k) -> const std::string& { return keyword[k].first; },
        [&](std::size_t k) { return std::move(keyword[k].second); }, args);
    return args;
  }

  // Evaluates a call site's arguments in `frame` straight into their parameters.
  void bind_call(const FunctionSpec& spec, const char* kind, const CallArguments& call,
                 const Frame& frame, Arguments& args) {
    bind_core(
        spec, kind, call.positional.size(),
        [&](std::size_t i) { return eval(*call.positional[i], frame); }, call.keyword.size(),
        [&](std::size_t k) -> const std::string& { return call.keyword[k].first; },
        [&](std::size_t k) { return eval(*call.keyword[k].second, frame); }, args);
  }

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
  Arguments& acquire_arguments() {
    const std::size_t i = arguments_in_use_++;
    Arguments* args;
    if (i < arguments_inline_.size()) {
      args = &arguments_inline_[i];
    } else {
      const std::size_t more = i - arguments_inline_.size();
      if (more == arguments_more_.size()) arguments_more_.push_back(std::make_unique<Arguments>());
      args = arguments_more_[more].get();
    }
    // Room for any builtin's parameters at the first use, so later calls never regrow it.
    if (args->bound.capacity() == 0) args->bound.reserve(kBoundCapacity);
    return *args;
  }
  static constexpr std::size_t kBoundCapacity = 8;

  // Calls a filter or test. `direct` (set only for calls without arguments) skips
  // std::function, and the binder too when there are no parameters to fill.
  Value call_function(const FunctionSpec& spec, DirectBody direct, const char* kind,
                      const CallArguments& call, const Value& subject, const Frame& frame) {
    if (direct && spec.parameters.empty()) {
      Arguments none;
      return direct(subject, none, *this);
    }
    ArgumentsLease bound(*this);
    bind_call(spec, kind, call, frame, bound.args);
    return direct ? direct(subject, bound.args, *this) : spec.body(subject, bound.args, *this);
  }

  Value eval_node(const Expr& expr, const FilterExpr& node, const Frame& frame) {
    Value scratch;
    if (node.builtin_default) {
      const Value& result = default_in_place(node, frame, scratch);
      if (&result == &scratch) return scratch;
      return result;
    }
    return filter_of(expr, node, lookup(*node.subject, frame, scratch), frame);
  }
  // `subject | filter`, but the built-in `default` (default_of).
  Value filter_of(const Expr& expr, const FilterExpr& node, const Value& subject,
                  const Frame& frame) {
    try {
      if (node.builtin_tojson) {
        std::string json;
        append_tojson(json, subject);
        return Value(std::move(json));
      }
      return call_function(*node.spec, node.direct, "filter", node.args, subject, frame);
    } catch (const Error& error) {
      if (error.has_location()) throw;
      throw locate(error, expr.offset);
    }
  }

  Value eval_node(const Expr& expr, const TestExpr& node, const Frame& frame) {
    return Value(test_result(expr, node, frame));
  }

  bool test_result(const Expr& expr, const TestExpr& node, const Frame& frame) {
    std::optional<Value> scratch;
    return test_of(expr, node, lookup(*node.subject, frame, scratch), frame);
  }
  bool test_of(const Expr& expr, const TestExpr& node, const Value& subject, const Frame& frame) {
    try {
      bool result =
          call_function(*node.spec, node.direct, "test", node.args, subject, frame).truthy();
      return node.negated ? !result : result;
    } catch (const Error& error) {
      if (error.has_location()) throw;
      throw locate(error, expr.offset);
    }
  }

  Value eval_node(const Expr& expr, const Call& node, const Frame& frame) {
    // `name(...)`: a macro or variable in scope wins over a global function.
    if (auto* name = std::get_if<NameRef>(&node.callee->node)) {
      const Value* local = frame.find(name->name, name->hash, name->where);
      if (!local) {
        if (name->name == "super" && node.args.positional.empty() && node.args.keyword.empty()) {
          return render_super(expr.offset);
        }
        if (const FunctionSpec* spec = env_.functions().find(FunctionKind::Global, name->name)) {
          ArgumentsLease bound(*this);
          bind_call(*spec, "function", node.args, frame, bound.args);
          return spec->body(Value(), bound.args, *this);
        }
        throw Error(ErrorKind::Undefined, "undefined function or variable '" + name->name + "'");
      }
    }
    if (auto* attr = std::get_if<GetAttr>(&node.callee->node)) {
      // `object.method(...)`: the method is called on the object where it is, with no bound
      // method made first.
      Value scratch;
      const Value& object = lookup(*attr->object, frame, scratch);
      if (attr->maybe_method && has_method(object, attr->attribute)) {
        auto [positional, keyword] = eval_args(node.args, frame);
        return call_method(object, attr->attribute, positional, keyword);
      }
      require_object(object, attr->object->offset);
      return call_of(node, get_attribute(object, attr->attribute), frame);
    }
    return call_of(node, eval(*node.callee, frame), frame);
  }
  // `callee(...)` for a callee already evaluated: a macro or a bound method.
  Value call_of(const Call& node, const Value& callee, const Frame& frame) {
    callee.require_defined();
    if (!callee.is_callable()) {
      throw Error(ErrorKind::Render,
                  std::string("'") + callee.type_name() + "' object is not callable");
    }
    if (auto* macro = as_macro(callee.as_callable())) {
      std::string buffer;
      call_macro(*macro, node.args, frame, &buffer);
      return Value(std::move(buffer));
    }
    auto [positional, keyword] = eval_args(node.args, frame);
    Value result;
    if (call_bound_method(callee, positional, keyword, result)) return result;
    throw Error(ErrorKind::Render, "'" + callee.as_callable()->name() + "' cannot be called here");
  }

  // A long chain stored flat: each link applied to the value so far, with the value and the
  // errors the nested nodes would give. `previous`: where the value so far was written.
  Value eval_node(const Expr&, const Chain& node, const Frame& frame) {
    Value value = eval(*node.subject, frame);
    std::size_t previous = node.subject->offset;
    for (const ExprPtr& link : node.links) {
      value = apply_link(*link, value, previous, frame);
      previous = link->offset;
    }
    return value;
  }
  Value apply_link(const Expr& link, const Value& value, std::size_t previous, const Frame& frame) {
    try {
      if (auto* attr = std::get_if<GetAttr>(&link.node)) {
        require_object(value, previous);
        return get_attribute(value, attr->attribute);
      }
      if (auto* item = std::get_if<GetItem>(&link.node)) return item_of(*item, value, frame);
      if (auto* slice = std::get_if<SliceExpr>(&link.node)) return slice_of(*slice, value, frame);
      if (auto* call = std::get_if<Call>(&link.node)) return call_of(*call, value, frame);
      if (auto* filter = std::get_if<FilterExpr>(&link.node)) {
        if (!filter->builtin_default) return filter_of(link, *filter, value, frame);
        Value scratch;
        return default_of(*filter, value, frame, scratch);
      }
      return Value(test_of(link, std::get<TestExpr>(link.node), value, frame));
    } catch (const Error& error) {
      if (error.has_location()) throw;
      throw locate(error, link.offset);
    }
  }

  // Runs a macro, writing its output to `target`. The arguments are evaluated in `caller`,
  // left to right, straight into the macro's frame; binding errors are raised once all of
  // them are evaluated.
  void call_macro(const Macro& macro, const CallArguments& call, const Frame& caller,
                  std::string* target) {
    step();
    const MacroStmt& stmt = macro.stmt();
    const auto& params = stmt.params;
    if (params.size() > 64)
      throw Error(ErrorKind::Render,
                  "macro '" + stmt.target.name + "' declares more than 64 parameters");
    Frame inner(&macro.frame(), stmt.scope);
    std::unique_ptr<Error> deferred;  // the first binding error
    std::uint64_t given = 0;          // bit i: parameter i was passed
    for (std::size_t i = 0; i < call.positional.size(); ++i) {
      const Expr& arg = *call.positional[i];
      if (i < params.size()) {
        // A name or a literal, the usual argument, is copied straight into its slot.
        const auto slot = static_cast<std::uint16_t>(i);
        if (const Value* value = existing(arg, caller)) {
          inner.assign_slot(slot, *value);
        } else {
          inner.assign_slot(slot, eval(arg, caller));
        }
        given |= std::uint64_t{1} << i;
        continue;
      }
      (void)eval(arg, caller);  // evaluated all the same, as Python does before failing
      if (!deferred) {
        deferred = std::make_unique<Error>(ErrorKind::Render,
                                           "macro '" + stmt.target.name + "' takes not more than " +
                                               std::to_string(params.size()) + " argument(s)");
      }
    }
    for (const auto& [name, expr] : call.keyword) {
      Value value = eval(*expr, caller);
      std::size_t i = 0;
      while (i < params.size() && params[i].name != name) ++i;
      if (i == params.size()) {
        if (!deferred)
          deferred = std::make_unique<Error>(
              ErrorKind::Render,
              "macro '" + stmt.target.name + "' takes no keyword argument '" + name + "'");
      } else if (given & (std::uint64_t{1} << i)) {
        if (!deferred)
          deferred = std::make_unique<Error>(
              ErrorKind::Render,
              "macro '" + stmt.target.name + "' got multiple values for argument '" + name + "'");
      } else {
        inner.assign_slot(static_cast<std::uint16_t>(i), std::move(value));
        given |= std::uint64_t{1} << i;
      }
    }
    if (deferred) throw *deferred;
    DepthGuard depth(*this, "macro", stmt.height);
    const TemplateTree* saved_tree = tree_;
    tree_ = &macro.tree();
    try {
      // Defaults are evaluated in the macro's scope, so they may refer to earlier parameters.
      for (std::size_t i = 0; i < stmt.params.size(); ++i) {
        if (given & (std::uint64_t{1} << i)) continue;
        const auto slot = static_cast<std::uint16_t>(i);
        if (stmt.params[i].default_value) {
          inner.assign_slot(slot, eval(*stmt.params[i].default_value, inner));
        } else {
          inner.assign_slot(
              slot, Value::undefined("undefined variable '" + stmt.params[i].name + "' (macro '" +
                                     stmt.target.name + "' was called without it)"));
        }
      }
      std::string* saved = out_;
      out_ = target;
      try {
        exec_body(stmt.body, inner);
      } catch (...) {
        out_ = saved;
        throw;
      }
      out_ = saved;
      tree_ = saved_tree;
    } catch (...) {
      tree_ = saved_tree;
      throw;
    }
  }

  const Environment& env_;
  std::string* out_;
  const std::string* root_out_;
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
  std::array<Arguments, 2> arguments_inline_;
  std::vector<std::unique_ptr<Arguments>> arguments_more_;  // for calls nested deeper
  std::size_t arguments_in_use_ = 0;
  std::uint64_t steps_ = 0;  // loop iterations and macro calls so far (max_steps)
  // Per-render objects released together (macros): a few inside the Renderer, more on the heap.
  alignas(std::max_align_t) std::byte arena_buffer_[512];
  std::pmr::monotonic_buffer_resource arena_{arena_buffer_, sizeof arena_buffer_};
};

}  // namespace

void render_tree(const Environment& environment, const TemplateTree& tree, const Value& context,
                 const Value* globals, std::string& out, std::vector<OutputMark>* marks) {
  ValueSizeScope limit(environment.options().max_value_size);
  Renderer renderer(environment, out, marks);
  renderer.render_root(tree, context, globals);
}

}  // namespace zf::detail
