// SPDX-License-Identifier: MIT
// The table of subcommands. Each command lives in its own <name>_command.cpp.
#include "command.hpp"

namespace zf::cli {

int run_render(const std::vector<std::string>& args);
int run_validate(const std::vector<std::string>& args);
int run_schema(const std::vector<std::string>& args);

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"render", "render one template over values to a file or stdout", run_render},
      {"validate", "check DeepSpeed configs against DeepSpeed's schema and rules", run_validate},
      {"schema", "print a JSON Schema of the DeepSpeed config for editors", run_schema},
  };
  return table;
}

}  // namespace zf::cli
