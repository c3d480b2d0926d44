// SPDX-License-Identifier: MIT
// plan_companions (companions.hpp): which companions a config gets and their paths, the `launch`
// values checked, and `job`: the launch facts and the Hugging Face TrainingArguments that agree
// with the config. Sources: DeepSpeed 0.19.6 deepspeed/launcher/runner.py and
// multinode_runner.py (hostfile, .deepspeed_env), transformers integrations/deepspeed.py
// (HfTrainerDeepSpeedConfig: the values the Trainer fills or compares).
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "checked_math.hpp"
#include "companions.hpp"
#include "deepspeed/world_size.hpp"
#include "fit_launch.hpp"
#include "kubernetes_plan.hpp"
#include "launch/launch_text.hpp"
#include "launch/launcher_options.hpp"
#include "launch_style.hpp"
#include "slurm_plan.hpp"
#include "text_helpers.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/values.hpp"

namespace zf::pipeline {

using Json = nlohmann::ordered_json;
using launch::launch_text_problem;
using launch::LaunchText;

namespace {

struct KindFile {
  std::string_view kind;
  std::string_view suffix;     // appended to the config's path without `.json`
  std::string_view template_;  // under companions/
};

constexpr std::array<KindFile, 8> kKindFiles = {{
    {"deepspeed", ".deepspeed.sh", "companions/deepspeed.sh.j2"},
    {"torchrun", ".torchrun.sh", "companions/torchrun.sh.j2"},
    {"accelerate", ".accelerate.yaml", "companions/accelerate.yaml.j2"},
    {"hf-args", ".hf-args.json", "companions/hf-args.json.j2"},
    {"hostfile", ".hostfile", "companions/hostfile.j2"},
    {"deepspeed-env", ".deepspeed_env", "companions/deepspeed_env.j2"},
    {"slurm", ".sbatch", "companions/slurm.sbatch.j2"},
    {"kubernetes", ".k8s.yaml", "companions/kubernetes.yaml.j2"},
}};

const KindFile& kind_file(const std::string& kind) {
  for (const auto& entry : kKindFiles) {
    if (entry.kind == kind) return entry;
  }
  throw Error(ErrorKind::Usage, "unknown companion kind '" + kind + "'");
}

// The most nodes companions launch: well beyond the largest clusters (tens of thousands).
constexpr std::int64_t kMaxNodes = 65536;

constexpr std::array<std::string_view, 9> kLaunchKeys = {"script",     "args",  "master_port",
                                                         "config_dir", "hosts", "environment",
                                                         "style",      "slurm", "kubernetes"};

// What a placeholder host is called when no host names are given (docs/companions.md).
std::string placeholder_host(std::size_t index) {
  return "placeholder-node-" + std::to_string(index);
}

bool is_integral_number(const Json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15;
}

std::int64_t integer_of(const Json& v) {
  return v.is_number_float() ? static_cast<std::int64_t>(v.get<double>()) : v.get<std::int64_t>();
}

const Json* member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const Json* at(const Json& json, std::initializer_list<std::string_view> path) {
  const Json* node = &json;
  for (auto key : path) {
    node = member(*node, key);
    if (node == nullptr) return nullptr;
  }
  return node;
}

bool is_auto(const Json* v) { return v != nullptr && v->is_string() && *v == "auto"; }

// What is wrong with `text` as a value written on one line, or "": a launch is written on one
// line in places where a line break would end it early and start something else (the
// accelerate config's comment, which YAML would then read as keys; a hostfile line; the
// scripts' headers), and YAML 1.1 breaks lines at U+0085, U+2028 and U+2029 too.
std::string line_control_problem(const std::string& text) {
  std::optional<detail::LineControl> control = detail::find_line_control(text);
  if (!control) return "";
  return detail::quoted_for_message(text) + " holds a control character or line break (" +
         detail::code_point_name(control->code_point) + ")";
}

// The launch values, with their defaults (docs/companions.md).
struct Launch {
  std::string script = "train.py";
  std::vector<std::string> args;
  std::int64_t master_port = 29500;
  std::string config_dir;  // empty: none
  Json hosts;              // null: none given
  Json environment = Json::object();
  std::string style = "hf-trainer";  // launch_styles()
};

class Planner {
 public:
  Planner(const std::vector<std::string>& kinds, const CompanionSubject& subject)
      : kinds_(kinds),
        subject_(subject),
        values_(*subject.values),
        config_(*subject.config),
        facts_(*subject.facts) {}

