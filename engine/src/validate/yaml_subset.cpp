// SPDX-License-Identifier: MIT
// parse_yaml_subset (yaml_subset.hpp): a line-based reader of block-style YAML. Each line is an
// indentation, then a mapping entry (`key: value`, or `key:` with a more indented block, or a
// sequence at the same indentation as PyYAML writes it) or a sequence item (`- value`). Plain
// scalars are resolved with PyYAML's YAML 1.1 rules (yaml/resolver.py) for the forms kept here.
// Lines end where PyYAML ends them (\n, \r\n, \r, U+0085, U+2028, U+2029), so a comment ends
// where accelerate's reader ends it. Reading is linear in the text.
#include "yaml_subset.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "text_helpers.hpp"
#include "zeroforge/error.hpp"

namespace zf::validate {
namespace {

using Json = nlohmann::ordered_json;

struct Line {
  std::size_t number;     // 1-based
  std::size_t indent;     // leading spaces
  std::string_view text;  // after the indentation, trailing spaces removed
};

bool is_item(std::string_view text) { return text == "-" || text.starts_with("- "); }

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '_') return false;
  return std::isdigit(static_cast<unsigned char>(s.front()));
}

std::string without_underscores(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_') out += c;
  return out;
}

// A line break where YAML 1.1 has one (PyYAML reader.py / scanner.py scan_line_break): "\r\n",
// "\n", "\r", NEL U+0085, LS U+2028 and PS U+2029. Its length in bytes at text[i], or 0.
std::size_t line_break_at(std::string_view text, std::size_t i) {
  const char c = text[i];
  if (c == '\n') return 1;
  if (c == '\r') return i + 1 < text.size() && text[i + 1] == '\n' ? 2 : 1;
  if (c == '\xc2') return i + 1 < text.size() && text[i + 1] == '\x85' ? 2 : 0;
  if (c == '\xe2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
      (text[i + 2] == '\xa8' || text[i + 2] == '\xa9'))
    return 3;
  return 0;
}

// The first character PyYAML refuses in a stream (reader.py NON_PRINTABLE: everything but tab,
// the line breaks, printable ASCII, U+00A0-U+D7FF and U+E000-U+FFFD and above U+FFFF) in the
// well-formed UTF-8 `text`: its offset and code point, or npos.
std::pair<std::size_t, char32_t> non_printable_at(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return {i, c};
    if (c == 0xc2) {
      const auto next = static_cast<unsigned char>(text[i + 1]);
      if (next < 0xa0 && next != 0x85) return {i, next};
    } else if (c == 0xef && text.compare(i + 1, 2, "\xbf\xbe") == 0) {
      return {i, 0xfffe};
    } else if (c == 0xef && text.compare(i + 1, 2, "\xbf\xbf") == 0) {
      return {i, 0xffff};
    }
  }
  return {std::string_view::npos, 0};
}

