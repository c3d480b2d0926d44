// SPDX-License-Identifier: MIT
// The YAML subset reader (engine/src/validate/yaml_subset.cpp): what accelerate config writes
// reads as PyYAML reads it, and every form outside the subset is an error at its line and
// column, with its exact message.
#include "validate/yaml_subset.hpp"

#include <gtest/gtest.h>

#include "zeroforge/error.hpp"

namespace zf::validate {
namespace {

using Json = nlohmann::ordered_json;

std::string error_of(const std::string& text) {
  try {
    parse_yaml_subset(text, "a.yaml");
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(YamlSubsetTest, ReadsWhatAccelerateConfigWrites) {
  // accelerate config's output (yaml.safe_dump: sorted keys, 2-space nesting, sequences at the
  // key's indentation, 'no' quoted because YAML 1.1 reads a bare no as false).
  const char* text = R"(compute_environment: LOCAL_MACHINE
debug: false
deepspeed_config:
  deepspeed_config_file: /home/me/ds_config.json
  zero3_init_flag: true
distributed_type: DEEPSPEED
downcast_bf16: 'no'
enable_cpu_affinity: false
machine_rank: 0
main_training_function: main
num_machines: 1
num_processes: 8
rdzv_backend: static
same_network: true
tpu_env: []
tpu_use_cluster: false
tpu_use_sudo: false
use_cpu: false
)";
  Json expected = Json::parse(R"({
    "compute_environment": "LOCAL_MACHINE", "debug": false,
    "deepspeed_config": {"deepspeed_config_file": "/home/me/ds_config.json",
                         "zero3_init_flag": true},
    "distributed_type": "DEEPSPEED", "downcast_bf16": "no", "enable_cpu_affinity": false,
    "machine_rank": 0, "main_training_function": "main", "num_machines": 1,
    "num_processes": 8, "rdzv_backend": "static", "same_network": true, "tpu_env": [],
    "tpu_use_cluster": false, "tpu_use_sudo": false, "use_cpu": false})");
  EXPECT_EQ(parse_yaml_subset(text, "a.yaml"), expected);
}

TEST(YamlSubsetTest, ResolvesPlainScalarsAsYaml11) {
  struct Case {
    const char* text;
    Json value;
  };
  const Case cases[] = {
      {"x: ~", nullptr},
      {"x: null", nullptr},
      {"x:", nullptr},
      {"x: yes", true},
      {"x: Off", false},
      {"x: NO", false},
      {"x: on", true},
      {"x: 42", 42},
      {"x: -7", -7},
      {"x: 1_000", 1000},
      {"x: 1.5", 1.5},
      {"x: 1.0e+3", 1000.0},
      {"x: 1e3", "1e3"},  // PyYAML's float needs a dot
      {"x: 0", 0},
      {"x: bf16", "bf16"},
      {"x: a b  # note", "a b"},
      {"x: a#b", "a#b"},
      {"x: 'it''s'", "it's"},
      {R"(x: "a\tb\u00e9")", "a\tb\xc3\xa9"},
      {"x: 'no'", "no"},
      {"x: host:29500", "host:29500"},
      {"x: {}", Json::object()},
      {"x: [ ]", Json::array()},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(parse_yaml_subset(c.text, "a.yaml").at("x"), c.value);
  }
}

TEST(YamlSubsetTest, ReadsNestingSequencesAndComments) {
  Json parsed = parse_yaml_subset(R"(---
# a comment
a:
  b:
    c: 1   # trailing
  d:
  - x
  - "y: z"
e:
- 1
-
  - 2
f: done
...
ignored: after the end
)",
                                  "a.yaml");
  EXPECT_EQ(parsed, Json::parse(R"({"a": {"b": {"c": 1}, "d": ["x", "y: z"]},
                                    "e": [1, [2]], "f": "done"})"));
  EXPECT_TRUE(parse_yaml_subset("# only a comment\n", "a.yaml").is_null());
}

TEST(YamlSubsetTest, RefusesWhatItDoesNotReadWithItsPlace) {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"a: 1\na: 2\n", "a.yaml:2:1: error: duplicate key 'a'"},
      {"a:\n\tb: 1\n",
       "a.yaml:2:1: error: a tab in the indentation (YAML indents with spaces only)"},
      {"a: 1\n  b: 2\n", "a.yaml:2:3: error: unexpected indentation"},
      {"a: &x 1\n", "a.yaml:1:4: error: anchors, aliases and tags are not supported"},
      {"a: !!str 1\n", "a.yaml:1:4: error: anchors, aliases and tags are not supported"},
      {"a: |\n  text\n", "a.yaml:1:4: error: block scalars ('|', '>') are not supported"},
      {"a: [1, 2]\n", "a.yaml:1:4: error: flow collections other than [] and {} are not supported"},
      {"a: \"open\n",
       "a.yaml:1:4: error: unterminated quoted scalar (multi-line quoted scalars "
       "are not supported)"},
      {"a: 'x' y\n", "a.yaml:1:8: error: unexpected text after a quoted scalar"},
      {"a: b: c\n", "a.yaml:1:4: error: a plain scalar cannot hold ': '; quote it"},
      {"just text\n", "a.yaml:1:1: error: expected 'key: value'"},
      {"a: 0755\n",
       "a.yaml:1:4: error: '0755' is an octal, hexadecimal or binary integer in YAML "
       "1.1, which this reader does not take; quote it, or write a decimal number"},
      {"a: 1:30\n",
       "a.yaml:1:4: error: '1:30' is a base-60 number in YAML 1.1, which this reader "
       "does not take; quote it, or write a decimal number"},
      {"a: .inf\n",
       "a.yaml:1:4: error: '.inf' is an infinity or NaN in YAML 1.1, which this "
       "reader does not take; quote it, or write a decimal number"},
      // PyYAML reads it as an infinity; found by yaml_fuzz (to_json_text threw on it).
      {"a: 1.5e+888\n", "a.yaml:1:4: error: number out of range: 1.5e+888"},
      {"a: 99999999999999999999\n",
       "a.yaml:1:4: error: integer out of range: 99999999999999999999"},
      {"- a\nb: 1\n", "a.yaml:2:1: error: a line that does not continue the structure above it"},
      {"a:\n- k: v\n",
       "a.yaml:2:3: error: a mapping or sequence inside a sequence item is not "
       "supported"},
      {"a: \"\\q\"\n", "a.yaml:1:5: error: unknown escape '\\q' in a double-quoted scalar"},
      {"--- a\n", "a.yaml:1:1: error: more than one document, or a directive, is not supported"},
      {"a: 1\nb: \xff\n", "a.yaml:2:4: error: not UTF-8 (a YAML file is UTF-8 text)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(error_of(c.text), c.expected);
  }
}

}  // namespace
}  // namespace zf::validate