  CompanionPlan run() {
    read_launch();
    check_launch_size();
    const Json* gpus_value = member(values_, "gpus_per_node");
    const Json* nodes_value = member(values_, "nodes");
    const std::int64_t gpus = count_at(gpus_value, "/gpus_per_node");
    const std::int64_t nodes = count_at(nodes_value, "/nodes");
    if (gpus == 0 || nodes == 0) return std::move(plan_);
    // One hostfile line, one placeholder host and one rendezvous member per node: beyond any
    // cluster's node count, a value is a mistake, and the files would never end (found by
    // companion_fuzz: nodes=3333333333333337 planned placeholders for minutes).
    if (nodes > kMaxNodes) {
      fail("/nodes", "companions launch at most " + std::to_string(kMaxNodes) +
                         " nodes (one hostfile line and one launch each), got nodes=" +
                         std::to_string(nodes));
      return std::move(plan_);
    }
    const std::optional<std::int64_t> all_gpus = deepspeed::gpu_count(gpus, nodes);
    if (!all_gpus) {
      fail("/gpus_per_node", "gpus_per_node " + std::to_string(gpus) + " x nodes " +
                                 std::to_string(nodes) +
                                 " is more processes than a launcher can count");
      return std::move(plan_);
    }
    const std::int64_t world = *all_gpus;
    if (facts_.world_size != world) {
      fail("/world_size",
           "companions launch one data-parallel process per GPU, gpus_per_node x nodes = " +
               std::to_string(world) + ", but world_size=" + std::to_string(facts_.world_size) +
               "; the launchers cannot start that world (leave world_size out)");
    }
    if (!launch_.hosts.is_null() && nodes > 1 &&
        launch_.hosts.size() < static_cast<std::size_t>(nodes)) {
      fail("/launch/hosts", "launch.hosts lists " + std::to_string(launch_.hosts.size()) +
                                " host(s), but nodes=" + std::to_string(nodes) +
                                ": list at least " + std::to_string(nodes) +
                                " (the first nodes are used)");
    }

    const Json slurm = plan_slurm(slurm_,
                                  SlurmSubject{subject_.family, subject_.config_path, gpus,
                                               &values_, subject_.tier, wants("slurm")},
                                  plan_.problems, &plan_.warnings);
    // Under SLURM with accelerate, each node's `accelerate launch` reads the accelerate config.
    const bool slurm_accelerate = wants("slurm") && slurm.at("launcher") == "accelerate";
    // torchrun runs the torchrun script, the Kubernetes job and by default the SLURM job's nodes.
    check_abbreviations(
        wants("torchrun") || wants("kubernetes") || (wants("slurm") && !slurm_accelerate),
        wants("deepspeed"));
    if (wants("accelerate") || slurm_accelerate) check_accelerate_first_argument();

    const bool multi_node = nodes > 1;
    style_ = style_launch(launch_.style, facts_);
    // The launchers pass the Trainer's arguments in the hf-trainer style only; the hf-args
    // file is the Trainer's in every style.
    const bool launches = wants("deepspeed") || wants("torchrun") || wants("accelerate") ||
                          wants("slurm") || wants("kubernetes");
    const bool uses_hf_args = wants("hf-args") || (style_.trainer_arguments && launches);
    if (subject_.fit != nullptr) take_fit(*subject_.fit, uses_hf_args, style_.trainer_arguments);
    check_style(launches);
    const bool has_environment = !launch_.environment.empty() || !style_.config_variables.empty() ||
                                 !style_.environment.empty();
    for (const auto& kind : companion_kinds()) {
      bool write = wants(kind) || (kind == "accelerate" && slurm_accelerate);
      if (kind == "hostfile") write = multi_node && (write || wants("deepspeed"));
      if (kind == "deepspeed-env")
        write = multi_node && has_environment && (write || wants("deepspeed"));
      if (!write) continue;
      plan_.files.emplace_back(kind, companion_path(kind, subject_.config_path));
    }

    std::string config_ref = subject_.config_path;
    if (!launch_.config_dir.empty()) {
      std::string dir = launch_.config_dir;
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      config_ref = (dir == "/" ? "" : dir) + "/" + subject_.config_path;
    }
    Json& job = plan_.job;
    job = Json::object();
    job["config"] = file_name(subject_.config_path);
    job["config_path"] = subject_.config_path;
    job["config_ref"] = config_ref;
    job["nodes"] = nodes;
    job["gpus_per_node"] = gpus;
    job["world_size"] = world;
    job["stage"] = facts_.stage;
    job["precision"] = facts_.precision;
    job["hf_auto"] = facts_.hf_auto;
    job["micro_batch_size"] = facts_.micro_batch_size;
    job["gradient_accumulation"] = facts_.gradient_accumulation;
    job["train_batch_size"] = facts_.train_batch_size;
    job["script"] = launch_.script;
    job["args"] = launch_.args;
    job["master_port"] = launch_.master_port;
    Json hosts = Json::array();
    const bool placeholders = launch_.hosts.is_null();
    for (std::int64_t i = 0; i < nodes; ++i) {
      hosts.push_back(placeholders ? Json(placeholder_host(static_cast<std::size_t>(i)))
                                   : launch_.hosts[static_cast<std::size_t>(i)]);
    }
    job["hosts"] = std::move(hosts);
    job["placeholder_hosts"] = placeholders;
    job["environment"] = launch_.environment;
    job["style"] = launch_.style;
    job["no_python"] = !runs_with_python(launch_.script);
    job["style_flags"] = style_.flags;
    job["config_flag"] = style_.config_flag.empty() ? Json() : Json(style_.config_flag);
    job["config_variables"] = style_.config_variables;
    job["style_environment"] = style_.environment;
    job["hf_args"] = uses_hf_args ? hf_args(config_ref) : Json::object();
    if (wants("slurm")) job["slurm"] = slurm;
    {
      // launch.kubernetes is checked for every config, as launch.slurm is; the job's own checks
      // (its pods' names, the tier's GPUs, what its YAML carries) only where it is written.
      std::string hf_args_path;
      for (const auto& [kind, path] : plan_.files)
        if (kind == "hf-args") hf_args_path = path;
      std::vector<std::string> variables = style_.config_variables;
      for (const auto& [name, value] : style_.environment.items()) variables.push_back(name);
      Json kubernetes = plan_kubernetes(
          kubernetes_,
          KubernetesSubject{subject_.family, subject_.config_path, config_ref, hf_args_path, nodes,
                            gpus, &config_, &job["hf_args"], &job["script"], &job["args"],
                            &job["environment"], subject_.tier, wants("kubernetes"),
                            std::move(variables)},
          plan_.problems);
      if (wants("kubernetes")) job["kubernetes"] = std::move(kubernetes);
    }
    if (!plan_.files.empty()) {
      Json& launch = plan_.launch;
      launch = {{"nodes", nodes}, {"gpus_per_node", gpus}};
      if (launch_.style != launch_styles().front()) launch["style"] = launch_.style;
      if (wants("slurm")) launch["slurm"] = slurm.at("launcher");
      if (wants("kubernetes")) launch["kubernetes"] = job["kubernetes"].at("api");
    }
    Json files = Json::object();
    for (const auto& [kind, path] : plan_.files) files[kind] = file_name(path);
    job["companions"] = std::move(files);
    return std::move(plan_);
  }

