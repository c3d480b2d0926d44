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

// `values` without the leaf at `path` (objects it empties go too).
Json without(const Json& values, const Path& path) {
  Json out = values;
  std::vector<Json*> chain{&out};
  for (std::size_t i = 0; i + 1 < path.size(); ++i) chain.push_back(&(*chain.back())[path[i]]);
  chain.back()->erase(path.back());
  for (std::size_t i = chain.size() - 1; i > 0 && chain[i]->empty(); --i) {
    chain[i - 1]->erase(path[i - 1]);
  }
  return out;
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

Json Regenerator::render(const Json& member) const {
  return template_->render_json(Value::from_json(merged(member)));
}

FittedMember fit_member(ConfigMapping& mapping, const Json& config, const Regenerator& regenerator,
                        const std::string& file) {
  const std::string& name = regenerator.template_name();
  Json values;
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
      rendered = regenerator.render(values);
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
  // Drop each value the base already gives, as long as the config still comes back.
  std::vector<Path> all;
  Path path;
  leaves(values, path, all);
  for (const Path& leaf : all) {
    Json candidate = without(values, leaf);
    // The base gives the same value: the merged values, and so the render, do not change.
    const Json* own = value_at(values, leaf);
    const Json* base = value_at(regenerator.base(), leaf);
    if (own != nullptr && base != nullptr && base->type() == own->type() &&
        base->dump() == own->dump()) {
      values = std::move(candidate);
      continue;
    }
    if (!regenerator.problems(candidate).empty()) continue;
    try {
      if (same_json(regenerator.render(candidate), config)) values = std::move(candidate);
    } catch (const Error&) {
      // The base's value fails to render here (a guard refuses it): the value stays.
    }
  }
  fitted.values = std::move(values);
  return fitted;
}

}  // namespace zf::importer
