// SPDX-License-Identifier: MIT
// ambiguous_options (engine/src/launch/launcher_options.cpp): which words of a training
// script's arguments each launcher's argparse reads as an ambiguous abbreviation of its own
// options. The expectations are what Python's argparse (3.8 to 3.13) printed for parsers with
// these options (tests/consumers/check_consumers.py has the real parsers say the same).
#include "launch/launcher_options.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zf::launch {
namespace {

using Options = std::vector<std::string_view>;

const LauncherParser& parser(std::string_view version) {
  for (auto parsers : {torchrun_parsers(), deepspeed_parsers(), accelerate_parsers()})
    for (const auto& p : parsers)
      if (p.version == version) return p;
  throw std::logic_error("no parser " + std::string(version));
}

TEST(LauncherOptionsTest, AbbreviationsOfTwoOrMoreOptionsAreAmbiguous) {
  struct Case {
    const char* version;
    const char* word;
    Options expected;  // empty: argparse leaves the word to the script
  };
  const Case cases[] = {
      // The words of the issue, each where it stops a launcher.
      {"torch 1.13", "--rdzv", {"--rdzv_backend", "--rdzv_endpoint", "--rdzv_id", "--rdzv_conf"}},
      {"torch 1.13", "--master", {"--master_addr", "--master_port"}},
      {"torch 1.13", "--no", {"--no_python", "--node_rank"}},
      {"torch 1.13", "--n", {"--nnodes", "--nproc_per_node", "--no_python", "--node_rank"}},
      {"torch 1.13", "--node", {}},  // only --node_rank
      {"torch 1.13", "--max", {}},
      {"torch 1.13", "--log", {}},
      {"torch 1.13", "--local", {}},
      {"torch 1.13", "--num", {}},
      {"torch 2.x", "--node", {"--node-rank", "--node_rank"}},  // two spellings count as two
      {"torch 2.x", "--max", {"--max-restarts", "--max_restarts"}},
      {"torch 2.x", "--log", {"--log-dir", "--log_dir", "--logs-specs", "--logs_specs"}},
      {"torch 2.x",
       "--local",
       {"--local-ranks-filter", "--local_ranks_filter", "--local-addr", "--local_addr"}},
      {"DeepSpeed 0.19.6's runner", "--num", {"--num_nodes", "--num_gpus", "--num_accelerators"}},
      {"DeepSpeed 0.19.6's runner",
       "--no",
       {"--node_rank", "--no_python", "--no_local_rank", "--no_ssh", "--no_ssh_check"}},
      {"DeepSpeed 0.19.6's runner", "--h", {"--help", "--hostfile"}},  // argparse's own --help
      {"DeepSpeed 0.19.6's runner", "--max", {}},                      // --max_elastic_nodes
      {"DeepSpeed 0.19.6's runner", "--log", {}},                      // --log_level
      {"DeepSpeed 0.19.6's launch.py on each node",
       "--no",
       {"--node_rank", "--no_python", "--no_local_rank"}},
      {"DeepSpeed 0.19.6's launch.py on each node", "--num", {}},
      // What the part before '=' abbreviates, with any value, spaces too.
      {"torch 1.13",
       "--rdzv=x y",
       {"--rdzv_backend", "--rdzv_endpoint", "--rdzv_id", "--rdzv_conf"}},
      {"DeepSpeed 0.19.6's runner",
       "--=1",
       {"--help",
        "--hostfile",
        "--include",
        "--exclude",
        "--num_nodes",
        "--min_elastic_nodes",
        "--max_elastic_nodes",
        "--num_gpus",
        "--num_accelerators",
        "--master_port",
        "--master_addr",
        "--node_rank",
        "--launcher",
        "--launcher_args",
        "--module",
        "--no_python",
        "--no_local_rank",
        "--no_ssh",
        "--no_ssh_check",
        "--force_multi",
        "--save_pid",
        "--enable_each_rank_log",
        "--autotuning",
        "--elastic_training",
        "--bind_cores_to_rank",
        "--bind_core_list",
        "--ssh_port",
        "--venv_script",
        "--log_level",
        "--quiet"}},
      // What argparse leaves to the script: an option itself (REMAINDER takes it), with a
      // value, a unique abbreviation, no option at all, `--`, single-dash words, a space.
      {"torch 1.13", "--nnodes", {}},
      {"torch 1.13", "--rdzv_id=7", {}},
      {"torch 1.13", "--nn", {}},
      {"torch 1.13", "--output_dir", {}},
      {"torch 1.13", "--", {}},
      {"torch 1.13", "-m", {}},
      {"torch 1.13", "-mx", {}},
      {"torch 1.13", "-", {}},
      {"torch 1.13", "", {}},
      {"torch 1.13", "--rdzv x", {}},
      {"torch 2.x", "--nproc-per-node=8", {}},
      // accelerate launch: allow_abbrev=False.
      {"accelerate 1.x", "--n", {}},
      {"accelerate 1.x", "--deepspeed", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.version) + " " + c.word);
    EXPECT_EQ(ambiguous_options(parser(c.version), c.word), c.expected);
  }
}

// The rule reads only '--' words: it holds because no launcher has a single-dash option longer
// than two characters (argparse's single-dash matching could then find two).
TEST(LauncherOptionsTest, NoParserHasALongSingleDashOption) {
  for (auto parsers : {torchrun_parsers(), deepspeed_parsers(), accelerate_parsers()}) {
    for (const auto& p : parsers) {
      SCOPED_TRACE(std::string(p.version));
      EXPECT_TRUE(p.allow_abbrev == !p.options.empty()) << "options listed where they matter";
      for (std::string_view option : p.options) {
        EXPECT_TRUE(option.starts_with("--") || option.size() == 2) << option;
        EXPECT_TRUE(option.starts_with("-")) << option;
      }
    }
  }
}

}  // namespace
}  // namespace zf::launch