 private:
  void fail(std::string pointer, std::string message) {
    plan_.problems.push_back({std::move(pointer), std::move(message)});
  }

  // A count of the launch's shape (`gpus_per_node`, `nodes`): 1 when not given, else a
  // positive integer (the values contract checked it), or 0 after failing.
  std::int64_t count_at(const Json* value, const char* pointer) {
    if (value == nullptr) return 1;
    if (is_integral_number(*value) && integer_of(*value) > 0) return integer_of(*value);
    fail(pointer, std::string(pointer + 1) + " must be an integer > 0, got " + value->dump());
    return 0;
  }
  // What auto-fit assumed (fit_launch.hpp): its Trainer arguments are kept for hf_args, its
  // variables join the launch's environment (after the user's, which may not set them).
  void take_fit(const FitAssumptions& fit, bool training_arguments, bool trainer_style) {
    fit_ = fit_launch(fit, training_arguments, trainer_style);
    for (auto& problem : fit_.problems)
      fail(std::move(problem.pointer), std::move(problem.message));
    for (const auto& variable : fit_.environment) {
      if (launch_.environment.contains(variable.name)) {
        fail("/launch/environment/" + variable.name,
             "launch.environment." + variable.name +
                 " is written from auto-fit's record, so the launch runs what the fit sized; "
                 "leave it out (auto_fit." +
                 variable.key + " sets it)");
        continue;
      }
      launch_.environment[variable.name] = variable.value;
    }
  }
  // What launch.style passes itself may not be set again: launch.args words the style's
  // launch passes (argparse keeps the last), variables of launch.environment it sets.
  void check_style(bool launches) {
    if (!launches) return;
    for (std::size_t i = 0; i < launch_.args.size(); ++i) {
      const std::string& arg = launch_.args[i];
      const std::string name = arg.substr(0, arg.find('='));
      if (std::find(style_.reserved_args.begin(), style_.reserved_args.end(), name) ==
          style_.reserved_args.end())
        continue;
      fail(arg_pointers_[i], "launch.args passes " + name + ", which the companions pass " +
                                 "themselves for launch.style " + launch_.style +
                                 " (the config's file); remove it");
    }
    std::vector<std::string> names = style_.config_variables;
    for (const auto& [name, value] : style_.environment.items()) names.push_back(name);
    for (const auto& name : names) {
      if (!launch_.environment.contains(name)) continue;
      fail("/launch/environment/" + name, "launch.environment." + name +
                                              " is set by the companions for launch.style " +
                                              launch_.style + " (from the config); leave it out");
    }
  }
  const Json* fit_argument(std::string_view name) const {
    for (const auto& [key, value] : fit_.training_arguments) {
      if (key == name) return &value;
    }
    return nullptr;
  }

