// SPDX-License-Identifier: MIT
// The bundled example plugin (the docs/plugins.md tutorial): its function and its output hook.
#include <gtest/gtest.h>

#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

PluginHostOptions bundled_options() {
  PluginHostOptions options;
  options.use_environment = false;
  options.builtin_dirs = {ZF_BUNDLED_PLUGIN_DIR};
  return options;
}

std::unique_ptr<PluginHost> load(const Json& options = Json::object()) {
  auto host = std::make_unique<PluginHost>(bundled_options());
  host->load({{"example", options}});
  return host;
}

TEST(ExamplePluginTest, BucketSizeIsHiddenSizeSquared) {
  auto host = load();
  Environment env;
  host->register_functions(env);
  auto tpl = env.from_string("{{ bucket_size(hidden) }}", "t.j2");
  EXPECT_EQ(tpl->render(Value::from_json({{"hidden", 4096}})), "16777216");
  try {
    tpl->render(Value::from_json({{"hidden", "big"}}));
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "t.j2:1:4: error: plugin 'example': function 'bucket_size' failed: bucket_size: "
              "hidden_size must be a positive integer, got \"big\"");
  }
}

TEST(ExamplePluginTest, SetsStepsPerPrintOnlyWhenMissing) {
  auto host = load({{"steps_per_print", 10}});
  EXPECT_EQ(host->run_output_hooks({{"stage", 1}}, Json::object()).config,
            Json({{"stage", 1}, {"steps_per_print", 10}}));
  EXPECT_EQ(host->run_output_hooks({{"steps_per_print", 5}}, Json::object()).config,
            Json({{"steps_per_print", 5}}));
  EXPECT_EQ(load()->run_output_hooks(Json::object(), Json::object()).config,
            Json({{"steps_per_print", 100}}));
}

}  // namespace
}  // namespace zf
