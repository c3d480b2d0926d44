// SPDX-License-Identifier: MIT
// `zeroforge estimate`: its options (no Boost here: a plugin links only the SDK), the model
// (preset, shape or --params), the text table, --all-stages and --format json.
#include "estimate_command.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "checked.hpp"
#include "estimate_tier.hpp"
#include "json_floats.hpp"
#include "model_presets.hpp"
#include "step_record.hpp"
#include "step_time.hpp"
#include "suggestion.hpp"

namespace zf::memory {
namespace {

using Json = nlohmann::ordered_json;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const char* const kHelp =
    "usage: zeroforge estimate (--model NAME|FILE | --params N [--largest-layer-params N] |\n"
    "                           --layers L --hidden H --heads A --vocab V --seq-len S) [options]\n"
    "\n"
    "Estimates per-GPU and per-node memory of DeepSpeed ZeRO training and the time of one\n"
    "optimizer step (docs/estimator.md).\n"
    "\n"
    "model:\n"
    "  --model NAME|FILE            a preset from presets/models/ (llama-2-7b, ...) or a file\n"
    "  --params N                   total parameters (Ψ)\n"
    "  --largest-layer-params N     largest module's parameters (default Ψ/32)\n"
    "  --layers --hidden --heads --vocab --seq-len\n"
    "                               the shape (Ψ derived unless --params); with --model, override "
    "it\n"
    "  --kv-heads N                 key/value heads, GQA/MQA (default = heads)\n"
    "  --intermediate-size N        MLP width (default 4 x hidden)\n"
    "  --mlp gelu|swiglu            GPT-2-style or Llama-style block (default gelu)\n"
    "  --tied-embeddings true|false output layer shares the embedding (default: true for gelu)\n"
    "  --positions N                learned position rows (default: seq-len for gelu, 0 for "
    "swiglu)\n"
    "training:\n"
    "  --stage 0|1|2|3              ZeRO stage (default 2)\n"
    "  --offload-optimizer none|cpu|nvme   (default none; stage >= 1)\n"
    "  --offload-param none|cpu|nvme       (default none; stage 3)\n"
    "  --precision bf16|fp16|fp32   (default bf16)\n"
    "  --optimizer adam|sgd         K = 12 (adam) or 8 (sgd with momentum) bytes/param; fp32: K-4\n"
    "  --micro-batch-size N         per GPU (default 1)\n"
    "  --gradient-accumulation-steps N  micro steps per optimizer step (default 1)\n"
    "  --activation-checkpointing none|selective|full   (default none; true = full)\n"
    "  --attention eager|sdpa|flash (default sdpa, what transformers uses)\n"
    "  --loss hf|fused              hf: fp32 logits in the cross entropy (default); fused: none\n"
    "  --reduce-bucket-size N  --allgather-bucket-size N  --stage3-prefetch-bucket-size N\n"
    "  --stage3-max-live-parameters N    elements, as in the config (DeepSpeed's defaults)\n"
    "cluster:\n"
    "  --tier NAME|FILE             the cluster of NAME.json on the tier search path (as\n"
    "                               render finds it) or of a tier file:\n"
    "                               its gpus_per_node, nodes, gpu_memory_gib,\n"
    "                               cpu_memory_gib, gpu_memory_margin, nvme_path and the\n"
    "                               hardware keys below (the options win over it)\n"
    "  --nvme-path PATH             NVMe offload is possible: the suggestion considers it\n"
    "  --gpus-per-node N  --nodes N (default 1, 1)\n"
    "  --gpu-memory-gib F (per GPU)  --cpu-memory-gib F (per node): give a verdict\n"
    "  --gpu-memory-margin F        fraction of the GPU memory left free (default 0.05)\n"
    "  --headroom F                 allocator fragmentation, fraction of activations\n"
    "                               (default 0.10; 0.45 with full checkpointing)\n"
    "  --cuda-context-gib F         per GPU, outside PyTorch's allocator (default 0.8)\n"
    "hardware (the step time; a tier's gpu, gpu_tflops, ... and the GPU table fill the rest):\n"
    "  --gpu NAME                   V100-SXM2-32GB, A100-SXM4-40GB, A100-SXM4-80GB,\n"
    "                               H100-SXM5-80GB (default), H200-SXM-141GB, L40S\n"
    "  --gpu-tflops F               dense peak per GPU for the precision\n"
    "  --intra-node-gbs F  --pcie-gbs F    GB/s per GPU, one direction\n"
    "  --inter-node-gbs F           GB/s of a node's network, one direction (default 200)\n"
    "  --cpu-cores N  --nvme-gbs F  per node (default 32 and 7)\n"
    "  --step-constant KEY=VALUE    override one of the model's fitted constants (repeatable;\n"
    "                               docs/estimator.md, \"The constants\")\n"
    "DeepSpeed's estimator:\n"
    "  --zero-init true|false       (default true)\n"
    "  --additional-buffer-factor F (default 1.5)\n"
    "output:\n"
    "  --all-stages                 every stage and offload option side by side\n"
    "  --format text|json           (default text)\n"
    "\n"
    "Exit codes: 0 fits (or no capacity given), 1 does not fit, 2 bad input.\n";

struct Options {
  Inputs inputs;
  std::optional<ModelPreset> preset;
  std::optional<std::int64_t> params, largest;
  std::optional<std::int64_t> layers, hidden, heads, vocab, seq_len;
  std::optional<std::int64_t> kv_heads, intermediate, positions;
  std::optional<Mlp> mlp;
  std::optional<bool> tied;
  std::optional<TierFacts> tier;
  std::optional<std::string> nvme_path;  // --nvme-path, else the tier's
  std::int64_t gradient_accumulation = 1;
  HardwareGiven hardware;  // options, else the tier's
  bool all_stages = false;
  bool json = false;
  bool params_derived = false;
};

std::int64_t parse_int(const std::string& flag, const std::string& text) {
  // Accept 7e9 and 6738415616 alike; reject fractions and junk.
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || value != std::floor(value) || std::abs(value) > 9e15) {
    throw std::invalid_argument(flag + ": expected an integer, got '" + text + "'");
  }
  auto n = static_cast<std::int64_t>(value);
  if (n <= 0) throw std::invalid_argument(flag + ": must be positive, got " + text);
  return n;
}

double parse_double(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || !std::isfinite(value)) {
    throw std::invalid_argument(flag + ": expected a number, got '" + text + "'");
  }
  return value;
}