  bool wants(std::string_view kind) const {
    return std::find(kinds_.begin(), kinds_.end(), kind) != kinds_.end();
  }
  static std::string file_name(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  }

  void read_launch() {
    const Json* launch = member(values_, "launch");
    if (launch == nullptr || launch->is_null()) return;
    if (!launch->is_object()) {
      fail("/launch",
           "launch must be an object (script, args, master_port, config_dir, hosts, "
           "environment, style, slurm, kubernetes) or null, got " +
               launch->dump());
      return;
    }
    for (const auto& [key, value] : launch->items()) {
      const std::string pointer = "/launch/" + escape_pointer_segment(key);
      if (key == "script") {
        if (!value.is_string() || value.get<std::string>().empty()) {
          fail(pointer, "launch.script must be a non-empty string (the training script), got " +
                            value.dump());
        } else if (std::string problem = line_control_problem(value.get<std::string>());
                   !problem.empty()) {
          fail(pointer,
               "launch.script " + problem + "; the companions write the launch on one line");
        } else if (std::string size = argument_length_problem(value.get<std::string>());
                   !size.empty()) {
          fail(pointer, "launch.script is " + size);
        } else if (value.get<std::string>().front() == '-') {
          // deepspeed, torchrun and accelerate launch take the first word that is not one of
          // their options as the training script: `--nproc-per-node=1` or `-m` would be read
          // as an option of the launcher (another world size, a module), and the first of
          // launch.args as the script.
          fail(pointer, "launch.script " + value.dump() +
                            " starts with '-', so each launcher would read it as one of its own "
                            "options rather than as the training script; name the script's file "
                            "(./" +
                            value.get<std::string>() +
                            " for a file whose name starts with '-'); the companions do not "
                            "launch a Python module (-m)");
        } else {
          launch_.script = value.get<std::string>();
        }
      } else if (key == "args") {
        read_args(value, pointer);
      } else if (key == "master_port") {
        if (!is_integral_number(value) || integer_of(value) < 1 || integer_of(value) > 65535) {
          fail(pointer, "launch.master_port must be a port number 1-65535, got " + value.dump());
        } else {
          launch_.master_port = integer_of(value);
        }
      } else if (key == "config_dir") {
        if (value.is_null()) continue;
        if (!value.is_string() || value.get<std::string>().empty()) {
          fail(pointer, "launch.config_dir must be a non-empty path or null, got " + value.dump());
        } else if (std::string problem = line_control_problem(value.get<std::string>());
                   !problem.empty()) {
          fail(pointer,
               "launch.config_dir " + problem + "; the companions write the launch on one line");
        } else {
          launch_.config_dir = value.get<std::string>();
        }
      } else if (key == "hosts") {
        read_hosts(value, pointer);
      } else if (key == "environment") {
        read_environment(value, pointer);
      } else if (key == "style") {
        if (std::string problem = launch_style_problem(value); !problem.empty())
          fail(pointer, problem);
        else
          launch_.style = value.get<std::string>();
      } else if (key == "slurm") {
        slurm_ = &value;  // checked by plan_slurm, with the launch's shape
      } else if (key == "kubernetes") {
        kubernetes_ = &value;  // checked by plan_kubernetes, with the launch's shape
      } else {
        std::string guess = detail::nearest_name(key, kLaunchKeys);
        fail(pointer, "unknown key '" + key +
                          "' in launch (expected script, args, master_port, config_dir, hosts, "
                          "environment, style, slurm, kubernetes)" +
                          (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
      }
    }
  }

  void read_args(const Json& value, const std::string& pointer) {
    if (!value.is_array()) {
      fail(pointer, "launch.args must be a list of strings, got " + value.dump());
      return;
    }
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!value[i].is_string()) {
        fail(pointer + "/" + std::to_string(i),
             "launch.args must be a list of strings (write numbers as strings, \"3\"), got " +
                 value[i].dump());
        continue;
      }
      if (std::string problem = line_control_problem(value[i].get<std::string>());
          !problem.empty()) {
        fail(pointer + "/" + std::to_string(i),
             "launch.args: " + problem +
                 "; the companions write the launch on one line (a YAML comment, a shell "
                 "command): pass such a value in a file");
        continue;
      }
      if (std::string problem = argument_length_problem(value[i].get_ref<const std::string&>());
          !problem.empty()) {
        fail(pointer + "/" + std::to_string(i), "launch.args: " + problem);
        continue;
      }
      launch_.args.push_back(value[i].get<std::string>());
      arg_pointers_.push_back(pointer + "/" + std::to_string(i));
    }
    args_pointer_ = pointer;
  }

