// SPDX-License-Identifier: MIT
// Template inheritance: running a template's chain of parents ('extends'), the blocks in force,
// block statements, required and scoped blocks, and super().
#include <deque>

#include "template/render_state.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"

namespace zf::detail {
// Renders a template at the top level: runs its body; if it extends a parent, the rest of
// its output is dropped and the parent renders with this template's blocks on top. Each
// parent runs its top level in a frame of its own, attached to the frame of the template
// that extends it: as in Jinja2, where each template of the chain has its own top-level
// variables and sees those of the templates below it only as the context does.
// With `exports` (an import), the names the chain's top levels assigned are added to it.
void Renderer::render_template(const TemplateTree& tree, Frame& frame, ValueDict* exports) {
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
void Renderer::export_names(const Frame& frame, ValueDict& exports) {
  frame.for_each([&](std::string_view name, const Value& value) {
    if (!name.empty() && name.front() != '_') exports.set(std::string(name), value);
  });
}

// Runs `tree`, the last template of `chain`, and sets `parent` to the template it extends.
void Renderer::render_body_until_extends(const TemplateTree& tree, Frame& frame,
                                         const std::vector<const TemplateTree*>& chain,
                                         const TemplateTree*& parent) {
  const TemplateTree* saved_tree = tree_;
  tree_ = &tree;
  std::string discard;
  std::string* real_out = out_;
  const std::string* saved_muted = muted_;
  std::string* saved_unmuted = unmuted_out_;
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
      muted_ = &discard;
      unmuted_out_ = real_out;
      continue;
    }
    if (parent && std::holds_alternative<BlockStmt>(stmt->node)) continue;
    try {
      exec(*stmt, frame);
    } catch (...) {
      out_ = real_out;
      muted_ = saved_muted;
      unmuted_out_ = saved_unmuted;
      tree_ = saved_tree;
      throw;
    }
  }
  out_ = real_out;
  muted_ = saved_muted;
  unmuted_out_ = saved_unmuted;
  tree_ = saved_tree;
}

void Renderer::require_no_cycle(const std::vector<const TemplateTree*>& chain,
                                const TemplateTree& parent) {
  for (const TemplateTree* seen : chain) {
    if (seen != &parent) continue;
    std::string cycle;
    for (const TemplateTree* t : chain) cycle += t->name + " -> ";
    throw Error(ErrorKind::Template, "'extends' cycle: " + cycle + parent.name);
  }
}

void Renderer::exec_node(const Stmt& stmt, const ExtendsStmt&, Frame&) {
  // Handled by render_body_until_extends; reaching it here means a nested body.
  throw locate(Error(ErrorKind::Syntax, "'extends' must be at the top level of a template"),
               stmt.offset);
}

void Renderer::exec_node(const Stmt& stmt, const BlockStmt& node, Frame& frame) {
  if (blocks_.count(node.name) == 0) {
    render_block_level({&node, tree_}, node.name, 0, frame, node.scoped, stmt.offset);
    return;
  }
  // Jinja2 takes `scoped` from the block where it stands; overrides need not repeat it.
  BlockLevel first = blocks_.at(node.name, 0);
  render_block_level(first, node.name, 0, frame, node.scoped || first.block->scoped, stmt.offset);
}

// `site`: where the current template enters the block (the block statement, or super()).
void Renderer::render_block_level(BlockLevel level, std::string_view name, std::size_t index,
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

std::size_t Renderer::levels_of(std::string_view name) const {
  std::size_t levels = blocks_.count(name);
  return levels == 0 ? 1 : levels;
}

// The frame of the top level of the template `frame` runs in, which an unscoped block
// sees (as Jinja2's blocks see the template's context): in an included template, its own
// top level, attached to the includer's frame, and not the includer's top level.
const Frame* Renderer::template_level_of(const Frame& frame) {
  const Frame* f = &frame;
  while (f->parent && !f->is_template_level()) f = f->parent;
  return f;
}

Value Renderer::render_super(std::size_t offset) {
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

}  // namespace zf::detail
