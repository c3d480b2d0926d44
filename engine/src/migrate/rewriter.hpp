// SPDX-License-Identifier: MIT
// The rewrites of one migration from one DeepSpeed release to another, over a config or an
// `extra` fragment of a family: the key moves of key_moves.cpp, then a walk over the schema
// facts (keys the target does not know, keys the source ignored that the target refuses,
// floats where the target needs an integer), then the defaults that changed between the two.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "deepspeed/schema_facts.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/migrate.hpp"

namespace zf::migrate {

using Json = nlohmann::ordered_json;

class Rewriter {
 public:
  Rewriter(std::string file, deepspeed::ReleaseIndex from, deepspeed::ReleaseIndex to,
           bool drop_unknown);

  /// Rewrites `config` (an object whose keys are a config's top level), notes and refusals at
  /// pointers starting with `prefix` ("" for a config, "/values/extra" for a family's extra).
  void rewrite(Json& config, const std::string& prefix = {});
  /// The integer rewrite over a values object whose keys are those of config section
  /// `section` (a family's `zero` values are `zero_optimization`'s keys), at `prefix`.
  void rewrite_values(Json& values, std::string_view section, const std::string& prefix);
  /// Writes out, in every section `config` has, each key it leaves out whose default differs
  /// between the releases, as the source's default (a `migrate.default` note each).
  void pin_defaults(Json& config);
  /// Takes back the pinned default at `pointer` (its note too): the target finds fault with
  /// the key there (it has no effect in that place), so its default does not matter.
  bool unpin(Json& config, const std::string& pointer);

  std::vector<MigrationNote> notes;
  std::vector<Diagnostic> refusals;

 private:
  void apply_moves(Json& config, const std::string& prefix);
  /// `source_reads`: false inside a section the source does not read at all (it is a key of
  /// later releases only), where no key means anything to the source.
  void walk(Json& section, const deepspeed::NodeFacts& facts, const std::string& pointer,
            bool source_reads = true);
  void check_integer(Json& value, const deepspeed::NodeFacts& node, bool source_strict,
                     bool target_strict, const std::string& pointer);
  void pin_section(Json& section, const deepspeed::NodeFacts& facts, const std::string& pointer);
  void note(std::string code, std::string pointer, std::string old_pointer, Json old_value,
            std::string new_pointer, Json new_value, std::string reason);
  void refuse(std::string code, std::string pointer, std::string message);
  std::string release(deepspeed::ReleaseIndex index) const;

  std::string file_;
  std::string prefix_;  // where the config's top level is in the file (rewrite's prefix)
  deepspeed::ReleaseIndex from_;
  deepspeed::ReleaseIndex to_;
  bool drop_unknown_;
};

}  // namespace zf::migrate
