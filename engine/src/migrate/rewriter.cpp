// SPDX-License-Identifier: MIT
// The rewrites of one migration (rewriter.hpp). What a release reads, refuses and defaults to
// comes from the schema facts (deepspeed/schema_facts.hpp, compiled from deepspeed_schema.json,
// which engine/tools/release_history.py read from each release's source); what was renamed
// comes from key_moves.cpp. The walk mirrors the validator's key walk (rules_keys.cpp), but
// asks of every key what two releases make of it instead of one.
#include "migrate/rewriter.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "deepspeed/release.hpp"
#include "deepspeed/rules.hpp"
#include "migrate/key_moves.hpp"
#include "zeroforge/diagnostic_codes.hpp"

namespace zf::migrate {

namespace {

using deepspeed::NodeFacts;
using deepspeed::ReleaseIndex;

// The object at `pointer` ("" is `root`), or nullptr; the table's pointers need no escapes.
Json* object_at(Json& root, std::string_view pointer) {
  Json* here = &root;
  while (!pointer.empty()) {
    pointer.remove_prefix(1);
    const std::size_t slash = pointer.find('/');
    const std::string key(pointer.substr(0, slash));
    pointer = slash == std::string_view::npos ? std::string_view() : pointer.substr(slash);
    if (!here->is_object()) return nullptr;
    auto it = here->find(key);
    if (it == here->end()) return nullptr;
    here = &*it;
  }
  return here->is_object() ? here : nullptr;
}

std::pair<std::string_view, std::string_view> split_last(std::string_view pointer) {
  const std::size_t slash = pointer.rfind('/');
  return {pointer.substr(0, slash), pointer.substr(slash + 1)};
}

// `object` with the member `old_key` replaced by `new_key: value` in its place.
void replace_member(Json& object, const std::string& old_key, const std::string& new_key,
                    Json value) {
  Json out = Json::object();
  for (auto& [key, member] : object.items()) {
    if (key == old_key) {
      out[new_key] = std::move(value);
    } else {
      out[key] = std::move(member);
    }
  }
  object = std::move(out);
}

bool is_float_not_integer(const Json& value) {
  return value.is_number_float() && std::isfinite(value.get<double>()) &&
         !deepspeed::as_integer(value).has_value();
}

// Accepts only an integer (not any number) at `release`, per the facts it had then.
bool needs_integer(const NodeFacts& facts) {
  if (facts.any_type || facts.types.empty()) return false;
  const unsigned number = 1U << static_cast<unsigned>(deepspeed::ValueType::Number);
  return facts.types.front() == deepspeed::ValueType::Integer && (facts.type_mask & number) == 0;
}

// The release at which a node's facts changed between `a` and `b` (exclusive of the older one).
std::optional<ReleaseIndex> era_between(const NodeFacts& node, ReleaseIndex a, ReleaseIndex b) {
  const ReleaseIndex low = std::min(a, b), high = std::max(a, b);
  for (const deepspeed::NodeEra& era : node.eras) {
    if (era.until > low && era.until <= high) return era.until;
  }
  return std::nullopt;
}

std::string removed_why(const NodeFacts& section, std::string_view key) {
  for (const deepspeed::RemovedKey& removed : section.removed) {
    if (removed.name == key) return std::string(removed.why);
  }
  return {};
}

}  // namespace

Rewriter::Rewriter(std::string file, ReleaseIndex from, ReleaseIndex to, bool drop_unknown)
    : file_(std::move(file)), from_(from), to_(to), drop_unknown_(drop_unknown) {}

std::string Rewriter::release(ReleaseIndex index) const {
  return "DeepSpeed " + std::string(deepspeed::version_of(index));
}

void Rewriter::note(std::string code, std::string pointer, std::string old_pointer, Json old_value,
                    std::string new_pointer, Json new_value, std::string reason) {
  notes.push_back(MigrationNote{file_, std::move(code), std::move(pointer), std::move(old_pointer),
                                std::move(old_value), std::move(new_pointer), std::move(new_value),
                                std::move(reason)});
}

void Rewriter::refuse(std::string code, std::string pointer, std::string message) {
  Diagnostic d;
  d.code = std::move(code);
  d.severity = Severity::Error;
  d.kind = ErrorKind::Values;
  d.message = std::move(message);
  d.where.file = file_;
  d.json_pointer = std::move(pointer);
  refusals.push_back(std::move(d));
}

void Rewriter::rewrite(Json& config, const std::string& prefix) {
  prefix_ = prefix;
  apply_moves(config, prefix);
  if (!refusals.empty())
    return;  // a key the moves could not carry over: nothing else is said of it
  walk(config, deepspeed::root_facts(), prefix);
}

void Rewriter::apply_moves(Json& config, const std::string& prefix) {
  for (const KeyMove& move : key_moves()) {
    std::string_view old_pointer = move.from, new_pointer = move.to;
    std::string reason = std::string(move.change) + " (" + std::string(move.source) + ")";
    if (!move.since.empty()) {
      const ReleaseIndex since = deepspeed::require_release(move.since);
      if (from_ < since && to_ >= since) {
        // upgrading across the rename: the old name becomes the new one
      } else if (to_ < since && from_ >= since) {
        std::swap(old_pointer, new_pointer);
        reason = release(to_) + " reads only the older name: " + reason;
      } else {
        continue;
      }
    }
    const auto [parent_pointer, old_key_view] = split_last(old_pointer);
    Json* parent = object_at(config, parent_pointer);
    if (parent == nullptr) continue;
    const std::string old_key(old_key_view);
    auto it = parent->find(old_key);
    if (it == parent->end()) continue;
    const std::string here = prefix + std::string(old_pointer);
    const Json old_value = *it;
    if (move.map == ValueMap::NoEffect) {
      parent->erase(old_key);
      note(codes::migrate_renamed, here, here, old_value, "", nullptr, reason);
      continue;
    }
    Json new_value = old_value;
    if (move.map == ValueMap::CpuDeviceIfTrue) {
      if (!old_value.is_boolean()) {
        refuse(codes::migrate_no_equivalent, here,
               "\"" + old_key + "\" is " + deepspeed::show(old_value) +
                   ", not true or false: it has no equivalent in " + std::string(new_pointer) +
                   " (" + std::string(move.change) + ")");
        continue;
      }
      new_value = old_value.get<bool>() ? Json{{"device", "cpu"}} : Json();
    }
    const std::string new_key(split_last(new_pointer).second);
    const std::string there = prefix + std::string(new_pointer);
    if (auto existing = parent->find(new_key); existing != parent->end()) {
      if (*existing == new_value || new_value.is_null()) {
        parent->erase(old_key);
        note(codes::migrate_renamed, here, here, old_value, there, *existing,
             reason + "; \"" + new_key + "\" already says it");
        continue;
      }
      refuse(codes::migrate_conflict, here,
             "both \"" + old_key + "\" (" + deepspeed::show(old_value) + ") and \"" + new_key +
                 "\" (" + deepspeed::show(*existing) + ") are set, and " + release(to_) +
                 " reads only \"" + new_key + "\": keep the one you mean (" + reason + ")");
      continue;
    }
    if (new_value.is_null()) {  // cpu_offload: false is no offload, as leaving it out is
      parent->erase(old_key);
      note(codes::migrate_renamed, here, here, old_value, "", nullptr, reason);
      continue;
    }
    replace_member(*parent, old_key, new_key, new_value);
    note(codes::migrate_renamed, here, here, old_value, there, new_value, reason);
  }
}

void Rewriter::walk(Json& section, const NodeFacts& facts, const std::string& pointer,
                    bool source_reads) {
  if (!section.is_object()) return;
  const NodeFacts& source = facts.at(from_);
  const NodeFacts& target = facts.at(to_);
  if (source.kind == NodeFacts::Kind::Open || target.kind == NodeFacts::Kind::Open) return;
  const bool source_strict = source_reads && source.kind == NodeFacts::Kind::Pydantic;
  const bool target_strict = target.kind == NodeFacts::Kind::Pydantic;
  // Messages name the section as a config has it (/bf16), also in a family's extra.
  const std::string section_pointer = pointer.substr(std::min(prefix_.size(), pointer.size()));
  const std::string where = section_pointer.empty() ? "the top level" : section_pointer;
  const std::string in_where = section_pointer.empty() ? "at the top level" : "in " + where;
  Json out = Json::object();
  for (auto& [key, child] : section.items()) {
    const std::string here = deepspeed::pointer_join(pointer, key);
    const NodeFacts* node = facts.key(key);
    const bool source_has = source_reads && node != nullptr && node->present_at(from_);
    const bool target_has = node != nullptr && node->present_at(to_);
    if (!source_has && !target_has) {
      if (!source_strict && target_strict) {
        // Ignored where it was written; the target's model refuses it.
        std::string why = removed_why(facts, key);
        note(codes::migrate_misplaced, here, here, child, "", nullptr,
             release(from_) + " ignores \"" + key + "\" " + in_where +
                 (source_reads ? " (it reads " + where + " as a plain dict), "
                               : " (it does not read " + where + " at all), ") +
                 release(to_) + " validates " + where + " strictly and refuses it" +
                 (why.empty() ? "" : ": " + why));
        continue;
      }
      out[key] = std::move(child);
      continue;
    }
    if (source_has && !target_has) {
      std::string why = removed_why(facts, key);
      std::string reason = release(to_) + " does not know \"" + key + "\" " + in_where +
                           (why.empty() ? "" : " (" + why + ")") + "; it is a key of DeepSpeed " +
                           deepspeed::releases_text(*node);
      if (drop_unknown_) {
        note(codes::migrate_dropped, here, here, child, "", nullptr, reason);
        continue;
      }
      refuse(codes::migrate_unknown_key, here,
             reason + ": no equivalent; remove it, or pass --drop-unknown to drop it");
      out[key] = std::move(child);
      continue;
    }
    if (source_has && target_has && !deepspeed::is_auto(child)) {
      const NodeFacts* read = node->alias ? node->canonical : node;
      if (read->section) {
        walk(child, *read, here);
      } else {
        check_integer(child, *read, source_strict, target_strict, here);
      }
    }
    if (!source_has && target_has && !deepspeed::is_auto(child)) {
      // The source ignored it (in a dict section; a strict one would have refused the config)
      // and the target reads it: kept as the author wrote it, except what the target refuses
      // inside a section the source never read.
      const NodeFacts* read = node->alias ? node->canonical : node;
      if (read->section) walk(child, *read, here, false);
    }
    out[key] = std::move(child);
  }
  section = std::move(out);
}

void Rewriter::check_integer(Json& value, const NodeFacts& node, bool source_strict,
                             bool target_strict, const std::string& pointer) {
  if (!is_float_not_integer(value) || !target_strict ||
      !deepspeed::feature_at("check:pydantic-2", to_) || !needs_integer(node.at(to_))) {
    return;
  }
  if (source_strict && !deepspeed::feature_at("check:pydantic-2", from_)) {
    // pydantic 1's int() truncates toward zero: the value the source ran with.
    const Json integer = static_cast<long long>(std::trunc(value.get<double>()));
    note(codes::migrate_integer, pointer, pointer, value, pointer, integer,
         release(from_) + " (pydantic 1) truncates a float given for an integer, " + release(to_) +
             " (pydantic 2, since DeepSpeed 0.15.0) refuses a float that is not a whole number");
    value = integer;
    return;
  }
  if (!source_strict) {
    refuse(codes::migrate_no_equivalent, pointer,
           release(from_) + " uses " + deepspeed::show(value) +
               " as written (its section is a plain dict there), " + release(to_) +
               " validates it strictly and needs an integer: no integer means the same; "
               "write the integer you mean");
  }
}

void Rewriter::rewrite_values(Json& values, std::string_view section, const std::string& prefix) {
  const NodeFacts* facts = deepspeed::root_facts().key(section);
  if (facts == nullptr || !facts->section || !values.is_object()) return;
  const bool source_strict = facts->at(from_).kind == NodeFacts::Kind::Pydantic;
  const bool target_strict = facts->at(to_).kind == NodeFacts::Kind::Pydantic;
  for (auto& [key, value] : values.items()) {
    const NodeFacts* node = facts->key(key);
    if (node == nullptr || node->section || !node->present_at(from_) || !node->present_at(to_))
      continue;
    check_integer(value, node->alias ? *node->canonical : *node, source_strict, target_strict,
                  deepspeed::pointer_join(prefix, key));
  }
}

void Rewriter::pin_defaults(Json& config) { pin_section(config, deepspeed::root_facts(), ""); }

void Rewriter::pin_section(Json& section, const NodeFacts& facts, const std::string& pointer) {
  if (!section.is_object()) return;
  if (facts.at(from_).kind == NodeFacts::Kind::Open) return;
  for (const deepspeed::KeySlot& slot : facts.keys.ordered) {
    const NodeFacts* node = slot.facts;
    if (node->alias || !node->present_at(from_) || !node->present_at(to_)) continue;
    const std::string key(slot.name);
    const std::string here = deepspeed::pointer_join(pointer, key);
    if (auto it = section.find(key); it != section.end()) {
      if (node->section && it->is_object()) pin_section(*it, *node, here);
      continue;
    }
    if (node->section) continue;
    bool spelled_otherwise = false;  // an alias of it says it
    for (const deepspeed::KeySlot& other : facts.keys.ordered) {
      if (other.facts->alias && other.facts->alias_of == slot.name && section.contains(other.name))
        spelled_otherwise = true;
    }
    if (spelled_otherwise) continue;
    const auto& source_default = node->at(from_).default_text;
    const auto& target_default = node->at(to_).default_text;
    // A default of null is "unset": written out, an older release may not take it (0.15.2 made
    // steps_per_print default to null; 0.12.0 computes `step % None` with it).
    if (!source_default || *source_default == "null" ||
        (target_default && *source_default == *target_default)) {
      continue;
    }
    Json value = Json::parse(*source_default);
    std::string when;
    if (auto era = era_between(*node, from_, to_)) {
      when = " (changed in DeepSpeed " + std::string(deepspeed::version_of(*era)) + ")";
    }
    note(codes::migrate_default, here, "", nullptr, here, value,
         "the default of " + here + " is " + std::string(*source_default) + " in " +
             release(from_) + " and " +
             (target_default ? std::string(*target_default) : std::string("none")) + " in " +
             release(to_) + when + ": written out so the target runs as the source did");
    section[key] = std::move(value);
  }
}

bool Rewriter::unpin(Json& config, const std::string& pointer) {
  for (auto it = notes.begin(); it != notes.end(); ++it) {
    if (it->code != codes::migrate_default || it->new_pointer != pointer) continue;
    const auto [parent_pointer, key] = split_last(pointer);
    if (Json* parent = object_at(config, parent_pointer)) parent->erase(std::string(key));
    notes.erase(it);
    return true;
  }
  return false;
}

}  // namespace zf::migrate
