// SPDX-License-Identifier: MIT
// An sbatch submission for `validate --against-args`: the allocation (nodes, GPUs per node) as
// SLURM's sbatch takes it from its command line and then the script's #SBATCH lines
// (src/sbatch/opt.c, _opt_batch_script and get_argument: directives are read up to the first
// line that is not a comment, and a command-line option wins over the directive; sbatch.c's
// checks of the script first), and the launch the script runs. tests/slurm/check_slurm.py holds
// the reading to the real sbatch.
#include "sbatch_script.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf::detail {
namespace {

// sbatch's options that take no separate value (a few take one only after '=').
constexpr std::array<std::string_view, 23> kFlags = {
    "--contiguous",   "--exclusive",  "--hold",          "--ignore-pbs", "--no-kill",
    "--no-requeue",   "--overcommit", "--oversubscribe", "--parsable",   "--quiet",
    "--reboot",       "--requeue",    "--spread-job",    "--test-only",  "--use-min-nodes",
    "--verbose",      "--wait",       "--help",          "--usage",      "--version",
    "--get-user-env", "--nice",       "--propagate"};
constexpr std::string_view kShortFlags = "HOQWvshV";

std::optional<long long> count_of(const std::string& option, const std::string& text) {
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }))
    throw Error(ErrorKind::Usage,
                "--against-args: sbatch " + option + " expects a count, found '" + text + "'");
  return std::stoll(text);
}

// What one sbatch option says about the allocation. `given` marks what the command line set,
// which a directive does not change.
struct Allocation {
  std::optional<long long> nodes, gpus_per_node;
  bool nodes_given = false, gpus_given = false;
};

void apply(Allocation& allocation, const std::string& name, const std::string& value,
           bool from_command_line) {
  if (name == "-N" || name == "--nodes") {
    if (allocation.nodes_given) return;
    // A range (min-max) is a count only when both ends agree.
    std::string low = value.substr(0, value.find('-'));
    std::string high =
        value.find('-') == std::string::npos ? low : value.substr(value.find('-') + 1);
    auto a = count_of(name, low), b = count_of(name, high);
    allocation.nodes = a == b ? a : std::nullopt;
    allocation.nodes_given = from_command_line;
  } else if (name == "--gres" || name == "--gpus-per-node") {
    if (allocation.gpus_given) return;
    // --gres=gpu[:type][:count][,other...]; --gpus-per-node=[type:]count.
    std::size_t start = 0;
    while (start <= value.size()) {
      std::size_t comma = value.find(',', start);
      std::string item = value.substr(start, comma == std::string::npos ? comma : comma - start);
      start = comma == std::string::npos ? value.size() + 1 : comma + 1;
      if (name == "--gres" && item != "gpu" && !item.starts_with("gpu:")) continue;
      std::string count =
          item.substr(item.rfind(':') == std::string::npos ? 0 : item.rfind(':') + 1);
      if (name == "--gres" && item == "gpu") count = "1";
      if (name == "--gres" &&
          (count.empty() || !std::isdigit(static_cast<unsigned char>(count[0])))) {
        allocation.gpus_per_node = 1;  // gpu:TYPE, one of that type
      } else {
        allocation.gpus_per_node = count_of(name, count);
      }
      allocation.gpus_given = from_command_line;
    }
  }
}

// Applies sbatch options from `words[i]` on; returns the index of the first word that is not
// an option (the script), or words.size().
std::size_t read_options(Allocation& allocation, const std::vector<std::string>& words,
                         std::size_t i, bool from_command_line) {
  for (; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word.size() < 2 || word[0] != '-') return i;
    std::string name = word, value;
    if (word.starts_with("--")) {
      if (auto eq = word.find('='); eq != std::string::npos) {
        name = word.substr(0, eq);
        value = word.substr(eq + 1);
      } else if (std::find(kFlags.begin(), kFlags.end(), word) != kFlags.end()) {
        continue;
      } else if (i + 1 < words.size()) {
        value = words[++i];
      } else {
        throw Error(ErrorKind::Usage, "--against-args: sbatch " + word + " needs a value");
      }
    } else {
      name = word.substr(0, 2);
      if (kShortFlags.find(word[1]) != std::string_view::npos) continue;
      if (word.size() > 2) {
        value = word.substr(2);
      } else if (i + 1 < words.size()) {
        value = words[++i];
      } else {
        throw Error(ErrorKind::Usage, "--against-args: sbatch " + word + " needs a value");
      }
    }
    apply(allocation, name, value, from_command_line);
  }
  return i;
}

