// SPDX-License-Identifier: MIT
// `zeroforge schema`: prints the JSON Schema (draft 2020-12) of a DeepSpeed config, for editors.
#include <boost/program_options.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace zf::cli {
namespace po = boost::program_options;

int run_schema(const std::vector<std::string>& args) {
  std::string output;
  std::string deepspeed_version;
  po::options_description options("zeroforge schema [options]");
  options.add_options()("help,h", "show this help")("output,o", po::value(&output),
                                                    "write to FILE (atomically) instead of stdout")(
      "deepspeed-version", po::value(&deepspeed_version),
      ("the config of this DeepSpeed release (" + deepspeed_versions().front() + " to " +
       deepspeed_versions().back() + "; default " + deepspeed_versions().back() + ")")
          .c_str());
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  if (vm.count("help")) {
    std::cout << "Prints a JSON Schema (draft 2020-12) of DeepSpeed's config, built from the "
                 "validator's\n"
                 "data; point an editor at it for completion and checking (docs/validate.md).\n\n"
              << options << '\n';
    return kSuccess;
  }
  po::notify(vm);
  if (vm.count("deepspeed-version")) {
    try {
      check_deepspeed_version(deepspeed_version);
    } catch (const Error& e) {
      throw Error(ErrorKind::Usage, "schema: --deepspeed-version: " + e.message());
    }
  }
  std::string text = to_json_text(deepspeed_json_schema(deepspeed_version));
  if (output.empty() || output == "-") {
    std::cout << text;
    std::cout.flush();
  } else {
    write_file_atomically(output, text);
  }
  return kSuccess;
}

}  // namespace zf::cli