  // An argument (or a `NAME=value` entry) longer than execve takes: every launch would fail.
  static std::string argument_length_problem(std::string_view text) {
    if (text.size() <= launch::kMaxArgumentBytes) return "";
    return "a string of " + std::to_string(text.size()) +
           " bytes; Linux starts no program with an argument or environment entry over " +
           std::to_string(launch::kMaxArgumentBytes) +
           " bytes (MAX_ARG_STRLEN, 131072 with its NUL): every launch would fail with "
           "\"Argument list too long\"; pass such a value in a file";
  }

  // The launch's own words together (the script, its arguments and the environment, each as
  // execve counts it) within kMaxLaunchBytes of ARG_MAX: placed at the value that crosses it.
  void check_launch_size() {
    std::size_t total = launch::exec_cost(launch_.script.size());
    auto add = [&](std::size_t bytes, const std::string& pointer) {
      total += launch::exec_cost(bytes);
      if (total <= launch::kMaxLaunchBytes) return false;
      fail(pointer, "the launch's script, arguments and environment come to more than " +
                        std::to_string(launch::kMaxLaunchBytes) +
                        " bytes of the command line here (each string with its NUL and "
                        "pointer, as execve counts them): Linux allows about 2 MiB (ARG_MAX) "
                        "for them, the launcher's words and the inherited environment "
                        "together, so the launch would fail with \"Argument list too long\"; "
                        "pass the large values in a file");
      return true;
    };
    for (std::size_t i = 0; i < launch_.args.size(); ++i)
      if (add(launch_.args[i].size(), arg_pointers_[i])) return;
    for (const auto& [name, value] : launch_.environment.items()) {
      if (!value.is_string()) continue;
      if (add(name.size() + 1 + value.get_ref<const std::string&>().size(),
              "/launch/environment/" + escape_pointer_segment(name)))
        return;
    }
  }

  // A word of launch.args that a launcher's argparse takes for an abbreviation of two or more
  // of its options stops the launcher ("ambiguous option") before the script starts: argparse
  // looks at every word, those after the training script too (it only leaves them to the
  // script: REMAINDER), except those after a `--`. The `--` right after the script is removed
  // by the launcher, so DeepSpeed's launch.py, which gets what the runner kept, sees the words
  // after it unguarded.
  void check_abbreviations(bool torchrun, bool deepspeed) {
    const std::vector<std::string>& args = launch_.args;
    auto guarded_from = [&](std::size_t first) {
      for (std::size_t i = first; i < args.size(); ++i)
        if (args[i] == "--") return i;
      return args.size();
    };
    const std::size_t end = guarded_from(0);
    const std::size_t node_end = !args.empty() && args[0] == "--" ? guarded_from(1) : end;
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string found;
      auto add = [&](const launch::LauncherParser& parser,
                     const std::vector<std::string_view>& options) {
        found += (found.empty() ? "" : "; ") + std::string(parser.launcher) + " (" +
                 std::string(parser.version) + ") could match ";
        for (std::size_t k = 0; k < options.size(); ++k)
          found += (k == 0 ? "" : ", ") + std::string(options[k]);
      };
      if (torchrun && i < end) {
        // Either release may run it: each one that stops is named.
        for (const auto& parser : launch::torchrun_parsers())
          if (auto options = launch::ambiguous_options(parser, args[i]); !options.empty())
            add(parser, options);
      }
      if (deepspeed) {
        // The runner, then launch.py on each node: the first that stops is named.
        const auto parsers = launch::deepspeed_parsers();
        if (auto options = i < end ? launch::ambiguous_options(parsers[0], args[i])
                                   : std::vector<std::string_view>{};
            !options.empty()) {
          add(parsers[0], options);
        } else if (auto more = i < node_end && !(i == 0 && args[0] == "--")
                                   ? launch::ambiguous_options(parsers[1], args[i])
                                   : std::vector<std::string_view>{};
                   !more.empty()) {
          add(parsers[1], more);
        }
      }
      if (found.empty()) continue;
      fail(args_pointer_ + "/" + std::to_string(i),
           "launch.args passes " + Json(args[i]).dump() +
               ", which a launcher's argparse reads as an abbreviation of several of its own "
               "options, even after the training script, and stops at (\"ambiguous option\") "
               "before the script starts: " +
               found + "; write the argument in full, as the training script names it");
    }
  }