// sbatch's own checks of a script before it reads a directive (src/sbatch/sbatch.c: an empty
// or blank script, no "#!" first, a NUL byte, a DOS line break are each refused).
void check_script_as_sbatch(const std::string& text, const std::string& shown) {
  constexpr std::size_t kWholeFile = std::string::npos;
  auto refuse = [&](const std::string& why, std::size_t at) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < at && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw Error(ErrorKind::Values, "sbatch refuses this batch script: " + why,
                Location{shown, at == kWholeFile ? 0 : line, at == kWholeFile ? 0 : column});
  };
  if (text.empty()) refuse("it is empty", kWholeFile);
  if (std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); }))
    refuse("it holds only whitespace", kWholeFile);
  if (!text.starts_with("#!"))
    refuse("its first line must start with #! and the path of an interpreter (#!/bin/bash)", 0);
  if (std::size_t nul = text.find('\0'); nul != std::string::npos)
    refuse("it holds a NUL character, which the Slurm controller does not allow", nul);
  if (std::size_t crlf = text.find("\r\n"); crlf != std::string::npos)
    refuse("it has DOS line breaks (\\r\\n) where sbatch expects \\n", crlf);
}

// The arguments of one directive as sbatch's get_argument (src/sbatch/opt.c) splits the rest of
// an #SBATCH line: words separated by white space; '...' and "..." group (the quotes go); a
// backslash takes the next character as it is ("\ " a space); an unquoted, unescaped '#'
// ends the line (a comment, also inside a word: `--nodes=2#x` is --nodes=2); an unmatched
// quote or a word starting with ':' stops sbatch; an empty word ('') ends the line. `hetjob` (or
// `packjob`) starts the next component of a heterogeneous job: `separator` says so.
std::vector<std::string> directive_arguments(const std::string& rest, const std::string& shown,
                                             std::size_t line, bool& separator) {
  std::vector<std::string> words;
  std::size_t i = 0;
  auto space = [&](std::size_t at) {
    return at < rest.size() && std::isspace(static_cast<unsigned char>(rest[at]));
  };
  for (;;) {
    while (space(i)) ++i;
    const std::string_view ahead = std::string_view(rest).substr(i);
    for (std::string_view word : {std::string_view("hetjob"), std::string_view("packjob")}) {
      const bool is = ahead.size() >= word.size() &&
                      std::equal(word.begin(), word.end(), ahead.begin(),
                                 [](char a, char b) {
                                   return a == std::tolower(static_cast<unsigned char>(b));
                                 }) &&
                      (ahead.size() == word.size() || space(i + word.size()));
      if (is) {
        separator = true;
        return words;
      }
    }
    if (i >= rest.size()) return words;
    if (rest[i] == ':') {
      throw Error(ErrorKind::Values, "sbatch stops at an unexpected ':' in an #SBATCH line",
                  Location{shown, line, i + 8});
    }
    std::string word;
    bool any = false, quoted = false;
    char quote = 0;
    while (i < rest.size() && (quoted || !space(i)) && rest[i] != '\n') {
      const char c = rest[i];
      if (c == '\\') {
        if (++i < rest.size()) {
          word += rest[i++];
          any = true;
        }
        continue;
      }
      if (quoted) {
        if (c == quote) {
          quoted = false;
          ++i;
          continue;
        }
      } else if (c == '"' || c == '\'') {
        quoted = true;
        quote = c;
        ++i;
        continue;
      } else if (c == '#') {
        if (any) words.push_back(word);
        return words;  // the rest of the line is a comment
      }
      word += c;
      any = true;
      ++i;
    }
    if (quoted) {
      throw Error(ErrorKind::Values,
                  std::string("sbatch stops at an unmatched ") + quote + " in an #SBATCH line",
                  Location{shown, line, 0});
    }
    // A word of no characters (`''`) is where get_argument returns nothing: the line ends.
    if (!any) return words;
    words.push_back(word);
  }
}

std::string trimmed(const std::string& line) {
  std::size_t a = line.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return line.substr(a, line.find_last_not_of(" \t\r") - a + 1);
}

}  // namespace

void parse_sbatch_words(TrainingCommand& command, const std::vector<std::string>& words,
                        std::size_t first) {
  Allocation allocation;
  std::size_t script = read_options(allocation, words, first, true);
  if (script == words.size())
    throw Error(ErrorKind::Usage, "--against-args: sbatch names no batch script");
  command.sbatch_options.assign(words.begin() + static_cast<std::ptrdiff_t>(first),
                                words.begin() + static_cast<std::ptrdiff_t>(script));
  command.sbatch_script = words[script];
  command.sbatch_script_args.assign(words.begin() + static_cast<std::ptrdiff_t>(script) + 1,
                                    words.end());
  // What the command line set; the directives fill the rest when the script is read.
  command.slurm_nodes = allocation.nodes;
  command.slurm_gpus_per_node = allocation.gpus_per_node;
}

