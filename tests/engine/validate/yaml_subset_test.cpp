// SPDX-License-Identifier: MIT
// The YAML subset reader (engine/src/validate/yaml_subset.cpp): what accelerate config writes
// reads as PyYAML reads it (checked against PyYAML itself when python3 has it), lines end
// where YAML 1.1 ends them, and every form outside the subset is an error at its line and
// column, with its exact message.
#include "validate/yaml_subset.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
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

// A whole text and what PyYAML reads from it.
struct DocumentCase {
  std::string name, text;
  Json value;
};

// Whole documents: what `accelerate config` writes (yaml.safe_dump: sorted keys, 2-space
// nesting, sequences at the key's indentation, 'no' quoted because YAML 1.1 reads a bare no as
// false), nesting, sequences and comments.
const std::vector<DocumentCase>& document_cases() {
  static const std::vector<DocumentCase> cases = {
      {"accelerate config", R"(compute_environment: LOCAL_MACHINE
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
)",
       Json::parse(R"({
    "compute_environment": "LOCAL_MACHINE", "debug": false,
    "deepspeed_config": {"deepspeed_config_file": "/home/me/ds_config.json",
                         "zero3_init_flag": true},
    "distributed_type": "DEEPSPEED", "downcast_bf16": "no", "enable_cpu_affinity": false,
    "machine_rank": 0, "main_training_function": "main", "num_machines": 1,
    "num_processes": 8, "rdzv_backend": "static", "same_network": true, "tpu_env": [],
    "tpu_use_cluster": false, "tpu_use_sudo": false, "use_cpu": false})")},
      {"nesting, sequences and comments", R"(---
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
# comments may follow the end
)",
       Json::parse(R"({"a": {"b": {"c": 1}, "d": ["x", "y: z"]}, "e": [1, [2]], "f": "done"})")},
      {"only a comment", "# only a comment\n", nullptr},
      // YAML's longest key: 1024 characters before the ':', its quotes and trailing spaces
      // counted, characters and not bytes.
      {"a plain key of 1024", std::string(1024, 'k') + ": 1\n", Json{{std::string(1024, 'k'), 1}}},
      {"a plain key and a space, 1024", std::string(1023, 'k') + " : 1\n",
       Json{{std::string(1023, 'k'), 1}}},
      {"a quoted key of 1024", "'" + std::string(1022, 'k') + "': 1\n",
       Json{{std::string(1022, 'k'), 1}}},
      {"1024 characters of two bytes",
       [] {
         std::string key;
         for (int i = 0; i < 1024; ++i) key += "\u00e9";
         return key + ": 1\n";
       }(),
       [] {
         std::string key;
         for (int i = 0; i < 1024; ++i) key += "\u00e9";
         return Json{{key, 1}};
       }()},
  };
  return cases;
}

TEST(YamlSubsetTest, ReadsWhatAccelerateConfigWritesNestingAndComments) {
  for (const auto& c : document_cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(parse_yaml_subset(c.text, "a.yaml"), c.value);
  }
}

// `x: SCALAR` and the value PyYAML reads for the scalar.
struct ScalarCase {
  std::string text;
  Json value;
};

const std::vector<ScalarCase>& plain_scalar_cases() {
  static const std::vector<ScalarCase> cases = {
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
      {"x: 1._0", 1.0},  // [0-9][0-9_]*\.[0-9_]*: underscores anywhere after the dot
      {"x: .5", 0.5},
      {"x: 2001-1-2", "2001-1-2"},  // not a YAML 1.1 date: its month and day need two digits
      {"x: 1e3", "1e3"},            // PyYAML's float needs a dot
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
  return cases;
}

TEST(YamlSubsetTest, ResolvesPlainScalarsAsYaml11) {
  for (const auto& c : plain_scalar_cases()) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(parse_yaml_subset(c.text, "a.yaml").at("x"), c.value);
  }
}

