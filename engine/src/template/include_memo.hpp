// SPDX-License-Identifier: MIT
// Memoized includes. What an included template writes is a function of the names it reads
// from the frame it is included from (and of nothing else, when it defines no blocks, imports
// nothing with context and the environment calls no function of a plugin's). A family renders
// the same partials over members that differ in a few values, so most includes write what
// they wrote for an earlier member: the memo keeps each include site's outputs keyed by the
// values of those names, and a render that finds its values there appends the text instead of
// rendering the partial again. Identical values only: same kinds, same dict order, `1` is not
// `1.0` or `true` (each prints differently). One memo per environment and thread, so the hot
// path takes no lock.
// Not under a ValueReads (import's fit), which must learn what each render read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "template/ast.hpp"
#include "template/frame.hpp"
#include "zeroforge/environment.hpp"

namespace zf {
class Template;
}

namespace zf::detail {

/// What one template, included with context, may read from its includer.
struct IncludePlan {
  /// Whether its output is a function of `names` alone (see the file comment).
  bool memoizable = false;
  /// Every name it or a template it includes may look up outside its own scopes.
  std::vector<std::pair<std::string, std::uint64_t>> names;
};

/// The plan of `tree`, following static includes (and refusing dynamic ones).
IncludePlan plan_include(const TemplateTree& tree, const Environment& environment);

/// One thread's memo of include sites.
class IncludeMemo {
 public:
  /// One site (an include statement of one template naming one template): its outputs.
  class Site {
   public:
    explicit Site(const IncludePlan& plan) : plan_(plan) {}
    /// What the include wrote before for the values `frame` holds now, or nullptr.
    /// `keyable` is set to whether those values can key an entry (plain data).
    const std::string* find(const Frame& frame, std::uint64_t& key_hash, bool& keyable);
    /// Keeps `text` as what the include writes for the values `frame` holds now (`key_hash`
    /// from find); returns the bytes the entry holds.
    std::size_t store(const Frame& frame, std::uint64_t key_hash, std::string_view text);
    /// Whether the site still memoizes (it stops when its values rarely repeat).
    bool active() const noexcept { return active_; }
    void clear() noexcept;

   private:
    struct Entry {
      std::vector<Value> key;  // the names' values in plan order; undefined: not there
      std::string text;
    };
    struct Seen {
      Value value;  // the last list or dict hashed at a name
      std::uint64_t hash = 0;
    };
    bool hash_once(const Value& v, Seen& seen, std::uint64_t& out);
    bool holds_key_of(const Entry& entry) const;

    const IncludePlan& plan_;
    std::unordered_multimap<std::uint64_t, Entry> entries_;
    const Entry* last_ = nullptr;  // the entry found or stored last (its node does not move)
    std::uint64_t last_hash_ = 0;
    std::vector<Seen> seen_;           // by name, as in the plan
    std::vector<const Value*> found_;  // what find looked up, by name
    std::uint64_t lookups_ = 0;
    std::uint64_t hits_ = 0;
    bool active_ = true;
  };

  /// This thread's memo for `environment` (which owns it: the memo's memory goes with the
  /// environment). No lock unless the thread last rendered through another environment.
  static IncludeMemo& of(const Environment& environment);

  /// The memo of the site where `includer`'s `stmt` includes `included`, or nullptr when
  /// that include cannot be memoized (or has stopped being).
  Site* site(const TemplateTree& includer, const IncludeStmt& stmt, const TemplateTree& included,
             const Environment& environment);

  /// The template `includer`'s include or import names with the string literal `name`, as
  /// loaded there before on this thread, or nullptr. (While `includer` renders, the
  /// environment that loaded it, and so the template, is alive.)
  const Template* loaded(const TemplateTree& includer, const Expr& name) const;
  void remember(const TemplateTree& includer, const Expr& name, const Template* loaded);

  /// About how many bytes the memo holds.
  std::size_t held_bytes() const noexcept { return bytes_ + kept_bytes_; }

  /// Accounts `bytes` more held; past the budget every site forgets its entries.
  void held(std::size_t bytes);

  /// A render starts (or ends) on this thread. When none is running and the sites, plans
  /// and names kept for templates past and present exceed the budget, the memo starts over:
  /// a process that parses templates without end (a service rendering from strings) keeps
  /// a bounded memo. (Not while a render runs: it holds sites.)
  void render_started();
  void render_ended() noexcept { --renders_; }
  struct RenderScope {
    explicit RenderScope(const Environment& environment) : memo(IncludeMemo::of(environment)) {
      memo.render_started();
    }
    ~RenderScope() { memo.render_ended(); }
    IncludeMemo& memo;
    RenderScope(const RenderScope&) = delete;
    RenderScope& operator=(const RenderScope&) = delete;
  };

  /// Bytes one thread's memo may hold before it starts over.
  static constexpr std::size_t kBudget = std::size_t{4} << 20;

 private:
  struct SiteKey {
    std::uint64_t includer;
    const IncludeStmt* stmt;
    std::uint64_t included;
    bool operator==(const SiteKey&) const = default;
  };
  struct SiteKeyHash {
    std::size_t operator()(const SiteKey& k) const noexcept;
  };
  // Trees are known by id, never by address: an address can be reused by a later template.
  std::unordered_map<std::uint64_t, std::unique_ptr<IncludePlan>> plans_;
  std::unordered_map<SiteKey, std::unique_ptr<Site>, SiteKeyHash> sites_;
  struct NameKey {
    std::uint64_t includer;
    const Expr* name;
    bool operator==(const NameKey&) const = default;
  };
  struct NameKeyHash {
    std::size_t operator()(const NameKey& k) const noexcept;
  };
  std::unordered_map<NameKey, const Template*, NameKeyHash> loaded_;
  std::size_t bytes_ = 0;       // held by the sites' entries
  std::size_t kept_bytes_ = 0;  // held by sites_, plans_ and loaded_ themselves
  int renders_ = 0;             // renders running on this thread
};

}  // namespace zf::detail
