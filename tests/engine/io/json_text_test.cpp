// SPDX-License-Identifier: MIT
// JSON reading (strict, ordered, located errors) and writing (stable text), and atomic files.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

// The what() of the error parsing `text` (as f.json) raises, or "" when it parses. Every
// such error has the code `json.syntax` (a template's output that is not JSON: output.json).
std::string parse_error(const std::string& text) {
  try {
    parse_json_text(text, "f.json");
  } catch (const Error& e) {
    EXPECT_EQ(to_diagnostic(e).code, "json.syntax") << text;
    return e.what();
  }
  return "";
}

TEST(JsonReaderTest, KeepsKeyOrderAndTypes) {
  auto json = parse_json_text(R"({"b": 1, "a": [true, null, "x\u00e9\n", -0.5, 1E3]})", "f.json");
  EXPECT_EQ(json.dump(), R"({"b":1,"a":[true,null,"xé\n",-0.5,1000]})");
  EXPECT_TRUE(json["a"][4].is_number_integer());
}

TEST(JsonReaderTest, ReportsErrorsWithLineAndColumn) {
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {"{\"a\": 1,\n \"a\": 2}", "f.json:2:2: error: duplicate key \"a\""},
      {"{\"a\": 1,}", "f.json:1:9: error: trailing comma in object"},
      {"[1, 2", "f.json:1:6: error: expected ',' or ']' in array, found end of input"},
      {"{\"a\" 1}", "f.json:1:6: error: expected ':' after key \"a\", found '1'"},
      {"\n\n  nope", "f.json:3:3: error: expected a JSON value, found 'n'"},
      {"01", "f.json:1:1: error: numbers cannot have leading zeros"},
      {"\"abc", "f.json:1:1: error: unterminated string"},
      {"{} x", "f.json:1:4: error: unexpected 'x' after the JSON value"},
      {"", "f.json:1:1: error: expected a JSON value, found end of input"},
      {"1e999", "f.json:1:1: error: number out of range"},
      // 2**64 once became 1.8446744073709552e+19 without a word.
      {"{\"a\": 18446744073709551616}",
       "f.json:1:7: error: integer 18446744073709551616 is out of range: integers are 64-bit "
       "(-9223372036854775808 to 9223372036854775807); write 18446744073709551616.0 if a float "
       "is meant"},
      {"[-9223372036854775809]",
       "f.json:1:2: error: integer -9223372036854775809 is out of range: integers are 64-bit "
       "(-9223372036854775808 to 9223372036854775807); write -9223372036854775809.0 if a float "
       "is meant"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(parse_error(c.text), c.expected);
  }
}

// Objects of many keys are checked for duplicates through an index (a linear scan made
// validate of 100,000 keys take 33 s); the error is the same at any size and depth, for the
// first key and for the last (sizes past the index's growth steps included).
TEST(JsonReaderTest, FindsADuplicateKeyAmongManyAtItsPlace) {
  for (int keys : {3, 31, 32, 33, 1000, 5000}) {
    SCOPED_TRACE(keys);
    std::string object = "{";
    for (int i = 0; i < keys; ++i)
      object += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ",";
    std::string text = "{\"outer\": " + object + "\"k1\": 0}, \"next\": " + object + "\"z\": 0}}";
    EXPECT_EQ(parse_error(text),
              "f.json:1:" + std::to_string(object.size() + 11) + ": error: duplicate key \"k1\"");
    const std::string last = "k" + std::to_string(keys - 1);
    EXPECT_EQ(parse_error("{\"outer\": " + object + "\"" + last + "\": 0}}"),
              "f.json:1:" + std::to_string(object.size() + 11) + ": error: duplicate key \"" +
                  last + "\"");
    // The second object reuses the depth's buffers: its keys repeat the first's, legally.
    std::string fine = "{\"a\": " + object + "\"z\": 0}, \"b\": " + object + "\"z\": 0}}";
    EXPECT_EQ(parse_json_text(fine, "f.json")["b"].size(), static_cast<std::size_t>(keys) + 1);
  }
}

