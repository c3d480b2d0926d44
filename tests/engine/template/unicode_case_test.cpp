// SPDX-License-Identifier: MIT
// Tests of full Unicode case mapping (engine/src/template/unicode_case.cpp, generated from
// Python 3.11's Unicode 14.0) as the filters, tests and str methods use it: expectations from
// Python Jinja2 3.1.6. The corpus case builtins-unicode-every-cased-code-point checks every cased
// code point against Jinja2 as well.
#include "template/unicode_case.hpp"

#include <gtest/gtest.h>

#include <string>

#include "engine/template/builtin_harness.hpp"

namespace zf {
namespace {

TEST(UnicodeCaseTest, MapsCaseLikePython) {
  testing::check_templates({
      {"upper special casing", R"~({{ 'ﬁne straße ŉ ǰ ΐ և ﬀ'|upper }} {{ 'ί ή ώ ǆ'|upper }})~",
       R"~({})~", R"~(FINE STRASSE ʼN J̌ Ϊ́ ԵՒ FF Ί Ή Ώ Ǆ)~"},
      {"lower final sigma", R"~({{ 'ΟΔΟΣ ΣΑΣ Σ ΑΣ. ΑΣ\'Β Α\'Σ ΑΣ1'|lower }} {{ 'İI'|lower }})~",
       R"~({})~", R"~(οδος σας σ ας. ασ'β α'ς ας1 i̇i)~"},
      {"title filter splits words", R"~({{ 'ﬁre-ΟΔΟΣ ΣΑΣ (ßig) [ǆx] <ǳ> hello wORLD'|title }})~",
       R"~({})~", R"~(FIre-Οδος Σας (SSig) [Ǆx] <Ǳ> Hello World)~"},
      {"str title after cased letters", R"~({{ 'ﬁre ΟΔΟΣ they\'re ǆx ß1ß'.title() }})~", R"~({})~",
       R"~(Fire Οδος They'Re ǅx Ss1Ss)~"},
      {"capitalize uses title case",
       R"~({{ 'ﬁne ΣΑΣ'|capitalize }} {{ 'ßa'|capitalize }} {{ 'ǆemal'.capitalize() }} {{ 'ΑΣ'.capitalize() }})~",
       R"~({})~", R"~(Fine σας Ssa ǅemal Ας)~"},
      {"georgian and cherokee",
       R"~({{ 'ა ꭰ Ꭰ ᲐᲑ'|upper }} {{ 'ᲐᲑ Ꭰ'|lower }} {{ 'აბ'|title }})~",
       R"~({})~", R"~(Ა Ꭰ Ꭰ ᲐᲑ აბ ꭰ Აბ)~"},
      {"case-insensitive sort folds with lower",
       R"~({{ ['éb', 'Éa', 'ΣΑ', 'σb', 'b', 'A']|sort }} {{ ['Ω', 'ω', 'a']|unique|list }})~",
       R"~({})~", R"~(['A', 'b', 'Éa', 'éb', 'σb', 'ΣΑ'] ['Ω', 'a'])~"},
      {"lower and upper tests",
       R"~({{ 'ǅ' is upper }} {{ 'ǅ' is lower }} {{ 'ʰ' is lower }} {{ 'ⓐ' is lower }} {{ 'Ⅻ' is upper }})~",
       R"~({})~", R"~(False False True True True)~"},
      {"wordcount counts unicode words", R"~({{ 'naïve café ١٢٣ 한국어 ½ x_y a-b'|wordcount }})~",
       R"~({})~", R"~(8)~"},
  });
}

TEST(UnicodeCaseTest, AnswersCasePropertiesLikePython) {
  // Python: 'ǅ' is titlecase (Lt) and cased; 'ʰ' is Lowercase and Case_Ignorable; the apostrophe is
  // Case_Ignorable only; 'ⓐ' is Lowercase (Other_Lowercase); '1' has no case property.
  EXPECT_TRUE(detail::is_titlecase(U'\u01C5'));
  EXPECT_TRUE(detail::is_cased(U'\u01C5'));
  EXPECT_TRUE(detail::is_lowercase(U'\u02B0'));
  EXPECT_TRUE(detail::is_case_ignorable(U'\u02B0'));
  EXPECT_TRUE(detail::is_case_ignorable(U'\''));
  EXPECT_FALSE(detail::is_cased(U'\''));
  EXPECT_TRUE(detail::is_lowercase(U'\u24D0'));
  EXPECT_FALSE(detail::is_cased(U'1'));
  EXPECT_FALSE(detail::is_case_ignorable(U'1'));
  std::string out;
  detail::append_upper(out, U'\uFB01');  // ﬁ -> FI
  detail::append_title(out, U'\u00DF');  // ß -> Ss
  detail::append_fold(out, U'\u1E9E');   // ẞ -> ss
  detail::append_lower(out, U'\u0130');  // İ -> i̇
  EXPECT_EQ(out, "FISsssi\u0307");
  out.clear();
  detail::append_upper(out, U'\U0010FFFF');  // unassigned: unchanged
  EXPECT_EQ(out, "\U0010FFFF");
}

}  // namespace
}  // namespace zf
