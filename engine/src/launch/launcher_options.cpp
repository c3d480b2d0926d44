// SPDX-License-Identifier: MIT
// The launchers' option strings (launcher_options.hpp), copied from their parsers' add_argument
// calls, and argparse's abbreviation rule (Lib/argparse.py, _parse_optional and
// _get_option_tuples, the same from Python 3.8 to 3.13). Sources: torch 1.13.1
// torch/distributed/run.py (Debian 12's python3-torch), torch run.py of the development branch
// at 010929fd3f40 (2.x), DeepSpeed 0.19.6 deepspeed/launcher/runner.py and launch.py (the same
// in 0.19.5), accelerate 1.15.0.dev0 commands/launch.py and commands/accelerate_cli.py (both
// parsers allow_abbrev=False, as in 1.0.0 and 1.14.0).
#include "launcher_options.hpp"

#include <array>

namespace zf::launch {
namespace {

constexpr std::array<std::string_view, 25> kTorch113 = {"-h",
                                                        "--help",
                                                        "--nnodes",
                                                        "--nproc_per_node",
                                                        "--rdzv_backend",
                                                        "--rdzv_endpoint",
                                                        "--rdzv_id",
                                                        "--rdzv_conf",
                                                        "--standalone",
                                                        "--max_restarts",
                                                        "--monitor_interval",
                                                        "--start_method",
                                                        "--role",
                                                        "-m",
                                                        "--module",
                                                        "--no_python",
                                                        "--run_path",
                                                        "--log_dir",
                                                        "-r",
                                                        "--redirects",
                                                        "-t",
                                                        "--tee",
                                                        "--node_rank",
                                                        "--master_addr",
                                                        "--master_port"};

constexpr std::array<std::string_view, 51> kTorch2 = {"-h",
                                                      "--help",
                                                      "--nnodes",
                                                      "--nproc-per-node",
                                                      "--nproc_per_node",
                                                      "--rdzv-backend",
                                                      "--rdzv_backend",
                                                      "--rdzv-endpoint",
                                                      "--rdzv_endpoint",
                                                      "--rdzv-id",
                                                      "--rdzv_id",
                                                      "--rdzv-conf",
                                                      "--rdzv_conf",
                                                      "--standalone",
                                                      "--max-restarts",
                                                      "--max_restarts",
                                                      "--monitor-interval",
                                                      "--monitor_interval",
                                                      "--start-method",
                                                      "--start_method",
                                                      "--event-log-handler",
                                                      "--event_log_handler",
                                                      "--role",
                                                      "-m",
                                                      "--module",
                                                      "--no-python",
                                                      "--no_python",
                                                      "--run-path",
                                                      "--run_path",
                                                      "--log-dir",
                                                      "--log_dir",
                                                      "-r",
                                                      "--redirects",
                                                      "-t",
                                                      "--tee",
                                                      "--local-ranks-filter",
                                                      "--local_ranks_filter",
                                                      "--node-rank",
                                                      "--node_rank",
                                                      "--master-addr",
                                                      "--master_addr",
                                                      "--master-port",
                                                      "--master_port",
                                                      "--local-addr",
                                                      "--local_addr",
                                                      "--logs-specs",
                                                      "--logs_specs",
                                                      "--numa-binding",
                                                      "--numa_binding",
                                                      "--signals-to-handle",
                                                      "--signals_to_handle"};

constexpr std::array<std::string_view, 35> kDeepSpeedRunner = {"-h",
                                                               "--help",
                                                               "-H",
                                                               "--hostfile",
                                                               "-i",
                                                               "--include",
                                                               "-e",
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
                                                               "-q",
                                                               "--quiet"};

constexpr std::array<std::string_view, 19> kDeepSpeedLaunch = {"-h",
                                                               "--help",
                                                               "--node_rank",
                                                               "--master_addr",
                                                               "--master_port",
                                                               "--world_info",
                                                               "--module",
                                                               "--no_python",
                                                               "--enable_elastic_training",
                                                               "--min_elastic_nodes",
                                                               "--max_elastic_nodes",
                                                               "--no_local_rank",
                                                               "--save_pid",
                                                               "--enable_each_rank_log",
                                                               "--bind_cores_to_rank",
                                                               "--bind_core_list",
                                                               "--log_level",
                                                               "-q",
                                                               "--quiet"};

const std::array<LauncherParser, 2> kTorchrun = {
    {{"torchrun", "torch 1.13", kTorch113, true}, {"torchrun", "torch 2.x", kTorch2, true}}};
const std::array<LauncherParser, 2> kDeepSpeed = {
    {{"deepspeed", "DeepSpeed 0.19.6's runner", kDeepSpeedRunner, true},
     {"deepspeed", "DeepSpeed 0.19.6's launch.py on each node", kDeepSpeedLaunch, true}}};
// What `accelerate launch` reads abbreviates nothing; its options need not be listed.
const std::array<LauncherParser, 1> kAccelerate = {
    {{"accelerate launch", "accelerate 1.x", {}, false}}};

}  // namespace

std::span<const LauncherParser> torchrun_parsers() { return kTorchrun; }
std::span<const LauncherParser> deepspeed_parsers() { return kDeepSpeed; }
std::span<const LauncherParser> accelerate_parsers() { return kAccelerate; }

namespace {

// The options that take no value. torchrun: check_env options, spelt both ways in 2.x.
constexpr std::string_view kTorchrunFlags[] = {"-h",
                                               "--help",
                                               "--standalone",
                                               "-m",
                                               "--module",
                                               "--no-python",
                                               "--no_python",
                                               "--run-path",
                                               "--run_path",
                                               "--virtual-local-rank",
                                               "--virtual_local_rank"};
// DeepSpeed's runner and launch.py (store_true).
constexpr std::string_view kDeepSpeedFlags[] = {"-h",
                                                "--help",
                                                "--module",
                                                "--no_python",
                                                "--no_local_rank",
                                                "--no_ssh",
                                                "--no_ssh_check",
                                                "--force_multi",
                                                "--save_pid",
                                                "--elastic_training",
                                                "--enable_elastic_training",
                                                "--bind_cores_to_rank",
                                                "-q",
                                                "--quiet"};
// accelerate launch (store_true; --no_tpu_cluster is store_false).
constexpr std::string_view kAccelerateFlags[] = {"-h",
                                                 "--help",
                                                 "-q",
                                                 "--quiet",
                                                 "--cpu",
                                                 "--multi_gpu",
                                                 "--tpu",
                                                 "--enable_cpu_affinity",
                                                 "--dynamo_use_fullgraph",
                                                 "--dynamo_use_dynamic",
                                                 "--dynamo_use_regional_compilation",
                                                 "--use_deepspeed",
                                                 "--use_fsdp",
                                                 "--use_parallelism_config",
                                                 "--use_megatron_lm",
                                                 "--same_network",
                                                 "-m",
                                                 "--module",
                                                 "--no_python",
                                                 "--tpu_cluster",
                                                 "--no_tpu_cluster",
                                                 "--tpu_use_sudo",
                                                 "--downcast_bf16",
                                                 "--fp8_use_autocast_during_eval",
                                                 "--debug"};

template <std::size_t N>
bool listed(const std::string_view (&names)[N], std::string_view option) {
  for (std::string_view name : names)
    if (name == option) return true;
  return false;
}

}  // namespace

bool is_flag_option(std::string_view launcher, std::string_view option) {
  if (launcher == "torchrun") return listed(kTorchrunFlags, option);
  if (launcher == "deepspeed") return listed(kDeepSpeedFlags, option);
  if (launcher == "accelerate") return listed(kAccelerateFlags, option);
  return false;
}

std::vector<std::string_view> ambiguous_options(const LauncherParser& parser,
                                                std::string_view word) {
  std::vector<std::string_view> matches;
  // argparse reads a word as an option only when it starts with '-' ('--' ends the options);
  // an abbreviation is looked for only with allow_abbrev and for '--' words.
  if (!parser.allow_abbrev || word.size() <= 2 || !word.starts_with("--")) return matches;
  const std::string_view name = word.substr(0, word.find('='));
  for (std::string_view option : parser.options) {
    if (option == word || option == name) return {};  // the option itself (or --option=value)
    if (option.starts_with(name)) matches.push_back(option);
  }
  if (matches.size() < 2) matches.clear();
  return matches;
}

}  // namespace zf::launch