void load_sbatch_script(TrainingCommand& command, const std::filesystem::path& base) {
  std::filesystem::path path = *command.sbatch_script;
  if (path.is_relative() && !base.empty()) path = base / path;
  read_sbatch_script(command, read_file(path));
}

void read_sbatch_script(TrainingCommand& command, const std::string& text) {
  const std::string shown = *command.sbatch_script;
  check_script_as_sbatch(text, shown);

  std::vector<std::string> lines;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  // The directives: lines that start with #SBATCH (or the old #SLURM) in their first column,
  // up to the first line that is neither blank nor a comment; an indented "#SBATCH" is a
  // comment to sbatch. The first component of a heterogeneous job is the allocation.
  Allocation allocation;
  read_options(allocation, command.sbatch_options, 0, true);
  std::size_t body = 0;
  bool separator = false;
  for (; body < lines.size() && !separator; ++body) {
    const std::string& raw = lines[body];
    std::size_t magic = raw.starts_with("#SBATCH") ? 7 : raw.starts_with("#SLURM") ? 6 : 0;
    if (magic != 0) {
      std::vector<std::string> words =
          directive_arguments(raw.substr(magic), shown, body + 1, separator);
      read_options(allocation, words, 0, false);
      continue;
    }
    const std::string line = trimmed(raw);
    if (!line.empty() && line[0] != '#') break;
  }

  // The launch: the companions' `cmd=( ... )` array, or else the first line (with its
  // backslash-newline continuations) that runs srun or a launcher.
  std::string here;
  std::string launch;
  for (std::size_t i = body; i < lines.size() && launch.empty(); ++i) {
    const std::string line = trimmed(lines[i]);
    if (lines[i].starts_with("here=")) {
      auto words = split_command_words(lines[i].substr(5));
      if (words.size() == 1) here = words[0];
    }
    if (line == "cmd=(") {
      for (++i; i < lines.size() && trimmed(lines[i]) != ")"; ++i) launch += lines[i] + "\n";
      continue;
    }
    std::string logical = line;
    std::size_t j = i;
    while (!logical.empty() && logical.back() == '\\' && j + 1 < lines.size())
      logical = logical.substr(0, logical.size() - 1) + " " + trimmed(lines[++j]);
    if (logical.starts_with("#")) continue;
    auto words = split_command_words(logical);
    const bool runs = std::any_of(words.begin(), words.end(), [](const std::string& w) {
      const std::string name = std::filesystem::path(w).filename().string();
      return name == "srun" || name == "torchrun" || name == "deepspeed" || name == "accelerate";
    });
    if (runs) launch = logical;
    i = j;
  }
  if (launch.empty()) {
    throw Error(ErrorKind::Values,
                "no launch found in the batch script (an srun, torchrun, deepspeed or accelerate "
                "line, or the cmd=( ... ) of a zeroforge sbatch script)",
                Location{shown, 0, 0});
  }
  std::vector<std::string> words = split_command_words(launch);
  std::vector<std::string> launched;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string word = words[i];
    // `bash -c 'exec accelerate launch --machine_rank "$SLURM_NODEID" "$@"' NAME ...`: each
    // node's accelerate launch, with the words after NAME as its own.
    if (word == "-c" && i + 2 < words.size() &&
        words[i + 1].starts_with("exec accelerate launch")) {
      if (!launched.empty() && std::filesystem::path(launched.back()).filename() == "bash")
        launched.pop_back();
      launched.push_back("accelerate");
      launched.push_back("launch");
      i += 2;
      continue;
    }
    // Where the script says its config is: `"$here"/zero3.json`.
    for (const char* name : {"$here/", "${here}/"}) {
      if (!here.empty() && word.starts_with(name))
        word = here + "/" + word.substr(std::string_view(name).size());
    }
    launched.push_back(std::move(word));
  }
  launched.insert(launched.end(), command.sbatch_script_args.begin(),
                  command.sbatch_script_args.end());
  TrainingCommand inner = parse_training_words(launched);
  inner.sbatch_options = std::move(command.sbatch_options);
  inner.sbatch_script = command.sbatch_script;
  inner.sbatch_script_args = std::move(command.sbatch_script_args);
  inner.slurm_nodes = allocation.nodes;
  inner.slurm_gpus_per_node = allocation.gpus_per_node;
  command = std::move(inner);
}

}  // namespace zf::detail