// Each value's kind, depth first: dump() writes 1 and 1.0 apart, but not an array of one
// element from a value nested in it, and this says it all.
std::string kinds(const nlohmann::ordered_json& json) {
  std::string out = json.type_name();
  if (json.is_structured()) {
    out += '(';
    for (const auto& item : json) out += kinds(item) + ' ';
    out += ')';
  }
  return out;
}

// An object of `keys` members k0.. (the index of duplicate keys starts at 32).
std::string many_keys(int keys, const std::string& value) {
  std::string object = "{";
  for (int i = 0; i < keys; ++i)
    object += (i ? ", \"k" : "\"k") + std::to_string(i) + "\": " + value;
  return object + "}";
}

// Generate reads every rendered config into the tree of the one before (parse_json_text_into).
// Whatever the tree held, the result is what a fresh read gives: the same text and kinds.
TEST(JsonReaderTest, ReadingIntoATreeGivesWhatAFreshReadGives) {
  const std::vector<std::string> texts = {
      R"({"a": 1, "b": {"c": [1, 2, 3], "d": "short"}, "e": null})",
      R"({"a": 1.0, "b": {"c": [1, 2], "d": "a string past the small-string buffer"}, "e": true})",
      R"({"a": 1, "b": {"c": [1, 2, 3, 4, {"x": 1}], "d": "short"}, "e": null, "f": []})",
      R"({"b": {"d": "short", "c": [1, 2, 3]}, "a": 1, "e": null})",  // the same keys, reordered
      R"({"a": 1})",
      R"({"a": {"a": {"a": {}}}, "b": [[], [[]], {}]})",
      R"({})",
      R"([{"a": 1}, {"a": 2, "b": 3}, "s", 5e8, -0.5, false])",
      R"([{"a": 1, "b": 3}, {"a": 2}, 1, "s"])",
      R"("just a string")",
      R"(12)",
      R"(null)",
      many_keys(40, "1"),
      many_keys(40, R"({"n": [1, "two"]})"),
      many_keys(33, "\"v\""),
      R"({"k0": 1, "k1": {"k0": 2, "k1": [3]}, "k2": "\u00e9\n"})",
      // Keys past the small-string buffer, as DeepSpeed's are: held keys kept, then replaced.
      R"({"zero_optimization": {"stage3_gather_16bit_weights_on_model_save": true,
          "stage3_param_persistence_threshold": 100000}, "gradient_accumulation_steps": 4})",
      R"({"zero_optimization": {"stage3_gather_16bit_weights_on_model_save": false,
          "stage3_prefetch_bucket_size": 500000000}, "train_micro_batch_size_per_gpu": 2})",
  };
  // A file name past the buffer too: the reader keeps a reference to it for its messages.
  const std::string first_name = "/srv/teams/platform/configs/rendered/first-config.json";
  const std::string second_name = "/srv/teams/platform/configs/rendered/second-config.json";
  for (const auto& first : texts) {
    for (const auto& second : texts) {
      SCOPED_TRACE(first + "  then  " + second);
      nlohmann::ordered_json tree;
      parse_json_text_into(tree, first, first_name);
      parse_json_text_into(tree, second, second_name);
      const nlohmann::ordered_json fresh = parse_json_text(second, second_name);
      EXPECT_EQ(tree.dump(), fresh.dump());
      EXPECT_EQ(kinds(tree), kinds(fresh));
    }
  }
}