  // accelerate launch hands the script's arguments to torch's parser as one list, in place of
  // a word (accelerate utils/launch.py, _filter_args: parse_known_args([..., "--training_script
  // _args", args.training_script_args])); argparse looks that list up among its options when
  // its first word is "" or "-" (argparse reads the first character of a word: the list's first
  // element), and stops with a TypeError before the script starts.
  void check_accelerate_first_argument() {
    if (launch_.args.empty() || (!launch_.args[0].empty() && launch_.args[0] != "-")) return;
    fail(args_pointer_ + "/0",
         "launch.args starts with " + Json(launch_.args[0]).dump() +
             ", which accelerate launch cannot start a script with: it hands the script's "
             "arguments to torch's parser as one list (accelerate's _filter_args), and a list "
             "whose first word is \"\" or \"-\" makes argparse fail (TypeError: unhashable "
             "type: 'list'); put another argument first");
  }

  void read_hosts(const Json& value, const std::string& pointer) {
    if (value.is_null()) return;
    if (!value.is_array() || value.empty()) {
      fail(pointer,
           "launch.hosts must be a non-empty list of host names or null, got " + value.dump());
      return;
    }
    // Host names do not differ by case (DNS), so `GPU-1` and `gpu-1` are one machine: listed
    // twice, DeepSpeed refuses the hostfile (runner.py _parse_hostfile), or starts two sets of
    // processes on one node when only the case differs.
    std::unordered_map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::string where = pointer + "/" + std::to_string(i);
      if (!value[i].is_string()) {
        fail(where, "launch.hosts: expected a host name (a string), got " + value[i].dump());
        return;
      }
      if (std::string problem =
              launch_text_problem(LaunchText::HostName, value[i].get<std::string>());
          !problem.empty()) {
        fail(where, "launch.hosts: " + problem);
        return;
      }
      const std::string& name = value[i].get_ref<const std::string&>();
      std::string folded = name;
      for (char& c : folded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto [first, added] = seen.emplace(std::move(folded), i);
      if (!added) {
        const std::string& earlier = value[first->second].get_ref<const std::string&>();
        fail(pointer + "/" + std::to_string(i),
             "launch.hosts: " + value[i].dump() + " is listed twice (also entry " +
                 std::to_string(first->second) +
                 (earlier == name
                      ? ""
                      : ", " + value[first->second].dump() + "; host names do not differ by case") +
                 "): DeepSpeed refuses a hostfile that lists a host twice, and each node runs "
                 "one launch");
        return;
      }
    }
    launch_.hosts = value;
  }

  // A number or a boolean is the variable's text as JSON writes it (`NCCL_DEBUG_LEVEL: 2` is
  // "2", `true` is "true"), the way a YAML or .env file a team copies values from says it.
  void read_environment(const Json& value, const std::string& pointer) {
    if (value.is_null()) return;
    if (!value.is_object()) {
      fail(pointer,
           "launch.environment must be an object of variable name to string, got " + value.dump());
      return;
    }
    Json environment = Json::object();
    for (const auto& [name, given] : value.items()) {
      const std::string child = pointer + "/" + escape_pointer_segment(name);
      std::string text;
      if (given.is_string()) {
        text = given.get<std::string>();
      } else if (given.is_number() || given.is_boolean()) {
        text = to_json_text(given);
        text.pop_back();  // the writer's final newline
      }
      if (std::string problem = launch_text_problem(LaunchText::VariableName, name);
          !problem.empty()) {
        fail(child, "launch.environment: " + problem);
      } else if (!given.is_string() && !given.is_number() && !given.is_boolean()) {
        fail(child, "launch.environment." + name +
                        " must be a string, a number or a boolean, got " + given.dump());
      } else if (problem = launch_text_problem(LaunchText::VariableValue, text); !problem.empty()) {
        fail(child, "launch.environment." + name + " = " + problem);
      } else if (problem = argument_length_problem(name + "=" + text); !problem.empty()) {
        fail(child, "launch.environment." + name + ": the entry " + name + "=VALUE is " + problem);
      } else {
        environment[name] = text;
      }
    }
    launch_.environment = std::move(environment);
  }