double parse_rate(const std::string& flag, const std::string& text) {
  const double value = parse_double(flag, text);
  if (!(value > 0)) throw std::invalid_argument(flag + ": must be positive, got " + text);
  return value;
}

bool parse_bool(const std::string& flag, const std::string& text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  throw std::invalid_argument(flag + ": expected true or false, got '" + text + "'");
}

Offload parse_offload(const std::string& flag, const std::string& text) {
  if (auto offload = offload_from_string(text)) return *offload;
  throw std::invalid_argument(flag + ": expected none, cpu or nvme, got '" + text + "'");
}

using Setter = std::function<void(const std::string&, const std::string&)>;

// The options that describe the model: a preset (--model), its parameter count or its shape.
void add_model_flags(std::map<std::string, Setter>& valued, Options& o,
                     std::optional<std::string>& model) {
  valued.insert({
      {"--model", [&](auto&, auto& v) { model = v; }},
      {"--params", [&](auto& f, auto& v) { o.params = parse_int(f, v); }},
      {"--largest-layer-params", [&](auto& f, auto& v) { o.largest = parse_int(f, v); }},
      {"--layers", [&](auto& f, auto& v) { o.layers = parse_int(f, v); }},
      {"--hidden", [&](auto& f, auto& v) { o.hidden = parse_int(f, v); }},
      {"--heads", [&](auto& f, auto& v) { o.heads = parse_int(f, v); }},
      {"--vocab", [&](auto& f, auto& v) { o.vocab = parse_int(f, v); }},
      {"--seq-len", [&](auto& f, auto& v) { o.seq_len = parse_int(f, v); }},
      {"--kv-heads", [&](auto& f, auto& v) { o.kv_heads = parse_int(f, v); }},
      {"--intermediate-size", [&](auto& f, auto& v) { o.intermediate = parse_int(f, v); }},
      {"--positions", [&](auto& f, auto& v) { o.positions = v == "0" ? 0 : parse_int(f, v); }},
      {"--tied-embeddings", [&](auto& f, auto& v) { o.tied = parse_bool(f, v); }},
      {"--mlp",
       [&](auto& f, auto& v) {
         o.mlp = mlp_from_string(v);
         if (!o.mlp) throw std::invalid_argument(f + ": expected gelu or swiglu, got '" + v + "'");
       }},
  });
}