// An error reading into a tree is the one a fresh read reports, whatever the tree held (the
// members it keeps are not mistaken for the text's: a duplicate key is found among the
// text's own keys, by the scan and by the index), and the tree is left valid JSON that can
// be read into again.
TEST(JsonReaderTest, AnErrorReadingIntoATreeIsTheFreshReadsError) {
  const std::vector<std::string> trees = {
      R"({"a": 1, "b": 2, "c": 3})",
      R"({"outer": {"a": 1, "b": 2}})",
      many_keys(40, "0"),
      R"({"outer": )" + many_keys(40, "0") + "}",
      R"([1, 2, 3])",
      R"({"zero_optimization": {"stage3_gather_16bit_weights_on_model_save": true,
          "stage3_param_persistence_threshold": 100000}})",
  };
  std::string duplicate_late = many_keys(39, "0");
  duplicate_late.insert(duplicate_late.size() - 1, R"(, "k1": 0)");
  const std::vector<std::string> bad = {
      R"({"a": 1, "a": 2})",
      R"({"a": 1, "b": 2, "b": 3})",
      R"({"outer": {"a": 1, "a": 2}})",
      duplicate_late,
      R"({"outer": )" + duplicate_late + "}",
      R"({"a": 1,})",
      R"({"a": [1, 2,]})",
      R"({"a": "unterminated)",
      R"({"a": 1} x)",
      R"([1, 2)",
      R"({"zero_optimization": {"stage3_gather_16bit_weights_on_model_save": true,
          "stage3_gather_16bit_weights_on_model_save": false}})",
      R"({"zero_optimization": {"stage3_gather_16bit_weights_on_model_save": true,
          "stage3_param_persistence_threshold": 100000,
          "stage3_param_persistence_threshold": 1}})",
  };
  // Messages name the file: one past the small-string buffer, as a real path is.
  const std::string name = "/srv/teams/platform/configs/rendered/zero3-offload-config.json";
  auto error_of = [&](auto&& read) {
    try {
      read();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const auto& held : trees) {
    for (const auto& text : bad) {
      SCOPED_TRACE(held + "  then  " + text);
      const std::string expected = error_of([&] { parse_json_text(text, name); });
      ASSERT_EQ(expected.rfind(name + ":", 0), 0u) << expected;
      nlohmann::ordered_json tree = parse_json_text(held, "held.json");
      EXPECT_EQ(error_of([&] { parse_json_text_into(tree, text, name); }), expected);
      EXPECT_NO_THROW(to_json_text(tree));
      parse_json_text_into(tree, held, "held.json");
      EXPECT_EQ(tree.dump(), parse_json_text(held, "held.json").dump());
    }
  }
}

// Invalid UTF-8 read from a values file was written into .json output, which zeroforge
// validate and Python's json then refused; fuzzing (json, validate, family) found the other
// half: the first message that showed such a string died in nlohmann's dump (type_error 316).
TEST(JsonReaderTest, RefusesTextThatIsNotUtf8AtItsPlace) {
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {"{\"a\": \"x\xff\"}", "f.json:1:9: error: invalid UTF-8 (byte 0xff); JSON text is UTF-8"},
      {"{\n \"\xc3\": 1}", "f.json:2:3: error: invalid UTF-8 (byte 0xc3); JSON text is UTF-8"},
      // overlong '/', an encoded surrogate, past U+10FFFF, a stray continuation byte
      {"[\"\xc0\xaf\"]", "f.json:1:3: error: invalid UTF-8 (byte 0xc0); JSON text is UTF-8"},
      {"[\"\xed\xa0\x80\"]", "f.json:1:3: error: invalid UTF-8 (byte 0xed); JSON text is UTF-8"},
      {"[\"\xf4\x90\x80\x80\"]",
       "f.json:1:3: error: invalid UTF-8 (byte 0xf4); JSON text is UTF-8"},
      {"[\"\x80\"]", "f.json:1:3: error: invalid UTF-8 (byte 0x80); JSON text is UTF-8"},
      {"[\"\xc3\"]", "f.json:1:3: error: invalid UTF-8 (byte 0xc3); JSON text is UTF-8"},
      {"{\"k\xff\": 1}", "f.json:1:4: error: invalid UTF-8 (byte 0xff); JSON text is UTF-8"},
      {"[\"\\ud800\"]", "f.json:1:3: error: a lone surrogate escape (\\ud800) is not a character"},
      {"[\"\\udc00x\"]", "f.json:1:3: error: a lone surrogate escape (\\udc00) is not a character"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(parse_error(c.text), c.expected);
  }
  // Well-formed text of every length and at each boundary passes and writes back, and a
  // surrogate pair is one character.
  EXPECT_EQ(
      parse_json_text("[\"\x7f\xc2\x80\xe0\xa0\x80\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"]", "f.json")
          .dump(),
      "[\"\x7f\xc2\x80\xe0\xa0\x80\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"]");
  EXPECT_EQ(parse_json_text("[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]", "f.json")[0],
            "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  EXPECT_EQ(parse_json_text("[\"\\ud83d\\ude00\"]", "f.json")[0], "\xf0\x9f\x98\x80");
}

