// SPDX-License-Identifier: MIT
// launch_text_problem (engine/src/generate/launch_text.cpp): the one check of host names and
// environment variables, which companions apply to `launch` and plugins reach through the
// host (zf_host::check_launch_text).
#include "launch/launch_text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zf::launch {
namespace {

constexpr const char* kHostRule =
    " is not a host name (letters, digits, '.', '-' and '_', as a hostfile line and pdsh take it)";
constexpr const char* kNameRule =
    " is not an environment variable name (letters, digits and '_', not starting with a digit)";
constexpr const char* kValueRule =
    ": DeepSpeed's launcher strips the value and hands it to the other nodes' shell in double "
    "quotes, so it cannot hold '\"', '$', '`' or '\\', nor begin or end with a space";
constexpr const char* kOneLineRule =
    "; each variable is written on one line (the scripts' export, the environment file "
    "DeepSpeed's launcher reads line by line)";

TEST(LaunchTextTest, AcceptsAndRefusesByTheLaunchersRules) {
  struct Case {
    LaunchText kind;
    std::string text;
    std::string expected;  // "" = accepted
  };
  const std::vector<Case> cases = {
      {LaunchText::HostName, "gpu-001.cluster.example_site", ""},
      {LaunchText::HostName, "10.0.0.7", ""},
      {LaunchText::HostName, "", std::string("\"\"") + kHostRule},
      {LaunchText::HostName, "gpu 1", std::string("\"gpu 1\"") + kHostRule},
      {LaunchText::HostName, "-w", std::string("\"-w\"") + kHostRule},
      {LaunchText::HostName, ".hidden", std::string("\".hidden\"") + kHostRule},
      {LaunchText::HostName, "gpu\n1", std::string("\"gpu\\n1\"") + kHostRule},
      {LaunchText::HostName,
       std::string("gpu\0"
                   "1",
                   5),
       std::string("\"gpu\\u00001\"") + kHostRule},
      {LaunchText::VariableName, "NCCL_SOCKET_IFNAME", ""},
      {LaunchText::VariableName, "_x1", ""},
      {LaunchText::VariableName, "1X", std::string("\"1X\"") + kNameRule},
      {LaunchText::VariableName, "NCCL-DEBUG", std::string("\"NCCL-DEBUG\"") + kNameRule},
      {LaunchText::VariableName, "", std::string("\"\"") + kNameRule},
      {LaunchText::VariableName, "UID",
       "UID is read-only in bash, so the launch scripts would stop at its export before "
       "launching anything; leave it out"},
      {LaunchText::VariableName, "RANDOM",
       "RANDOM is a variable bash computes itself, so the launch scripts cannot pass a value of "
       "it on; leave it out"},
      {LaunchText::VariableName, "here",
       "here is a variable of the launch scripts themselves (here, cmd, master_addr, rdzv_id, "
       "ZEROFORGE_DRY_RUN): set from the environment it would change the launch; choose another "
       "name"},
      {LaunchText::VariableValue, "ib0,ib1:/opt/x@y%z+=", ""},
      {LaunchText::VariableValue, "x y", ""},
      {LaunchText::VariableValue, "", ""},
      {LaunchText::VariableValue, "$HOME/x", std::string("\"$HOME/x\"") + kValueRule},
      {LaunchText::VariableValue, " lead", std::string("\" lead\"") + kValueRule},
      {LaunchText::VariableValue, "a`b`", std::string("\"a`b`\"") + kValueRule},
      {LaunchText::VariableValue, "a\\b", std::string("\"a\\\\b\"") + kValueRule},
      {LaunchText::VariableValue, "two\nlines",
       std::string("\"two\\nlines\" holds a control character or line break (U+000A)") +
           kOneLineRule},
      {LaunchText::VariableValue, "a\u2028b",
       std::string("\"a\\u2028b\" holds a control character or line break (U+2028)") +
           kOneLineRule},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(launch_text_problem(c.kind, c.text), c.expected);
  }
}

TEST(LaunchTextTest, SlurmValuesAreWhatSbatchReadsFromAnSbatchLine) {
  // Each accepted time is also accepted by a real sbatch, each refused one refused by it
  // (tests/slurm/check_slurm.py submits both lists with --test-only).
  const std::string time_rule =
      " is not a time limit SLURM reads (minutes, minutes:seconds, hours:minutes:seconds, "
      "days-hours, days-hours:minutes, days-hours:minutes:seconds, or UNLIMITED)";
  const std::string name_rule =
      " is not a SLURM name (letters, digits, '_', '-' and '.', not starting with '-')";
  const std::string word_rule =
      " cannot be written as one #SBATCH value (sbatch splits the line at white space and reads "
      "quotes, '\\' and '#' itself): printable ASCII without them";
  struct Case {
    LaunchText kind;
    std::string text;
    std::string expected;  // "" = accepted
  };
  const std::vector<Case> cases = {
      {LaunchText::SlurmTime, "90", ""},
      {LaunchText::SlurmTime, "90:30", ""},
      {LaunchText::SlurmTime, "12:00:00", ""},
      {LaunchText::SlurmTime, "2-0", ""},
      {LaunchText::SlurmTime, "2-12:30", ""},
      {LaunchText::SlurmTime, "2-12:30:15", ""},
      {LaunchText::SlurmTime, "UNLIMITED", ""},
      {LaunchText::SlurmTime, "infinite", ""},
      {LaunchText::SlurmTime, "1h", "\"1h\"" + time_rule},
      {LaunchText::SlurmTime, "1:2:3:4", "\"1:2:3:4\"" + time_rule},
      {LaunchText::SlurmTime, "2-1:2:3:4", "\"2-1:2:3:4\"" + time_rule},
      {LaunchText::SlurmTime, "12:", "\"12:\"" + time_rule},
      {LaunchText::SlurmTime, ":5", "\":5\"" + time_rule},
      {LaunchText::SlurmTime, "", "\"\"" + time_rule},
      {LaunchText::SlurmTime, "1 day", "\"1 day\"" + time_rule},
      {LaunchText::SlurmName, "gpu_a100-80g.large", ""},
      {LaunchText::SlurmName, "gpu a100", "\"gpu a100\"" + name_rule},
      {LaunchText::SlurmName, "--exclusive", "\"--exclusive\"" + name_rule},
      {LaunchText::SlurmName, "a;b", "\"a;b\"" + name_rule},
      {LaunchText::SlurmName, "", "\"\"" + name_rule},
      {LaunchText::SlurmWord, "logs/%x-%j.out", ""},
      {LaunchText::SlurmWord, "[a100*2&ib]|h100", ""},
      {LaunchText::SlurmWord, "logs/run 1.out", "\"logs/run 1.out\"" + word_rule},
      {LaunchText::SlurmWord, "a#b", "\"a#b\"" + word_rule},
      {LaunchText::SlurmWord, "it's", "\"it's\"" + word_rule},
      {LaunchText::SlurmWord, "a\nb", "\"a\\nb\"" + word_rule},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(launch_text_problem(c.kind, c.text), c.expected);
  }
}

TEST(LaunchTextTest, ShowsBytesThatAreNotUtf8AsReplacements) {
  // A plugin may hand the host any bytes; the message stays valid UTF-8.
  EXPECT_EQ(launch_text_problem(LaunchText::HostName, "gpu\xff"),
            std::string("\"gpu\xEF\xBF\xBD\"") + kHostRule);
}

}  // namespace
}  // namespace zf::launch