// The options that describe the cluster: a tier, its GPUs and memory, the step time's rates.
void add_cluster_flags(std::map<std::string, Setter>& valued, Options& o,
                       std::optional<std::string>& tier) {
  Inputs& in = o.inputs;
  valued.insert({
      {"--tier", [&](auto&, auto& v) { tier = v; }},
      {"--nvme-path",
       [&](auto& f, auto& v) {
         if (v.empty()) throw std::invalid_argument(f + ": expected a path, got ''");
         o.nvme_path = v;
       }},
      {"--gpu",
       [&](auto& f, auto& v) {
         if (!find_gpu(v)) {
           throw std::invalid_argument(f + ": unknown GPU '" + v +
                                       "' (known: " + known_gpu_names() + ")");
         }
         o.hardware.gpu = v;
       }},
      {"--gpu-tflops", [&](auto& f, auto& v) { o.hardware.gpu_tflops = parse_rate(f, v); }},
      {"--intra-node-gbs", [&](auto& f, auto& v) { o.hardware.intra_node_gbs = parse_rate(f, v); }},
      {"--inter-node-gbs", [&](auto& f, auto& v) { o.hardware.inter_node_gbs = parse_rate(f, v); }},
      {"--pcie-gbs", [&](auto& f, auto& v) { o.hardware.pcie_gbs = parse_rate(f, v); }},
      {"--nvme-gbs", [&](auto& f, auto& v) { o.hardware.nvme_gbs = parse_rate(f, v); }},
      {"--cpu-cores", [&](auto& f, auto& v) { o.hardware.cpu_cores = parse_int(f, v); }},
      {"--step-constant",
       [&](auto& f, auto& v) {
         const auto eq = v.find('=');
         if (eq == std::string::npos || eq == 0)
           throw std::invalid_argument(f + ": expected KEY=VALUE, got '" + v + "'");
         try {
           set_step_constant(o.hardware.constants, v.substr(0, eq),
                             parse_double(f, v.substr(eq + 1)));
         } catch (const std::invalid_argument& e) {
           const std::string what = e.what();
           if (what.rfind(f, 0) == 0) throw;
           throw std::invalid_argument(f + ": " + what);
         }
       }},
      {"--gpus-per-node", [&](auto& f, auto& v) { in.gpus_per_node = parse_int(f, v); }},
      {"--nodes", [&](auto& f, auto& v) { in.nodes = parse_int(f, v); }},
      {"--gpu-memory-gib", [&](auto& f, auto& v) { in.gpu_memory_gib = parse_double(f, v); }},
      {"--cpu-memory-gib", [&](auto& f, auto& v) { in.cpu_memory_gib = parse_double(f, v); }},
      {"--gpu-memory-margin",
       [&](auto& f, auto& v) {
         in.gpu_memory_margin = parse_double(f, v);
         if (!(in.gpu_memory_margin >= 0 && in.gpu_memory_margin < 1)) {
           throw std::invalid_argument(f +
                                       ": expected a fraction from 0 to below 1 (0.05 = 5%), "
                                       "got '" +
                                       v + "'");
         }
       }},
  });
}

// The options that describe the run on them (precision, stage, offload, batch, buckets,
// checkpointing, margins) and the output's format.
void add_run_flags(std::map<std::string, Setter>& valued, Options& o) {
  Inputs& in = o.inputs;
  valued.insert({
      {"--attention",
       [&](auto& f, auto& v) {
         auto attention = attention_from_string(v);
         if (!attention)
           throw std::invalid_argument(f + ": expected eager, sdpa or flash, got '" + v + "'");
         in.attention = *attention;
       }},
      {"--loss",
       [&](auto& f, auto& v) {
         auto loss = loss_from_string(v);
         if (!loss) throw std::invalid_argument(f + ": expected hf or fused, got '" + v + "'");
         in.loss = *loss;
       }},
      {"--stage",
       [&](auto& f, auto& v) {
         if (v.size() != 1 || v[0] < '0' || v[0] > '3') {
           throw std::invalid_argument(f + ": expected 0, 1, 2 or 3, got '" + v + "'");
         }
         in.stage = v[0] - '0';
       }},
      {"--offload-optimizer",
       [&](auto& f, auto& v) { in.offload_optimizer = parse_offload(f, v); }},
      {"--offload-param", [&](auto& f, auto& v) { in.offload_param = parse_offload(f, v); }},
      {"--precision",
       [&](auto& f, auto& v) {
         auto precision = precision_from_string(v);
         if (!precision)
           throw std::invalid_argument(f + ": expected bf16, fp16 or fp32, got '" + v + "'");
         in.precision = *precision;
       }},
      {"--optimizer",
       [&](auto& f, auto& v) {
         if (v == "adam" || v == "adamw")
           in.optimizer = Optimizer::Adam;
         else if (v == "sgd")
           in.optimizer = Optimizer::Sgd;
         else
           throw std::invalid_argument(f + ": expected adam or sgd, got '" + v + "'");
       }},
      {"--micro-batch-size", [&](auto& f, auto& v) { in.micro_batch_size = parse_int(f, v); }},
      {"--gradient-accumulation-steps",
       [&](auto& f, auto& v) { o.gradient_accumulation = parse_int(f, v); }},
      {"--activation-checkpointing",
       [&](auto& f, auto& v) {
         // true/false: the config's own activation_checkpointing spelling.
         auto checkpointing = checkpointing_from_string(v == "false"  ? "none"
                                                        : v == "true" ? "full"
                                                                      : v);
         if (!checkpointing) {
           throw std::invalid_argument(f + ": expected none, selective or full, got '" + v + "'");
         }
         in.checkpointing = *checkpointing;
       }},
      {"--reduce-bucket-size", [&](auto& f, auto& v) { in.reduce_bucket_size = parse_int(f, v); }},
      {"--allgather-bucket-size",
       [&](auto& f, auto& v) { in.allgather_bucket_size = parse_int(f, v); }},
      {"--stage3-prefetch-bucket-size",
       [&](auto& f, auto& v) { in.stage3_prefetch_bucket_size = parse_int(f, v); }},
      {"--stage3-max-live-parameters",
       [&](auto& f, auto& v) { in.stage3_max_live_parameters = parse_int(f, v); }},
      {"--headroom", [&](auto& f, auto& v) { in.headroom = parse_double(f, v); }},
      {"--cuda-context-gib", [&](auto& f, auto& v) { in.cuda_context_gib = parse_double(f, v); }},
      {"--zero-init", [&](auto& f, auto& v) { in.zero_init = parse_bool(f, v); }},
      {"--additional-buffer-factor",
       [&](auto& f, auto& v) { in.additional_buffer_factor = parse_double(f, v); }},
      {"--format",
       [&](auto& f, auto& v) {
         if (v != "text" && v != "json") {
           throw std::invalid_argument(f + ": expected text or json, got '" + v + "'");
         }
         o.json = v == "json";
       }},
  });
}