TEST(JsonWriterTest, EscapesStrings) {
  nlohmann::ordered_json json = {{"s", "a\"b\\c\n\x01é"}};
  EXPECT_EQ(to_json_text(json), "{\n  \"s\": \"a\\\"b\\\\c\\n\\u0001é\"\n}\n");
}

TEST(JsonWriterTest, EscapesEveryCharacterThatNeedsItAtEveryPosition) {
  // The writer skips plain text 8 bytes at a time: put each character that needs an escape
  // (and some that do not) at every offset of strings up to 40 bytes long.
  auto reference = [](const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      if (c == '"') {
        out += "\\\"";
      } else if (c == '\\') {
        out += "\\\\";
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == '\b') {
        out += "\\b";
      } else if (c == '\f') {
        out += "\\f";
      } else if (c < 0x20) {
        const char* hex = "0123456789abcdef";
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  };
  const std::string specials[] = {"\"", "\\", "\n", "\x01", "\x1f",    "\x7f",
                                  " ",  "!",  "#",  "[",    "\xc3\xa9"};
  for (std::size_t length = 0; length <= 40; ++length) {
    for (std::size_t at = 0; at <= length; ++at) {
      for (const auto& special : specials) {
        std::string s = std::string(at, 'a') + special + std::string(length - at, 'b');
        nlohmann::ordered_json json = s;
        ASSERT_EQ(to_json_text(json), reference(s) + "\n") << "length " << length << ", at " << at;
      }
    }
  }
}

TEST(JsonWriterTest, RoundTripsThroughTheReader) {
  std::string text = "{\n  \"a\": [\n    1,\n    2.5,\n    3e-7\n  ],\n  \"b\": {}\n}\n";
  EXPECT_EQ(to_json_text(parse_json_text(text, "x")), text);
}

TEST(AtomicFileTest, WritesAndReplacesWithoutLeavingTemporaries) {
  test::TempDir dir;
  auto path = dir.path() / "sub" / "out.json";
  write_file_atomically(path, "one");
  write_file_atomically(path, "two");
  EXPECT_EQ(read_file(path), "two");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path() / "sub"))
    ++files;
  EXPECT_EQ(files, 1u);
}

TEST(AtomicFileTest, FailureNamesTheFileAndLeavesNothing) {
  test::TempDir dir;
  auto blocker = dir.write("file", "x");
  try {
    write_file_atomically(blocker / "child.json", "data");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(
        std::string(e.what()).find("cannot write '" + (blocker / "child.json").string() + "'"),
        std::string::npos);
  }
  EXPECT_EQ(read_file(blocker), "x");
}

