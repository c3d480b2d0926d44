// SPDX-License-Identifier: MIT
// terminal_text and caret_line (engine/cli/printing/terminal_text.cpp): what the CLI shows of input
// bytes, as clang shows them, and the caret under an error's column when the line has some.
#include "terminal_text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zf::cli {
namespace {

TEST(TerminalTextTest, ShowsWhatIsNotPrintableUtf8Escaped) {
  struct Case {
    const char* name;
    std::string text;
    std::string shown;
  };
  const std::vector<Case> cases = {
      {"plain", "configs/medium/zero3.json", "configs/medium/zero3.json"},
      {"UTF-8 stays", "Ψ ≤ 16 · GPU 🚀", "Ψ ≤ 16 · GPU 🚀"},
      {"a stray byte",
       "a\xff"
       "b",
       "a<FF>b"},
      {"a cut sequence", "\xe2\x82", "<E2><82>"},
      {"an overlong form", "\xc0\xaf", "<C0><AF>"},
      {"a surrogate", "\xed\xa0\x80", "<ED><A0><80>"},
      {"past U+10FFFF", "\xf4\x90\x80\x80", "<F4><90><80><80>"},
      {"terminal escape codes", "\x1b[31mred\x1b]0;title\x07",
       "<U+001B>[31mred<U+001B>]0;title<U+0007>"},
      {"newline, return, tab", "a\nb\rc\td", "a<U+000A>b<U+000D>c<U+0009>d"},
      {"NUL and DEL", std::string("a\0b\x7f", 4), "a<U+0000>b<U+007F>"},
      {"C1 controls",
       "\xc2\x9b"
       "31m\xc2\x85",
       "<U+009B>31m<U+0085>"},
      {"line separators",
       "a\xe2\x80\xa8"
       "b\xe2\x80\xa9",
       "a<U+2028>b<U+2029>"},
      {"bidirectional overrides",
       "\xe2\x80\xae"
       "txt.exe\xe2\x81\xa6",
       "<U+202E>txt.exe<U+2066>"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(terminal_text(c.text), c.shown);
  }
  EXPECT_EQ(terminal_text("a\tb", true), "a\tb") << "a source line keeps its tabs";
}

TEST(TerminalTextTest, TheCaretLinesUpUnderTheShownLine) {
  struct Case {
    std::string line;
    std::size_t column;
    std::string caret;
  };
  const std::vector<Case> cases = {
      {"{{ stage }}", 4, "   ^"},
      {"\t{{ x }}", 5, "\t   ^"},
      {"Ψ {{ x }}", 6, "     ^"},                       // Ψ is one column
      {"\x1b {{ x }}", 6, std::string(12, ' ') + "^"},  // <U+001B> is eight wide
      {"\xff {{ x }}", 6, std::string(8, ' ') + "^"},   // <FF> is four
      {"ab", 9, "  ^"},                                 // past the end: after the line
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    EXPECT_EQ(caret_line(c.line, c.column), c.caret);
  }
}

}  // namespace
}  // namespace zf::cli
