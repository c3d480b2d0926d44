// SPDX-License-Identifier: MIT
// `zeroforge estimate`: parses the command's arguments, runs the estimator, prints a table or JSON.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "estimate_tier.hpp"
#include "estimator.hpp"
#include "model_presets.hpp"

namespace zf::memory {

/// Runs `zeroforge estimate ARGS...`; writes to `out` and returns the exit code (0 fits or no
/// capacity given, 1 does not fit). `--tier` is found by `find` (the host's tier search path),
/// else as load_estimate_tier says. Throws std::exception with a one-line message on bad input.
/// `warn` receives what is not an error but changes the answer (a tier's GPU name the table
/// does not know: the step time then assumes the default GPU's facts).
int run_estimate(const std::vector<std::string>& args, const std::string& data_dir,
                 const FileReader& read, std::string& out, const TierFinder& find = {},
                 const std::function<void(const std::string&)>& warn = {});

/// One estimate as the JSON `--format json` prints.
nlohmann::ordered_json to_json(const Inputs& inputs, const Estimate& estimate);

}  // namespace zf::memory
