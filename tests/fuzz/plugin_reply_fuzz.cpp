// SPDX-License-Identifier: MIT
// Fuzz target: how the host reads plugin replies. A real plugin (reply_plugin.c) answers every
// hook with the input's bytes; the host parses and checks them as a values hook's, an output
// hook's or a template function's result.
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/values.hpp"

namespace {

using SetReply = void (*)(const char*, std::size_t);

struct Fixture {
  zf::PluginHost host{zf::PluginHostOptions{.use_environment = false}};
  zf::Environment environment;
  SetReply set_reply = nullptr;
  std::shared_ptr<const zf::Template> filter, test, global;

  Fixture() {
    host.load({{ZF_FUZZ_REPLY_PLUGIN}});
    host.register_functions(environment);
    // The host opened the library; this finds the same copy (and its reply variable).
    void* library = ::dlopen(ZF_FUZZ_REPLY_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
    if (library) set_reply = reinterpret_cast<SetReply>(::dlsym(library, "zf_fuzz_set_reply"));
    if (!set_reply) std::abort();
    filter = environment.from_string("{{ stage | reply(1, k=2) }}", "filter.j2");
    test = environment.from_string("{{ stage is reply }}", "test.j2");
    global = environment.from_string("{{ reply() }}", "global.j2");
  }
};

}  // namespace

// Input: one byte choosing the hook (and, with bit 7, no output at all), then the reply.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture fixture;
  if (size == 0) return 0;
  const unsigned choice = data[0];
  fixture.set_reply((choice & 0x80) != 0 ? nullptr : reinterpret_cast<const char*>(data + 1),
                    size - 1);
  const zf::Value context = zf::Value::from_json({{"stage", 3}});
  try {
    switch (choice & 7) {
      case 0: {
        zf::LayeredValues values;
        values.apply({zf::LayerKind::Tier, "tier"}, {{"stage", 3}, {"zero", {{"a", 1}}}});
        fixture.host.run_values_hooks(values, {{"template", "fuzz.json.j2"}});
        break;
      }
      case 1:
        fixture.host.run_output_hooks(
            {{"train_batch_size", 8}, {"zero_optimization", {{"stage", 3}}}}, {{"stage", 3}});
        break;
      case 2:
        fixture.filter->render(context);
        break;
      case 3:
        fixture.test->render(context);
        break;
      default:
        fixture.global->render(context);
        break;
    }
  } catch (const zf::Error&) {
    // A malformed or ill-shaped reply is a zf::Error naming the plugin; anything else escapes.
  }
  return 0;
}