// What each option that takes a value does with it (flag and value in, into `o`, `model` and
// `tier`): a bad value throws naming the flag.
std::map<std::string, Setter> flag_setters(Options& o, std::optional<std::string>& model,
                                           std::optional<std::string>& tier) {
  std::map<std::string, Setter> valued;
  add_model_flags(valued, o, model);
  add_cluster_flags(valued, o, tier);
  add_run_flags(valued, o);
  return valued;
}

// Runs each option of `args` (`--flag value` or `--flag=value`) through its setter; returns
// the flags given.
std::set<std::string> read_flags(const std::vector<std::string>& args, Options& o,
                                 const std::map<std::string, Setter>& valued) {
  std::set<std::string> given;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::optional<std::string> value;
    if (auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    if (flag == "--all-stages") {
      o.all_stages = true;
      continue;
    }
    auto it = valued.find(flag);
    if (it == valued.end()) throw std::invalid_argument("unknown option '" + args[i] + "'");
    if (!value) {
      if (i + 1 >= args.size()) throw std::invalid_argument(flag + " needs a value");
      value = args[++i];
    }
    it->second(flag, *value);
    given.insert(flag);
  }

  return given;
}

// The tier's cluster facts, where no option gave them.
void apply_tier(Options& o, const std::string& tier, const std::set<std::string>& given,
                const std::string& data_dir, const FileReader& read, const TierFinder& find,
                const std::function<void(const std::string&)>& warn) {
  Inputs& in = o.inputs;
  o.tier = load_estimate_tier(tier, data_dir, read, find);
  const TierFacts& t = *o.tier;
  if (t.gpus_per_node && !given.count("--gpus-per-node")) in.gpus_per_node = *t.gpus_per_node;
  if (t.nodes && !given.count("--nodes")) in.nodes = *t.nodes;
  if (t.gpu_memory_gib && !given.count("--gpu-memory-gib")) in.gpu_memory_gib = t.gpu_memory_gib;
  if (t.cpu_memory_gib && !given.count("--cpu-memory-gib")) in.cpu_memory_gib = t.cpu_memory_gib;
  if (t.gpu_memory_margin && !given.count("--gpu-memory-margin"))
    in.gpu_memory_margin = *t.gpu_memory_margin;
  if (t.nvme_path && !t.nvme_path->empty() && !o.nvme_path) o.nvme_path = t.nvme_path;
  HardwareGiven& hw = o.hardware;
  if (t.gpu && !hw.gpu) {
    // A tier's `gpu` was a label for people before the step time read it: a name the table
    // does not know changes only the step time, which then says what it assumed.
    if (find_gpu(*t.gpu)) {
      hw.gpu = t.gpu;
    } else if (warn) {
      warn(t.file + ": /gpu: GPU '" + *t.gpu + "' is not in the step time's table (" +
           known_gpu_names() + "); the step time assumes the default GPU's facts: name one " +
           "of them, give --gpu NAME, or set gpu_tflops and the link rates in the tier");
    }
  }
  if (t.gpu_tflops && !hw.gpu_tflops) hw.gpu_tflops = t.gpu_tflops;
  if (t.intra_node_gbs && !hw.intra_node_gbs) hw.intra_node_gbs = t.intra_node_gbs;
  if (t.inter_node_gbs && !hw.inter_node_gbs) hw.inter_node_gbs = t.inter_node_gbs;
  if (t.pcie_gbs && !hw.pcie_gbs) hw.pcie_gbs = t.pcie_gbs;
  if (t.nvme_gbs && !hw.nvme_gbs) hw.nvme_gbs = t.nvme_gbs;
  if (t.cpu_cores && !hw.cpu_cores) hw.cpu_cores = t.cpu_cores;
}

