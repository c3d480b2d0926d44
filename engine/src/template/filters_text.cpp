// SPDX-License-Identifier: MIT
// The builtin filters that lay text out or regroup sequences: wordwrap (Python's textwrap),
// pprint (Python's pprint), groupby, and random (refused: output must be deterministic).
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "template/builtin_filters.hpp"
#include "template/limits.hpp"
#include "template/python_ops.hpp"
#include "template/python_text.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"

namespace zf {
namespace {

using detail::fail;
using Text = std::u32string;

// ---- wordwrap: textwrap.wrap(expand_tabs=False, replace_whitespace=False) ---------------

// textwrap's own whitespace: ASCII only, unlike str.isspace().
bool wrap_space(char32_t c) {
  return c == '\t' || c == '\n' || c == 0x0B || c == 0x0C || c == '\r' || c == ' ';
}
// `[^\d\W]`: a word character that is not a digit.
bool letter(char32_t c) { return detail::is_word_char(c) && !detail::is_decimal_char(c); }
// `[\w!"\'&.,?]`.
bool word_punct(char32_t c) {
  return detail::is_word_char(c) || c == '!' || c == '"' || c == '\'' || c == '&' || c == '.' ||
         c == ',' || c == '?';
}

// At `j`: `-{2,}\w` (an em-dash before a word).
bool dashes_then_word(const Text& s, std::size_t j) {
  std::size_t k = j;
  while (k < s.size() && s[k] == '-') ++k;
  return k - j >= 2 && k < s.size() && detail::is_word_char(s[k]);
}

// TextWrapper.wordsep_re (break_on_hyphens) or wordsep_simple_re: the chunks of `s`.
std::vector<Text> wrap_chunks(const Text& s, bool break_on_hyphens) {
  std::vector<Text> chunks;
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return k < s.size() ? s[k] : char32_t{0}; };
  while (i < s.size()) {
    std::size_t end = i;
    if (wrap_space(s[i])) {
      while (end < s.size() && wrap_space(s[end])) ++end;
    } else if (!break_on_hyphens) {
      while (end < s.size() && !wrap_space(s[end])) ++end;
    } else if (i > 0 && word_punct(s[i - 1]) && dashes_then_word(s, i)) {
      while (s[end] == '-') ++end;  // the em-dash itself
    } else {
      // `\S+?` then the first place where one of the three endings holds.
      for (end = i + 1;; ++end) {
        std::size_t j = end - 1;  // the last code point taken
        if (s[j] == '-' && j > i &&
            ((j >= 2 && letter(at(j - 2)) && letter(at(j - 1))) ||
             (j >= 3 && letter(at(j - 3)) && at(j - 2) == '-' && letter(at(j - 1)))) &&
            letter(at(j + 1)) && (letter(at(j + 2)) || (at(j + 2) == '-' && letter(at(j + 3))))) {
          break;  // a hyphenated word ends after its hyphen
        }
        if (end == s.size() || wrap_space(s[end])) break;
        if (word_punct(s[j]) && dashes_then_word(s, end)) break;
      }
    }
    chunks.push_back(s.substr(i, end - i));
    i = end;
  }
  return chunks;
}

// `chunk.strip() == ''` (str.strip: any Unicode whitespace).
bool blank(const Text& chunk) {
  return std::all_of(chunk.begin(), chunk.end(), [](char32_t c) { return detail::is_space(c); });
}

std::vector<Text> wrap(const Text& text, std::int64_t width, bool break_long_words,
                       bool break_on_hyphens) {
  std::vector<Text> chunks = wrap_chunks(text, break_on_hyphens);
  std::reverse(chunks.begin(), chunks.end());
  std::vector<Text> lines;
  while (!chunks.empty()) {
    std::vector<Text> line;
    std::int64_t length = 0;
    if (blank(chunks.back()) && !lines.empty()) chunks.pop_back();
    while (!chunks.empty()) {
      auto l = static_cast<std::int64_t>(chunks.back().size());
      if (length + l > width) break;
      line.push_back(std::move(chunks.back()));
      chunks.pop_back();
      length += l;
    }
    if (!chunks.empty() && static_cast<std::int64_t>(chunks.back().size()) > width) {
      // _handle_long_word
      std::int64_t space_left = width < 1 ? 1 : width - length;
      if (break_long_words) {
        Text& chunk = chunks.back();
        auto end = static_cast<std::size_t>(space_left);
        if (break_on_hyphens && static_cast<std::int64_t>(chunk.size()) > space_left) {
          std::size_t hyphen = chunk.rfind(U'-', end == 0 ? 0 : end - 1);
          if (hyphen != Text::npos && hyphen >= end) hyphen = Text::npos;
          if (hyphen != Text::npos && hyphen > 0 &&
              std::any_of(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(hyphen),
                          [](char32_t c) { return c != '-'; })) {
            end = hyphen + 1;
          }
        }
        line.push_back(chunk.substr(0, end));
        chunk = chunk.substr(std::min(end, chunk.size()));
      } else if (line.empty()) {
        line.push_back(std::move(chunks.back()));
        chunks.pop_back();
      }
    }
    if (!line.empty() && blank(line.back())) line.pop_back();
    if (!line.empty()) {
      Text joined;
      for (const auto& piece : line) joined += piece;
      lines.push_back(std::move(joined));
    }
  }
  return lines;
}

Value do_wordwrap(const Value& v, Arguments& args, const CallContext&) {
  v.require_defined();
  if (!v.is_string())
    fail(std::string("'") + v.type_name() + "' object has no attribute 'splitlines'");
  std::int64_t width = detail::to_index(args.bound[0]);
  bool break_long_words = args.bound[1].truthy();
  std::string wrapstring = args.bound[2].is_none() ? "\n" : args.bound[2].str();
  bool break_on_hyphens = args.bound[3].truthy();
  std::string out;
  bool first_line = true;
  for (std::string_view paragraph : detail::split_lines(v.as_string())) {
    // Python's textwrap checks the width when it wraps a line: text without lines ('')
    // wraps to '' whatever the width.
    if (width <= 0) fail("invalid width " + std::to_string(width) + " (must be > 0)");
    if (!first_line) out += wrapstring;
    first_line = false;
    bool first = true;
    for (const Text& line :
         wrap(detail::to_code_points(paragraph), width, break_long_words, break_on_hyphens)) {
      if (!first) out += wrapstring;
      first = false;
      out += detail::from_code_points(line);
      detail::check_value_size(out.size(), "wordwrap");
    }
  }
  return Value(std::move(out));
}

// ---- pprint: pprint.pformat(value), width 80, indent 1, dicts sorted ----------------------

void append_safe_repr(std::string& out, const Value& v) {
  if (v.is_dict()) {
    std::vector<const ValueDict::Entry*> entries;
    for (const auto& entry : v.as_dict()) entries.push_back(&entry);
    std::sort(entries.begin(), entries.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    out += '{';
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i > 0) out += ", ";
      out += Value(entries[i]->first).repr();
      out += ": ";
      append_safe_repr(out, entries[i]->second);
    }
    out += '}';
  } else if (v.is_list() && !v.is_range() && v.field("grouper") == nullptr) {
    bool tuple = v.is_tuple();
    out += tuple ? '(' : '[';
    const ValueList& items = v.as_list();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += ", ";
      append_safe_repr(out, items[i]);
    }
    if (tuple && items.size() == 1) out += ',';
    out += tuple ? ')' : ']';
  } else {
    out += v.repr();  // a named tuple prints its own repr, with its dicts unsorted
  }
}

