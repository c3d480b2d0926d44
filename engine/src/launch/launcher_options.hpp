// SPDX-License-Identifier: MIT
// The options of the launchers the companions write, as their argparse parsers know them, and
// the one way those parsers read a training script's argument as their own: Python's argparse
// looks at every word of the command line, the script's arguments after it too, and stops
// with "ambiguous option" at a word that abbreviates two or more of its options.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace zf::launch {

/// A launcher's argument parser, of the versions the companions support (docs/companions.md).
struct LauncherParser {
  std::string_view launcher;  ///< the program, as messages name it: `torchrun`
  std::string_view version;   ///< which release's parser: `torch 2.x`
  /// Every option string, `-h`/`--help` included (argparse adds them).
  std::span<const std::string_view> options;
  bool allow_abbrev = true;  ///< argparse's allow_abbrev
};

/// torchrun's parsers (torch.distributed.run): torch 1.13's and 2.x's, which spells each
/// option both ways (`--nproc-per-node`, `--nproc_per_node`).
std::span<const LauncherParser> torchrun_parsers();
/// DeepSpeed 0.19.6's: `deepspeed` (deepspeed/launcher/runner.py) and what it runs on every
/// node, deepspeed/launcher/launch.py, which gets the script's arguments again.
std::span<const LauncherParser> deepspeed_parsers();
/// accelerate's `accelerate launch` (accelerate/commands/launch.py, 1.0 to 1.15): built with
/// allow_abbrev=False, so it reads no word of the script's as its own.
std::span<const LauncherParser> accelerate_parsers();

/// Whether `option` of `launcher` ("torchrun", "deepspeed", "accelerate") takes no value
/// (argparse's store_true, and torchrun's check_env): the word after it is the training script
/// or another option, not its value. False for an option that takes one and for a word that is
/// no option of it. From their parsers: torch 1.13 and 2.x run.py, DeepSpeed 0.19.6 runner.py
/// and launch.py, accelerate 1.15 commands/launch.py.
bool is_flag_option(std::string_view launcher, std::string_view option);

/// The options of `parser` that argparse (Python 3.8 to 3.13) would take `word` to abbreviate
/// when it is two or more, anywhere on the command line: a word that starts with `--` and is
/// not itself an option (nor `--option=value` of one), whose part before any `=` begins two
/// or more option strings. Empty otherwise: an option's full name, a unique abbreviation, a
/// word that is no option, `--`. Two spellings of one option count as two, as argparse counts
/// them (`--node` in torch 2.x: `--node-rank`, `--node_rank`). No parser here has a single-dash
/// option longer than two characters, so no single-dash word is ever ambiguous.
///
///     ambiguous_options(torchrun_parsers()[0], "--rdzv")
///     // {"--rdzv_backend", "--rdzv_endpoint", "--rdzv_id", "--rdzv_conf"}
std::vector<std::string_view> ambiguous_options(const LauncherParser& parser,
                                                std::string_view word);

}  // namespace zf::launch
