// SPDX-License-Identifier: MIT
// The site_fields plugin: reads a site profile once (option "profile": a JSON file path, or
// the profile inline as an object) and patches every rendered config with it (output hook);
// its host names and environment become the values launch.hosts / launch.environment that
// companions read (values hook).
#include <string_view>
#include <zeroforge/plugin.hpp>

#include "profile.hpp"

namespace {

using zf::sdk::Json;

// The plugin's state: the checked profile.
struct SiteFields {
  explicit SiteFields(const zf::sdk::Context& ctx) : profile(load(ctx)) {}

  static site_fields::Profile load(const zf::sdk::Context& ctx) {
    for (const auto& [key, value] : ctx.options().items()) {
      if (key != "profile") {
        throw zf::sdk::Error("unknown option '" + key + "' (site_fields takes \"profile\")");
      }
    }
    auto it = ctx.options().find("profile");
    if (it == ctx.options().end()) {
      throw zf::sdk::Error(
          "option \"profile\" is required (e.g. --plugin-opt site_fields.profile=site.json)");
    }
    // The host's rules for hosts and environment, so the profile refuses what the
    // companions would.
    const site_fields::LaunchCheck check = [&ctx](int kind, std::string_view text) {
      return ctx.launch_text_problem(kind, text);
    };
    if (it->is_object()) return site_fields::Profile(*it, "(inline)", check);
    if (!it->is_string())
      throw zf::sdk::Error("option \"profile\" must be a file path or an object");
    std::string path = it->get<std::string>();
    // The host's reader: its input limit, and no wait on a FIFO (a profile of /dev/zero is
    // an error, not an exhausted machine).
    const std::string text = ctx.read_file(path);
    Json profile;
    try {
      profile = Json::parse(text);
    } catch (const Json::parse_error& e) {
      throw zf::sdk::Error("site profile " + path + " is not valid JSON: " + e.what());
    }
    return site_fields::Profile(profile, path, check);
  }

  site_fields::Profile profile;
};

Json apply_profile(const zf::sdk::Context& ctx, const Json& input) {
  const auto& profile = ctx.state<SiteFields>().profile;
  Json patch = profile.patch_for(input.at("config"));
  if (patch.empty()) return nullptr;
  return {{"patch", std::move(patch)}, {"manifest", {{"profile", profile.source()}}}};
}

Json launch_values(const zf::sdk::Context& ctx, const Json& input) {
  Json values =
      ctx.state<SiteFields>().profile.launch_values(input.value("values", Json::object()));
  if (values.is_null()) return nullptr;
  return {{"values", std::move(values)}};
}

}  // namespace

ZF_PLUGIN_EXPORT const zf_plugin* zf_plugin_entry(uint32_t /*host_abi_version*/) {
  static zf::sdk::Descriptor plugin =
      zf::sdk::Descriptor(
          "site_fields", "1.0.0",
          "applies a site profile (NVMe path, monitors, comms logger, extra fields)")
          .state<SiteFields>()
          .path_options({"profile"})
          .values_hook<launch_values>()
          .output_hook<apply_profile>();
  return plugin.get();
}
