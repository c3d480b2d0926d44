// SPDX-License-Identifier: MIT
// JSON reading (strict, ordered, located errors) and writing (stable text), and atomic files.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/cli_runner.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

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
    try {
      parse_json_text(c.text, "f.json");
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), c.expected);
    }
  }
}

// Found by fuzzing (json_fuzz, validate_fuzz, family_fuzz): a string of bytes that are not UTF-8
// was read, and the first message or config that showed it died in nlohmann's dump
// (type_error 316) instead of reporting a located error.
TEST(JsonReaderTest, RejectsStringsThatAreNotUtf8) {
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {"{\"offload\": \"cp\xa7\xa7\"}", "f.json:1:16: error: invalid UTF-8 in string"},
      {"[\"\xc3\"]", "f.json:1:3: error: invalid UTF-8 in string"},              // cut short
      {"[\"\xc0\xaf\"]", "f.json:1:3: error: invalid UTF-8 in string"},          // overlong '/'
      {"[\"\xed\xa0\x80\"]", "f.json:1:3: error: invalid UTF-8 in string"},      // a surrogate
      {"[\"\xf4\x90\x80\x80\"]", "f.json:1:3: error: invalid UTF-8 in string"},  // > U+10FFFF
      {"{\"k\xff\": 1}", "f.json:1:4: error: invalid UTF-8 in string"},          // in a key
      {"[\"ab\\ud800\"]",
       "f.json:1:5: error: lone surrogate \\ud800 (a \\uD800-\\uDBFF escape must be followed by a "
       "\\uDC00-\\uDFFF one)"},
      {"[\"\\udc00x\"]",
       "f.json:1:3: error: lone surrogate \\udc00 (a \\uD800-\\uDBFF escape must be followed by a "
       "\\uDC00-\\uDFFF one)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      parse_json_text(c.text, "f.json");
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), c.expected);
    }
  }
  // Well-formed UTF-8 of every length and surrogate pairs still read, and write back.
  auto json = parse_json_text(
      "[\"\x7f\xc2\x80\xe0\xa0\x80\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\\ud83d\\ude00\"]", "f.json");
  EXPECT_EQ(json.dump(),
            "[\"\x7f\xc2\x80\xe0\xa0\x80\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\xf0\x9f\x98\x80\"]");
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