// PyYAML's YAML 1.1 timestamp (resolver.py): [0-9]{4}-[0-9]{2}-[0-9]{2}, or
// [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?
// ([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?
bool is_timestamp(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&](std::size_t least, std::size_t most) {
    std::size_t n = 0;
    while (n < most && i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++n;
    return n >= least;
  };
  auto literal = [&](char c) { return i < s.size() && s[i] == c ? (++i, true) : false; };
  auto blanks = [&] {
    const std::size_t from = i;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    return i > from;
  };
  if (!digits(4, 4) || !literal('-')) return false;
  const std::size_t month = i;
  if (!digits(1, 2) || !literal('-') || !digits(1, 2)) return false;
  if (i == s.size()) return i == month + 5 && s[month + 2] == '-';  // the date alone: dd-dd
  if (!literal('T') && !literal('t') && !blanks()) return false;
  if (!digits(1, 2) || !literal(':') || !digits(2, 2) || !literal(':') || !digits(2, 2))
    return false;
  if (literal('.')) digits(0, s.size());
  blanks();
  if (i == s.size()) return true;
  if (literal('Z')) return i == s.size();
  if (!literal('-') && !literal('+')) return false;
  if (!digits(1, 2)) return false;
  if (literal(':') && !digits(2, 2)) return false;
  return i == s.size();
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& file) : file_(file) {
    // Strings end up in JSON (and in messages): the text must be UTF-8, as YAML requires, and
    // hold only what PyYAML accepts, or accelerate would refuse a file this reader takes.
    if (std::size_t bad = detail::invalid_utf8_at(text); bad < text.size()) {
      fail_at(text, bad, "not UTF-8 (a YAML file is UTF-8 text)");
    }
    if (auto [at, code] = non_printable_at(text); at != std::string_view::npos) {
      fail_at(text, at,
              "the character " + detail::code_point_name(code) +
                  ", which YAML does not allow in a file (PyYAML refuses it); write it as an "
                  "escape in a double-quoted scalar");
    }
    // PyYAML skips a byte order mark at the start of the stream (and only there).
    std::size_t start = text.starts_with("\xef\xbb\xbf") ? 3 : 0;
    std::size_t number = 0;
    bool started = false;  // after `---`
    bool ended = false;    // after `...`
    while (start < text.size()) {
      ++number;
      std::size_t end = start, length = 0;
      while (end < text.size() && (length = line_break_at(text, end)) == 0) ++end;
      std::string_view raw = text.substr(start, end - start);
      start = end + length;
      std::size_t indent = 0;
      while (indent < raw.size() && raw[indent] == ' ') ++indent;
      std::string_view rest = raw.substr(indent);
      // Trailing spaces only: PyYAML refuses a tab outside a quoted scalar or a comment.
      while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
      if (rest.empty() || rest.front() == '#') continue;
      if (rest.front() == '\t')
        fail(number, indent + 1, "a tab in the indentation (YAML indents with spaces only)");
      if (rest == "---" && !started && indent == 0) {  // document start
        started = true;
        continue;
      }
      if (rest == "..." && indent == 0) {  // document end: comments (and ends) may follow
        if (!started && lines_.empty())
          fail(number, 1, "a document end ('...') before any document (PyYAML refuses it)");
        ended = true;
        continue;
      }
      // PyYAML's safe_load refuses a second document.
      if (ended || rest.starts_with("---") || rest.starts_with("%"))
        fail(number, indent + 1, "more than one document, or a directive, is not supported");
      lines_.push_back({number, indent, rest});
    }
  }

  Json parse() {
    if (lines_.empty()) return nullptr;
    Json root = block(lines_[0].indent);
    if (pos_ < lines_.size()) {
      const Line& line = lines_[pos_];
      fail(line.number, line.indent + 1, "a line that does not continue the structure above it");
    }
    return root;
  }

 private:
  [[noreturn]] void fail(std::size_t line, std::size_t column, const std::string& message) const {
    throw Error(ErrorKind::Values, message, Location{file_, line, column});
  }

  // An error at byte `offset` of the whole text, its line counted at the breaks YAML 1.1 knows.
  [[noreturn]] void fail_at(std::string_view text, std::size_t offset,
                            const std::string& message) const {
    std::size_t line = 1, start = 0;
    for (std::size_t i = 0; i < offset;) {
      if (std::size_t length = line_break_at(text, i); length != 0 && i + length <= offset) {
        ++line;
        start = i += length;
      } else {
        ++i;
      }
    }
    fail(line, offset - start + 1, message);
  }

  // Each level is a few frames of this reader's recursion: the depth is bounded, well below
  // where PyYAML's own recursive composer gives up (about 450 levels), so a file read here is
  // one accelerate can read, and no input exhausts the stack.
  Json block(std::size_t indent) {
    const Line& line = lines_[pos_];
    if (depth_ == kMaxDepth)
      fail(line.number, line.indent + 1,
           "nesting deeper than " + std::to_string(kMaxDepth) + " levels is not supported");
    ++depth_;
    Json out = is_item(line.text) ? sequence(indent) : mapping(indent);
    --depth_;
    return out;
  }

  // The value after `key:` or `- ` when nothing follows on the line: a more indented block
  // (or, under a key, a sequence at the key's indentation), else null.
  Json nested(std::size_t indent, bool under_key) {
    if (pos_ < lines_.size()) {
      const Line& next = lines_[pos_];
      if (next.indent > indent || (under_key && next.indent == indent && is_item(next.text)))
        return block(next.indent);
    }
    return nullptr;
  }

  // YAML limits an implicit key (`key: value`, plain or quoted) to 1024 characters from its
  // first to the ':' (YAML 1.1 section 9.1.1; PyYAML drops a longer one as a possible key and
  // then refuses the ':' with "mapping values are not allowed here").
  void check_key_length(std::string_view span, const Line& line) {
    std::size_t characters = 0;
    for (char c : span) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (characters <= 1024) return;
    fail(line.number, line.indent + 1,
         "a key of " + std::to_string(characters) +
             " characters; YAML takes a key of at most 1024 before its ':' (PyYAML refuses it: "
             "\"mapping values are not allowed here\")");
  }

  Json mapping(std::size_t indent) {
    Json out = Json::object();
    // ordered_json finds a key by walking its entries: keys are checked in a hash set and
    // appended to the entries directly, so a mapping of n keys is read in O(n), not O(n^2).
    auto& entries = out.get_ref<Json::object_t&>();
    std::unordered_set<std::string> keys;
    while (pos_ < lines_.size() && lines_[pos_].indent >= indent) {
      const Line& line = lines_[pos_];
      if (line.indent > indent) fail(line.number, line.indent + 1, "unexpected indentation");
      if (is_item(line.text))
        fail(line.number, line.indent + 1, "a sequence item where a mapping key was expected");
      std::string_view text = line.text;
      std::size_t offset = 0;  // of the value in text
      std::string key;
      if (text.front() == '"' || text.front() == '\'') {
        std::size_t end = 0;
        key = quoted(text, 0, line, end);
        if (end >= text.size() || text[end] != ':' ||
            (end + 1 < text.size() && text[end + 1] != ' '))
          fail(line.number, line.indent + end + 1, "expected ':' after the key");
        check_key_length(text.substr(0, end), line);
        offset = end + 1;
      } else {
        std::size_t colon = 0;
        while (true) {
          colon = text.find(':', colon);
          if (colon == std::string_view::npos || colon + 1 == text.size() || text[colon + 1] == ' ')
            break;
          ++colon;
        }
        std::size_t hash = text.find(" #");
        if (colon == std::string_view::npos || (hash != std::string_view::npos && hash < colon))
          fail(line.number, line.indent + 1, "expected 'key: value'");
        check_key_length(text.substr(0, colon), line);
        std::string_view plain = text.substr(0, colon);
        while (!plain.empty() && plain.back() == ' ') plain.remove_suffix(1);
        check_plain_start(plain, line, line.indent + 1);
        check_no_tab(plain, line, line.indent + 1);
        // PyYAML resolves a plain key as it does a value (`1:` is the integer 1), and a JSON
        // key is a string: only a key that reads as a string is taken.
        if (!resolve(plain, line, line.indent + 1).is_string())
          fail(line.number, line.indent + 1,
               "the key '" + std::string(plain) +
                   "' is a number, boolean or null in YAML 1.1, not a string; quote it");
        key = std::string(plain);
        offset = colon + 1;
      }
      while (offset < text.size() && text[offset] == ' ') ++offset;
      const std::size_t key_line = pos_;
      ++pos_;
      Json value;
      if (offset >= text.size() || text[offset] == '#') {
        value = nested(indent, true);
      } else {
        value = scalar(text, offset, line);
      }
      if (!keys.insert(key).second) {
        fail(lines_[key_line].number, lines_[key_line].indent + 1, "duplicate key '" + key + "'");
      }
      static_cast<Json::object_t::Container&>(entries).emplace_back(std::move(key),
                                                                    std::move(value));
    }
    return out;
  }

  Json sequence(std::size_t indent) {
    Json out = Json::array();
    while (pos_ < lines_.size() && lines_[pos_].indent >= indent) {
      const Line& line = lines_[pos_];
      if (line.indent > indent) fail(line.number, line.indent + 1, "unexpected indentation");
      if (!is_item(line.text)) return out;  // the mapping the sequence sits in goes on
      std::size_t offset = 1;
      while (offset < line.text.size() && line.text[offset] == ' ') ++offset;
      ++pos_;
      if (offset >= line.text.size() || line.text[offset] == '#') {
        out.push_back(nested(indent, false));
        continue;
      }
      std::string_view item = line.text.substr(offset);
      if (is_item(item) || (item.front() != '"' && item.front() != '\'' &&
                            (item.find(": ") != std::string_view::npos || item.back() == ':'))) {
        fail(line.number, line.indent + offset + 1,
             "a mapping or sequence inside a sequence item is not supported");
      }
      out.push_back(scalar(line.text, offset, line));
    }
    return out;
  }

  void check_plain_start(std::string_view plain, const Line& line, std::size_t column) const {
    if (plain.empty()) fail(line.number, column, "an empty key");
    switch (plain.front()) {
      case '&':
      case '*':
      case '!':
        fail(line.number, column, "anchors, aliases and tags are not supported");
      case '|':
      case '>':
        fail(line.number, column, "block scalars ('|', '>') are not supported");
      case '[':
      case '{':
        fail(line.number, column, "flow collections other than [] and {} are not supported");
      case '%':
      case '@':
      case '`':
      case '?':
        fail(line.number, column,
             std::string("'") + plain.front() + "' cannot start a plain scalar; quote it");
      default:
        break;
    }
  }

  // PyYAML ends a plain scalar at a tab and then finds no token that starts with one.
  void check_no_tab(std::string_view plain, const Line& line, std::size_t column) const {
    if (std::size_t tab = plain.find('\t'); tab != std::string_view::npos)
      fail(line.number, column + tab,
           "a tab outside quotes, which YAML does not read as part of a plain scalar (PyYAML "
           "refuses it); quote the value, or use spaces");
  }

  // The scalar at text[offset...]: quoted, `[]`/`{}`, or plain up to a comment.
  Json scalar(std::string_view text, std::size_t offset, const Line& line) const {
    const std::size_t column = line.indent + offset + 1;
    char first = text[offset];
    if (first == '"' || first == '\'') {
      std::size_t end = 0;
      std::string value = quoted(text, offset, line, end);
      while (end < text.size() && text[end] == ' ') ++end;
      if (end < text.size() && text[end] != '#')
        fail(line.number, line.indent + end + 1, "unexpected text after a quoted scalar");
      return value;
    }
    std::string_view plain = text.substr(offset);
    if (auto hash = plain.find(" #"); hash != std::string_view::npos) plain = plain.substr(0, hash);
    while (!plain.empty() && plain.back() == ' ') plain.remove_suffix(1);
    if (first == '[' || first == '{') {
      std::string inner;
      for (char c : plain.substr(1, plain.size() - 1))
        if (c != ' ') inner += c;
      if (inner == (first == '[' ? "]" : "}")) return first == '[' ? Json::array() : Json::object();
    }
    check_plain_start(plain, line, column);
    check_no_tab(plain, line, column);
    if (plain == "-" || plain.starts_with("- "))
      fail(line.number, column, "a sequence item where a value was expected; quote the value");
    if (plain.find(": ") != std::string_view::npos || plain.back() == ':')
      fail(line.number, column, "a plain scalar cannot hold ': '; quote it");
    return resolve(plain, line, column);
  }

  // PyYAML's implicit resolvers (YAML 1.1), for the forms kept here.
  Json resolve(std::string_view s, const Line& line, std::size_t column) const {
    if (s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
    for (std::string_view word : {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
      if (s == word) return true;
    for (std::string_view word : {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
      if (s == word) return false;
    std::string_view unsigned_part = s;
    if (!s.empty() && (s.front() == '-' || s.front() == '+')) unsigned_part.remove_prefix(1);
    auto ambiguous = [&](const char* what) {
      fail(line.number, column,
           "'" + std::string(s) + "' is " + what +
               " in YAML 1.1, which this reader does not take; quote it, or write a decimal "
               "number");
    };
    // Tags the safe loader resolves but cannot construct, or constructs as neither JSON holds.
    if (s == "<<" || s == "=")
      fail(line.number, column,
           "'" + std::string(s) + "' is a " + (s == "<<" ? "merge key" : "value key") +
               " in YAML 1.1, which this reader does not take; quote it");
    if (is_timestamp(s))
      fail(line.number, column,
           "'" + std::string(s) +
               "' is a date or timestamp in YAML 1.1, which this reader does not take; quote it");
    if (unsigned_part.size() > 1 && unsigned_part.front() == '0' &&
        (std::isdigit(static_cast<unsigned char>(unsigned_part[1])) || unsigned_part[1] == 'x' ||
         unsigned_part[1] == 'b' || unsigned_part[1] == '_'))
      ambiguous("an octal, hexadecimal or binary integer");
    if (all_digits(unsigned_part)) {
      std::string digits = without_underscores(s);
      errno = 0;
      char* end = nullptr;
      long long value = std::strtoll(digits.c_str(), &end, 10);
      if (errno == ERANGE) fail(line.number, column, "integer out of range: " + std::string(s));
      return value;
    }
    // [-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?  and  \.[0-9][0-9_]*([eE][-+][0-9]+)?
    std::size_t dot = unsigned_part.find('.');
    if (dot != std::string_view::npos) {
      std::string_view whole = unsigned_part.substr(0, dot);
      std::string_view rest = unsigned_part.substr(dot + 1);
      std::string_view fraction = rest, exponent;
      if (auto e = rest.find_first_of("eE"); e != std::string_view::npos) {
        fraction = rest.substr(0, e);
        exponent = rest.substr(e + 1);
      }
      bool whole_ok = whole.empty() ? (s.front() != '-' && s.front() != '+' && !fraction.empty() &&
                                       all_digits(fraction))
                                    : all_digits(whole);
      bool fraction_ok = fraction.find_first_not_of("0123456789_") == std::string_view::npos;
      bool exponent_ok =
          exponent.empty() ||
          (exponent.size() > 1 && (exponent[0] == '-' || exponent[0] == '+') &&
           exponent.substr(1).find_first_not_of("0123456789") == std::string_view::npos);
      if (whole_ok && fraction_ok && exponent_ok) {
        const double value = std::strtod(without_underscores(s).c_str(), nullptr);
        // PyYAML reads a float beyond a double's range as an infinity, which JSON cannot hold.
        if (!std::isfinite(value))
          fail(line.number, column, "number out of range: " + std::string(s));
        return value;
      }
    }
    // [-+]?\.(inf|Inf|INF) and \.(nan|NaN|NAN)
    if (unsigned_part == ".inf" || unsigned_part == ".Inf" || unsigned_part == ".INF" ||
        s == ".nan" || s == ".NaN" || s == ".NAN")
      ambiguous("an infinity or NaN");
    // [-+]?[1-9][0-9_]*(:[0-5]?[0-9])+ : a base-60 integer.
    if (auto colon = unsigned_part.find(':');
        colon != std::string_view::npos && all_digits(unsigned_part.substr(0, colon)) &&
        unsigned_part.find_first_not_of("0123456789_:.") == std::string_view::npos)
      ambiguous("a base-60 number");
    return std::string(s);
  }

  // A quoted scalar starting at text[start]; `end` is set just past its closing quote.
  std::string quoted(std::string_view text, std::size_t start, const Line& line,
                     std::size_t& end) const {
    const char quote = text[start];
    std::string out;
    std::size_t i = start + 1;
    while (true) {
      if (i >= text.size())
        fail(line.number, line.indent + start + 1,
             "unterminated quoted scalar (multi-line quoted scalars are not supported)");
      char c = text[i];
      if (quote == '\'') {
        if (c == '\'') {
          if (i + 1 < text.size() && text[i + 1] == '\'') {
            out += '\'';
            i += 2;
            continue;
          }
          end = i + 1;
          return out;
        }
        out += c;
        ++i;
        continue;
      }
      if (c == '"') {
        end = i + 1;
        return out;
      }
      if (c != '\\') {
        out += c;
        ++i;
        continue;
      }
      if (i + 1 >= text.size())
        fail(line.number, line.indent + i + 1, "a '\\' at the end of a double-quoted line");
      char e = text[i + 1];
      i += 2;
      if (char shared = detail::shared_escape_value(e)) {
        out += shared;
        continue;
      }
      std::size_t digits = 0;
      switch (e) {
        case '/':
          out += '/';
          continue;
        case '0':
          out += '\0';
          continue;
        case 'a':
          out += '\a';
          continue;
        case 'v':
          out += '\v';
          continue;
        case 'e':
          out += '\x1b';
          continue;
        case ' ':
          out += ' ';
          continue;
        case 'N':
          detail::append_utf8(out, 0x85);
          continue;
        case '_':
          detail::append_utf8(out, 0xa0);
          continue;
        case 'L':
          detail::append_utf8(out, 0x2028);
          continue;
        case 'P':
          detail::append_utf8(out, 0x2029);
          continue;
        case 'x':
          digits = 2;
          break;
        case 'u':
          digits = 4;
          break;
        case 'U':
          digits = 8;
          break;
        default:
          fail(line.number, line.indent + i - 1,
               std::string("unknown escape '\\") + e + "' in a double-quoted scalar");
      }
      if (i + digits > text.size())
        fail(line.number, line.indent + i - 1, "a short \\" + std::string(1, e) + " escape");
      char32_t code = 0;
      for (std::size_t k = 0; k < digits; ++k) {
        char h = text[i + k];
        int v = std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                : (h >= 'a' && h <= 'f')                    ? h - 'a' + 10
                : (h >= 'A' && h <= 'F')                    ? h - 'A' + 10
                                                            : -1;
        if (v < 0)
          fail(line.number, line.indent + i + k + 1, "a bad hexadecimal digit in an escape");
        code = code * 16 + static_cast<char32_t>(v);
      }
      if ((code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff)
        fail(line.number, line.indent + i - 1, "an escape that is not a Unicode scalar value");
      detail::append_utf8(out, code);
      i += digits;
    }
  }

  static constexpr std::size_t kMaxDepth = 100;
  const std::string& file_;
  std::vector<Line> lines_;
  std::size_t pos_ = 0;
  std::size_t depth_ = 0;
};

}  // namespace

Json parse_yaml_subset(std::string_view text, const std::string& file) {
  return Reader(text, file).parse();
}

}  // namespace zf::validate
