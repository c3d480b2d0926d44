// SPDX-License-Identifier: MIT
// The table of subcommands. Each command lives in its own <name>_command.cpp.
#include "command.hpp"

namespace zf::cli {

int run_render(const std::vector<std::string>& args);
int run_validate(const std::vector<std::string>& args);
int run_schema(const std::vector<std::string>& args);
int run_generate(const std::vector<std::string>& args);
int run_explain(const std::vector<std::string>& args);
int run_list(const std::vector<std::string>& args);
int run_estimate(const std::vector<std::string>& args);
int run_probe(const std::vector<std::string>& args);
int run_report(const std::vector<std::string>& args);
int run_import(const std::vector<std::string>& args);
int run_migrate(const std::vector<std::string>& args);

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"render", "render one template over values to a file or stdout", run_render},
      {"validate", "check DeepSpeed configs against DeepSpeed's schema and rules", run_validate},
      {"schema", "print a JSON Schema of the DeepSpeed config for editors", run_schema},
      {"generate", "write every config of a family and its manifest (--check: report drift)",
       run_generate},
      {"report", "write a family as one HTML page (memory per tier, auto-fit, changes)",
       run_report},
      {"import", "existing DeepSpeed configs into one family that regenerates them", run_import},
      {"migrate", "rewrite configs or a family written for one DeepSpeed release for another",
       run_migrate},
      {"explain", "show each value a template reads and the layer it came from", run_explain},
      {"estimate", "per-GPU and per-node memory of a model under ZeRO (the memory plugin)",
       run_estimate},
      {"probe", "this machine's GPUs and host memory as a tier (nvidia-smi)", run_probe},
      {"list", "list templates, presets (families), tiers or plugins", run_list},
  };
  return table;
}

}  // namespace zf::cli
