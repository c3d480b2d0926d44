// SPDX-License-Identifier: MIT
// Consistency with the training command: parsing a launcher + HF TrainingArguments command
// line, and the "args" rule family (what the HF Trainer would refuse as a mismatch, and the
// world size the launcher starts).
#include "against_args.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "launch/launcher_options.hpp"
#include "sbatch_script.hpp"
#include "zeroforge/error.hpp"

namespace zf {
namespace {

std::vector<std::string> split_shell(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      if (text[i + 1] == '\n') {
        ++i;
        continue;
      }
      word += text[++i];
      in_word = true;
    } else if (c == '\'' || c == '"') {
      std::size_t end = text.find(c, i + 1);
      if (end == std::string_view::npos) {
        throw Error(ErrorKind::Usage, std::string("--against-args: unterminated ") + c + " quote");
      }
      word.append(text.substr(i + 1, end - i - 1));
      i = end;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

long long to_integer(const std::string& flag, const std::string& text) {
  try {
    std::size_t used = 0;
    long long value = std::stoll(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw Error(ErrorKind::Usage,
              "--against-args: " + flag + " expects an integer, found '" + text + "'");
}

double to_number(const std::string& flag, const std::string& text) {
  try {
    std::size_t used = 0;
    double value = std::stod(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw Error(ErrorKind::Usage,
              "--against-args: " + flag + " expects a number, found '" + text + "'");
}

std::optional<bool> bool_word(const std::string& text) {
  if (text == "True" || text == "true" || text == "1" || text == "yes") return true;
  if (text == "False" || text == "false" || text == "0" || text == "no") return false;
  return std::nullopt;
}

}  // namespace

std::vector<std::string> detail::split_command_words(std::string_view text) {
  return split_shell(text);
}

TrainingCommand parse_training_command(std::string_view command_line) {
  std::vector<std::string> words = split_shell(command_line);
  if (!words.empty() && std::filesystem::path(words[0]).filename() == "sbatch") {
    TrainingCommand cmd;
    detail::parse_sbatch_words(cmd, words, 1);
    return cmd;
  }
  return detail::parse_training_words(words);
}

TrainingCommand detail::parse_training_words(const std::vector<std::string>& words) {
  TrainingCommand cmd;
  std::optional<long long> gpus, nodes, nproc, nnodes, processes;
  bool in_script = false;  // launcher options end at the training script
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string word = words[i];
    std::string inline_value;
    bool has_inline = false;
    if (auto eq = word.find('='); word.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = word.substr(eq + 1);
      word = word.substr(0, eq);
      has_inline = true;
    }
    auto value = [&]() -> std::string {
      if (has_inline) return inline_value;
      if (i + 1 >= words.size())
        throw Error(ErrorKind::Usage, "--against-args: " + word + " needs a value");
      return words[++i];
    };
    auto flag = [&]() -> bool {
      if (has_inline) {
        auto b = bool_word(inline_value);
        if (!b) throw Error(ErrorKind::Usage, "--against-args: " + word + " expects True or False");
        return *b;
      }
      if (i + 1 < words.size()) {
        if (auto b = bool_word(words[i + 1])) {
          ++i;
          return *b;
        }
      }
      return true;
    };
    std::string base = std::filesystem::path(word).filename().string();
    if (!in_script && cmd.launcher.empty()) {
      if (base == "deepspeed") {
        cmd.launcher = "deepspeed";
        continue;
      }
      if (base == "torchrun" || word == "torch.distributed.run" ||
          word == "torch.distributed.launch") {
        cmd.launcher = "torchrun";
        continue;
      }
      if (base == "accelerate" && i + 1 < words.size() && words[i + 1] == "launch") {
        cmd.launcher = "accelerate";
        ++i;
        continue;
      }
    }
    // After a launcher, the script is the first word that is neither an option nor an
    // option's value, as the launcher's argparse reads it (a shell wrapper or a binary run with
    // --no_python too); without one, a `.py` word.
    const bool after_launcher = !in_script && !cmd.launcher.empty();
    if (after_launcher ? !words[i].starts_with('-')
                       : !in_script && !word.starts_with('-') && word.size() > 3 &&
                             word.compare(word.size() - 3, 3, ".py") == 0) {
      in_script = true;
      cmd.script = words[i];
      continue;
    }
    if (after_launcher && (word == "--no_python" || word == "--no-python")) cmd.no_python = true;
    if (!in_script) {
      if (word == "--num_gpus" || word == "--num-gpus" || word == "--num_accelerators")
        gpus = to_integer(word, value());
      else if (word == "--num_nodes" || word == "--num-nodes")
        nodes = to_integer(word, value());
      else if (cmd.launcher == "deepspeed" && (word == "--hostfile" || word == "-H"))
        cmd.hostfile = value();
      else if (word == "--nproc_per_node" || word == "--nproc-per-node")
        nproc = to_integer(word, value());
      else if (word == "--nnodes") {
        std::string v = value();
        if (v.find(':') == std::string::npos)
          nnodes = to_integer(word, v);  // an elastic range says nothing
      } else if (word == "--num_processes" || word == "--num-processes")
        processes = to_integer(word, value());
      else if (word == "--deepspeed_config_file") {
        cmd.deepspeed = value();
        cmd.deepspeed_option = word;
      } else if (cmd.launcher == "accelerate" &&
                 (word == "--config_file" || word == "--config-file"))
        cmd.accelerate_config_file = value();
      else if (cmd.launcher == "accelerate" && word == "--mixed_precision")
        cmd.mixed_precision = value();
      else if (after_launcher && !has_inline && !launch::is_flag_option(cmd.launcher, word) &&
               i + 1 < words.size())
        ++i;  // another option's value, which could be taken for the script
      if (!cmd.launcher.empty() || word.rfind("--", 0) != 0) continue;
    }
    if (word == "--deepspeed" && !has_inline &&
        (i + 1 >= words.size() || words[i + 1].starts_with("--"))) {
      // add_config_arguments' boolean flag; the file follows as --deepspeed_config.
      cmd.deepspeed_flag = true;
      continue;
    }
    if (word == "--deepspeed_config") {
      cmd.deepspeed = value();
      cmd.deepspeed_option = word;
      continue;
    }
    const bool trainer_before = cmd.trainer_arguments;
    cmd.trainer_arguments = true;  // unless the word is none of the Trainer's (below)
    if (word == "--per_device_train_batch_size")
      cmd.per_device_train_batch_size = to_integer(word, value());
    else if (word == "--gradient_accumulation_steps")
      cmd.gradient_accumulation_steps = to_integer(word, value());
    else if (word == "--bf16")
      cmd.bf16 = flag();
    else if (word == "--fp16")
      cmd.fp16 = flag();
    else if (word == "--gradient_checkpointing")
      cmd.gradient_checkpointing = flag();
    else if (word == "--max_grad_norm")
      cmd.max_grad_norm = to_number(word, value());
    else if (word == "--learning_rate")
      cmd.learning_rate = to_number(word, value());
    else if (word == "--warmup_steps")
      cmd.warmup_steps = to_integer(word, value());
    else if (word == "--warmup_ratio")
      cmd.warmup_ratio = to_number(word, value());
    else if (word == "--adam_beta1")
      cmd.adam_beta1 = to_number(word, value());
    else if (word == "--adam_beta2")
      cmd.adam_beta2 = to_number(word, value());
    else if (word == "--adam_epsilon")
      cmd.adam_epsilon = to_number(word, value());
    else if (word == "--weight_decay")
      cmd.weight_decay = to_number(word, value());
    else if (word == "--max_steps")
      cmd.max_steps = to_integer(word, value());
    else if (word == "--deepspeed") {
      cmd.deepspeed = value();
      cmd.deepspeed_option = word;
    } else
      cmd.trainer_arguments = trainer_before;
  }
  // The processes a launcher starts: per node x nodes, refused when it overflows (a count no
  // cluster has; the product was undefined behaviour, found by validate_fuzz).
  auto processes_of = [](const char* per_node_flag, long long per_node, const char* nodes_flag,
                         long long node_count) {
    long long world = 0;
    if (__builtin_mul_overflow(per_node, node_count, &world)) {
      throw Error(ErrorKind::Usage, std::string("--against-args: ") + per_node_flag + " " +
                                        std::to_string(per_node) + " x " + nodes_flag + " " +
                                        std::to_string(node_count) +
                                        " processes is more than a 64-bit count holds");
    }
    return world;
  };
  if (cmd.launcher == "deepspeed") {
    cmd.deepspeed_num_gpus = gpus;
    cmd.deepspeed_num_nodes = nodes;
    if (gpus && !cmd.hostfile)
      cmd.world_size = processes_of("--num_gpus", *gpus, "--num_nodes", nodes.value_or(1));
  }
  if (cmd.launcher == "torchrun" && nproc)
    cmd.world_size = processes_of("--nproc-per-node", *nproc, "--nnodes", nnodes.value_or(1));
  if (cmd.launcher == "accelerate" && processes) cmd.world_size = *processes;
  return cmd;
}

}  // namespace zf

namespace zf::validate {
namespace {

// The args family reports through the DeepSpeed rule families' context and reads the config
// with their helpers (deepspeed/rules.hpp).
using deepspeed::at_pointer;
using deepspeed::Context;
using deepspeed::json;

std::string number_text(double d) {
  if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
  std::string s = json(d).dump();
  return s;
}

// A config value the Trainer compares with an argument: absent and "auto" compare as nothing.
std::optional<double> number_at(const json& config, const std::string& pointer) {
  const json* v = at_pointer(config, pointer);
  if (v == nullptr || !v->is_number() || v->is_boolean()) return std::nullopt;
  return v->get<double>();
}

std::optional<bool> bool_at(const json& config, const std::string& pointer) {
  const json* v = at_pointer(config, pointer);
  if (v == nullptr || !v->is_boolean()) return std::nullopt;
  return v->get<bool>();
}

// What accelerate launch refuses, or does with a DeepSpeed config, given its config file
// (accelerate 1.x: commands/launch.py launch_command, utils/dataclasses.py DeepSpeedPlugin).
void check_accelerate_config(const Context& ctx, const AccelerateConfig& config,
                             const std::string& validated) {
  const std::string& file = config.file;
  if (!config.distributed_type) {
    ctx.report("", Severity::Error, "args-accelerate",
               "the accelerate config " + file +
                   " has no distributed_type (accelerate refuses it); write distributed_type: "
                   "DEEPSPEED");
  } else if (*config.distributed_type != "DEEPSPEED") {
    ctx.report("", Severity::Error, "args-accelerate",
               "the accelerate config " + file + " has distributed_type " +
                   *config.distributed_type +
                   ": accelerate launch does not start DeepSpeed, so no DeepSpeed config is "
                   "used; write distributed_type: DEEPSPEED");
  }
  if (!config.deepspeed_config_file) {
    if (config.distributed_type && *config.distributed_type == "DEEPSPEED") {
      ctx.report("", Severity::Error, "args-accelerate",
                 "the accelerate config " + file +
                     " has no deepspeed_config.deepspeed_config_file: accelerate builds its own "
                     "DeepSpeed config from its deepspeed_config keys, not this file");
    }
    return;
  }
  std::string named = std::filesystem::path(*config.deepspeed_config_file).filename().string();
  if (named != validated) {
    ctx.report("", Severity::Warning, "args-deepspeed-file",
               "the accelerate config " + file + " names deepspeed_config_file " +
                   *config.deepspeed_config_file + ", not this file");
  }
  // DeepSpeedPlugin._deepspeed_config_checks: with a config file, these raise ValueError.
  static const char* const kRefused[] = {
      "gradient_accumulation_steps", "gradient_clipping",     "zero_stage",
      "offload_optimizer_device",    "offload_param_device",  "offload_param_nvme_path",
      "offload_optimizer_nvme_path", "zero3_save_16bit_model"};
  std::string refused;
  for (const auto& key : config.deepspeed_config_keys) {
    if (std::find(std::begin(kRefused), std::end(kRefused), key) != std::end(kRefused))
      refused += (refused.empty() ? "" : ", ") + key;
  }
  if (config.mixed_precision) {
    refused += std::string(refused.empty() ? "" : ", ") + "mixed_precision (" +
               *config.mixed_precision + ")";
  }
  if (!refused.empty()) {
    ctx.report("", Severity::Error, "args-accelerate",
               "the accelerate config " + file + " sets " + refused +
                   " next to deepspeed_config_file, which accelerate refuses (\"When using "
                   "`deepspeed_config_file`, the following accelerate config variables will be "
                   "ignored\"); remove them: the DeepSpeed config decides");
  }
}

// What a process started by `accelerate launch` trains in with this DeepSpeed config
// (accelerate 1.x DeepSpeedPlugin.set_mixed_precision; transformers TrainingArguments and
// HfTrainerDeepSpeedConfig): accelerate refuses a mixed precision that contradicts the config;
// where the config says "auto", the Trainer fills it from --bf16/--fp16 and a plain
// Accelerator() from accelerate's mixed precision, which is "no" unless the launch names it.
void check_accelerate_precision(const Context& ctx, const TrainingCommand& cmd) {
  const json& c = ctx.config;
  const bool named =
      cmd.mixed_precision || (cmd.accelerate_config && cmd.accelerate_config->mixed_precision);
  const std::string mixed = cmd.mixed_precision ? *cmd.mixed_precision
                            : named             ? *cmd.accelerate_config->mixed_precision
                                                : "no";
  const json* fp16 = at_pointer(c, "/fp16/enabled");
  const json* bf16 = at_pointer(c, "/bf16/enabled");
  auto is_true = [](const json* v) { return v != nullptr && v->is_boolean() && v->get<bool>(); };
  auto is_auto = [](const json* v) { return v != nullptr && v->is_string() && *v == "auto"; };
  if (mixed != "no") {
    const bool wants_fp16 = mixed == "fp16";
    if (wants_fp16 ? is_true(bf16) : is_true(fp16)) {
      ctx.report(wants_fp16 ? "/bf16/enabled" : "/fp16/enabled", Severity::Error, "args-precision",
                 std::string(wants_fp16 ? "bf16" : "fp16") +
                     ".enabled is true, and accelerate launch with mixed precision '" + mixed +
                     "' refuses the config (\"`--mixed_precision` arg cannot be set to `" + mixed +
                     "` when `" + (wants_fp16 ? "bf16" : "fp16") +
                     "` is set in the DeepSpeed config file\"); launch with --mixed_precision " +
                     (wants_fp16 ? "bf16" : "fp16"));
      return;
    }
  }
  if (!is_auto(fp16) && !is_auto(bf16)) return;
  const std::string accelerator = mixed == "no" ? "fp32" : mixed == "fp8" ? "bf16" : mixed;
  const std::string pointer = is_auto(bf16) ? "/bf16/enabled" : "/fp16/enabled";
  if (cmd.trainer_arguments) {
    const std::string trainer = cmd.bf16.value_or(false)   ? "bf16"
                                : cmd.fp16.value_or(false) ? "fp16"
                                                           : "fp32";
    if (trainer != accelerator) {
      ctx.report(
          pointer, Severity::Error, "args-precision",
          "the config's precision is \"auto\": the HF Trainer fills it from " +
              std::string(trainer == "fp32" ? "the absence of --bf16 and --fp16" : "--" + trainer) +
              " (" + trainer +
              "), but a script with a plain Accelerator() fills it from accelerate's "
              "mixed precision '" +
              mixed + "' (" + accelerator + "); launch with --mixed_precision " +
              (trainer == "fp32" ? std::string("no") : trainer) + " so that both train in " +
              trainer);
    }
  } else if (!named) {
    ctx.report(pointer, Severity::Warning, "args-precision",
               "the config's precision is \"auto\" and accelerate launch names no mixed "
               "precision: a plain Accelerator() fills it with 'no' and trains in fp32; name "
               "the precision with --mixed_precision (bf16, fp16 or no)");
  }
}

}  // namespace

void check_against_args(const Context& ctx, const TrainingCommand& cmd) {
  if (!ctx.config.is_object()) return;
  const json& c = ctx.config;
  if (ctx.options.world_size && cmd.world_size && *ctx.options.world_size != *cmd.world_size) {
    ctx.report("", Severity::Error, "args-world-size",
               "--world-size " + std::to_string(*ctx.options.world_size) + " disagrees with the " +
                   cmd.launcher + " launcher, which starts " + std::to_string(*cmd.world_size) +
                   " processes");
  }
  // An sbatch script: the allocation its directives (or sbatch's options) ask for must be the
  // world its launch starts, or the script's guard (or the launcher) stops the job.
  if (cmd.sbatch_script && cmd.slurm_nodes && cmd.slurm_gpus_per_node && cmd.world_size &&
      *cmd.slurm_nodes * *cmd.slurm_gpus_per_node != *cmd.world_size) {
    ctx.report("", Severity::Error, "args-world-size",
               "sbatch " + *cmd.sbatch_script + " asks SLURM for " +
                   std::to_string(*cmd.slurm_nodes) + " node(s) x " +
                   std::to_string(*cmd.slurm_gpus_per_node) + " GPU(s), but its " + cmd.launcher +
                   " launch starts " + std::to_string(*cmd.world_size) +
                   " processes; submit the script without -N/--nodes/--gres/--gpus-per-node, or "
                   "make its directives and its launch agree");
  }
  std::optional<long long> world = ctx.options.world_size ? ctx.options.world_size : cmd.world_size;

  auto micro = number_at(c, "/train_micro_batch_size_per_gpu");
  auto gas = number_at(c, "/gradient_accumulation_steps");
  auto train = number_at(c, "/train_batch_size");
  if (cmd.per_device_train_batch_size && micro &&
      *micro != static_cast<double>(*cmd.per_device_train_batch_size)) {
    std::string hint;
    if (gas && static_cast<double>(*cmd.per_device_train_batch_size) == *micro * *gas) {
      hint =
          "; --per_device_train_batch_size already includes the accumulation, so the batch is "
          "counted twice";
    }
    ctx.report("/train_micro_batch_size_per_gpu", Severity::Error, "args-batch",
               "train_micro_batch_size_per_gpu " + number_text(*micro) +
                   " != --per_device_train_batch_size " +
                   std::to_string(*cmd.per_device_train_batch_size) +
                   "; the HF Trainer refuses the mismatch" + hint + " (or write \"auto\")");
  }
  if (cmd.gradient_accumulation_steps && gas &&
      *gas != static_cast<double>(*cmd.gradient_accumulation_steps)) {
    ctx.report("/gradient_accumulation_steps", Severity::Error, "args-batch",
               "gradient_accumulation_steps " + number_text(*gas) +
                   " != --gradient_accumulation_steps " +
                   std::to_string(*cmd.gradient_accumulation_steps) +
                   "; the HF Trainer refuses the mismatch (or write \"auto\")");
  }
  if (train && world && (cmd.per_device_train_batch_size || micro) &&
      (cmd.gradient_accumulation_steps || gas)) {
    double m = cmd.per_device_train_batch_size
                   ? static_cast<double>(*cmd.per_device_train_batch_size)
                   : *micro;
    double g = cmd.gradient_accumulation_steps
                   ? static_cast<double>(*cmd.gradient_accumulation_steps)
                   : *gas;
    double want = m * g * static_cast<double>(*world);
    if (*train != want) {
      std::string hint;
      if (*world > 1 && *train == m * g) hint = "; the world size is left out";
      ctx.report("/train_batch_size", Severity::Error, "args-batch",
                 "train_batch_size " + number_text(*train) + " != per-device batch " +
                     number_text(m) + " * accumulation " + number_text(g) + " * world size " +
                     std::to_string(*world) + " = " + number_text(want) + hint + "; write " +
                     number_text(want) + " or \"auto\"");
    }
  }

  auto fp16 = bool_at(c, "/fp16/enabled");
  auto bf16 = bool_at(c, c.contains("bf16") ? "/bf16/enabled" : "/bfloat16/enabled");
  std::string bf16_pointer = c.contains("bf16") ? "/bf16/enabled" : "/bfloat16/enabled";
  bool args_bf16 = cmd.bf16.value_or(false), args_fp16 = cmd.fp16.value_or(false);
  // A flag left out says what the Trainer does only to a script that takes its arguments:
  // one whose command passes them, or any under --hf (the config is the Trainer's).
  const bool trainer = cmd.trainer_arguments || ctx.options.hf;
  if (!trainer) {
    fp16.reset();
    bf16.reset();
  }
  if (fp16 && *fp16 != args_fp16) {
    ctx.report("/fp16/enabled", Severity::Error, "args-precision",
               std::string("fp16.enabled is ") + (*fp16 ? "true" : "false") + " but the command " +
                   (args_fp16 ? "passes --fp16" : "does not pass --fp16") +
                   "; the HF Trainer refuses the mismatch: make them agree or write \"auto\"");
  }
  if (bf16 && *bf16 != args_bf16) {
    ctx.report(bf16_pointer, Severity::Error, "args-precision",
               std::string("bf16.enabled is ") + (*bf16 ? "true" : "false") + " but the command " +
                   (args_bf16 ? "passes --bf16" : "does not pass --bf16") +
                   "; the HF Trainer refuses the mismatch: make them agree or write \"auto\"");
  }

  struct Compared {
    const char* pointer;
    std::optional<double> arg;
    const char* flag;
  };
  // The Trainer takes warmup_steps and max_steps only when > 0 (warmup_ratio and the epochs
  // count otherwise), so only then are they compared.
  auto positive = [](const std::optional<long long>& v) -> std::optional<double> {
    if (v && *v > 0) return static_cast<double>(*v);
    return std::nullopt;
  };
  const Compared values[] = {
      {"/gradient_clipping", cmd.max_grad_norm, "--max_grad_norm"},
      {"/optimizer/params/lr", cmd.learning_rate, "--learning_rate"},
      {"/scheduler/params/warmup_max_lr", cmd.learning_rate, "--learning_rate"},
      {"/optimizer/params/betas/0", cmd.adam_beta1, "--adam_beta1"},
      {"/optimizer/params/betas/1", cmd.adam_beta2, "--adam_beta2"},
      {"/optimizer/params/eps", cmd.adam_epsilon, "--adam_epsilon"},
      {"/optimizer/params/weight_decay", cmd.weight_decay, "--weight_decay"},
      {"/scheduler/params/warmup_num_steps", positive(cmd.warmup_steps), "--warmup_steps"},
      {"/scheduler/params/total_num_steps", positive(cmd.max_steps), "--max_steps"}};
  for (const auto& v : values) {
    auto in_config = number_at(c, v.pointer);
    if (v.arg && in_config &&
        std::fabs(*in_config - *v.arg) > 1e-12 * std::max(1.0, std::fabs(*v.arg))) {
      std::string name = v.pointer + 1;
      std::replace(name.begin(), name.end(), '/', '.');
      ctx.report(v.pointer, Severity::Error, "args-value",
                 name + " " + number_text(*in_config) + " != " + v.flag + " " +
                     number_text(*v.arg) +
                     "; the HF Trainer refuses the mismatch: make them agree or write \"auto\"");
    }
  }

  if (auto ac = c.find("activation_checkpointing");
      ac != c.end() && ac->is_object() && trainer && !cmd.gradient_checkpointing.value_or(false)) {
    bool any = false;
    for (const auto& [key, value] : ac->items())
      any = any || (value.is_boolean() && value.get<bool>());
    if (any) {
      ctx.report("/activation_checkpointing", Severity::Warning, "args-activation-checkpointing",
                 "activation_checkpointing is configured but the command does not pass "
                 "--gradient_checkpointing, so "
                 "no activations are checkpointed; pass it, or remove the section");
    }
  }
  const std::string validated = std::filesystem::path(ctx.file).filename().string();
  if (cmd.deepspeed) {
    std::string named = std::filesystem::path(*cmd.deepspeed).filename().string();
    if (named != validated) {
      ctx.report(
          "", Severity::Warning, "args-deepspeed-file",
          "the command trains with " +
              (cmd.deepspeed_option.empty() ? std::string("--deepspeed") : cmd.deepspeed_option) +
              " " + *cmd.deepspeed + ", not with this file");
    }
  }
  if (cmd.accelerate_config) check_accelerate_config(ctx, *cmd.accelerate_config, validated);
  if (cmd.launcher == "accelerate") check_accelerate_precision(ctx, cmd);
}

}  // namespace zf::validate
