// SPDX-License-Identifier: MIT
// zeroforge's entry point: the arguments to run_main (dispatch.cpp), its exit code to the
// system. The library never prints and never exits; the CLI exits only here.
#include <string>
#include <vector>

#include "command.hpp"

int main(int argc, char** argv) {
  return zf::cli::run_main(std::vector<std::string>(argv + 1, argv + argc));
}