// The model: a preset, overridden by any shape flag; or --params; or a shape.
void resolve_model(Options& o, const std::optional<std::string>& model, const std::string& data_dir,
                   const FileReader& read) {
  Inputs& in = o.inputs;
  ModelShape shape;
  bool have_shape = false;
  if (model) {
    o.preset = load_model_preset(*model, data_dir, read);
    shape = o.preset->shape;
    have_shape = true;
  }
  const bool any_shape = o.layers || o.hidden || o.heads || o.vocab || o.seq_len;
  if (any_shape && !model) {
    if (!(o.layers && o.hidden && o.heads && o.vocab && o.seq_len)) {
      throw std::invalid_argument(
          "a model shape needs all of --layers, --hidden, --heads, --vocab and --seq-len");
    }
    have_shape = true;
  }
  if (o.layers) shape.layers = *o.layers;
  if (o.hidden) shape.hidden = *o.hidden;
  if (o.heads) shape.heads = *o.heads;
  if (o.vocab) shape.vocab = *o.vocab;
  if (o.seq_len) shape.seq_len = *o.seq_len;
  if (o.kv_heads) shape.kv_heads = *o.kv_heads;
  if (o.intermediate) shape.intermediate = *o.intermediate;
  if (o.mlp) shape.mlp = *o.mlp;
  if (o.tied) shape.tied_embeddings = *o.tied;
  if (o.positions) shape.positions = *o.positions;
  const bool any_descriptor = o.kv_heads || o.intermediate || o.mlp || o.tied || o.positions;
  if (any_descriptor && !have_shape) {
    throw std::invalid_argument(
        "--kv-heads, --intermediate-size, --mlp, --tied-embeddings and --positions describe a "
        "shape: give --model NAME or --layers/--hidden/--heads/--vocab/--seq-len too");
  }
  if (!have_shape && !o.params) {
    throw std::invalid_argument(
        "no model: give --model NAME, --params N, or --layers/--hidden/--heads/--vocab/--seq-len");
  }
  // The sequence length leaves a preset's parameter count alone (its positions are given);
  // any other shape override means the preset's count no longer applies.
  const bool shape_changed =
      o.layers || o.hidden || o.vocab || (o.heads && !model) || any_descriptor;
  if (o.params) {
    in.params = *o.params;
  } else if (o.preset && !shape_changed) {
    in.params = o.preset->params;
  } else {
    in.params = params_from_shape(shape);
    o.params_derived = true;
  }
  if (o.largest) {
    in.largest_layer_params = *o.largest;
  } else if (o.preset && !shape_changed) {
    in.largest_layer_params = o.preset->largest_layer_params;
  } else if (have_shape) {
    in.largest_layer_params = largest_layer_from_shape(shape);
  }
  if (have_shape) in.shape = shape;
}

Options parse(const std::vector<std::string>& args, const std::string& data_dir,
              const FileReader& read, const TierFinder& find,
              const std::function<void(const std::string&)>& warn) {
  Options o;
  std::optional<std::string> model, tier;
  // The flags given win over the tier's facts.
  const std::set<std::string> given = read_flags(args, o, flag_setters(o, model, tier));
  if (tier) apply_tier(o, *tier, given, data_dir, read, find, warn);
  resolve_model(o, model, data_dir, read);
  return o;
}

std::string gib(std::int64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", static_cast<double>(bytes) / kGiB);
  return buffer;
}

std::string count(std::int64_t n) {
  char buffer[32];
  if (n >= 1000000000)
    std::snprintf(buffer, sizeof buffer, "%.2fB", static_cast<double>(n) / 1e9);
  else
    std::snprintf(buffer, sizeof buffer, "%.2fM", static_cast<double>(n) / 1e6);
  return buffer;
}

std::string pad(std::string text, std::size_t width, bool right = false) {
  // Width in characters; our labels may hold one multi-byte 'Ψ'.
  std::size_t chars = 0;
  for (unsigned char c : text) chars += (c & 0xC0) != 0x80;
  if (chars >= width) return text;
  std::string fill(width - chars, ' ');
  return right ? fill + text : text + fill;
}

Json nullable(const std::optional<bool>& value) { return value ? Json(*value) : Json(nullptr); }

std::optional<bool> fits(const Estimate& e) {
  if (!e.gpu_fits && !e.cpu_fits) return std::nullopt;
  return e.gpu_fits.value_or(true) && e.cpu_fits.value_or(true);
}

std::string options_label(const Inputs& in) {
  std::string label = "ZeRO-" + std::to_string(in.stage);
  if (in.stage >= 1) label += std::string(", offload_optimizer=") + to_string(in.offload_optimizer);
  if (in.stage == 3) label += std::string(", offload_param=") + to_string(in.offload_param);
  return label;
}

// NVMe offload is possible: an nvme_path (--nvme-path or the tier's), or options that offload
// to NVMe already.
bool nvme_available(const Options& o) {
  return o.nvme_path || o.inputs.offload_optimizer == Offload::Nvme ||
         o.inputs.offload_param == Offload::Nvme;
}

std::string header(const Options& o) {
  const Inputs& in = o.inputs;
  std::string model = o.preset ? o.preset->name + " " : "";
  std::string out = "model: " + model + count(in.params) + " params" +
                    (o.params_derived ? " (derived from the shape)" : "") + ", largest layer " +
                    count(in.largest_layer_params ? in.largest_layer_params : in.params / 32) +
                    (in.largest_layer_params ? "" : " (assumed Ψ/32)");
  if (in.shape) {
    const auto& s = *in.shape;
    out += "; " + std::to_string(s.layers) + " layers, hidden " + std::to_string(s.hidden) + ", " +
           std::to_string(s.heads) + " heads (" + std::to_string(s.kv_heads_or_default()) +
           " kv), " + to_string(s.mlp) + " " + std::to_string(s.intermediate_or_default()) +
           ", vocab " + std::to_string(s.vocab) + (s.tied() ? " tied" : " untied") + ", seq " +
           std::to_string(s.seq_len);
  }
  out += "\ncluster: " + std::to_string(in.nodes) + " node(s) x " +
         std::to_string(in.gpus_per_node) + " GPU(s) (world size " +
         std::to_string(bytes_product({in.nodes, in.gpus_per_node})) + "), micro batch " +
         std::to_string(in.micro_batch_size) + ", " + to_string(in.precision) + ", " +
         to_string(in.optimizer) + ", activation checkpointing " + to_string(in.checkpointing) +
         ", " + to_string(in.attention) + " attention, " + to_string(in.loss) + " loss\n";
  if (o.tier) {
    out += "tier: " + o.tier->name + " (" + o.tier->file + "; " +
           (o.nvme_path ? "NVMe offload to " + *o.nvme_path : std::string("no nvme_path")) + ")\n";
  }
  return out;
}

