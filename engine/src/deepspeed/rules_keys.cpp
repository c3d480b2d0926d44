// SPDX-License-Identifier: MIT
// Rule family "keys": walks the config against the schema data — unknown keys (rejected in
// pydantic sections, ignored elsewhere), types, bounds, enums, aliases and deprecated names.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>
#include <unordered_map>

#include "rules.hpp"

namespace zf::deepspeed {
namespace {

using Places = std::vector<std::pair<std::string, const NodeFacts*>>;

// Every place a key name is known in a release, as a pointer
// (`/zero_optimization/memory_efficient_linear`), so a misplaced key can be told where it
// belongs: the schema (to depth 4) walked once per release and thread, each name's places in
// the walk's order. An unknown key then costs one look-up, not a walk of the schema: a
// config of a million keys DeepSpeed does not know has a million of them.
void index_places(const NodeFacts& section, std::vector<std::string_view>& above,
                  std::unordered_map<std::string_view, Places>& out, int depth,
                  ReleaseIndex release) {
  if (depth > 4) return;
  for (const KeySlot& child : section.keys.ordered) {
    if (!child.facts->present_at(release)) continue;
    const NodeFacts& facts = child.facts->at(release);
    above.push_back(child.name);
    std::string here;
    for (std::string_view name : above) here = pointer_join(here, name);
    out[child.name].emplace_back(std::move(here), &facts);
    index_places(facts, above, out, depth + 1, release);
    above.pop_back();
  }
}

const Places& places_of(std::string_view key, ReleaseIndex release) {
  thread_local std::unordered_map<ReleaseIndex, std::unordered_map<std::string_view, Places>>
      by_release;
  auto [it, fresh] = by_release.try_emplace(release);
  if (fresh) {
    std::vector<std::string_view> above;
    index_places(root_facts(), above, it->second, 0, release);
  }
  static const Places kNone;
  auto found = it->second.find(key);
  return found == it->second.end() ? kNone : found->second;
}

// The names `section` has at `release`, listed once per section, release and thread.
const std::vector<std::string>& names_at(const NodeFacts& section, ReleaseIndex release) {
  thread_local std::map<std::pair<const NodeFacts*, ReleaseIndex>, std::vector<std::string>> made;
  auto [it, fresh] = made.try_emplace({&section, release});
  if (fresh) {
    for (const KeySlot& child : section.keys.ordered) {
      if (child.facts->present_at(release)) it->second.emplace_back(child.name);
    }
  }
  return it->second;
}

std::string where_in(const std::string& pointer) {
  return pointer.empty() ? "at the top level" : "in " + pointer;
}

// `other` is the key's facts when another release has it here (not this one).
std::string unknown_key_hint(const Context& ctx, const NodeFacts& section, const std::string& key,
                             const NodeFacts* other) {
  std::string hint;
  for (const RemovedKey& removed : section.removed) {
    if (removed.name == key) hint += " (" + std::string(removed.why) + ")";
  }
  if (other != nullptr) hint += "; it is a key of DeepSpeed " + releases_text(*other);
  std::string near =
      other != nullptr ? std::string() : closest(key, names_at(section, ctx.release));
  if (!near.empty()) hint += "; did you mean \"" + near + "\"?";
  const Places& places = places_of(key, ctx.release);
  if (places.size() == 1) {  // a name known in many sections (`enabled`) says nothing
    const auto& [place, node] = places.front();
    hint += "; it belongs at " + place;
    std::string detail;
    if (node->has_stages) detail = "ZeRO stage " + stages_text(node->stage_mask);
    if (node->default_text) {
      detail +=
          (detail.empty() ? "" : ", ") + std::string("default ") + std::string(*node->default_text);
    }
    if (!detail.empty()) hint += " (" + detail + ")";
  }
  return hint;
}

bool lax_bool_string(const std::string& s) {
  static const char* const kWords[] = {"true", "false", "yes", "no", "on", "off",
                                       "1",    "0",     "t",   "f",  "y",  "n"};
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return std::any_of(std::begin(kWords), std::end(kWords),
                     [&](const char* w) { return lower == w; });
}

bool numeric_string(const std::string& s, bool integer) {
  if (s.empty()) return false;
  char* end = nullptr;
  if (integer) {
    (void)std::strtoll(s.c_str(), &end, 10);
  } else {
    (void)std::strtod(s.c_str(), &end);
  }
  return end != nullptr && *end == '\0';
}

const char* type_phrase(ValueType type) {
  switch (type) {
    case ValueType::Integer:
      return "an integer";
    case ValueType::Number:
      return "a number";
    case ValueType::Boolean:
      return "true or false";
    case ValueType::String:
      return "a string";
    case ValueType::Array:
      return "an array";
    case ValueType::Object:
      return "an object";
    case ValueType::Any:
      break;
  }
  return "a value";
}

// How a section converts values: not at all (DeepSpeed reads them with .get), or as
// pydantic's lax mode does (DeepSpeedConfigModel), in pydantic 2 or in pydantic 1, which also
// truncates a float given for an integer and takes a number for a string.
enum class Lax { None, Pydantic2, Pydantic1 };

// True when `value` passes as `type`.
bool matches(const json& value, ValueType type, Lax how) {
  const bool lax = how != Lax::None;
  switch (type) {
    case ValueType::Any:
      return true;
    case ValueType::Integer:
      if (value.is_number_integer()) return true;
      if (value.is_number_float())
        return as_integer(value).has_value() ||
               (how == Lax::Pydantic1 && std::isfinite(value.get<double>()));
      if (lax && value.is_boolean()) return true;
      return lax && value.is_string() && numeric_string(value.get_ref<const std::string&>(), true);
    case ValueType::Number:
      if (value.is_number()) return true;
      return lax && value.is_string() && numeric_string(value.get_ref<const std::string&>(), false);
    case ValueType::Boolean:
      if (value.is_boolean()) return true;
      if (lax && value.is_number_integer())
        return value.get<long long>() == 0 || value.get<long long>() == 1;
      return lax && value.is_string() && lax_bool_string(value.get_ref<const std::string&>());
    case ValueType::String:
      return value.is_string() || (how == Lax::Pydantic1 && value.is_number());
    case ValueType::Array:
      return value.is_array();
    case ValueType::Object:
      return value.is_object();
  }
  return false;
}

// The types `value` passes as without pydantic's lax conversions, as a mask of ValueType bits
// (an integer is a number too). Most values have the type their key names, and this answers
// them without asking matches() type by type.
unsigned plain_types(const json& value) {
  auto bit = [](ValueType type) { return 1U << static_cast<unsigned>(type); };
  switch (value.type()) {
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return bit(ValueType::Integer) | bit(ValueType::Number);
    case json::value_t::number_float:
      return bit(ValueType::Number);
    case json::value_t::boolean:
      return bit(ValueType::Boolean);
    case json::value_t::string:
      return bit(ValueType::String);
    case json::value_t::array:
      return bit(ValueType::Array);
    case json::value_t::object:
      return bit(ValueType::Object);
    default:
      return 0;
  }
}

// True when `value` is the enum choice `a` (numbers compare as numbers, as JSON equality does).
bool same_choice(const EnumChoice& a, const json& value) {
  switch (a.kind) {
    case EnumChoice::Kind::Number:
      return value.is_number() && value.get<double>() == a.number;
    case EnumChoice::Kind::String:
      return value.is_string() && value.get_ref<const std::string&>() == a.string;
    case EnumChoice::Kind::Boolean:
      return value.is_boolean() && value.get<bool>() == a.boolean;
    case EnumChoice::Kind::Null:
      return value.is_null();
  }
  return false;
}

// `strict_later`: the section is read as written at this release (a dict) but refused
// strictly by a later one (a pydantic model): the newest types say what the later one takes.
void check_leaf(const Context& ctx, const json& value, const NodeFacts& facts,
                const PointerPath& path, Lax lax, bool strict_later) {
  if (facts.any_type) return;
  const auto& types = facts.types;
  if (value.is_null()) {
    if (!facts.nullable) {
      ctx.report(path.str(), Severity::Error, "type",
                 std::string("expected ") + type_phrase(types.front()) +
                     ", found null; remove the key to get the default");
    }
    return;
  }
  bool ok =
      (facts.type_mask & plain_types(value)) != 0 ||
      std::any_of(types.begin(), types.end(), [&](ValueType t) { return matches(value, t, lax); });
  if (ok && lax == Lax::Pydantic1 && value.is_number_float() && !as_integer(value) &&
      (facts.type_mask & plain_types(value)) == 0 && types.front() == ValueType::Integer &&
      !facts.has_enum) {
    // pydantic 1's int() of a float: accepted, silently truncated.
    ctx.report(path.str(), Severity::Warning, "type",
               ctx.deepspeed() + " (pydantic 1) truncates " + show(value) + " to " +
                   std::to_string(static_cast<long long>(value.get<double>())) +
                   " without a word; write the integer you mean");
    return;
  }
  if (!ok && strict_later && types.front() == ValueType::Integer && value.is_number_float() &&
      std::isfinite(value.get<double>())) {
    // An old release reads the number as written (fp16.min_loss_scale 1e-10 before 0.17.1).
    ctx.report(path.str(), Severity::Warning, "type",
               ctx.deepspeed() + " reads " + show(value) +
                   " as written (this section has no validating model in this release), but "
                   "later releases validate the section strictly and refuse a number that is "
                   "not an integer here");
    return;
  }
  if (!ok) {
    std::string expected;
    for (const auto& t : types)
      expected += (expected.empty() ? "" : " or ") + std::string(type_phrase(t));
    std::string message = "expected " + expected + ", found " + show(value);
    if (types.front() == ValueType::Integer && value.is_number_float())
      message += " (not a whole number)";
    if (value.is_string() &&
        (types.front() == ValueType::Integer || types.front() == ValueType::Number)) {
      message += "; write the number without quotes";
    }
    ctx.report(path.str(), Severity::Error, "type", message);
    return;
  }
  if (facts.strict_int && value.is_number_float()) {
    ctx.report(path.str(), Severity::Error, "integer-required",
               "DeepSpeed uses " + show(value) +
                   " without converting it, and a JSON number written with a "
                   "fraction or an exponent is a float; write it as a plain integer (" +
                   std::to_string(*as_integer(value)) + ")");
    return;
  }
  if (value.is_number() && !value.is_boolean() && (facts.min || facts.max)) {
    double d = value.get<double>();
    if (facts.min && d < *facts.min) {
      ctx.report(path.str(), Severity::Error, "bounds",
                 show(value) + " is below the minimum " + std::string(facts.min_text) +
                     " DeepSpeed accepts here");
    } else if (facts.max && d > *facts.max) {
      ctx.report(path.str(), Severity::Error, "bounds",
                 show(value) + " is above the maximum " + std::string(facts.max_text) +
                     " DeepSpeed accepts here");
    }
  }
  if (facts.has_enum) {
    // pydantic 2's lax mode compares "3" with 3 as a number. pydantic 1 looks the value up
    // among the members as it is (ZeroStageEnum("1") and ZeroStageEnum(1.5) both fail): measured
    // with DeepSpeed 0.14.5's zero_optimization.stage.
    json converted;
    const json* compared = &value;
    if (lax == Lax::Pydantic2 && value.is_string() &&
        numeric_string(value.get_ref<const std::string&>(), false)) {
      converted = std::strtod(value.get_ref<const std::string&>().c_str(), nullptr);
      compared = &converted;
    }
    bool found = std::any_of(facts.enum_values.begin(), facts.enum_values.end(),
                             [&](const EnumChoice& a) { return same_choice(a, *compared); });
    if (!found) {
      std::string list;
      for (const EnumChoice& a : facts.enum_values)
        list += (list.empty() ? "" : ", ") + std::string(a.text);
      std::string message = show(value) + " is not one of " + list;
      if (!facts.doc.empty()) message += " (" + std::string(facts.doc) + ")";
      if (lax == Lax::Pydantic1 && (value.is_string() || value.is_number_float())) {
        message += "; " + ctx.deepspeed() +
                   " (pydantic 1) compares the value with them as written: write the member "
                   "itself";
      }
      ctx.report(path.str(), Severity::Error, "enum", message);
    }
  }
}

void walk_section(const Context& ctx, const json& value, const NodeFacts& facts,
                  const PointerPath& path, bool strict_later = false) {
  // Every node reached here is the release's own facts (NodeFacts::at).
  if (facts.legacy_bool && value.is_boolean()) {
    ctx.report(path.str(), Severity::Warning, "deprecated",
               std::string("the boolean form is deprecated (") +
                   (value.get<bool>() ? "true means stage 1" : "false means stage 0") +
                   "); write {\"stage\": " + (value.get<bool>() ? "1" : "0") + "}");
    return;
  }
  if (value.is_null()) {
    if (!facts.nullable) {
      ctx.report(path.str(), Severity::Error, "type",
                 "expected an object, found null; remove the key instead");
    }
    return;
  }
  if (!value.is_object()) {
    ctx.report(path.str(), Severity::Error, "type", "expected an object, found " + show(value));
    return;
  }
  bool pydantic = facts.kind == NodeFacts::Kind::Pydantic;
  const Lax lax = !pydantic                     ? Lax::None
                  : ctx.has("check:pydantic-2") ? Lax::Pydantic2
                                                : Lax::Pydantic1;
  for (const auto& [key, child] : value.get_ref<const json::object_t&>()) {
    const PointerPath child_path{&path, key};
    const NodeFacts* child_facts = facts.key(key);
    const NodeFacts* elsewhen = nullptr;  // another release's key, not this one's
    if (child_facts != nullptr && !child_facts->present_at(ctx.release)) {
      elsewhen = child_facts;
      child_facts = nullptr;
      if (facts.kind != NodeFacts::Kind::Open && ctx.absent_keys != nullptr)
        ctx.absent_keys->push_back(child_path.str());
    }
    if (child_facts == nullptr) {
      if (facts.kind == NodeFacts::Kind::Open) continue;
      const std::string pointer = path.str();
      const std::string here = child_path.str();
      std::string hint = unknown_key_hint(ctx, facts, key, elsewhen);
      if (pydantic) {
        ctx.report(here, Severity::Error, "unknown-key",
                   "\"" + key + "\" is not a key of " + pointer + ", which " + ctx.deepspeed() +
                       " validates strictly: it refuses the config" + hint);
      } else {
        ctx.report(here, Severity::Warning, "ignored-key",
                   ctx.deepspeed() + " does not read \"" + key + "\" " + where_in(pointer) +
                       " and silently ignores it" +
                       (hint.empty() ? "; remove it if it is not a comment" : hint));
      }
      continue;
    }
    // The newest release's kind of a section: a pydantic model there, a dict here, means a
    // value this release reads as written may be refused after an upgrade.
    const bool strict_newest = child_facts->kind == NodeFacts::Kind::Pydantic;
    child_facts = &child_facts->at(ctx.release);
    if (child_facts->alias) {
      const std::string here = child_path.str();
      const std::string canonical(child_facts->alias_of);
      const bool legacy = child_facts->legacy;
      if (value.contains(canonical)) {
        ctx.report(here, Severity::Warning, "alias-conflict",
                   "\"" + key + "\" and \"" + canonical +
                       "\" name the same setting and DeepSpeed reads only one of them" +
                       (legacy ? " (\"" + canonical + "\"; \"" + key + "\" is ignored)" : "") +
                       "; keep \"" + canonical + "\"");
        if (legacy) continue;
      } else {
        ctx.report(here, Severity::Note, "alias",
                   "accepted spelling of \"" + canonical + "\"" + (legacy ? " (legacy)" : "") +
                       "; the canonical name is \"" + canonical + "\"");
      }
      child_facts = &child_facts->canonical->at(ctx.release);
    }
    if (child_facts->deprecated) {
      const std::string here = child_path.str();
      const std::string replaced_by(child_facts->replaced_by);
      if (!replaced_by.empty() && value.contains(replaced_by)) {
        ctx.report(here, Severity::Error, "deprecated-conflict",
                   "deprecated \"" + key + "\" together with its replacement \"" + replaced_by +
                       "\": DeepSpeed refuses both at once; remove \"" + key + "\"");
      } else {
        ctx.report(here, Severity::Warning, "deprecated",
                   "\"" + key + "\" is deprecated: " + std::string(child_facts->deprecated_why));
      }
    }
    if (is_auto(child)) continue;  // the "auto" family reports these
    if (child_facts->section) {
      walk_section(ctx, child, *child_facts, child_path,
                   strict_newest && child_facts->kind != NodeFacts::Kind::Pydantic);
    } else {
      check_leaf(ctx, child, *child_facts, child_path, lax, strict_later);
    }
  }
}

}  // namespace

void check_keys(const Context& ctx) {
  if (!ctx.config.is_object()) {
    ctx.report("", Severity::Error, "type",
               "a DeepSpeed config is a JSON object, found " + show(ctx.config));
    return;
  }
  walk_section(ctx, ctx.config, root_facts(), PointerPath{});
}

}  // namespace zf::deepspeed