// accelerate's header comment of a companion config, as zeroforge wrote it before launch values
// with a YAML 1.1 line break were refused: the break ends the comment for PyYAML, and what
// follows is read as keys.
std::string injected_header(std::string_view line_break) {
  return "# accelerate launch --config_file medium/zero3.accelerate.yaml train.py --note 'x" +
         std::string(line_break) + "mixed_precision: fp16" + std::string(line_break) +
         "#' --bf16\ndistributed_type: DEEPSPEED\nnum_processes: 8\n";
}

// PyYAML (reader.py, scanner.py scan_line_break) ends a line at \n, \r\n, \r, NEL, LS and PS,
// and a comment with it.
const std::vector<DocumentCase>& line_break_cases() {
  static const Json injected = Json::parse(
      R"({"mixed_precision": "fp16", "distributed_type": "DEEPSPEED", "num_processes": 8})");
  static const std::vector<DocumentCase> cases = {
      {"CR LF", "a: 1\r\nb: 2\r\n", Json::parse(R"({"a": 1, "b": 2})")},
      {"CR alone", "a: 1\rb: 2", Json::parse(R"({"a": 1, "b": 2})")},
      {"NEL ends a plain scalar", "a: x\u0085b: 1", Json::parse(R"({"a": "x", "b": 1})")},
      {"LS ends a comment", "# note\u2028b: 2\n", Json::parse(R"({"b": 2})")},
      {"PS ends a value's comment", "a: 1 # c\u2029b: 2\n", Json::parse(R"({"a": 1, "b": 2})")},
      {"a comment ended by NEL", injected_header("\u0085"), injected},
      {"a comment ended by LS", injected_header("\u2028"), injected},
      {"a comment ended by PS", injected_header("\u2029"), injected},
      {"a comment ended by CR", injected_header("\r"), injected},
      {"a byte order mark at the start", "\ufeffa: 1\n", Json::parse(R"({"a": 1})")},
      {"a byte order mark elsewhere is text", "a: 1\n\ufeffb: 2\n",
       Json::parse(R"({"a": 1, "\ufeffb": 2})")},
      {"escapes of line breaks in a double-quoted scalar", R"(a: "x\Ny\Lz\P")",
       Json::parse(R"({"a": "x\u0085y\u2028z\u2029"})")},
  };
  return cases;
}

TEST(YamlSubsetTest, EndsLinesWhereYaml11Does) {
  for (const auto& c : line_break_cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(parse_yaml_subset(c.text, "a.yaml"), c.value);
  }
}

TEST(YamlSubsetTest, BoundsItsNesting) {
  // 100 levels read; one more is an error at its line, long before the stack or PyYAML's own
  // recursion (about 450 levels) gives out.
  auto nested = [](std::size_t levels) {
    std::string text;
    for (std::size_t i = 0; i < levels; ++i) text += std::string(i, ' ') + "k:\n";
    return text + std::string(levels, ' ') + "- 1\n";
  };
  Json value = parse_yaml_subset(nested(99), "a.yaml");
  for (int i = 0; i < 99; ++i) value = Json(value.at("k"));
  EXPECT_EQ(value, Json::parse("[1]"));
  EXPECT_EQ(error_of(nested(100)),
            "a.yaml:101:101: error: nesting deeper than 100 levels is not supported");
  EXPECT_EQ(error_of(nested(2000)),
            "a.yaml:101:101: error: nesting deeper than 100 levels is not supported");
}

// A text this reader refuses, and its exact error.
struct RefusalCase {
  std::string text, expected;
};