std::string verdict(const Estimate& e) {
  std::string out;
  auto line = [&](const char* what, std::optional<bool> ok, std::int64_t need, std::int64_t have,
                  const std::string& margin) {
    if (!ok) return;
    out += std::string("verdict: ") + what + (*ok ? " fits: " : " does not fit: ") + "needs " +
           gib(need) + " GiB of " + gib(have) + " GiB" + (margin.empty() ? "" : " usable") +
           (*ok ? " (" + gib(have - need) + " GiB free" : " (" + gib(need - have) + " GiB short") +
           (margin.empty() ? "" : "; " + margin) + ")\n";
  };
  line("GPU", e.gpu_fits, e.total_gpu, e.gpu_usable, describe_margin(e));
  line("CPU", e.cpu_fits, e.total_cpu, e.cpu_capacity, "");
  if (out.empty()) out = "verdict: none (give --gpu-memory-gib and --cpu-memory-gib)\n";
  return out;
}

std::string table(const Options& o, const Estimate& e) {
  const Inputs& in = o.inputs;
  const std::int64_t g = in.gpus_per_node;
  std::string out = header(o) + "options: " + options_label(in) + "\n\n";
  out += pad("term", 34) + pad("per GPU GiB", 14, true) + pad("per node GiB", 15, true) + "\n";
  auto row = [&](const std::string& label, std::optional<std::int64_t> per_gpu,
                 std::int64_t per_node) {
    out += pad(label, 34) + pad(per_gpu ? gib(*per_gpu) : "-", 14, true) +
           pad(gib(per_node), 15, true) + "\n";
  };
  auto gpu_row = [&](const std::string& label, std::int64_t per_gpu) {
    row(label, per_gpu, bytes_product({per_gpu, g}));
  };
  gpu_row("GPU model states (ZeRO paper)", e.model_states_gpu);
  gpu_row("GPU stage-3 working set", e.stage3_working_set);
  gpu_row("GPU communication buckets", e.comm_buffers);
  const char* mark_fb = e.step_is_peak ? "  " : "* ";
  const char* mark_step = e.step_is_peak ? "* " : "  ";
  gpu_row(std::string(mark_fb) + "activations (forward/backward)", e.activations_gpu);
  char pct[48];
  std::snprintf(pct, sizeof pct, "%sfragmentation (%.0f%% of them)", mark_fb,
                e.headroom_fraction * 100);
  gpu_row(pct, e.headroom);
  gpu_row(std::string(mark_step) + "optimizer step", e.optimizer_step);
  gpu_row(std::string(mark_step) + "activation blocks kept", e.step_unreused);
  gpu_row("GPU CUDA context", e.cuda_context);
  gpu_row("GPU total (* the peak phase)", e.total_gpu);
  row("CPU model states (offloaded)", std::nullopt, e.model_states_cpu);
  if (e.model_states_nvme) row("NVMe model states (offloaded)", std::nullopt, e.model_states_nvme);
  row("CPU total", std::nullopt, e.total_cpu);
  if (e.deepspeed) {
    gpu_row("DeepSpeed estimator GPU", e.deepspeed->gpu_bytes);
    row("DeepSpeed estimator CPU", std::nullopt, e.deepspeed->cpu_bytes);
  } else {
    out += "DeepSpeed estimator: none for this stage and offload\n";
  }
  return out + "\n" + verdict(e);
}

// The step time of `in`, or nullopt without a shape (only --params: no tokens to count).
std::optional<StepTime> predict_step(const Options& o, const Inputs& in, const Hardware& hw) {
  if (!in.shape) return std::nullopt;
  return step_time(in, o.gradient_accumulation, hw);
}

std::string fixed(double value, const char* format) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string step_line(const Options& o, const std::optional<StepTime>& step, const Hardware& hw) {
  if (!step) return "step: none (the step time needs a model shape, not only --params)\n";
  return "step: " + fixed(step->seconds, "%.3f") + " s per optimizer step (" +
         std::to_string(o.gradient_accumulation) +
         " micro step(s)): " + fixed(step->tokens_per_second, "%.0f") + " tokens/s, " +
         fixed(step->samples_per_second, "%.2f") + " samples/s, " +
         fixed(step->tflops_per_gpu, "%.1f") + " TFLOPS per GPU on " + hw.gpu +
         (hw.assumed.empty() ? "" : " (assumed: " + joined(hw.assumed) + ")") + "; compute " +
         fixed(step->compute, "%.3f") + " s, communication " + fixed(step->communication, "%.3f") +
         " s, offload " + fixed(step->offload, "%.3f") + " s, optimizer " +
         fixed(step->optimizer, "%.3f") + " s\n";
}

