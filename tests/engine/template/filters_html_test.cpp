// SPDX-License-Identifier: MIT
// Tests of the HTML and URL filters (engine/src/template/filters_html.cpp) and of Markup as
// templates see it: expectations from Python Jinja2 3.1.6 (StrictUndefined), except the text of
// errors, which is zeroforge's and says what Python's says.
#include <gtest/gtest.h>

#include "engine/template/builtin_harness.hpp"
#include "zeroforge/environment.hpp"

namespace zf {
namespace {

using testing::BuiltinHarness;

TEST(FilterHtmlTest, EscapesQuotesAndLinksLikeJinja) {
  BuiltinHarness().check_table(
      FunctionKind::Filter,
      {
          {"escape string", "escape", R"~("<a href=\"x\">Tom & 'J'</a>")~", R"~([])~", R"~({})~",
           R"~(Markup('&lt;a href=&#34;x&#34;&gt;Tom &amp; &#39;J&#39;&lt;/a&gt;'))~"},
          {"escape number", "escape", R"~(3.5)~", R"~([])~", R"~({})~", R"~(Markup('3.5'))~"},
          {"escape none", "escape", R"~(null)~", R"~([])~", R"~({})~", R"~(Markup('None'))~"},
          {"escape list", "escape", R"~(["<", 1])~", R"~([])~", R"~({})~",
           R"~(Markup('[&#39;&lt;&#39;, 1]'))~"},
          {"e is escape", "e", R"~("a&b")~", R"~([])~", R"~({})~", R"~(Markup('a&amp;b'))~"},
          {"escape undefined", "escape", nullptr, R"~([])~", R"~({})~",
           R"~(!'nope' is undefined)~"},
          {"forceescape string", "forceescape", R"~("<b>")~", R"~([])~", R"~({})~",
           R"~(Markup('&lt;b&gt;'))~"},
          {"forceescape number", "forceescape", R"~(1)~", R"~([])~", R"~({})~", R"~(Markup('1'))~"},
          {"safe marks without escaping", "safe", R"~("<b>")~", R"~([])~", R"~({})~",
           R"~(Markup('<b>'))~"},
          {"safe of number", "safe", R"~(7)~", R"~([])~", R"~({})~", R"~(Markup('7'))~"},
          {"striptags tags and comments", "striptags", R"~("<p>a <b>b</b></p><!-- c <i> -->d")~",
           R"~([])~", R"~({})~", R"~('a bd')~"},
          {"striptags collapses whitespace", "striptags", R"~("  a\t\n\u00a0b  ")~", R"~([])~",
           R"~({})~", R"~('a b')~"},
          {"striptags unescapes named", "striptags",
           R"~("&lt;x&gt; &amp;amp; &raquo; &notin; &notit; &copy2 &bogus;")~", R"~([])~",
           R"~({})~", R"~('<x> &amp; » ∉ ¬it; ©2 &bogus;')~"},
          {"striptags unescapes numeric", "striptags",
           R"~("&#65;&#x42;&#0;&#128;&#x110000;&#xD800;&#1;&#xFFFF;&#9999999999;")~", R"~([])~",
           R"~({})~", R"~('AB�€���')~"},
          {"striptags unclosed tag stays", "striptags", R"~("a <b c")~", R"~([])~", R"~({})~",
           R"~('a <b c')~"},
          {"striptags unclosed comment", "striptags", R"~("x <!-- y")~", R"~([])~", R"~({})~",
           R"~('x <!-- y')~"},
          {"striptags comment joined across cut", "striptags", R"~("<!<!--a-->--b-->c")~",
           R"~([])~", R"~({})~", R"~('c')~"},
          {"striptags number", "striptags", R"~(12)~", R"~([])~", R"~({})~", R"~('12')~"},
          {"urlencode string keeps slash", "urlencode", R"~("a b/c?d=\u00e9&x~_.-")~", R"~([])~",
           R"~({})~", R"~('a%20b/c%3Fd%3D%C3%A9%26x~_.-')~"},
          {"urlencode dict for query", "urlencode", R"~({"a b": "c/d", "n": 1, "z": null})~",
           R"~([])~", R"~({})~", R"~('a+b=c%2Fd&n=1&z=None')~"},
          {"urlencode pairs", "urlencode", R"~([["k", "v w"], ["x", "&"]])~", R"~([])~", R"~({})~",
           R"~('k=v+w&x=%26')~"},
          {"urlencode number", "urlencode", R"~(42)~", R"~([])~", R"~({})~", R"~('42')~"},
          {"urlencode bad pair", "urlencode", R"~([["k"]])~", R"~([])~", R"~({})~",
           R"~(!not enough values to unpack (expected 2, got 1))~"},
          {"urlencode long pair", "urlencode", R"~([[1, 2, 3]])~", R"~([])~", R"~({})~",
           R"~(!too many values to unpack (expected 2))~"},
          {"xmlattr escapes values", "xmlattr",
           R"~({"class": "a b", "id": "<1>", "skip": null, "n": 3})~", R"~([])~", R"~({})~",
           R"~(' class="a b" id="&lt;1&gt;" n="3"')~"},
          {"xmlattr without autospace", "xmlattr", R"~({"a": "\"q\""})~", R"~([false])~", R"~({})~",
           R"~('a="&#34;q&#34;"')~"},
          {"xmlattr empty", "xmlattr", R"~({})~", R"~([])~", R"~({})~", R"~('')~"},
          {"xmlattr bad key", "xmlattr", R"~({"a b": 1})~", R"~([])~", R"~({})~",
           R"~(!Invalid character in attribute name: 'a b')~"},
          {"xmlattr key with slash", "xmlattr", R"~({"a/": 1})~", R"~([])~", R"~({})~",
           R"~(!Invalid character in attribute name: 'a/')~"},
          {"xmlattr of list", "xmlattr", R"~([1])~", R"~([])~", R"~({})~",
           R"~(!'list' object has no attribute 'items')~"},
          {"urlize http and www", "urlize", R"~("see http://a.com/x?y=1, www.b.org. ok")~",
           R"~([])~", R"~({})~",
           R"~('see <a href="http://a.com/x?y=1" rel="noopener">http://a.com/x?y=1</a>, <a href="https://www.b.org" rel="noopener">www.b.org</a>. ok')~"},
          {"urlize email", "urlize", R"~("mail me@example.com or mailto:x@y.io")~", R"~([])~",
           R"~({})~",
           R"~('mail <a href="mailto:me@example.com">me@example.com</a> or <a href="mailto:x@y.io">x@y.io</a>')~"},
          {"urlize trims", "urlize", R"~("https://example.com/long/path")~", R"~([12])~", R"~({})~",
           R"~('<a href="https://example.com/long/path" rel="noopener">https://exam...</a>')~"},
          {"urlize trims negative", "urlize", R"~("http://example.com")~", R"~([-3])~", R"~({})~",
           R"~('<a href="http://example.com" rel="noopener">http://example....</a>')~"},
          {"urlize nofollow target rel", "urlize", R"~("x http://a.com")~",
           R"~([null, true, "_blank", "me"])~", R"~({})~",
           R"~('x <a href="http://a.com" rel="me nofollow noopener" target="_blank">http://a.com</a>')~"},
          {"urlize parentheses", "urlize", R"~("(http://a.com/b_(c)) <http://d.org>")~", R"~([])~",
           R"~({})~",
           R"~('(<a href="http://a.com/b_(c)" rel="noopener">http://a.com/b_(c)</a>) &lt;<a href="http://d.org" rel="noopener">http://d.org</a>&gt;')~"},
          {"urlize basic tlds only", "urlize", R"~("a.com b.io c.museum")~", R"~([])~", R"~({})~",
           R"~('a.com b.io c.museum')~"},
          {"urlize ip addresses", "urlize",
           R"~("http://10.0.0.1:80/x http://[::1]/ http://1.2.3")~", R"~([])~", R"~({})~",
           R"~('<a href="http://10.0.0.1:80/x" rel="noopener">http://10.0.0.1:80/x</a> <a href="http://[::1]/" rel="noopener">http://[::1]/</a> http://1.2.3')~"},
          {"urlize extra schemes", "urlize", R"~("ftp://x tel:1 tel:")~", R"~([])~",
           R"~({"extra_schemes": ["ftp://", "tel:"]})~",
           R"~('<a href="ftp://x" rel="noopener">ftp://x</a> <a href="tel:1" rel="noopener">tel:1</a> tel:')~"},
          {"urlize bad scheme", "urlize", R"~("x")~", R"~([])~", R"~({"extra_schemes": ["x"]})~",
           R"~(!'x' is not a valid URI scheme prefix.)~"},
          {"urlize escapes", "urlize", R"~("<b> & http://a.com")~", R"~([])~", R"~({})~",
           R"~('&lt;b&gt; &amp; <a href="http://a.com" rel="noopener">http://a.com</a>')~"},
      });
}

TEST(FilterHtmlTest, MarkupFollowsMarkupSafeInTemplates) {
  testing::check_templates({
      {"markup plus str escapes the str", R"~({{ [('<a>'|safe) + '<b>'] }})~", R"~({})~",
       R"~([Markup('<a>&lt;b&gt;')])~"},
      {"str plus markup escapes the str", R"~({{ ['<b>' + ('<a>'|safe)] }})~", R"~({})~",
       R"~([Markup('&lt;b&gt;<a>')])~"},
      {"markup times int stays markup", R"~({{ [('<a>'|safe) * 2] }})~", R"~({})~",
       R"~([Markup('<a><a>')])~"},
      {"markup percent escapes arguments", R"~({{ [('<p>%s %d</p>'|safe) % ('<x>', 3)] }})~",
       R"~({})~", R"~([Markup('<p>&lt;x&gt; 3</p>')])~"},
      {"markup percent mapping", R"~({{ ('%(a)s'|safe) % {'a': '&'} }})~", R"~({})~", R"~(&amp;)~"},
      {"tilde makes plain str", R"~({{ [('<a>'|safe) ~ '<b>'] }})~", R"~({})~", R"~(['<a><b>'])~"},
      {"escape leaves markup alone",
       R"~({{ 'x<'|e|e }} {{ 'x<'|safe|e }} {{ 'x<'|safe|forceescape }})~", R"~({})~",
       R"~(x&lt; x< x&lt;)~"},
      {"tojson is markup",
       R"~({{ [{'k': '<&>'}|tojson] }} {{ {}|tojson is escaped }} {{ ({}|tojson(2)) is escaped }})~",
       R"~({})~", R"~([Markup('{"k": "\\u003c\\u0026\\u003e"}')] True True)~"},
      {"escaped test",
       R"~({{ 'a' is escaped }} {{ 'a'|e is escaped }} {{ 'a'|safe is escaped }} {{ ('a'|safe + 'b') is escaped }} {{ 1 is escaped }})~",
       R"~({})~", R"~(False True True True False)~"},
      {"markup equals its text",
       R"~({{ 'a'|safe == 'a' }} {{ 'a'|safe is string }} {{ ('a'|safe)|length }})~", R"~({})~",
       R"~(True True 1)~"},
      {"markup plus int fails", R"~({{ 'a'|safe + 1 }})~", R"~({})~",
       R"~(!unsupported operand type(s) for +: 'Markup' and 'int')~"},
      {"filter and test tests",
       R"~({{ 'upper' is filter }} {{ 'e' is filter }} {{ 'nope' is filter }} {{ 1 is filter }} {{ 'odd' is test }} {{ '==' is test }} {{ 'upper' is test }})~",
       R"~({})~", R"~(True True False False True True True)~"},
      {"filter test of undefined", R"~({{ nope is filter }})~", R"~({})~",
       R"~(!undefined variable 'nope' (the values lack 'nope'))~"},
      {"string filters keep the mark",
       R"~({% set m = '<a> b'|safe %}{{ [m|upper, m|trim, m|center(9), m|string, m|reverse, m|last, m|first, m|title, m|replace('a', 'b'), m|indent(2, true)] }})~",
       R"~({})~",
       R"~([Markup('<A> B'), Markup('<a> b'), Markup('  <a> b  '), Markup('<a> b'), Markup('b >a<'), Markup('b'), '<', '<A> B', '<b> b', Markup('  <a> b')])~"},
      {"truncate and format escape what they add",
       R"~({{ [('<a>x y z w'|safe)|truncate(9, end='<>', leeway=0), ('%s<%s'|safe)|format('<', 1), ('%(a)s'|safe)|format(a='&')] }})~",
       R"~({})~", R"~([Markup('<a>x y&lt;&gt;'), Markup('&lt;<1'), Markup('&amp;')])~"},
      {"markup methods",
       R"~({% set m = '<b>a,b</b>'|safe %}{{ [m.upper(), m.replace(',', '<'), m.center(14, '*'), m.strip('<'), m.split(','), m.partition(','), m.join(['<', 'x'|safe]), m.startswith('<'), m.find(',')] }})~",
       R"~({})~",
       R"~([Markup('<B>A,B</B>'), Markup('<b>a&lt;b</b>'), Markup('**<b>a,b</b>**'), Markup('b>a,b</b>'), [Markup('<b>a'), Markup('b</b>')], (Markup('<b>a'), Markup(','), Markup('b</b>')), Markup('&lt;<b>a,b</b>x'), True, 4])~"},
      {"markup format method escapes fields",
       R"~({{ [('<i>{}</i>{:>4}|{!r}'|safe).format('<x>', 7, '&'), ('{0}{0}'|safe).format('<'|safe)] }})~",
       R"~({})~", R"~([Markup('<i>&lt;x&gt;</i>   7|&#39;&amp;&#39;'), Markup('<<')])~"},
      {"markup fill character is escaped", R"~({{ ('a'|safe).center(5, '&') }})~", R"~({})~",
       R"~(!The fill character must be exactly one character long)~"},
  });
}

TEST(FilterHtmlTest, RandomIsRefusedBecauseOutputIsDeterministic) {
  // Jinja2 picks an item at random; zeroforge never renders differently twice.
  testing::check_templates({
      {"random refused", "{{ [1, 2]|random }}", "{}",
       "!the random filter is not supported: zeroforge's output is deterministic (the same "
       "values always render the same text); pick an item with an index or a values-file "
       "setting instead"},
  });
}

}  // namespace
}  // namespace zf