const std::vector<RefusalCase>& refusal_cases() {
  static const std::vector<RefusalCase> cases = {
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
      {"a: -.Inf\n",
       "a.yaml:1:4: error: '-.Inf' is an infinity or NaN in YAML 1.1, which this reader does "
       "not take; quote it, or write a decimal number"},
      // PyYAML reads a date or timestamp as a date object, which no JSON value is.
      {"a: 2001-12-14\n",
       "a.yaml:1:4: error: '2001-12-14' is a date or timestamp in YAML 1.1, which this reader "
       "does not take; quote it"},
      {"a: 2001-1-2 3:04:05 +1\n",
       "a.yaml:1:4: error: '2001-1-2 3:04:05 +1' is a date or timestamp in YAML 1.1, which this "
       "reader does not take; quote it"},
      {"a: <<\n",
       "a.yaml:1:4: error: '<<' is a merge key in YAML 1.1, which this reader does not take; "
       "quote it"},
      {"a: =\n",
       "a.yaml:1:4: error: '=' is a value key in YAML 1.1, which this reader does not take; "
       "quote it"},
      // PyYAML resolves keys as values: `1:` is the integer 1, which no JSON key is.
      {"1: a\n",
       "a.yaml:1:1: error: the key '1' is a number, boolean or null in YAML 1.1, not a string; "
       "quote it"},
      {"a:\n  yes: 1\n",
       "a.yaml:2:3: error: the key 'yes' is a number, boolean or null in YAML 1.1, not a "
       "string; quote it"},
      {"a: -\n", "a.yaml:1:4: error: a sequence item where a value was expected; quote the value"},
      {"a: - b\n",
       "a.yaml:1:4: error: a sequence item where a value was expected; quote the value"},
      {"# only a comment\n...\n",
       "a.yaml:2:1: error: a document end ('...') before any document (PyYAML refuses it)"},
      // PyYAML's safe_load refuses what follows the end of the document.
      {"a: 1\n...\nb: 2\n",
       "a.yaml:3:1: error: more than one document, or a directive, is not supported"},
      {"a: 1\nb: \xff\n", "a.yaml:2:4: error: not UTF-8 (a YAML file is UTF-8 text)"},
      // Lines are counted at every YAML 1.1 line break.
      {"a: 1\rb: \xff\n", "a.yaml:2:4: error: not UTF-8 (a YAML file is UTF-8 text)"},
      {"a: 1\u2028a: 2\n", "a.yaml:2:1: error: duplicate key 'a'"},
      // What PyYAML refuses (reader.py NON_PRINTABLE), this reader refuses too.
      {"a: 1\nb: x\x01\n",
       "a.yaml:2:5: error: the character U+0001, which YAML does not allow in a file (PyYAML "
       "refuses it); write it as an escape in a double-quoted scalar"},
      {"# \x1b[2J\na: 1\n",
       "a.yaml:1:3: error: the character U+001B, which YAML does not allow in a file (PyYAML "
       "refuses it); write it as an escape in a double-quoted scalar"},
      {"a: \"\x7f\"\n",
       "a.yaml:1:5: error: the character U+007F, which YAML does not allow in a file (PyYAML "
       "refuses it); write it as an escape in a double-quoted scalar"},
      {"a: \u009b31m\n",
       "a.yaml:1:4: error: the character U+009B, which YAML does not allow in a file (PyYAML "
       "refuses it); write it as an escape in a double-quoted scalar"},
      {"a: \uffff\n",
       "a.yaml:1:4: error: the character U+FFFF, which YAML does not allow in a file (PyYAML "
       "refuses it); write it as an escape in a double-quoted scalar"},
      // PyYAML ends a plain scalar at a tab and finds no token that starts with one.
      {"a: b\tc\n",
       "a.yaml:1:5: error: a tab outside quotes, which YAML does not read as part of a plain "
       "scalar (PyYAML refuses it); quote the value, or use spaces"},
      {"a: 1\t# note\n",
       "a.yaml:1:5: error: a tab outside quotes, which YAML does not read as part of a plain "
       "scalar (PyYAML refuses it); quote the value, or use spaces"},
      {"a\tb: 1\n",
       "a.yaml:1:2: error: a tab outside quotes, which YAML does not read as part of a plain "
       "scalar (PyYAML refuses it); quote the value, or use spaces"},
      {"a: 'x'\t\n", "a.yaml:1:7: error: unexpected text after a quoted scalar"},
      {"a: 1\n \t\nb: 2\n",
       "a.yaml:2:2: error: a tab in the indentation (YAML indents with spaces only)"},
      {"n: 1\n" + std::string(1025, 'k') + ": 1\n",
       "a.yaml:2:1: error: a key of 1025 characters; YAML takes a key of at most 1024 before its "
       "':' (PyYAML refuses it: \"mapping values are not allowed here\")"},
      {"\"" + std::string(1023, 'k') + "\": 1\n",
       "a.yaml:1:1: error: a key of 1025 characters; YAML takes a key of at most 1024 before its "
       "':' (PyYAML refuses it: \"mapping values are not allowed here\")"},
      {"a:\n  " + std::string(1 << 20, 'k') + ": 1\n",
       "a.yaml:2:3: error: a key of 1048576 characters; YAML takes a key of at most 1024 before "
       "its ':' (PyYAML refuses it: \"mapping values are not allowed here\")"},
      // An injected key that the file sets again: PyYAML keeps the last, this reader refuses.
      {"# launch 'x\u2028num_processes: 1\u2028#'\nnum_processes: 8\n",
       "a.yaml:4:1: error: duplicate key 'num_processes'"},
  };
  return cases;
}