std::vector<Inputs> all_stage_inputs(const Inputs& base, bool nvme) {
  std::vector<Inputs> out;
  auto add = [&](int stage, Offload opt, Offload param) {
    Inputs in = base;
    in.stage = stage;
    in.offload_optimizer = opt;
    in.offload_param = param;
    out.push_back(in);
  };
  add(0, Offload::None, Offload::None);
  add(1, Offload::None, Offload::None);
  add(1, Offload::Cpu, Offload::None);
  add(2, Offload::None, Offload::None);
  add(2, Offload::Cpu, Offload::None);
  add(3, Offload::None, Offload::None);
  add(3, Offload::Cpu, Offload::None);
  add(3, Offload::Cpu, Offload::Cpu);
  if (nvme) {
    // DeepSpeed offloads to NVMe at stage 3 only.
    add(3, Offload::Nvme, Offload::None);
    add(3, Offload::Nvme, Offload::Nvme);
  }
  return out;
}

std::string all_stages_table(const Options& o, const std::vector<Inputs>& inputs,
                             const std::vector<Estimate>& estimates,
                             const std::vector<std::optional<StepTime>>& steps) {
  std::string out = header(o) + "\n";
  out += pad("options", 50) + pad("GPU total", 11, true) + pad("CPU/node", 10, true) +
         pad("DS GPU", 9, true) + pad("DS CPU", 9, true) + "  fits" + pad("tokens/s", 12, true) +
         "\n";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Estimate& e = estimates[i];
    std::optional<bool> ok = fits(e);
    out += pad(options_label(inputs[i]), 50) + pad(gib(e.total_gpu), 11, true) +
           pad(gib(e.total_cpu), 10, true) +
           pad(e.deepspeed ? gib(e.deepspeed->gpu_bytes) : "-", 9, true) +
           pad(e.deepspeed ? gib(e.deepspeed->cpu_bytes) : "-", 9, true) + "  " +
           pad(ok ? (*ok ? "yes" : "no") : "-", 4) +
           pad(steps[i] ? fixed(steps[i]->tokens_per_second, "%.0f") : "-", 12, true) + "\n";
  }
  out +=
      "(GiB; GPU per GPU, CPU per node; DS = DeepSpeed's own estimator; tokens/s: the\n"
      "step-time model at " +
      std::to_string(o.gradient_accumulation) + " micro step(s) per step)\n";
  // The fastest row by the step-time model: among those that fit when there is a verdict.
  std::optional<std::size_t> fastest;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!steps[i] || fits(estimates[i]) == std::optional<bool>(false)) continue;
    if (!fastest || steps[i]->tokens_per_second > steps[*fastest]->tokens_per_second) fastest = i;
  }
  if (fastest) {
    const bool judged = fits(estimates[*fastest]).has_value();
    out += std::string(judged ? "fastest that fits: " : "fastest: ") +
           options_label(inputs[*fastest]) + " (" +
           fixed(steps[*fastest]->tokens_per_second, "%.0f") + " tokens/s)\n";
  }
  return out;
}

Json suggestion_json(const Suggestion& change) {
  Json out = {{"fits", change.fits}, {"text", change.text}};
  if (change.rung) {
    out["stage"] = change.rung->stage;
    out["offload_optimizer"] = to_string(change.rung->offload_optimizer);
    out["offload_param"] = to_string(change.rung->offload_param);
  }
  if (change.micro_batch_size) out["micro_batch_size"] = *change.micro_batch_size;
  if (change.full_checkpointing) out["activation_checkpointing"] = "full";
  out["gpu_bytes"] = change.estimate.total_gpu;
  out["cpu_bytes"] = change.estimate.total_cpu;
  return out;
}

}  // namespace