constexpr std::int64_t kPprintWidth = 80;

void format(std::string& out, const Value& v, std::int64_t indent, std::int64_t allowance,
            bool outermost = false);

std::int64_t repr_width(std::string_view text) {
  return static_cast<std::int64_t>(detail::code_point_count(Value(std::string(text)).repr()));
}

// Python's PrettyPrinter._pprint_str: a string too wide for its place is written as adjacent
// literals, one per line (`splitlines(True)`), a line still too wide cut after runs of
// whitespace (`\S*\s*`). At the top level (`outermost`) the literals are parenthesised.
void format_long_string(std::string& out, const std::string& text, std::int64_t indent,
                        std::int64_t allowance, bool outermost) {
  if (outermost) {
    indent += 1;
    allowance += 1;
  }
  std::vector<std::string> chunks;
  const std::int64_t max_width = kPprintWidth - indent;
  std::int64_t max_width1 = max_width;
  std::vector<std::string_view> lines;
  // splitlines(True): each line keeps its break (\r\n, or one of Python's line breaks).
  for (std::size_t start = 0, pos = 0; pos < text.size();) {
    char32_t c;
    pos += detail::decode_utf8(text, pos, c);
    bool line_break = c == U'\n' || c == U'\r' || c == U'\v' || c == U'\f' || c == 0x1C ||
                      c == 0x1D || c == 0x1E || c == 0x85 || c == 0x2028 || c == 0x2029;
    if (c == U'\r' && pos < text.size() && text[pos] == '\n') ++pos;
    if (line_break || pos == text.size()) {
      lines.push_back(std::string_view(text).substr(start, pos - start));
      start = pos;
    }
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const bool last_line = i + 1 == lines.size();
    if (last_line) max_width1 -= allowance;
    if (repr_width(line) <= max_width1) {
      chunks.push_back(Value(std::string(line)).repr());
      continue;
    }
    // The parts `\S*\s*`: a run of non-space then a run of space.
    std::vector<std::string_view> parts;
    for (std::size_t pos = 0; pos < line.size();) {
      std::size_t end = pos;
      bool in_space = false;
      while (end < line.size()) {
        char32_t c;
        std::size_t n = detail::decode_utf8(line, end, c);
        bool space = detail::is_space(c);
        if (!space && in_space) break;
        in_space = in_space || space;
        end += n;
      }
      parts.push_back(line.substr(pos, end - pos));
      pos = end;
    }
    std::int64_t max_width2 = max_width;
    std::string current;
    for (std::size_t j = 0; j < parts.size(); ++j) {
      std::string candidate = current + std::string(parts[j]);
      if (j + 1 == parts.size() && last_line) max_width2 -= allowance;
      if (repr_width(candidate) > max_width2) {
        if (!current.empty()) chunks.push_back(Value(current).repr());
        current = std::string(parts[j]);
      } else {
        current = std::move(candidate);
      }
    }
    if (!current.empty()) chunks.push_back(Value(current).repr());
  }
  if (chunks.size() == 1) {
    out += Value(text).repr();
    return;
  }
  if (outermost) out += '(';
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (i > 0) out += "\n" + std::string(static_cast<std::size_t>(indent), ' ');
    out += chunks[i];
  }
  if (outermost) out += ')';
}

