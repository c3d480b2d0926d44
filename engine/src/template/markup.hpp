// SPDX-License-Identifier: MIT
// MarkupSafe's escaping rules on zf::Value (escape, Markup concatenation) and the HTML text
// helpers the html filters share: entity unescaping and tag stripping.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "zeroforge/value.hpp"

namespace zf::detail {

/// Appends `text` with `& < > ' "` replaced as MarkupSafe does (`&amp;`, `&lt;`, `&gt;`,
/// `&#39;`, `&#34;`).
void append_html_escaped(std::string& out, std::string_view text);

/// `markupsafe.escape(v)`: a Markup value unchanged, anything else `str(v)` escaped and marked.
Value escape(const Value& v);

/// `Markup(v)`: the text of `v` marked safe, without escaping.
Value mark_safe(const Value& v);

/// `text` as Markup when `like` is Markup, else as a plain string: what a filter or method that
/// MarkupSafe wraps returns.
inline Value marked_like(const Value& like, std::string text) {
  return like.is_markup() ? Value::markup(std::move(text)) : Value(std::move(text));
}

/// An argument as a Markup method or `Markup % args` sees it: a string escaped (Markup
/// unchanged), anything else as it is.
Value escape_argument(const Value& v);

/// `a + b` where one side is Markup: the other side (a string) escaped, the result Markup.
Value markup_concatenate(const Value& a, const Value& b);

/// Python's `html.unescape`: named (HTML5), decimal and hexadecimal character references.
std::string html_unescape(std::string_view text);

/// `Markup(text).striptags()`: comments and tags removed, whitespace runs collapsed to one
/// space, then entities unescaped.
std::string strip_tags(std::string_view text);

}  // namespace zf::detail
