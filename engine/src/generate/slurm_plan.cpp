// SPDX-License-Identifier: MIT
// plan_slurm (slurm_plan.hpp): `launch.slurm` checked with the launch-text rules every `#SBATCH`
// value follows, the job's defaults (name, all of each node's memory, the tier's CPUs), the one
// request the tier itself can refuse (more GPUs per node than its nodes have), and the warning
// that the job's CPUs are too few for its GPU ranks.
#include "slurm_plan.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <string_view>

#include "launch/launch_text.hpp"
#include "text_helpers.hpp"
#include "zeroforge/values.hpp"

namespace zf::pipeline {

using Json = nlohmann::ordered_json;
using launch::launch_text_problem;
using launch::LaunchText;

namespace {

constexpr std::array<std::string_view, 12> kSlurmKeys = {
    "launcher",   "job_name",    "partition", "account",       "qos",    "time",
    "constraint", "reservation", "exclusive", "cpus_per_task", "memory", "output"};

// How each directive's value is checked: a name, a time limit, or one word of an #SBATCH line.
struct Directive {
  std::string_view key;
  LaunchText kind;
};
constexpr std::array<Directive, 8> kDirectives = {{{"partition", LaunchText::SlurmName},
                                                   {"job_name", LaunchText::SlurmName},
                                                   {"account", LaunchText::SlurmName},
                                                   {"qos", LaunchText::SlurmName},
                                                   {"reservation", LaunchText::SlurmName},
                                                   {"time", LaunchText::SlurmTime},
                                                   {"constraint", LaunchText::SlurmWord},
                                                   {"output", LaunchText::SlurmWord}}};

// A memory request as sbatch's --mem takes it: a whole number, in MiB or with a unit K, M, G, T.
bool is_slurm_memory(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 12) return false;
  return digits == text.size() ||
         (digits + 1 == text.size() &&
          std::string_view("KMGT").find(text.back()) != std::string_view::npos);
}

// The default job name: the family and the config's path, as a SLURM name (`example-medium-zero3`).
std::string default_job_name(const SlurmSubject& subject) {
  std::string path = subject.config_path;
  if (path.ends_with(".json")) path.resize(path.size() - 5);
  std::string name = subject.family.empty() ? path : subject.family + "-" + path;
  for (char& c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '_' && c != '-' && c != '.') c = '-';
  }
  if (name.empty() || name.front() == '-') name = "zeroforge" + name;
  return name;
}

class SlurmPlanner {
 public:
  SlurmPlanner(const SlurmSubject& subject, std::vector<CompanionProblem>& problems)
      : subject_(subject), problems_(problems) {}

  Json run(const Json* value) {
    Json slurm = Json::object();
    slurm["launcher"] = "torchrun";
    slurm["job_name"] = default_job_name(subject_);
    for (const char* key : {"partition", "account", "qos", "time", "constraint", "reservation"})
      slurm[key] = nullptr;
    slurm["exclusive"] = false;
    // One task per node runs every rank of the node and their data loaders: it asks for all of
    // the node's CPUs (the tier's cpu_cores) and all of its memory (--mem=0: what SLURM may
    // give, RealMemory less MemSpecLimit; a size from the tier's MemTotal is more than a
    // node's RealMemory usually is, and sbatch refuses such a job).
    slurm["cpus_per_task"] = tier_cpus();
    slurm["memory"] = "0";
    slurm["output"] = nullptr;
    if (value != nullptr && !value->is_null()) read(*value, slurm);
    if (subject_.requested) {
      check_tier_gpus();
      check_cpus_per_rank(slurm);
    }
    return slurm;
  }

 private:
  void fail(std::string pointer, std::string message) {
    problems_.push_back({std::move(pointer), std::move(message)});
  }

