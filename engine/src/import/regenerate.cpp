// SPDX-License-Identifier: MIT
// Rendering members and fitting a config's values (see regenerate.hpp).
#include "import/regenerate.hpp"

#include "import/json_compare.hpp"
#include "json_members.hpp"
#include "zeroforge/values.hpp"

namespace zf::importer {
namespace {

// Each round demotes at least one binding, so this many rounds is more than a config has
// bindings; it only guards against a bug looping.
constexpr int kMaxRounds = 500;

// Every leaf of `values` (scalars, arrays, null, empty objects), depth first; `extra` counts
// as one leaf: it is exactly what the template does not write.
void leaves(const Json& node, Path& path, std::vector<Path>& out) {
  if (!node.is_object() || node.empty() || (path.size() == 1 && path[0] == "extra")) {
    out.push_back(path);
    return;
  }
  for (const auto& [key, value] : node.items()) {
    path.push_back(key);
    leaves(value, path, out);
    path.pop_back();
  }
}

// `patch` merged into `target` as LayeredValues::apply merges a layer: a non-empty object
// into an object member by member, anything else replacing what is there.
void merge_into(Json& target, const Json& patch) {
  if (target.is_object() && target.empty()) {
    // Member by member into nothing is a copy: one pass, no index (a config's `extra` can
    // hold a million keys, and the base's is empty).
    target = patch;
    return;
  }
  detail::MemberIndex index(target, patch.size());
  for (const auto& [key, value] : patch.items()) {
    Json* it = index.find(key);
    if (value.is_object() && !value.empty() && it != nullptr && it->is_object()) {
      merge_into(*it, value);
    } else if (value.is_object() && !value.empty()) {
      // A fresh object, filled member by member as LayeredValues fills it.
      Json& slot = it != nullptr ? *it : detail::append_member(target, index, key, {});
      slot = Json::object();
      merge_into(slot, value);
    } else if (it != nullptr) {
      *it = value;
    } else {
      detail::append_member(target, index, key, value);
    }
  }
}

// A branch of the values taken out (take_leaf) and the place to put it back (put_back).
struct Taken {
  Path at;               // the branch: the leaf, or the shallowest object it alone fills
  std::size_t position;  // its place among its parent's members
  Json value;
};

using Members = std::vector<std::pair<const std::string, Json>>;  // an ordered_json object's

Members& members_of(Json& object) {
  return static_cast<Members&>(object.get_ref<Json::object_t&>());
}

// Takes the leaf at `path` out of `values` in place, with the objects it would leave empty:
// the fit tries each leaf's absence without copying the values (a config's `extra` can hold a
// million keys) and puts the branch back if it must stay.
Taken take_leaf(Json& values, const Path& path) {
  std::vector<Json*> chain{&values};
  for (std::size_t i = 0; i + 1 < path.size(); ++i) chain.push_back(&chain.back()->at(path[i]));
  std::size_t depth = path.size();
  while (depth > 1 && chain[depth - 1]->size() == 1) --depth;
  Members& members = members_of(*chain[depth - 1]);
  std::size_t position = 0;
  while (members[position].first != path[depth - 1]) ++position;
  Taken taken{Path(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(depth)), position,
              std::move(members[position].second)};
  auto& object = chain[depth - 1]->get_ref<Json::object_t&>();
  object.erase(object.begin() + static_cast<std::ptrdiff_t>(position));
  return taken;
}

// Puts a branch take_leaf took back where it was, so the values are as before, key order too.
void put_back(Json& values, Taken taken) {
  Json* parent = &values;
  for (std::size_t i = 0; i + 1 < taken.at.size(); ++i) parent = &parent->at(taken.at[i]);
  Members& members = members_of(*parent);
  if (taken.position == members.size()) {
    members.emplace_back(std::move(taken.at.back()), std::move(taken.value));
    return;
  }
  // The members are pairs with a const key, which a vector cannot shift by assignment.
  Members rebuilt;
  rebuilt.reserve(members.size() + 1);
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (i == taken.position)
      rebuilt.emplace_back(std::move(taken.at.back()), std::move(taken.value));
    rebuilt.emplace_back(members[i].first, std::move(members[i].second));
  }
  members = std::move(rebuilt);
}

}  // namespace

Regenerator::Regenerator(const Environment& environment, const std::string& template_name,
                         Json tier, std::string tier_file)
    : template_name_(template_name),
      template_(environment.load(template_name)),
      defaults_(load_template_defaults(environment, template_name)),
      tier_(std::move(tier)),
      tier_file_(std::move(tier_file)) {
  LayeredValues values;
  for (const Layer& layer : defaults_.layers) values.apply(layer.source, layer.values);
  if (!tier_.empty()) values.apply({LayerKind::Tier, tier_file_}, tier_);
  base_ = values.merged();
}