Json to_json(const Inputs& in, const Estimate& e) {
  Json model = {{"params", e.params}, {"largest_layer_params", e.largest_layer_params}};
  if (in.shape) {
    model["layers"] = in.shape->layers;
    model["hidden"] = in.shape->hidden;
    model["heads"] = in.shape->heads;
    model["vocab"] = in.shape->vocab;
    model["seq_len"] = in.shape->seq_len;
    model["kv_heads"] = in.shape->kv_heads_or_default();
    model["intermediate_size"] = in.shape->intermediate_or_default();
    model["mlp"] = to_string(in.shape->mlp);
    model["tied_embeddings"] = in.shape->tied();
    model["positions"] = in.shape->position_rows();
  }
  Json out = {
      {"model", model},
      {"inputs",
       {{"stage", in.stage},
        {"offload_optimizer", to_string(in.offload_optimizer)},
        {"offload_param", to_string(in.offload_param)},
        {"precision", to_string(in.precision)},
        {"optimizer", to_string(in.optimizer)},
        {"gpus_per_node", in.gpus_per_node},
        {"nodes", in.nodes},
        {"world_size", e.world_size},
        {"micro_batch_size", in.micro_batch_size},
        {"activation_checkpointing", to_string(in.checkpointing)},
        {"attention", to_string(in.attention)},
        {"loss", to_string(in.loss)},
        {"zero_init", in.zero_init},
        {"additional_buffer_factor", in.additional_buffer_factor},
        {"headroom", e.headroom_fraction},
        {"cuda_context_gib", in.cuda_context_gib},
        {"gpu_memory_margin", in.gpu_memory_margin}}},
      {"model_states",
       {{"gpu_bytes", e.model_states_gpu},
        {"cpu_bytes", e.model_states_cpu},
        {"nvme_bytes", e.model_states_nvme},
        {"optimizer_k", e.optimizer_k}}},
      {"activations",
       {{"gpu_bytes", e.activations_gpu},
        {"layers_bytes", e.activations_layers},
        {"logits_bytes", e.activations_logits},
        {"backward_bytes", e.activations_backward}}},
      {"optimizer_step",
       {{"gpu_bytes", e.optimizer_step},
        {"unreused_activation_bytes", e.step_unreused},
        {"is_peak", e.step_is_peak}}},
      {"stage3_working_set", {{"gpu_bytes", e.stage3_working_set}}},
      {"comm_buffers", {{"gpu_bytes", e.comm_buffers}}},
      {"headroom", {{"gpu_bytes", e.headroom}}},
      {"cuda_context", {{"gpu_bytes", e.cuda_context}}},
      {"total", {{"gpu_bytes", e.total_gpu}, {"cpu_bytes", e.total_cpu}}},
      {"capacity",
       {{"gpu_bytes", e.gpu_fits ? Json(e.gpu_capacity) : Json(nullptr)},
        {"gpu_usable_bytes", e.gpu_fits ? Json(e.gpu_usable) : Json(nullptr)},
        {"cpu_bytes", e.cpu_fits ? Json(e.cpu_capacity) : Json(nullptr)}}},
      {"fits", nullable(fits(e))},
      {"gpu_fits", nullable(e.gpu_fits)},
      {"cpu_fits", nullable(e.cpu_fits)},
      {"deepspeed",
       {{"gpu_bytes", e.deepspeed ? Json(e.deepspeed->gpu_bytes) : Json(nullptr)},
        {"cpu_bytes", e.deepspeed ? Json(e.deepspeed->cpu_bytes) : Json(nullptr)}}},
  };
  return out;
}

int run_estimate(const std::vector<std::string>& args, const std::string& data_dir,
                 const FileReader& read, std::string& out, const TierFinder& find,
                 const std::function<void(const std::string&)>& warn) {
  for (const auto& arg : args) {
    if (arg == "--help" || arg == "-h") {
      out = kHelp;
      return 0;
    }
  }
  Options o = parse(args, data_dir, read, find, warn);
  const Hardware hw = resolve_hardware(o.hardware, o.inputs.precision);
  if (o.all_stages) {
    std::vector<Inputs> inputs = all_stage_inputs(o.inputs, nvme_available(o));
    std::vector<Estimate> estimates;
    std::vector<std::optional<StepTime>> steps;
    Json rows = Json::array();
    for (const auto& in : inputs) {
      estimates.push_back(estimate(in));
      steps.push_back(predict_step(o, in, hw));
      rows.push_back(to_json(in, estimates.back()));
      rows.back()["inputs"]["gradient_accumulation_steps"] = o.gradient_accumulation;
      rows.back()["step"] = step_json(steps.back(), hw);
    }
    out = o.json ? shortest_floats(rows.dump(2)) + "\n"
                 : all_stages_table(o, inputs, estimates, steps);
    // Exit 1 when capacities were given and no row fits, as for one estimate.
    bool judged = false, any_fits = false;
    for (const Estimate& e : estimates) {
      if (std::optional<bool> ok = fits(e)) {
        judged = true;
        any_fits = any_fits || *ok;
      }
    }
    return judged && !any_fits ? 1 : 0;
  }
  Estimate e = estimate(o.inputs);
  // Predicted whether or not the config fits: a team compares both sides of the line.
  const std::optional<StepTime> step = predict_step(o, o.inputs, hw);
  std::optional<bool> ok = fits(e);
  std::optional<Suggestion> change;
  if (ok && !*ok) change = suggest(o.inputs, nvme_available(o));
  if (o.json) {
    Json j = to_json(o.inputs, e);
    j["inputs"]["nvme_path"] = o.nvme_path ? Json(*o.nvme_path) : Json(nullptr);
    j["tier"] = o.tier ? Json{{"name", o.tier->name}, {"file", o.tier->file}} : Json(nullptr);
    if (o.preset) j["model"]["name"] = o.preset->name;
    j["model"]["params_derived"] = o.params_derived;
    j["inputs"]["gradient_accumulation_steps"] = o.gradient_accumulation;
    j["suggestion"] = change ? suggestion_json(*change) : Json(nullptr);
    j["step"] = step_json(step, hw);
    out = shortest_floats(j.dump(2)) + "\n";
  } else {
    out = table(o, e) + step_line(o, step, hw);
    if (change) out += "suggestion: " + change->text + "\n";
  }
  return ok && !*ok ? 1 : 0;
}

}  // namespace zf::memory