TEST(YamlSubsetTest, RefusesWhatItDoesNotReadWithItsPlace) {
  for (const auto& c : refusal_cases()) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(error_of(c.text), c.expected);
  }
}

// What PyYAML makes of each text, read as accelerate reads its config (a UTF-8 text stream
// given to yaml.safe_load): {"value": ...} or {"error": TYPE}; nullopt without python3 and yaml.
std::optional<Json> pyyaml_readings(const std::vector<std::string>& texts) {
  static const char* const kScript = R"(import json, sys, yaml
out = []
for name in sys.argv[1:]:
    try:
        with open(name, encoding="utf-8") as stream:
            out.append({"value": json.loads(json.dumps(yaml.safe_load(stream), allow_nan=False))})
    except Exception as e:
        out.append({"error": type(e).__name__})
print(json.dumps(out))
)";
  test::TempDir dir;
  std::vector<std::string> args = {"python3", "-c", kScript};
  for (std::size_t i = 0; i < texts.size(); ++i)
    args.push_back(dir.write(std::to_string(i) + ".yaml", texts[i]).string());
  test::CliResult python = test::run_program("/usr/bin/env", args);
  if (python.exit_code != 0) return std::nullopt;
  return Json::parse(python.out);
}

TEST(YamlSubsetTest, WhatItReadsPyYamlReadsTheSame) {
  // Every text above, hostile ones included: where this reader reads a value PyYAML reads the
  // same, and where it says PyYAML refuses a text, PyYAML does. (The companions of every
  // shipped family are compared in tests/cli/companions_cli_test.cpp.)
  std::vector<std::string> texts;
  std::vector<Json> expected;  // the value, or "refused" for a refusal PyYAML shares
  for (const auto& c : plain_scalar_cases()) {
    texts.push_back(c.text);
    expected.push_back({{"value", {{"x", c.value}}}});
  }
  for (const auto& c : document_cases()) {
    texts.push_back(c.text);
    expected.push_back({{"value", c.value}});
  }
  for (const auto& c : line_break_cases()) {
    texts.push_back(c.text);
    expected.push_back({{"value", c.value}});
  }
  std::size_t shared_refusals = 0;
  for (const auto& c : refusal_cases()) {
    if (c.expected.find("PyYAML refuses it") == std::string::npos) continue;
    texts.push_back(c.text);
    expected.push_back("refused");
    ++shared_refusals;
  }
  ASSERT_GE(shared_refusals, 8u);
  std::optional<Json> readings = pyyaml_readings(texts);
  if (!readings) GTEST_SKIP() << "python3 with yaml (PyYAML) is not available";
  ASSERT_EQ(readings->size(), texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    SCOPED_TRACE(texts[i]);
    const Json& got = (*readings)[i];
    if (expected[i] == "refused") {
      EXPECT_TRUE(got.contains("error")) << got.dump();
    } else {
      EXPECT_EQ(got, expected[i]);
      const Json ours = {{"value", parse_yaml_subset(texts[i], "a.yaml")}};
      EXPECT_EQ(ours, got);
    }
  }
}

}  // namespace
}  // namespace zf::validate
