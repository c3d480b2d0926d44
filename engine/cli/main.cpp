// SPDX-License-Identifier: MIT
// zeroforge's entry point: global flags, command dispatch, and the mapping of failures to
// exit codes (the library never prints and never exits; this file does both).
#include <boost/program_options/errors.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "diagnostic_printer.hpp"
#include "zeroforge/error.hpp"

namespace {

void print_usage(std::ostream& out) {
  out << "usage: zeroforge [--version] [--help] <command> [<args>]\n\n"
         "DeepSpeed config families from Jinja-style templates, presets and plugins.\n\n"
         "commands:\n";
  for (const auto& command : zf::cli::commands()) {
    std::string name = command.name;
    name.resize(12, ' ');
    out << "  " << name << command.summary << '\n';
  }
  out << "\nRun 'zeroforge <command> --help' for a command's options.\n"
         "Exit codes: 0 success, 1 findings (validation errors, --check drift), 2 errors.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_usage(std::cerr);
    return zf::cli::kError;
  }
  if (args.size() > 1 && args.front() == "help") {
    // `zeroforge help render` is `zeroforge render --help` (git's and cargo's convention).
    args.erase(args.begin());
    args.push_back("--help");
  }
  const std::string& first = args.front();
  if (first == "--version" || first == "-V") {
    std::cout << "zeroforge " << ZEROFORGE_VERSION << '\n';
    return zf::cli::kSuccess;
  }
  if (first == "--help" || first == "-h" || first == "help") {
    print_usage(std::cout);
    return zf::cli::kSuccess;
  }
  for (const auto& command : zf::cli::commands()) {
    if (first != command.name) continue;
    try {
      const int code = command.run(std::vector<std::string>(args.begin() + 1, args.end()));
      // What went to stdout must have arrived: `render > /dev/full` is an error, not exit 0.
      std::cout.flush();
      if (!std::cout || std::fflush(stdout) != 0) {
        std::cerr << "zeroforge: error: cannot write to standard output: "
                  << std::strerror(errno != 0 ? errno : EIO) << '\n';
        return zf::cli::kError;
      }
      return code;
    } catch (const zf::Error& error) {
      zf::cli::print_error(std::cerr, error);
    } catch (const boost::program_options::error& error) {
      std::cerr << "zeroforge " << command.name << ": error: " << error.what() << "\n"
                << "Run 'zeroforge " << command.name << " --help' for usage.\n";
    } catch (const std::exception& error) {
      std::cerr << "zeroforge: error: " << error.what() << '\n';
    }
    return zf::cli::kError;
  }
  std::cerr << "zeroforge: error: unknown command '" << first
            << "'\nRun 'zeroforge --help' for the list of commands.\n";
  return zf::cli::kError;
}
