// SPDX-License-Identifier: MIT
// The command line as a whole: global flags, command dispatch, the mapping of failures to exit
// codes, and the check that what went to stdout arrived. main() calls run_main; so does the
// command line's fuzz target (tests/fuzz/cli_fuzz.cpp), in process: nothing here exits.
#include <boost/program_options/errors.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "command.hpp"
#include "diagnostic_printer.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf::cli {
namespace {

// Where a command that stops at an error puts it as JSON on stdout (report_errors_as_json);
// null: stderr only. Per thread, since tests and the fuzz target call run_main in process.
thread_local const char* json_errors_key = nullptr;

void print_usage(std::ostream& out) {
  out << "usage: zeroforge [--version] [--help] <command> [<args>]\n\n"
         "DeepSpeed config families from Jinja-style templates, presets and plugins.\n\n"
         "commands:\n";
  for (const auto& command : commands()) {
    std::string name = command.name;
    name.resize(12, ' ');
    out << "  " << name << command.summary << '\n';
  }
  out << "\nRun 'zeroforge <command> --help' for a command's options.\n"
         "Exit codes: 0 success, 1 findings (validation errors, --check drift), 2 errors.\n";
}

int dispatch(std::vector<std::string> args) {
  if (args.empty()) {
    print_usage(std::cerr);
    return kError;
  }
  if (args.size() > 1 && args.front() == "help") {
    // `zeroforge help render` is `zeroforge render --help` (git's and cargo's convention).
    args.erase(args.begin());
    args.push_back("--help");
  }
  const std::string first = args.front();
  if (first == "--version" || first == "-V") {
    std::cout << "zeroforge " << ZEROFORGE_VERSION << '\n';
    return kSuccess;
  }
  if (first == "--help" || first == "-h" || first == "help") {
    print_usage(std::cout);
    return kSuccess;
  }
  json_errors_key = nullptr;
  for (const auto& command : commands()) {
    if (first != command.name) continue;
    try {
      // A limit set wrongly is an error for every command, not ignored by those that happen to
      // read no file.
      max_input_bytes();
      return command.run(std::vector<std::string>(args.begin() + 1, args.end()));
    } catch (const Error& error) {
      print_error(std::cerr, error);
      if (json_errors_key != nullptr) {
        std::cout << to_json_text(
            {{"exit_code", kError},
             {json_errors_key,
              nlohmann::ordered_json::array({diagnostic_to_json(to_diagnostic(error))})}});
      }
    } catch (const boost::program_options::error& error) {
      print_coded_line(std::cerr,
                       "zeroforge " + std::string(command.name) + ": error: " + error.what(),
                       codes::usage_invalid);
      print_message(std::cerr,
                    "Run 'zeroforge " + std::string(command.name) + " --help' for usage.");
    } catch (const std::bad_alloc&) {
      print_message(std::cerr, "zeroforge: error: out of memory");
    } catch (const std::exception& error) {
      print_message(std::cerr, "zeroforge: error: " + std::string(error.what()));
    }
    return kError;
  }
  print_coded_line(std::cerr, "zeroforge: error: unknown command '" + first + "'",
                   codes::usage_invalid);
  print_message(std::cerr, "Run 'zeroforge --help' for the list of commands.");
  return kError;
}

}  // namespace

void report_errors_as_json(const char* key) { json_errors_key = key; }

int run_main(const std::vector<std::string>& args) {
  const int code = dispatch(args);
  // What went to stdout must have arrived, whatever printed it (a command, its --help,
  // --version): `render > /dev/full` is an error, not exit 0.
  // A write that failed earlier left its errno (unless something reset it since).
  if (std::cout) {
    errno = 0;
    std::cout.flush();
  }
  if (!std::cout || std::fflush(stdout) != 0) {
    const int err = errno != 0 ? errno : EIO;
    print_coded_line(
        std::cerr,
        std::string("zeroforge: error: cannot write to standard output: ") + std::strerror(err),
        codes::io_failed);
    return kError;
  }
  return code;
}

}  // namespace zf::cli
