// SPDX-License-Identifier: MIT
// `validate --against-args "sbatch [OPTIONS] SCRIPT [ARGS]"`: the allocation sbatch's options and
// the script's #SBATCH directives ask for, and the launch the script runs (sbatch_script.cpp);
// the command-line parsing they share with the other launchers (against_args.cpp).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/validator.hpp"

namespace zf::detail {

/// A command line's words as a shell splits them ('…', "…", backslashes; no expansion).
std::vector<std::string> split_command_words(std::string_view text);

/// A launcher command (deepspeed, torchrun, accelerate launch, ...) from its words.
TrainingCommand parse_training_words(const std::vector<std::string>& words);

/// sbatch's options from `words[first]` on (the allocation: nodes, GPUs per node), then the
/// script and its arguments. Throws zf::Error (Usage) for an option without its value or a
/// count that is not a number.
void parse_sbatch_words(TrainingCommand& command, const std::vector<std::string>& words,
                        std::size_t first);

/// Reads `command.sbatch_script` (relative to `base`): its directives fill the allocation the
/// command line left open, and its launch (with `$here` resolved and the script's arguments
/// appended) becomes the command. Throws zf::Error: Io when unreadable, Values at file:line
/// when no launch is found.
void load_sbatch_script(TrainingCommand& command, const std::filesystem::path& base);

/// load_sbatch_script once the script is read: `text` is its content, named in errors as
/// `command.sbatch_script` says (the sbatch fuzz target feeds it bytes without a file).
void read_sbatch_script(TrainingCommand& command, const std::string& text);

}  // namespace zf::detail