Json Regenerator::merged(const Json& member) const {
  // The base is layered once (the constructor); each member goes on a copy of it, merged as
  // LayeredValues merges but without the provenance, which was most of a fit's time.
  Json values = base_;
  merge_into(values, member);
  return values;
}

prepare::PreparedConfig Regenerator::prepare(const Json& member) const {
  return prepare::prepare_merged(merged(member), checks());
}

std::vector<Diagnostic> Regenerator::problems(const Json& member) const {
  auto extra = member.find("extra");
  if (extra == member.end() || !extra->is_object() || extra->empty() ||
      defaults_.pins.values.contains("extra")) {
    return prepare(member).problems;
  }
  // The member with `extra` as `{}`: what the checks read of it is that it is an object
  // (deepspeed_contract.hpp), and `{}` over the base's `extra` merges to an object too.
  Json checked = Json::object();
  Members& members = members_of(checked);
  members.reserve(member.size());
  for (const auto& [key, value] : member.items()) {
    members.emplace_back(key, key == "extra" ? Json::object() : value);
  }
  return prepare(checked).problems;
}

Json Regenerator::render(const Json& member, std::unique_ptr<ValueReads>* reads) const {
  Value values = Value::from_json(merged(member));
  if (reads == nullptr) return template_->render_json(values);
  auto watched = std::make_unique<ValueReads>(values);
  Json out = template_->render_json(values);
  *reads = std::move(watched);
  return out;
}

FittedMember fit_member(ConfigMapping& mapping, const Json& config, const Regenerator& regenerator,
                        const std::string& file) {
  const std::string& name = regenerator.template_name();
  Json values;
  std::unique_ptr<ValueReads> reads;  // what the last render that gave the config back read
  for (int round = 0;; ++round) {
    if (round == kMaxRounds) {
      throw Error(ErrorKind::Values, file + ": import did not settle on values (a bug)");
    }
    values = assemble(mapping, config);
    std::vector<Diagnostic> problems = regenerator.problems(values);
    if (!problems.empty()) {
      bool demoted = false;
      for (const Diagnostic& problem : problems) {
        if (auto owner = owner_of_value(mapping, values, problem.json_pointer)) {
          demote(mapping, *owner, "the values contract refuses it: " + problem.message);
          demoted = true;
        }
      }
      if (!demoted) {
        throw Error(ErrorKind::Values,
                    file + ": cannot be imported with " + name + ": " + problems.front().message);
      }
      continue;
    }
    Json rendered;
    try {
      rendered = regenerator.render(values, &reads);
    } catch (const Error& error) {
      throw Error(ErrorKind::Values, file + ": cannot be imported with " + name +
                                         ": rendering its values failed: " + error.what());
    }
    const std::vector<std::string> differences = json_differences(rendered, config);
    if (differences.empty()) break;
    bool demoted = false;
    for (const auto& pointer : differences) {
      for (std::size_t owner : owners_of_key(mapping, pointer)) {
        demote(mapping, owner, name + " writes " + pointer + " otherwise");
        demoted = true;
      }
    }
    if (!demoted) {
      throw Error(ErrorKind::Values, file + ": " + differences.front() +
                                         ": the template writes this key whatever its values say, "
                                         "so the config cannot be given back");
    }
  }
  FittedMember fitted;
  fitted.full = values;
  // Drop each value the base already gives, as long as the config still comes back: each
  // leaf in turn is taken out, and put back if the contract refuses its absence or the render
  // then differs. Taking out a leaf that the last render giving the config back did not read
  // (nor its absence, nor a dict around it as a whole) leaves that render as it was, so it
  // needs no render of its own; the contract, which is not the template, is asked every time.
  std::vector<Path> all;
  Path path;
  leaves(values, path, all);
  for (const Path& leaf : all) {
    // The base gives the same value: the merged values, and so the render, do not change.
    const Json* own = value_at(values, leaf);
    const Json* base = value_at(regenerator.base(), leaf);
    const bool base_gives_it = own != nullptr && base != nullptr && base->type() == own->type() &&
                               base->dump() == own->dump();
    Taken taken = take_leaf(values, leaf);
    if (base_gives_it) continue;
    if (!regenerator.problems(values).empty()) {
      put_back(values, std::move(taken));
      continue;
    }
    if (!reads->may_have_read(taken.at)) continue;
    std::unique_ptr<ValueReads> next;
    bool same = false;
    try {
      same = same_json(regenerator.render(values, &next), config);
    } catch (const Error&) {
      // The base's value fails to render here (a guard refuses it): the value stays.
    }
    if (same) {
      reads = std::move(next);
    } else {
      put_back(values, std::move(taken));
    }
  }
  fitted.values = std::move(values);
  return fitted;
}

}  // namespace zf::importer