void format_items(std::string& out, const ValueList& items, std::int64_t indent,
                  std::int64_t allowance) {
  indent += 1;
  for (std::size_t i = 0; i < items.size(); ++i) {
    bool last = i + 1 == items.size();
    if (i > 0) out += ",\n" + std::string(static_cast<std::size_t>(indent), ' ');
    format(out, items[i], indent, last ? allowance : 1);
  }
}

void format(std::string& out, const Value& v, std::int64_t indent, std::int64_t allowance,
            bool outermost) {
  std::string rep;
  append_safe_repr(rep, v);
  if (static_cast<std::int64_t>(detail::code_point_count(rep)) <=
      kPprintWidth - indent - allowance) {
    out += rep;
    return;
  }
  if (v.is_dict() && !v.as_dict().empty()) {
    std::vector<const ValueDict::Entry*> entries;
    for (const auto& entry : v.as_dict()) entries.push_back(&entry);
    std::sort(entries.begin(), entries.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    out += '{';
    std::int64_t inner = indent + 1;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      bool last = i + 1 == entries.size();
      std::string key = Value(entries[i]->first).repr();
      out += key;
      out += ": ";
      format(out, entries[i]->second,
             inner + static_cast<std::int64_t>(detail::code_point_count(key)) + 2,
             last ? allowance + 1 : 1);
      if (!last) out += ",\n" + std::string(static_cast<std::size_t>(inner), ' ');
    }
    out += '}';
    return;
  }
  if (v.is_list() && !v.is_range() && v.field("grouper") == nullptr && !v.as_list().empty()) {
    bool tuple = v.is_tuple();
    bool single = tuple && v.as_list().size() == 1;
    out += tuple ? '(' : '[';
    format_items(out, v.as_list(), indent, allowance + (single ? 2 : 1));
    out += tuple ? (single ? ",)" : ")") : "]";
    return;
  }
  // Markup has its own __repr__, which pprint does not split.
  if (v.is_string() && !v.is_markup() && !v.as_string().empty()) {
    format_long_string(out, v.as_string(), indent, allowance, outermost);
    return;
  }
  out += rep;
}