  // The tier's CPUs per node (`cpu_cores`, as values layered it: tier, family, --set), or null.
  // The values contract has checked it is a whole number > 0.
  Json tier_cpus() {
    if (subject_.values == nullptr) return nullptr;
    auto cores = subject_.values->find("cpu_cores");
    if (cores == subject_.values->end() || !cores->is_number() || cores->is_boolean())
      return nullptr;
    const double count = cores->get<double>();
    if (!(count >= 1) || count > 1e6 || count != std::floor(count)) return nullptr;
    cpus_ = CpusFrom::Tier;
    return static_cast<std::int64_t>(count);
  }

  void read(const Json& value, Json& slurm) {
    if (!value.is_object()) {
      fail("/launch/slurm",
           "launch.slurm must be an object (" + keys_text() + ") or null, got " + value.dump());
      return;
    }
    for (const auto& [key, item] : value.items()) {
      const std::string pointer = "/launch/slurm/" + escape_pointer_segment(key);
      const std::string name = "launch.slurm." + key;
      if (key == "launcher") {
        if (item != "torchrun" && item != "accelerate") {
          fail(pointer, name + " must be \"torchrun\" or \"accelerate\", got " + item.dump());
          continue;
        }
        slurm[key] = item;
      } else if (key == "exclusive") {
        if (!item.is_boolean()) {
          fail(pointer, name + " must be true or false, got " + item.dump());
          continue;
        }
        slurm[key] = item;
      } else if (key == "cpus_per_task") {
        // null leaves --cpus-per-task out (SLURM's one CPU per task).
        if (item.is_null()) {
          slurm[key] = nullptr;
          cpus_ = CpusFrom::Null;
          continue;
        }
        if (!item.is_number_integer() || item.get<std::int64_t>() < 1 ||
            item.get<std::int64_t>() > 1000000) {
          fail(pointer, name + " must be a whole number of CPUs > 0 or null, got " + item.dump());
          continue;
        }
        slurm[key] = item;
        cpus_ = CpusFrom::Given;
      } else if (key == "memory") {
        // null leaves --mem out (the partition's default); a number is MiB, as sbatch reads it.
        if (item.is_null()) {
          slurm[key] = nullptr;
          continue;
        }
        std::string text = item.is_number_integer() && item.get<std::int64_t>() >= 0
                               ? std::to_string(item.get<std::int64_t>())
                           : item.is_string() ? item.get<std::string>()
                                              : std::string();
        if (!is_slurm_memory(text)) {
          fail(pointer, name +
                            " must be a memory size sbatch's --mem reads (a whole number of "
                            "MiB, or with a unit K, M, G or T: \"512G\"; \"0\" is all of a "
                            "node's memory) or null, got " +
                            item.dump());
          continue;
        }
        slurm[key] = text;
      } else if (const Directive* directive = find_directive(key); directive != nullptr) {
        if (item.is_null() && key != "job_name") continue;
        if (!item.is_string()) {
          fail(pointer, name + " must be a string" + (key == "job_name" ? "" : " or null") +
                            ", got " + item.dump());
          continue;
        }
        std::string text = item.get<std::string>();
        std::string problem = directive->kind == LaunchText::SlurmName && key == "partition"
                                  ? partition_problem(text)
                                  : launch_text_problem(directive->kind, text);
        if (!problem.empty()) {
          fail(pointer, name + ": " + problem);
          continue;
        }
        slurm[key] = text;
      } else {
        std::string guess = detail::nearest_name(key, kSlurmKeys);
        fail(pointer, "unknown key '" + key + "' in launch.slurm (expected " + keys_text() + ")" +
                          (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
      }
    }
  }

  // sbatch takes several partitions, comma-separated (the job starts in the first that can).
  static std::string partition_problem(const std::string& text) {
    std::size_t start = 0;
    while (true) {
      std::size_t comma = text.find(',', start);
      std::string part = text.substr(start, comma == std::string::npos ? comma : comma - start);
      if (std::string problem = launch_text_problem(LaunchText::SlurmName, part); !problem.empty())
        return text == part ? problem : problem + ", in the list " + Json(text).dump();
      if (comma == std::string::npos) return "";
      start = comma + 1;
    }
  }

  static const Directive* find_directive(const std::string& key) {
    for (const auto& directive : kDirectives)
      if (directive.key == key) return &directive;
    return nullptr;
  }

  static std::string keys_text() {
    std::string text;
    for (auto key : kSlurmKeys) text += (text.empty() ? "" : ", ") + std::string(key);
    return text;
  }

  // A job that asks each node for more GPUs than the tier's nodes have never starts: sbatch
  // refuses it ("Requested node configuration is not available"), or it waits for ever.
  void check_tier_gpus() {
    const std::string shortfall = tier_gpu_shortfall(subject_.tier, subject_.gpus_per_node);
    if (shortfall.empty()) return;
    fail("/gpus_per_node", "the slurm companion asks each node for gpus_per_node=" +
                               std::to_string(subject_.gpus_per_node) + " GPUs (--gres=gpu:" +
                               std::to_string(subject_.gpus_per_node) + "), but " + shortfall +
                               "; SLURM would refuse the job or hold it for ever");
  }

  // Each GPU rank needs a CPU of its own and one for its data loader: fewer than 2 per rank
  // and the ranks wait on their input (under task/cgroup they share what the task has).
  void check_cpus_per_rank(const Json& slurm) {
    const std::int64_t ranks = subject_.gpus_per_node;
    const Json& cpus = slurm.at("cpus_per_task");
    const std::string rank_text =
        std::to_string(ranks) + " GPU rank" + (ranks == 1 ? "" : "s") + " per node";
    if (cpus.is_null()) {
      // --exclusive gives the job every CPU of its nodes, whatever they are.
      if (slurm.at("exclusive") == true) return;
      if (cpus_ == CpusFrom::Null) {
        warnings_.push_back({"/launch/slurm/cpus_per_task",
                             "the slurm job runs its " + rank_text +
                                 " in one task of SLURM's default 1 CPU "
                                 "(launch.slurm.cpus_per_task is null): fewer than 2 CPUs per "
                                 "rank (one for the rank, one for its data loader)"});
      } else {
        warnings_.push_back(
            {"", "the slurm job runs its " + rank_text + " in one task of SLURM's default 1 CPU: " +
                     (subject_.tier == nullptr ? std::string("there is no tier")
                                               : "tier '" + subject_.tier->name + "'") +
                     " has no cpu_cores (CPUs per node) to ask for; add cpu_cores to the tier "
                     "(zeroforge probe writes it) or set launch.slurm.cpus_per_task"});
      }
      return;
    }
    const std::int64_t count = cpus.get<std::int64_t>();
    if (count >= 2 * ranks) return;
    const bool tier = cpus_ == CpusFrom::Tier;
    const std::string name = tier ? "cpu_cores" : "launch.slurm.cpus_per_task";
    warnings_.push_back(
        {tier ? "/cpu_cores" : "/launch/slurm/cpus_per_task",
         "the slurm job gives its " + rank_text + " " + std::to_string(count) + " CPU" +
             (count == 1 ? "" : "s") + " (" + name + "=" + std::to_string(count) +
             "): fewer than 2 per rank (one for the rank, one for its data loader); the ranks "
             "will wait on their input"});
  }

 public:
  std::vector<CompanionProblem> take_warnings() { return std::move(warnings_); }

 private:
  const SlurmSubject& subject_;
  std::vector<CompanionProblem>& problems_;
  std::vector<CompanionProblem> warnings_;
  // Where cpus_per_task came from: the tier's cpu_cores, launch.slurm (a number or null).
  enum class CpusFrom { None, Tier, Given, Null };
  CpusFrom cpus_ = CpusFrom::None;
};

}  // namespace

Json plan_slurm(const Json* value, const SlurmSubject& subject,
                std::vector<CompanionProblem>& problems, std::vector<CompanionProblem>* warnings) {
  SlurmPlanner planner(subject, problems);
  Json slurm = planner.run(value);
  if (warnings != nullptr)
    for (auto& warning : planner.take_warnings()) warnings->push_back(std::move(warning));
  return slurm;
}

}  // namespace zf::pipeline