// ZEROFORGE_MAX_INPUT_MIB=0 (or anything but a whole number of MiB in range) was silently
// ignored: the default limit applied. It is an error, before any file is opened.
TEST(AtomicFileTest, AnInputLimitThatIsNotOneIsAnError) {
  test::TempDir dir;
  const auto file = dir.write("values-of-the-team-for-the-medium-tier.json", "{}");
  for (const char* value :
       {"0", "", " 1", "1 ", "64M", "-1", "0x40", "1048577", "18446744073709551617"}) {
    SCOPED_TRACE(value);
    ::setenv("ZEROFORGE_MAX_INPUT_MIB", value, 1);
    try {
      read_file(file);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      EXPECT_EQ(e.message(), std::string("ZEROFORGE_MAX_INPUT_MIB='") + value +
                                 "' must be a whole number of MiB from 1 to 1048576 (the largest "
                                 "input file zeroforge reads; 64 when unset)");
    }
  }
  ::setenv("ZEROFORGE_MAX_INPUT_MIB", "1048576", 1);
  EXPECT_EQ(max_input_bytes(), std::uint64_t{1} << 40);
  ::unsetenv("ZEROFORGE_MAX_INPUT_MIB");
}

// `--values /dev/zero` read until the machine ran out of memory; a FIFO no one writes to
// blocked `validate` forever.
TEST(AtomicFileTest, ReadingIsBoundedAndNeverBlocks) {
  test::TempDir dir;
  ::setenv("ZEROFORGE_MAX_INPUT_MIB", "1", 1);
  auto big = dir.write("big.json", std::string((1u << 20) + 1, ' '));
  {
    const std::string path = big.string();
    try {
      read_file(path);
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                "error: cannot read '" + path +
                    "': larger than 1 MiB, the limit on an input file (ZEROFORGE_MAX_INPUT_MIB "
                    "raises it)");
    }
  }
  EXPECT_EQ(read_file(dir.write("ok.json", std::string(1u << 20, 'x'))).size(), 1u << 20);
  ::unsetenv("ZEROFORGE_MAX_INPUT_MIB");
  EXPECT_EQ(max_input_bytes(), std::uint64_t{64} << 20);
}

// What is not a readable file is named for what it is (it was "not found", "malformed JSON" or
// "larger than 64 MiB"), by read_file and by not_a_file_problem, which lookups use.
TEST(AtomicFileTest, NamesWhatAPathIsWhenItIsNotAFile) {
  test::TempDir dir;
  const auto fifo = dir.path() / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto socket_path = dir.path() / "s.sock";
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  struct Case {
    std::string path;
    std::string read;    // read_file's reason
    std::string lookup;  // not_a_file_problem's
  };
  const std::string device = "is a character device (such as /dev/zero or a terminal), not a file";
  const std::vector<Case> cases = {
      {dir.path().string(), "is a directory", "is a directory"},
      {"/dev/zero", device, device},
      {"/dev/null", device, device},
      {fifo.string(),
       "is a FIFO (a named pipe) and nothing was written to it; give a file, or write to the "
       "pipe while zeroforge reads it",
       "is a FIFO (a named pipe), not a file"},
      {socket_path.string(), "is a socket, not a file", "is a socket, not a file"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    try {
      read_file(c.path);
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "error: cannot read '" + c.path + "': " + c.read);
      EXPECT_EQ(e.kind(), ErrorKind::Io);
    }
    EXPECT_EQ(not_a_file_problem(c.path), c.lookup);
  }
  ::close(sock);
  EXPECT_EQ(not_a_file_problem(dir.write("f.json", "{}")), "");
  EXPECT_EQ(not_a_file_problem(dir.path() / "missing.json"), "");

  // A pipe someone wrote to is read, as `--values <(...)` is (bash hands over /dev/fd/N).
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ASSERT_EQ(::write(ends[1], "{\"a\": 1}", 8), 8);
  ::close(ends[1]);
  EXPECT_EQ(read_file("/dev/fd/" + std::to_string(ends[0])), "{\"a\": 1}");
  ::close(ends[0]);
}

TEST(AtomicFileTest, ReadingAMissingFileNamesIt) {
  try {
    read_file("/nonexistent/zf.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "error: cannot read '/nonexistent/zf.json': No such file or directory");
  }
}

}  // namespace
}  // namespace zf