Value do_pprint(const Value& v, Arguments&, const CallContext&) {
  std::string out;
  format(out, v, 0, 0, true);
  return Value(std::move(out));
}

// ---- groupby --------------------------------------------------------------------------------

constexpr std::string_view kGroupFields[] = {"grouper", "list"};

// make_attrgetter: the looked-up attribute, `default` for a missing one, lower-cased strings
// unless case-sensitive.
Value group_key(const Value& item, const std::vector<Value>& parts, const Value& fallback,
                bool fold) {
  Value key = detail::lookup_path(item, parts, fallback);
  if (fold && key.is_string()) return Value(detail::to_lower(key.as_string()));
  return key;
}

Value do_groupby(const Value& v, Arguments& args, const CallContext&) {
  ValueList storage;
  const ValueList& items = detail::iterate(v, storage);
  auto parts = detail::attribute_parts(args.bound[0]);
  const Value& fallback = args.bound[1];
  bool fold = !args.bound[2].truthy();
  std::vector<Value> keys;
  keys.reserve(items.size());
  for (const auto& item : items) {
    Value key = group_key(item, parts, fallback, fold);
    key.require_defined();
    keys.push_back(std::move(key));
  }
  std::vector<std::size_t> order(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return detail::compare(keys[a], keys[b], "<") < 0;
  });
  ValueList out;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    ValueList members;
    while (j < order.size() && keys[order[j]] == keys[order[i]])
      members.push_back(items[order[j++]]);
    // Case-insensitive groups show the first member's own spelling of the key.
    Value grouper = fold ? detail::lookup_path(items[order[i]], parts, fallback) : keys[order[i]];
    out.push_back(Value::named_tuple(ValueList{grouper, Value(std::move(members))}, kGroupFields));
    i = j;
  }
  return Value(std::move(out));
}

// ---- random ---------------------------------------------------------------------------------

Value do_random(const Value&, Arguments&, const CallContext&) {
  fail(
      "the random filter is not supported: zeroforge's output is deterministic (the same "
      "values always render the same text); pick an item with an index or a values-file "
      "setting instead");
}

}  // namespace

namespace detail {

void register_text_filters(FunctionRegistry& registry) {
  const Value none(nullptr);
  auto add = [&](FunctionSpec spec) { registry.add(FunctionKind::Filter, std::move(spec)); };
  add({"wordwrap",
       {Parameter{"width", Value(79)}, Parameter{"break_long_words", Value(true)},
        Parameter{"wrapstring", none}, Parameter{"break_on_hyphens", Value(true)}},
       false,
       do_wordwrap});
  add({"pprint", {}, false, do_pprint});
  add({"groupby",
       {Parameter{"attribute", std::nullopt}, Parameter{"default", none},
        Parameter{"case_sensitive", Value(false)}},
       false,
       do_groupby});
  add({"random", {}, false, do_random});
}

}  // namespace detail
}  // namespace zf
