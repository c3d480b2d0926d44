// SPDX-License-Identifier: MIT
// Tests of the str methods of engine/src/template/str_methods.cpp, called as a template calls
// them: expectations from Python 3.11's str (the Python Jinja2 3.1.6 runs on), except the text of
// errors, which is zeroforge's and matches Python's where Python has one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "template/methods.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/value.hpp"

namespace zf {
namespace {

struct MethodCase {
  const char* name;
  const char* subject;  // JSON string
  const char* method;
  const char* args;      // JSON array
  const char* kwargs;    // JSON object
  const char* expected;  // Python's repr of the result, or "!message"
};

std::string call(const MethodCase& c) {
  Value self = Value::from_json(nlohmann::ordered_json::parse(c.subject));
  const nlohmann::ordered_json args = nlohmann::ordered_json::parse(c.args);
  const nlohmann::ordered_json kwargs = nlohmann::ordered_json::parse(c.kwargs);
  std::vector<Value> positional;
  for (std::size_t i = 0; i < args.size(); ++i) positional.push_back(Value::from_json(args[i]));
  std::vector<std::pair<std::string, Value>> keywords;
  for (auto it = kwargs.begin(); it != kwargs.end(); ++it)
    keywords.emplace_back(it.key(), Value::from_json(it.value()));
  try {
    EXPECT_TRUE(detail::has_method(self, c.method));
    return detail::call_method(self, c.method, positional, keywords).repr();
  } catch (const Error& e) {
    return "!" + e.message();
  }
}

TEST(StrMethodsTest, BehaveLikePythonStr) {
  const std::vector<MethodCase> cases = {
      {"center odd padding", R"~("ab")~", "center", R"~([7, "*"])~", R"~({})~", R"~('***ab**')~"},
      {"center even", R"~("ab")~", "center", R"~([6])~", R"~({})~", R"~('  ab  ')~"},
      {"center odd text", R"~("abc")~", "center", R"~([6, "-"])~", R"~({})~", R"~('-abc--')~"},
      {"center narrower", R"~("abc")~", "center", R"~([2])~", R"~({})~", R"~('abc')~"},
      {"ljust", R"~("ab")~", "ljust", R"~([5, "."])~", R"~({})~", R"~('ab...')~"},
      {"rjust", R"~("ab")~", "rjust", R"~([5])~", R"~({})~", R"~('   ab')~"},
      {"rjust unicode fill", R"~("\u00e9")~", "rjust", R"~([3, "\u00fc"])~", R"~({})~",
       R"~('üüé')~"},
      {"fill of two chars", R"~("a")~", "center", R"~([5, "xy"])~", R"~({})~",
       R"~(!The fill character must be exactly one character long)~"},
      {"zfill sign", R"~("-42")~", "zfill", R"~([6])~", R"~({})~", R"~('-00042')~"},
      {"zfill plus", R"~("+x")~", "zfill", R"~([4])~", R"~({})~", R"~('+00x')~"},
      {"zfill narrower", R"~("abc")~", "zfill", R"~([2])~", R"~({})~", R"~('abc')~"},
      {"rsplit maxsplit", R"~("a,b,,c")~", "rsplit", R"~([",", 1])~", R"~({})~",
       R"~(['a,b,', 'c'])~"},
      {"rsplit whitespace", R"~("  a  b c ")~", "rsplit", R"~([null, 1])~", R"~({})~",
       R"~(['  a  b', 'c'])~"},
      {"rsplit all", R"~("a b  c")~", "rsplit", R"~([])~", R"~({})~", R"~(['a', 'b', 'c'])~"},
      {"rsplit empty separator", R"~("a")~", "rsplit", R"~([""])~", R"~({})~",
       R"~(!empty separator)~"},
      {"partition", R"~("k=v=w")~", "partition", R"~(["="])~", R"~({})~", R"~(('k', '=', 'v=w'))~"},
      {"rpartition", R"~("k=v=w")~", "rpartition", R"~(["="])~", R"~({})~",
       R"~(('k=v', '=', 'w'))~"},
      {"partition missing", R"~("kvw")~", "partition", R"~(["="])~", R"~({})~",
       R"~(('kvw', '', ''))~"},
      {"rpartition missing", R"~("kvw")~", "rpartition", R"~(["="])~", R"~({})~",
       R"~(('', '', 'kvw'))~"},
      {"partition empty separator", R"~("a")~", "partition", R"~([""])~", R"~({})~",
       R"~(!empty separator)~"},
      {"splitlines", R"~("a\nb\r\nc\rd\u000be\u2028f")~", "splitlines", R"~([])~", R"~({})~",
       R"~(['a', 'b', 'c', 'd', 'e', 'f'])~"},
      {"splitlines keepends", R"~("a\nb\r\n\u0085c")~", "splitlines", R"~([true])~", R"~({})~",
       R"~(['a\n', 'b\r\n', '\x85', 'c'])~"},
      {"rfind", R"~("abcabc")~", "rfind", R"~(["b"])~", R"~({})~", R"~(4)~"},
      {"rfind window", R"~("abcabc")~", "rfind", R"~(["b", 0, 3])~", R"~({})~", R"~(1)~"},
      {"rfind missing", R"~("abc")~", "rfind", R"~(["z"])~", R"~({})~", R"~(-1)~"},
      {"rfind code points", R"~("\u00e9a\u00e9")~", "rfind", R"~(["\u00e9"])~", R"~({})~",
       R"~(2)~"},
      {"index", R"~("abcabc")~", "index", R"~(["c"])~", R"~({})~", R"~(2)~"},
      {"index negative start", R"~("abcabc")~", "index", R"~(["a", -3])~", R"~({})~", R"~(3)~"},
      {"rindex", R"~("abcabc")~", "rindex", R"~(["a"])~", R"~({})~", R"~(3)~"},
      {"index missing", R"~("abc")~", "index", R"~(["z"])~", R"~({})~",
       R"~(!substring not found)~"},
      {"removeprefix", R"~("prefix-body")~", "removeprefix", R"~(["prefix-"])~", R"~({})~",
       R"~('body')~"},
      {"removeprefix absent", R"~("ab")~", "removeprefix", R"~(["b"])~", R"~({})~", R"~('ab')~"},
      {"removesuffix", R"~("body.txt")~", "removesuffix", R"~([".txt"])~", R"~({})~",
       R"~('body')~"},
      {"removesuffix empty", R"~("x")~", "removesuffix", R"~([""])~", R"~({})~", R"~('x')~"},
      {"swapcase", R"~("Hello \u00df \u01c5 \u03a3\u0391\u03a3")~", "swapcase", R"~([])~",
       R"~({})~", R"~('hELLO SS ǅ σας')~"},
      {"casefold", R"~("Stra\u00dfe \u03a3\u03c2 \ufb01 \u1e9e \u13a0")~", "casefold", R"~([])~",
       R"~({})~", R"~('strasse σσ fi ss Ꭰ')~"},
      {"expandtabs", R"~("a\tbc\td\n\te")~", "expandtabs", R"~([])~", R"~({})~",
       R"~('a       bc      d\n        e')~"},
      {"expandtabs size", R"~("a\tb")~", "expandtabs", R"~([4])~", R"~({})~", R"~('a   b')~"},
      {"expandtabs zero", R"~("a\tb")~", "expandtabs", R"~([0])~", R"~({})~", R"~('ab')~"},
      {"isalnum", R"~("ab1\u0661\u00bd")~", "isalnum", R"~([])~", R"~({})~", R"~(True)~"},
      {"isalpha", R"~("ab\u00e9\u01c5")~", "isalpha", R"~([])~", R"~({})~", R"~(True)~"},
      {"isalpha digit", R"~("ab1")~", "isalpha", R"~([])~", R"~({})~", R"~(False)~"},
      {"isascii empty", R"~("")~", "isascii", R"~([])~", R"~({})~", R"~(True)~"},
      {"isascii", R"~("a\u00e9")~", "isascii", R"~([])~", R"~({})~", R"~(False)~"},
      {"isdecimal arabic-indic", R"~("\u0661\u0662")~", "isdecimal", R"~([])~", R"~({})~",
       R"~(True)~"},
      {"isdecimal superscript", R"~("\u00b2")~", "isdecimal", R"~([])~", R"~({})~", R"~(False)~"},
      {"isdigit superscript", R"~("\u00b2")~", "isdigit", R"~([])~", R"~({})~", R"~(True)~"},
      {"isnumeric fraction", R"~("\u00bd\u216b")~", "isnumeric", R"~([])~", R"~({})~", R"~(True)~"},
      {"isspace", R"~(" \t\u00a0\u3000")~", "isspace", R"~([])~", R"~({})~", R"~(True)~"},
      {"isspace empty", R"~("")~", "isspace", R"~([])~", R"~({})~", R"~(False)~"},
      {"isprintable", R"~("a b")~", "isprintable", R"~([])~", R"~({})~", R"~(True)~"},
      {"isprintable newline", R"~("a\n")~", "isprintable", R"~([])~", R"~({})~", R"~(False)~"},
      {"istitle", R"~("Hello World")~", "istitle", R"~([])~", R"~({})~", R"~(True)~"},
      {"istitle digraph", R"~("\u01c5a Bc")~", "istitle", R"~([])~", R"~({})~", R"~(True)~"},
      {"istitle not", R"~("Hello world")~", "istitle", R"~([])~", R"~({})~", R"~(False)~"},
      {"isidentifier", R"~("_x1")~", "isidentifier", R"~([])~", R"~({})~", R"~(True)~"},
      {"isidentifier unicode", R"~("\u00e9t\u00e9\u00b7")~", "isidentifier", R"~([])~", R"~({})~",
       R"~(True)~"},
      {"isidentifier digit first", R"~("1x")~", "isidentifier", R"~([])~", R"~({})~", R"~(False)~"},
      {"isupper", R"~("AB\u00c9 1")~", "isupper", R"~([])~", R"~({})~", R"~(True)~"},
      {"islower", R"~("ab\u00df\u02b0")~", "islower", R"~([])~", R"~({})~", R"~(True)~"},
      {"format positional", R"~("{} {}!")~", "format", R"~([1, "a"])~", R"~({})~", R"~('1 a!')~"},
      {"format indexed", R"~("{1}{0}{1}")~", "format", R"~(["a", "b"])~", R"~({})~", R"~('bab')~"},
      {"format keywords and repr", R"~("{x}-{y!r}-{y!s}")~", "format", R"~([])~",
       R"~({"x": 1, "y": "q"})~", R"~("1-'q'-q")~"},
      {"format alignment", R"~("{:>6}|{:<4}|{:^7}|{:*^7}|{:=+5}")~", "format",
       R"~(["ab", "c", "mid", "x", 3])~", R"~({})~", R"~('    ab|c   |  mid  |***x***|+   3')~"},
      {"format item and index", R"~("{{}} {0[a]} {1[1]}")~", "format", R"~([{"a": 5}, [7, 8]])~",
       R"~({})~", R"~('{} 5 8')~"},
      {"format ints",
       R"~("{:d} {:5d} {:05d} {:+d} {: d} {:,} {:_} {:x} {:#X} {:#b} {:o} {:c} {:_x}")~", "format",
       R"~([42, 42, -42, 42, 42, 1234567, 1234567, 255, 255, 5, 8, 97, 65535])~", R"~({})~",
       R"~('42    42 -0042 +42  42 1,234,567 1_234_567 ff 0XFF 0b101 10 a ffff')~"},
      {"format floats",
       R"~("{} {:.2f} {:8.3f} {:e} {:.3g} {:g} {:%} {:.1%} {:,.2f} {:010.2f} {:+.1f} {:.0f} {:E}")~",
       "format",
       R"~([2.5, 3.14159, 2.0, 12345.678, 0.000123456, 1e20, 0.25, 0.123, 1234567.891, -3.5, 0.05, 2.5, 1.5])~",
       R"~({})~",
       R"~('2.5 3.14    2.000 1.234568e+04 0.000123 1e+20 25.000000% 12.3% 1,234,567.89 -000003.50 +0.1 2 1.500000E+00')~"},
      {"format int as float", R"~("{:.2f} {:e} {:%}")~", "format", R"~([3, 10, 1])~", R"~({})~",
       R"~('3.00 1.000000e+01 100.000000%')~"},
      {"format strings", R"~("{:.3}|{:>5.2}|{!s}|{:5}|{:<5}|{}|{!r}")~", "format",
       R"~(["abcdef", "xyz", 1.0, 7, true, null, "it's"])~", R"~({})~",
       R"~('abc|   xy|1.0|    7|1    |None|"it\'s"')~"},
      {"format float general", R"~("{:5} {} {} {}")~", "format", R"~([2.5, 1e16, 1e-5, 0.1])~",
       R"~({})~", R"~('  2.5 1e+16 1e-05 0.1')~"},
      {"format missing index", R"~("{} {}")~", "format", R"~([1])~", R"~({})~",
       R"~(!Replacement index 1 out of range for positional args tuple)~"},
      {"format bad code", R"~("{:d}")~", "format", R"~(["x"])~", R"~({})~",
       R"~(!Unknown format code 'd' for object of type 'str')~"},
      {"format single brace", R"~("a } b")~", "format", R"~([])~", R"~({})~",
       R"~(!Single '}' encountered in format string)~"},
      {"format switch numbering", R"~("{} {0}")~", "format", R"~([1])~", R"~({})~",
       R"~(!cannot switch from automatic field numbering to manual field specification)~"},
      {"format missing keyword", R"~("{x}")~", "format", R"~([])~", R"~({})~",
       R"~(!KeyError: 'x')~"},
      {"format zero flag", R"~("{:05}|{:05}|{:<08}|{:0=+8d}|{:08.3f}")~", "format",
       R"~(["ab", 2.5, 7, 42, -3.14159])~", R"~({})~",
       R"~('ab000|002.5|70000000|+0000042|-003.142')~"},
      {"format general floats", R"~("{:g}|{:g}|{:#g}|{:.0e}|{:.3}|{:.10}|{:+}")~", "format",
       R"~([100000.0, 1000000.0, 2.0, 15.0, 2.0, 0.3333333333333333, 0.0])~", R"~({})~",
       R"~('100000|1e+06|2.00000|2e+01|2.0|0.3333333333|+0.0')~"},
      {"format bool with a spec is an int", R"~("{:x}|{:>3}|{}")~", "format",
       R"~([true, false, true])~", R"~({})~", R"~('1|  0|True')~"},
      {"format n type", R"~("{:n}|{:n}|{:n}")~", "format", R"~([2.5, 1e16, 1234567])~", R"~({})~",
       R"~('2.5|1e+16|1234567')~"},
      // Replacement fields nested in a spec, formatted after the field's own value is taken.
      {"format nested width", R"~("{:{w}}")~", "format", R"~([3])~", R"~({"w": 5})~",
       R"~('    3')~"},
      {"format nested automatic numbering", R"~("{:{}}|{}")~", "format", R"~(["a", 4, "b"])~",
       R"~({})~", R"~('a   |b')~"},
      {"format nested fill and precision", R"~("{:{f}.{p}}")~", "format", R"~([2.5])~",
       R"~({"f": ">9", "p": 2})~", R"~('      2.5')~"},
      {"format nested manual", R"~("{0:{1}}")~", "format", R"~([7, "^5"])~", R"~({})~",
       R"~('  7  ')~"},
      {"format nested twice", R"~("{:{w}{w}}")~", "format", R"~([1])~", R"~({"w": 2})~",
       R"~('                     1')~"},
      {"format nested too deep", R"~("{:{:{}}}")~", "format", R"~([1, 2, 3])~", R"~({})~",
       R"~(!Max string recursion exceeded)~"},
      {"format unmatched brace in spec", R"~("{:{w}")~", "format", R"~([1])~", R"~({"w": 2})~",
       R"~(!unmatched '{' in format spec)~"},
      {"format brace in field name", R"~("{a{b}")~", "format", R"~([])~", R"~({"a": 1})~",
       R"~(!unexpected '{' in field name)~"},
      {"format brace inside a key", R"~("{0[{]}")~", "format", R"~([{"{": 1}])~", R"~({})~",
       R"~('1')~"},
      {"format unknown conversion", R"~("{!{}}")~", "format", R"~([1])~", R"~({})~",
       R"~(!Unknown conversion specifier {)~"},
      {"format ascii conversion", R"~("{!a}")~", "format", R"~(["\u00df\ufb01 \ud83d\ude00"])~",
       R"~({})~", R"~("'\\xdf\\ufb01 \\U0001f600'")~"},
      {"join a string", R"~("x")~", "join", R"~(["ab"])~", R"~({})~", R"~('axb')~"},
      {"join a dict's keys", R"~("-")~", "join", R"~([{"k": 1, "j": 2}])~", R"~({})~",
       R"~('k-j')~"},
      {"join a non-string item", R"~("x")~", "join", R"~([["a", 1]])~", R"~({})~",
       R"~(!sequence item 1: expected str instance, int found)~"},
      {"join a number", R"~("x")~", "join", R"~([3])~", R"~({})~",
       R"~(!can only join an iterable)~"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(call(c), c.expected);
  }
}

TEST(StrMethodsTest, OtherKeywordArgumentsAreRefused) {
  MethodCase c{"keywords", R"("a b")",           "rsplit",
               "[]",       R"({"maxsplit": 1})", "!str.rsplit() takes no keyword arguments"};
  EXPECT_EQ(call(c), c.expected);
}

}  // namespace
}  // namespace zf