  // The value a config key stands for: the config's own, or where the config says "auto" (the
  // HF Trainer fills it) the value it was made from.
  const Json* concrete(const Json* in_config, const Json* in_values) const {
    if (in_config == nullptr) return nullptr;
    if (is_auto(in_config)) return in_values;
    return in_config;
  }

  // TrainingArguments that agree with the config: every value HfTrainerDeepSpeedConfig fills
  // or compares (trainer_config_process / trainer_config_finalize), so the Trainer finds no
  // mismatch and fills each "auto" with the value the config was made from.
  Json hf_args(const std::string& config_ref) {
    Json hf = Json::object();
    hf["deepspeed"] = config_ref;
    auto integer_or = [&](const char* key, std::int64_t fallback) -> Json {
      const Json* v = member(config_, key);
      if (v != nullptr && is_integral_number(*v)) return integer_of(*v);
      return fallback;
    };
    hf["per_device_train_batch_size"] =
        integer_or("train_micro_batch_size_per_gpu", facts_.micro_batch_size);
    hf["gradient_accumulation_steps"] =
        integer_or("gradient_accumulation_steps", facts_.gradient_accumulation);
    const Json* fp16 = at(config_, {"fp16", "enabled"});
    const Json* bf16 = at(config_, {"bf16", "enabled"});
    if (is_auto(fp16) || is_auto(bf16)) {
      hf["bf16"] = facts_.precision == "bf16";
      hf["fp16"] = facts_.precision == "fp16";
    } else {
      hf["bf16"] = bf16 != nullptr && *bf16 == true;
      hf["fp16"] = fp16 != nullptr && *fp16 == true;
    }
    bool checkpointing = false;
    if (const Json* section = member(config_, "activation_checkpointing");
        section != nullptr && section->is_object()) {
      for (const auto& [key, value] : section->items())
        checkpointing = checkpointing || (value.is_boolean() && value.get<bool>());
    }
    // Auto-fit sized the micro batch for the checkpointing it was told: the launch must do it.
    if (const Json* fit = fit_argument("gradient_checkpointing"); fit != nullptr && *fit == true)
      checkpointing = true;
    hf["gradient_checkpointing"] = checkpointing;
    if (const Json* liger = fit_argument("use_liger_kernel")) hf["use_liger_kernel"] = *liger;
    auto number = [](const Json* v) { return v != nullptr && v->is_number(); };
    if (const Json* clip =
            concrete(member(config_, "gradient_clipping"), member(values_, "gradient_clipping"));
        number(clip)) {
      hf["max_grad_norm"] = *clip;
    }
    const Json* optimizer = at(config_, {"optimizer", "params"});
    const Json* scheduler = at(config_, {"scheduler", "params"});
    const Json* optimizer_values = member(values_, "optimizer");
    const Json* scheduler_values = member(values_, "scheduler");
    auto from_values = [](const Json* section, std::string_view key) {
      return section == nullptr ? nullptr : member(*section, key);
    };
    const Json* lr = nullptr;
    const Json* betas = nullptr;
    const Json* eps = nullptr;
    const Json* weight_decay = nullptr;
    if (optimizer != nullptr) {
      lr = concrete(member(*optimizer, "lr"), from_values(optimizer_values, "lr"));
      betas = concrete(member(*optimizer, "betas"), from_values(optimizer_values, "betas"));
      eps = concrete(member(*optimizer, "eps"), from_values(optimizer_values, "eps"));
      weight_decay = concrete(member(*optimizer, "weight_decay"),
                              from_values(optimizer_values, "weight_decay"));
    }
    const Json* max_lr = nullptr;
    const Json* warmup = nullptr;
    const Json* total = nullptr;
    if (scheduler != nullptr) {
      const Json* max_lr_value = from_values(scheduler_values, "warmup_max_lr");
      if (max_lr_value == nullptr) max_lr_value = from_values(optimizer_values, "lr");
      max_lr = concrete(member(*scheduler, "warmup_max_lr"), max_lr_value);
      warmup = concrete(member(*scheduler, "warmup_num_steps"),
                        from_values(scheduler_values, "warmup_num_steps"));
      total = concrete(member(*scheduler, "total_num_steps"),
                       from_values(scheduler_values, "total_num_steps"));
    }
    if (number(lr) && number(max_lr) && lr->get<double>() != max_lr->get<double>()) {
      fail("/scheduler/warmup_max_lr",
           "the HF Trainer takes one learning rate (--learning_rate) for optimizer.lr " +
               lr->dump() + " and scheduler.warmup_max_lr " + max_lr->dump() +
               ", and refuses a config where they differ; leave scheduler.warmup_max_lr out "
               "(it follows optimizer.lr) or make them equal");
    }
    if (number(lr)) {
      hf["learning_rate"] = *lr;
    } else if (number(max_lr)) {
      hf["learning_rate"] = *max_lr;
    }
    if (betas != nullptr && betas->is_array() && betas->size() == 2 && number(&(*betas)[0]) &&
        number(&(*betas)[1])) {
      hf["adam_beta1"] = (*betas)[0];
      hf["adam_beta2"] = (*betas)[1];
    }
    if (number(eps)) hf["adam_epsilon"] = *eps;
    if (number(weight_decay)) hf["weight_decay"] = *weight_decay;
    if (warmup != nullptr && is_integral_number(*warmup)) hf["warmup_steps"] = integer_of(*warmup);
    if (total != nullptr && is_integral_number(*total)) hf["max_steps"] = integer_of(*total);

    // The training script's own arguments must not set what is derived here: argparse takes
    // the last occurrence, so one of them would silently lose.
    // In another style the launchers pass none of them: the hf-args file stands alone.
    for (std::size_t i = 0; style_.trainer_arguments && i < launch_.args.size(); ++i) {
      const std::string& arg = launch_.args[i];
      if (!arg.starts_with("--")) continue;
      std::string name =
          arg.substr(2, arg.find('=') == std::string::npos ? std::string::npos : arg.find('=') - 2);
      if (!hf.contains(name)) continue;
      if (subject_.fit != nullptr &&
          (name == "gradient_checkpointing" || name == "use_liger_kernel")) {
        fail(args_pointer_ + "/" + std::to_string(i),
             "launch.args passes --" + name +
                 ", which the companions derive from auto-fit's record and pass themselves (the "
                 "fit sized the micro batch for it); remove it and set auto_fit." +
                 (name == "gradient_checkpointing" ? "activation_checkpointing" : "loss") +
                 " instead");
      } else {
        fail(args_pointer_ + "/" + std::to_string(i),
             "launch.args passes --" + name +
                 ", which the companions derive from the config and pass themselves; remove it");
      }
    }
    return hf;
  }

