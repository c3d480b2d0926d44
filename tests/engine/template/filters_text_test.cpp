// SPDX-License-Identifier: MIT
// Tests of wordwrap, pprint, groupby (engine/src/template/filters_text.cpp) and of map and
// select forwarding keyword arguments: expectations from Python Jinja2 3.1.6 (StrictUndefined),
// except the text of errors, which is zeroforge's.
#include <gtest/gtest.h>

#include "engine/template/builtin_harness.hpp"
#include "zeroforge/environment.hpp"

namespace zf {
namespace {

using testing::BuiltinHarness;

TEST(FilterTextTest, WrapsPrintsAndGroupsLikeJinja) {
  BuiltinHarness().check_table(
      FunctionKind::Filter,
      {
          {"wordwrap at width", "wordwrap", R"~("The quick brown fox jumps over the lazy dog")~",
           R"~([10])~", R"~({})~", R"~('The quick\nbrown fox\njumps over\nthe lazy\ndog')~"},
          {"wordwrap keeps paragraphs", "wordwrap", R"~("one two three\n\nfour five\r\nsix")~",
           R"~([7])~", R"~({})~", R"~('one two\nthree\n\nfour\nfive\nsix')~"},
          {"wordwrap wrapstring", "wordwrap", R"~("aa bb cc dd")~", R"~([5])~",
           R"~({"wrapstring": "<br>"})~", R"~('aa bb<br>cc dd')~"},
          {"wordwrap breaks long words", "wordwrap", R"~("abcdefghij klm")~", R"~([4])~", R"~({})~",
           R"~('abcd\nefgh\nij\nklm')~"},
          {"wordwrap keeps long words", "wordwrap", R"~("abcdefghij klm")~", R"~([4, false])~",
           R"~({})~", R"~('abcdefghij\nklm')~"},
          {"wordwrap hyphenated words", "wordwrap",
           R"~("a well-known self-evident long-standing fact")~", R"~([12])~", R"~({})~",
           R"~('a well-known\nself-evident\nlong-\nstanding\nfact')~"},
          {"wordwrap without hyphen breaks", "wordwrap",
           R"~("a well-known self-evident long-standing fact")~", R"~([12])~",
           R"~({"break_on_hyphens": false})~",
           R"~('a well-known\nself-evident\nlong-standin\ng fact')~"},
          {"wordwrap em-dash", "wordwrap", R"~("twice--over and--again x--")~", R"~([8])~",
           R"~({})~", R"~('twice--\nover and\n--again\nx--')~"},
          {"wordwrap long word at hyphen", "wordwrap", R"~("aaaa-bbbb-cccc-dddd")~", R"~([7])~",
           R"~({})~", R"~('aaaa-\nbbbb-\ncccc-\ndddd')~"},
          {"wordwrap leading hyphens", "wordwrap", R"~("----abc -x- 3-4 a-1")~", R"~([3])~",
           R"~({})~", R"~('---\n-ab\nc\n-x-\n3-4\na-1')~"},
          {"wordwrap runs of spaces", "wordwrap", R"~("  lead   spaces  and   runs   ")~",
           R"~([6])~", R"~({})~", R"~('  lead\nspaces\nand\nruns')~"},
          {"wordwrap only ascii whitespace splits", "wordwrap", R"~("a\u00a0b\u00a0c d")~",
           R"~([3])~", R"~({})~", R"~('a\xa0b\n\xa0c\nd')~"},
          {"wordwrap unicode words", "wordwrap",
           R"~("\u00e9t\u00e9-\u00e9t\u00e9 na\u00efve-ness")~", R"~([6])~", R"~({})~",
           R"~('été-\nété\nnaïve-\nness')~"},
          {"wordwrap width zero", "wordwrap", R"~("abc")~", R"~([0])~", R"~({})~",
           R"~(!invalid width 0 (must be > 0))~"},
          // Python's textwrap checks the width only for a line to wrap; '' has none.
          {"wordwrap empty at width 0", "wordwrap", R"~("")~", R"~([0])~", R"~({})~", R"~('')~"},
          {"wordwrap of number", "wordwrap", R"~(5)~", R"~([])~", R"~({})~",
           R"~(!'int' object has no attribute 'splitlines')~"},
          {"pprint short", "pprint", R"~({"b": [1, 2.5, null, true], "a": "x"})~", R"~([])~",
           R"~({})~", R"~("{'a': 'x', 'b': [1, 2.5, None, True]}")~"},
          {"pprint wraps a long dict", "pprint",
           R"~({"zeta": ["alpha", "beta", "gamma", "delta", "epsilon"], "alpha": {"nested": [1, 2, 3], "other": "value that is long"}, "mid": [1, 2]})~",
           R"~([])~", R"~({})~",
           R"~("{'alpha': {'nested': [1, 2, 3], 'other': 'value that is long'},\n 'mid': [1, 2],\n 'zeta': ['alpha', 'beta', 'gamma', 'delta', 'epsilon']}")~"},
          {"pprint wraps a long list", "pprint",
           R"~([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000, 20000, 21000, 22000, 23000, 24000, 25000, 26000, 27000, 28000, 29000])~",
           R"~([])~", R"~({})~",
           R"~('[0,\n 1000,\n 2000,\n 3000,\n 4000,\n 5000,\n 6000,\n 7000,\n 8000,\n 9000,\n 10000,\n 11000,\n 12000,\n 13000,\n 14000,\n 15000,\n 16000,\n 17000,\n 18000,\n 19000,\n 20000,\n 21000,\n 22000,\n 23000,\n 24000,\n 25000,\n 26000,\n 27000,\n 28000,\n 29000]')~"},
          {"pprint nested lists", "pprint",
           R"~([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39], {"k": ["v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11"]}])~",
           R"~([])~", R"~({})~",
           R"~("[[0,\n  1,\n  2,\n  3,\n  4,\n  5,\n  6,\n  7,\n  8,\n  9,\n  10,\n  11,\n  12,\n  13,\n  14,\n  15,\n  16,\n  17,\n  18,\n  19,\n  20,\n  21,\n  22,\n  23,\n  24,\n  25,\n  26,\n  27,\n  28,\n  29,\n  30,\n  31,\n  32,\n  33,\n  34,\n  35,\n  36,\n  37,\n  38,\n  39],\n {'k': ['v0',\n        'v1',\n        'v2',\n        'v3',\n        'v4',\n        'v5',\n        'v6',\n        'v7',\n        'v8',\n        'v9',\n        'v10',\n        'v11']}]")~"},
          {"pprint string", "pprint", R"~("it's")~", R"~([])~", R"~({})~", R"~('"it\'s"')~"},
          // Python's pprint splits a string too wide for its place into adjacent literals:
          // at the top level parenthesised, at whitespace runs and line ends.
          {"pprint long string", "pprint",
           R"~("word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word ")~",
           R"~([])~", R"~({})~",
           R"~("('word word word word word word word word word word word word word word word '\n 'word word word word word word word word word word word word word word word ')")~"},
          {"pprint long string in a list", "pprint",
           R"~(["x", "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi"])~",
           R"~([])~", R"~({})~",
           R"~("['x',\n 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi '\n 'omicron pi']")~"},
          {"pprint long string with lines in a dict", "pprint",
           R"~({"k": "line one is short\nline two is a much longer line that does not fit in the columns left here at all"})~",
           R"~([])~", R"~({})~",
           R"~("{'k': 'line one is short\\n'\n      'line two is a much longer line that does not fit in the columns left '\n      'here at all'}")~"},
          {"pprint long word is not split", "pprint",
           R"~("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")~",
           R"~([])~", R"~({})~",
           R"~("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'")~"},
          {"groupby attribute", "groupby",
           R"~([{"c": "b", "n": 1}, {"c": "a", "n": 2}, {"c": "B", "n": 3}])~", R"~(["c"])~",
           R"~({})~",
           R"~([('a', [{'c': 'a', 'n': 2}]), ('b', [{'c': 'b', 'n': 1}, {'c': 'B', 'n': 3}])])~"},
          {"groupby case sensitive", "groupby",
           R"~([{"c": "b", "n": 1}, {"c": "a", "n": 2}, {"c": "B", "n": 3}])~", R"~(["c"])~",
           R"~({"case_sensitive": true})~",
           R"~([('B', [{'c': 'B', 'n': 3}]), ('a', [{'c': 'a', 'n': 2}]), ('b', [{'c': 'b', 'n': 1}])])~"},
          {"groupby default", "groupby", R"~([{"c": "x"}, {}, {"c": "y"}])~", R"~(["c"])~",
           R"~({"default": "y"})~", R"~([('x', [{'c': 'x'}]), ('y', [{}, {'c': 'y'}])])~"},
          {"groupby index", "groupby", R"~([[2, "a"], [1, "b"], [2, "c"]])~", R"~([0])~", R"~({})~",
           R"~([(1, [[1, 'b']]), (2, [[2, 'a'], [2, 'c']])])~"},
          {"groupby dotted path", "groupby", R"~([{"p": {"q": 1}}, {"p": {"q": 0}}])~",
           R"~(["p.q"])~", R"~({})~", R"~([(0, [{'p': {'q': 0}}]), (1, [{'p': {'q': 1}}])])~"},
          {"groupby mixed keys", "groupby", R"~([{"a": 1}, {"a": "x"}])~", R"~(["a"])~", R"~({})~",
           R"~(!'<' not supported between instances of 'str' and 'int')~"},
          {"groupby missing key", "groupby", R"~([{"a": 1}, {"b": 2}])~", R"~(["a"])~", R"~({})~",
           R"~(!'dict object' has no attribute 'a')~"},
      });
}

TEST(FilterTextTest, GroupsAndForwardsKeywordsInTemplates) {
  testing::check_templates({
      {"groupby unpacks and names fields",
       R"~({% for city, people in users|groupby('city') %}{{ city }}: {{ people|map(attribute='n')|join(',') }}; {% endfor %}{% for g in users|groupby('city') %}{{ g.grouper }}/{{ g.list|length }}/{{ g['grouper'] }}/{{ g[0] }} {% endfor %})~",
       R"~({"users": [{"city": "NY", "n": 1}, {"city": "ca", "n": 2}, {"city": "CA", "n": 3}]})~",
       R"~(ca: 2,3; NY: 1; ca/2/ca/ca NY/1/NY/NY )~"},
      {"groupby fields through map",
       R"~({{ [{'a': 1}, {'a': 2}, {'a': 1}]|groupby('a')|map(attribute='grouper')|list }} {{ [{'a': 1}]|groupby('a')|map(attribute='list')|list }})~",
       R"~({})~", R"~([1, 2] [[{'a': 1}]])~"},
      {"groupby prints as tuples",
       R"~({{ [{'a': 'x'}]|groupby('a') }} {{ ([{'a': 'x'}]|groupby('a'))[0] }})~", R"~({})~",
       R"~([('x', [{'a': 'x'}])] ('x', [{'a': 'x'}]))~"},
      {"groupby key for a missing attribute", R"~({{ [{'a': 1}]|groupby('b', default=0) }})~",
       R"~({})~", R"~([(0, [{'a': 1}])])~"},
      {"map forwards keywords",
       R"~({{ [1.55, 2.25]|map('round', precision=1)|list }} {{ ['a', 'bb']|map('center', width=4)|list }} {{ [none, 1]|map('default', 'x', boolean=true)|list }})~",
       R"~({})~", R"~([1.6, 2.2] [' a  ', ' bb '] ['x', 1])~"},
      {"select forwards keywords",
       R"~({{ [1, 2, 3, 4]|select('divisibleby', num=2)|list }} {{ [{'a': 1}, {'a': 5}]|rejectattr('a', 'sameas', other=5)|list }} {{ ['a', 'b']|select('in', seq='ab')|list }})~",
       R"~({})~", R"~([2, 4] [{'a': 1}] ['a', 'b'])~"},
      {"map unknown keyword", R"~({{ [1.5]|map('round', digits=1)|list }})~", R"~({})~",
       R"~(!filter 'round' got an unexpected keyword argument 'digits')~"},
  });
}

}  // namespace
}  // namespace zf
