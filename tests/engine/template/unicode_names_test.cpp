// SPDX-License-Identifier: MIT
// Tests of `\N{NAME}` escapes (engine/src/template/unicode_names.cpp): expectations from Python
// Jinja2 3.1.6, which decodes string literals with Python's unicode-escape codec (Unicode 14.0),
// except the text of errors, which is zeroforge's and names the escape.
#include "template/unicode_names.hpp"

#include <gtest/gtest.h>

#include "engine/template/builtin_harness.hpp"

namespace zf {
namespace {

TEST(UnicodeNamesTest, ResolvesNamesLikePython) {
  testing::check_templates({
      {"names and aliases",
       R"~({{ '\N{LATIN SMALL LETTER A}\N{greek small letter final sigma}\N{SNOWMAN}\N{nbsp}\N{BYTE ORDER MARK}\N{latin capital letter gha}'|list }})~",
       R"~({})~", R"~(['a', 'ς', '☃', '\xa0', '\ufeff', 'Ƣ'])~"},
      {"computed names",
       R"~({{ '\N{HANGUL SYLLABLE GAG}\N{CJK UNIFIED IDEOGRAPH-4E00}\N{CJK UNIFIED IDEOGRAPH-20000}\N{nushu character-1b170}\N{cjk compatibility ideograph-f900}\N{KHITAN SMALL SCRIPT CHARACTER-18B00}' }})~",
       R"~({})~", R"~(각一𠀀𛅰豈𘬀)~"},
      {"unknown name", R"~({{ '\N{NO SUCH CHARACTER}' }})~", R"~({})~",
       R"~(!unknown Unicode character name in \N{NO SUCH CHARACTER} in string)~"},
      {"named sequence is no character", R"~({{ '\N{KEYCAP NUMBER SIGN}' }})~", R"~({})~",
       R"~(!unknown Unicode character name in \N{KEYCAP NUMBER SIGN} in string)~"},
      {"computed name in lower case", R"~({{ '\N{cjk unified ideograph-4e00}' }})~", R"~({})~",
       R"~(!unknown Unicode character name in \N{cjk unified ideograph-4e00} in string)~"},
      {"malformed escape", R"~({{ '\N' }})~", R"~({})~",
       R"~(!malformed \N character escape in string (expected \N{NAME}))~"},
      {"empty name", R"~({{ '\N{}' }})~", R"~({})~",
       R"~(!malformed \N character escape in string (expected \N{NAME}))~"},
  });
}

TEST(UnicodeNamesTest, LooksUpEveryKindOfName) {
  // Code points from Python's unicodedata.lookup.
  EXPECT_EQ(detail::lookup_character_name("LATIN SMALL LETTER SHARP S"), U'\u00DF');
  EXPECT_EQ(detail::lookup_character_name("zero width no-break space"), U'\uFEFF');
  EXPECT_EQ(detail::lookup_character_name("LF"), U'\n');
  EXPECT_EQ(detail::lookup_character_name("HANGUL SYLLABLE A"), U'\uC544');
  EXPECT_EQ(detail::lookup_character_name("HANGUL SYLLABLE HIH"), U'\uD7A3');
  EXPECT_EQ(detail::lookup_character_name("CJK UNIFIED IDEOGRAPH-04E00"), U'\u4E00');
  EXPECT_EQ(detail::lookup_character_name("CJK UNIFIED IDEOGRAPH-3134A"), U'\U0003134A');
  EXPECT_EQ(detail::lookup_character_name("CJK UNIFIED IDEOGRAPH-3134B"), std::nullopt);
  EXPECT_EQ(detail::lookup_character_name("CJK COMPATIBILITY IDEOGRAPH-0F900"), std::nullopt);
  EXPECT_EQ(detail::lookup_character_name("hangul syllable ga"), std::nullopt);
  EXPECT_EQ(detail::lookup_character_name("LATIN SMALL LETTER A "), std::nullopt);
  EXPECT_EQ(detail::lookup_character_name("LATIN  SMALL LETTER A"), std::nullopt);
  EXPECT_EQ(detail::lookup_character_name("TANGUT IDEOGRAPH-17000"), std::nullopt);
  EXPECT_EQ(detail::lookup_character_name(""), std::nullopt);
}

}  // namespace
}  // namespace zf