  const std::vector<std::string>& kinds_;
  const CompanionSubject& subject_;
  const Json& values_;
  const Json& config_;
  const DeepSpeedFacts& facts_;
  Launch launch_;
  FitLaunch fit_;
  StyleLaunch style_;
  std::string args_pointer_ = "/launch/args";
  std::vector<std::string> arg_pointers_;  // of each of launch_.args
  const Json* slurm_ = nullptr;            // launch.slurm, when given
  const Json* kubernetes_ = nullptr;       // launch.kubernetes, when given
  CompanionPlan plan_;
};

}  // namespace

const std::vector<std::string>& companion_value_names() {
  static const std::vector<std::string> names = {"launch",     "gpus_per_node",     "nodes",
                                                 "world_size", "gradient_clipping", "optimizer",
                                                 "scheduler",  "cpu_memory_gib",    "cpu_cores"};
  return names;
}

CompanionPlan plan_companions(const std::vector<std::string>& kinds,
                              const CompanionSubject& subject) {
  return Planner(kinds, subject).run();
}

std::string tier_gpu_shortfall(const Tier* tier, std::int64_t gpus_per_node) {
  if (tier == nullptr) return "";
  auto it = tier->values.find("gpus_per_node");
  if (it == tier->values.end() || !it->is_number_integer()) return "";
  const std::int64_t has = it->get<std::int64_t>();
  if (gpus_per_node <= has) return "";
  return "the nodes of tier '" + tier->name + "' have " + std::to_string(has) +
         (tier->file == tier->name ? "" : " (" + tier->file + ")");
}

std::string companion_path(const std::string& kind, const std::string& config_path) {
  std::string base = config_path;
  if (base.ends_with(".json") && base.size() > 5 && base[base.size() - 6] != '/')
    base.resize(base.size() - 5);
  return base + std::string(kind_file(kind).suffix);
}

std::string companion_template(const std::string& kind) {
  return std::string(kind_file(kind).template_);
}

bool companion_is_executable(const std::string& kind) {
  return kind == "deepspeed" || kind == "torchrun" || kind == "slurm";
}

}  // namespace zf::pipeline
