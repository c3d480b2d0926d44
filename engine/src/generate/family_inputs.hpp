// SPDX-License-Identifier: MIT
// Turning a GenerateRequest into what generate and explain work from: the family, its tiers,
// the template, plugins, template defaults and the expansion.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/deepspeed_contract.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/expansion.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/generate.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/sourced_values.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/template_defaults.hpp"

namespace zf::pipeline {

/// Receives generate's own notes and warnings, as diagnostics with their codes.
using MessageSink = DiagnosticSink;

/// A family ready to render.
struct FamilySetup {
  std::unique_ptr<Environment> environment;
  std::unique_ptr<PluginHost> plugins;
  std::shared_ptr<const Template> template_;
  /// The values contract ("deepspeed") or "".
  std::string contract;
  /// The values the family's template pins (its defaults.json's `pinned`).
  TemplatePins pins;
  std::unique_ptr<Expansion> expansion;
  /// Files read so far besides templates (the environment knows those): the family, its tiers,
  /// values files, defaults.json files, plugin libraries.
  std::vector<std::filesystem::path> inputs;
};

// Public (zeroforge/family_file.hpp); still reachable here for the code that names them so.
using zf::family_template_dirs;
using zf::resolve_family;

/// The data directory `request` names, or the default one.
std::filesystem::path data_dir_of(const GenerateRequest& request);

/// The template search path: the request's template dirs in order (each must be a directory),
/// then `family_dirs` (a family's template_dirs), then DATA_DIR/templates; trim_blocks and
/// lstrip_blocks as requested.
std::unique_ptr<Environment> make_environment(
    const GenerateRequest& request, const std::vector<std::filesystem::path>& family_dirs = {});

/// Why the family's template was not found: the directories searched, and how a team's own
/// template directory gets on the path (`template_dirs`, `--template-dir`).
std::string template_not_found(const Family& family, const Environment& environment);

/// Where plugins are searched (the request's plugin dirs, ZEROFORGE_PLUGIN_PATH, the shipped
/// ones) and the data dir handed to them.
PluginHostOptions plugin_host_options(const GenerateRequest& request);

/// A PluginHost with `requests` loaded first, then the request's plugins, with its plugin
/// options merged over theirs. Plugin warnings and errors go to `sink` as diagnostics
/// (`plugin.message`: `zeroforge: warning: plugin 'NAME': ...`).
std::unique_ptr<PluginHost> make_plugin_host(const GenerateRequest& request,
                                             std::vector<PluginRequest> requests,
                                             const DiagnosticSink& sink);

/// Loads the family, its tiers (names on the tier search path, paths relative to the family file),
/// the plugins (the family's, then the request's), the template, its defaults, and expands it
/// with the request's values files and sets as overrides. Errors name the family file and
/// pointer. Plugin warnings and values an overridden block ignores go to `sink` as they are
/// found.
FamilySetup load_family_setup(const GenerateRequest& request, const DiagnosticSink& sink);

/// `world_size`, else `gpus_per_node * nodes` when both are integers, else null: the
/// manifest's world size for templates without the DeepSpeed contract.
nlohmann::ordered_json world_size_of(const nlohmann::ordered_json& values);

}  // namespace zf::pipeline
