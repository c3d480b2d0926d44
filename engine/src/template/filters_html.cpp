// SPDX-License-Identifier: MIT
// The builtin filters about HTML and URLs: escape/e, forceescape, safe, striptags, urlencode,
// urlize and xmlattr, as Jinja2 3.1's filters.py and utils.py define them with autoescape off.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "template/builtin_filters.hpp"
#include "template/markup.hpp"
#include "template/methods.hpp"
#include "template/python_ops.hpp"
#include "template/python_text.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"

namespace zf {
namespace {

using detail::fail;

Value do_escape(const Value& v, Arguments&, const CallContext&) { return detail::escape(v); }

Value do_forceescape(const Value& v, Arguments&, const CallContext&) {
  v.require_defined();
  return detail::escape(Value(v.str()));  // drops the Markup mark first: escapes again
}

Value do_safe(const Value& v, Arguments&, const CallContext&) { return detail::mark_safe(v); }

Value do_striptags(const Value& v, Arguments&, const CallContext&) {
  v.require_defined();
  return Value(detail::strip_tags(v.str()));
}

// ---- urlencode ----------------------------------------------------------------------------

// urllib.parse.quote_from_bytes: letters, digits and `_.-~` stay, plus `/` unless `for_qs`;
// every other byte of the UTF-8 text becomes %XX. `for_qs` also turns "%20" into "+".
std::string url_quote(const Value& v, bool for_qs) {
  v.require_defined();
  std::string text = v.str();
  std::string out;
  static const char* const kHex = "0123456789ABCDEF";
  for (char ch : text) {
    auto b = static_cast<unsigned char>(ch);
    bool safe = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') ||
                b == '_' || b == '.' || b == '-' || b == '~' || (b == '/' && !for_qs);
    if (safe) {
      out += ch;
    } else if (b == ' ' && for_qs) {
      out += '+';
    } else {
      out += '%';
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
  }
  return out;
}

Value do_urlencode(const Value& v, Arguments&, const CallContext&) {
  v.require_defined();
  if (!v.is_list() && !v.is_dict()) return Value(url_quote(v, false));
  std::vector<std::pair<Value, Value>> items;
  if (v.is_dict()) {
    for (const auto& [key, value] : v.as_dict()) items.emplace_back(Value(key), value);
  } else {
    for (const auto& item : v.as_list()) {
      // Python unpacks each item into (k, v).
      item.require_defined();
      ValueList storage;
      const ValueList& pair = detail::iterate(item, storage);
      if (pair.size() != 2) {
        fail(pair.size() < 2 ? "not enough values to unpack (expected 2, got " +
                                   std::to_string(pair.size()) + ")"
                             : "too many values to unpack (expected 2)");
      }
      items.emplace_back(pair[0], pair[1]);
    }
  }
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += '&';
    out += url_quote(items[i].first, true);
    out += '=';
    out += url_quote(items[i].second, true);
  }
  return Value(std::move(out));
}

// ---- xmlattr ------------------------------------------------------------------------------

Value do_xmlattr(const Value& v, Arguments& args, const CallContext&) {
  v.require_defined();
  if (!v.is_dict()) fail(std::string("'") + v.type_name() + "' object has no attribute 'items'");
  std::string out;
  for (const auto& [key, value] : v.as_dict()) {
    if (value.is_none() || value.is_undefined()) continue;
    // Jinja2 3.1.4 refuses keys with whitespace, '/', '>' or '=' (they would end the name).
    for (std::size_t pos = 0; pos < key.size();) {
      char32_t c;
      pos += detail::decode_utf8(key, pos, c);
      if (detail::is_space(c) || c == '/' || c == '>' || c == '=') {
        fail("Invalid character in attribute name: " + Value(key).repr());
      }
    }
    if (!out.empty()) out += ' ';
    detail::append_html_escaped(out, key);
    out += "=\"";
    out += detail::escape(value).as_string();
    out += '"';
  }
  if (args.bound[0].truthy() && !out.empty()) out.insert(0, " ");
  return Value(std::move(out));
}

// ---- urlize -------------------------------------------------------------------------------

using Text = std::u32string;
using TextView = std::u32string_view;

bool ascii_letter(char32_t c) {
  // `[a-z]` under re.IGNORECASE also matches the long s and the Kelvin sign.
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == 0x17F || c == 0x212A;
}
bool url_word(char32_t c) { return detail::is_word_char(c) || c == '%' || c == '-'; }
bool hex_char(char32_t c) {
  return detail::is_decimal_char(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool starts_with_ci(TextView s, std::size_t pos, std::string_view prefix) {
  if (s.size() - std::min(pos, s.size()) < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char32_t c = s[pos + i];
    char32_t p = static_cast<unsigned char>(prefix[i]);
    if (c >= 'A' && c <= 'Z') c += 32;
    if (c == 0x17F) c = 's';
    if (c == 0x212A) c = 'k';
    if (c != p) return false;
  }
  return true;
}

// `(?::\d{1,5})?(?:[/?#]\S*)?$` from `pos`: a word has no whitespace, so the path is the rest.
bool port_and_path(TextView s, std::size_t pos) {
  if (pos < s.size() && s[pos] == ':') {
    std::size_t end = pos + 1;
    while (end < s.size() && end - pos <= 5 && detail::is_decimal_char(s[end])) ++end;
    // Any 1..5 digits may be the port; the rest must then be empty or a path.
    for (std::size_t p = pos + 2; p <= end && p - pos - 1 <= 5; ++p) {
      if (p == s.size() || s[p] == '/' || s[p] == '?' || s[p] == '#') return true;
    }
  }
  return pos == s.size() || s[pos] == '/' || s[pos] == '?' || s[pos] == '#';
}

// Positions after `(label.)+` (labels of `[\w%-]` with `min`..`max` code points) from `pos`.
std::vector<std::size_t> after_labels(TextView s, std::size_t pos, std::size_t min,
                                      std::size_t max) {
  std::vector<std::size_t> ends;
  std::size_t start = pos;
  while (true) {
    std::size_t i = start;
    while (i < s.size() && url_word(s[i])) ++i;
    if (i >= s.size() || s[i] != '.' || i - start < min || i - start > max) break;
    ends.push_back(i + 1);
    start = i + 1;
  }
  return ends;
}

bool ipv4(TextView s, std::size_t pos, std::size_t& end) {
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (pos >= s.size() || s[pos] != '.') return false;
      ++pos;
    }
    std::size_t digits = 0;
    while (pos < s.size() && digits < 3 && detail::is_decimal_char(s[pos])) ++pos, ++digits;
    if (digits == 0) return false;
  }
  end = pos;
  return true;
}

// `\[([\da-f]{0,4}:){2}([\da-f]{0,4}:?){1,6}]` followed by the port and path: every way the
// repetitions can split the text is tried (the groups are short, so this stays small).
bool ipv6_rest(TextView s, std::size_t pos, int groups) {
  if (groups >= 1 && pos < s.size() && s[pos] == ']' && port_and_path(s, pos + 1)) return true;
  if (groups == 6) return false;
  for (std::size_t n = 0; n <= 4; ++n) {
    if (n > 0 && (pos + n > s.size() || !hex_char(s[pos + n - 1]))) break;
    std::size_t after = pos + n;
    if (after < s.size() && s[after] == ':' && ipv6_rest(s, after + 1, groups + 1)) return true;
    // An empty group without ':' repeats nothing new; Python's regex stops it too.
    if (n > 0 && ipv6_rest(s, after, groups + 1)) return true;
  }
  return false;
}

bool ipv6(TextView s, std::size_t pos) {
  if (pos >= s.size() || s[pos] != '[') return false;
  ++pos;
  for (int group = 0; group < 2; ++group) {
    std::size_t n = 0;
    while (n < 4 && pos + n < s.size() && hex_char(s[pos + n])) ++n;
    // `[\da-f]{0,4}:` must end at a ':': backtracking cannot help, hex digits are not ':'.
    if (pos + n >= s.size() || s[pos + n] != ':') return false;
    pos += n + 1;
  }
  return ipv6_rest(s, pos, 0);
}

// utils.py's `_http_re`, matched against the whole word.
bool is_http_url(TextView s) {
  // https?:// or www.
  std::size_t after_scheme = 0;
  bool scheme = false;
  if (starts_with_ci(s, 0, "https://")) {
    after_scheme = 8;
    scheme = true;
  } else if (starts_with_ci(s, 0, "http://")) {
    after_scheme = 7;
    scheme = true;
  } else if (starts_with_ci(s, 0, "www.")) {
    after_scheme = 4;
  }
  if (after_scheme > 0) {
    std::vector<std::size_t> starts{after_scheme};
    for (std::size_t p : after_labels(s, after_scheme, 1, s.size())) starts.push_back(p);
    for (std::size_t p : starts) {
      // [a-z]{2,63}
      std::size_t n = 0;
      while (p + n < s.size() && n < 63 && ascii_letter(s[p + n])) ++n;
      for (std::size_t k = 2; k <= n; ++k) {
        if (port_and_path(s, p + k)) return true;
      }
      // xn--[\w%]{2,59}
      if (starts_with_ci(s, p, "xn--")) {
        std::size_t q = p + 4, m = 0;
        while (q + m < s.size() && m < 59 && (detail::is_word_char(s[q + m]) || s[q + m] == '%'))
          ++m;
        for (std::size_t k = 2; k <= m; ++k) {
          if (port_and_path(s, q + k)) return true;
        }
      }
    }
  }
  // ([\w%-]{2,63}\.)+(com|net|int|edu|gov|org|info|mil)
  for (std::size_t p : after_labels(s, 0, 2, 63)) {
    for (std::string_view tld : {"com", "net", "int", "edu", "gov", "org", "info", "mil"}) {
      if (starts_with_ci(s, p, tld) && port_and_path(s, p + tld.size())) return true;
    }
  }
  if (scheme) {
    std::size_t end;
    if (ipv4(s, after_scheme, end) && port_and_path(s, end)) return true;
    if (ipv6(s, after_scheme)) return true;
  }
  return false;
}

// `^\S+@\w[\w.-]*\.\w+$` on a word without whitespace.
bool is_email(TextView s) {
  for (std::size_t at = 1; at < s.size(); ++at) {
    if (s[at] != '@') continue;
    TextView domain = s.substr(at + 1);
    if (domain.empty() || !detail::is_word_char(domain[0])) continue;
    std::size_t dot = domain.rfind(U'.');
    if (dot == TextView::npos || dot == 0 || dot + 1 == domain.size()) continue;
    bool ok = std::all_of(domain.begin(), domain.end(), [](char32_t c) {
      return detail::is_word_char(c) || c == '.' || c == '-';
    });
    ok = ok && std::all_of(domain.begin() + static_cast<std::ptrdiff_t>(dot) + 1, domain.end(),
                           [](char32_t c) { return detail::is_word_char(c); });
    if (ok) return true;
  }
  return false;
}

std::size_t count_of(TextView s, TextView sub) {
  std::size_t n = 0;
  for (std::size_t pos = s.find(sub); pos != TextView::npos; pos = s.find(sub, pos + sub.size()))
    ++n;
  return n;
}

bool starts_with(TextView s, TextView prefix) { return s.substr(0, prefix.size()) == prefix; }

// `^\S+` `^([\w.+-]{2,}:(/){0,2})$`: what may start an extra scheme.
bool valid_scheme(TextView s) {
  std::size_t n = 0;
  while (n < s.size() && (detail::is_word_char(s[n]) || s[n] == '.' || s[n] == '+' || s[n] == '-'))
    ++n;
  if (n < 2 || n >= s.size() || s[n] != ':') return false;
  std::size_t slashes = s.size() - n - 1;
  return slashes <= 2 && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(n) + 1, s.end(),
                                     [](char32_t c) { return c == '/'; });
}

struct UrlizeOptions {
  std::optional<std::int64_t> trim_limit;
  Text rel_attr, target_attr;
  std::vector<Text> extra_schemes;
};

Text trim_url(const Text& url, const UrlizeOptions& o) {
  if (!o.trim_limit) return url;
  auto size = static_cast<std::int64_t>(url.size());
  if (size <= *o.trim_limit) return url;
  std::int64_t keep =
      *o.trim_limit < 0 ? std::max<std::int64_t>(size + *o.trim_limit, 0) : *o.trim_limit;
  return url.substr(0, static_cast<std::size_t>(keep)) + U"...";
}

Text urlize_word(const Text& word, const UrlizeOptions& o) {
  Text head, middle = word, tail;
  // Leading `(`, `<` and `&lt;`.
  std::size_t lead = 0;
  while (lead < middle.size()) {
    if (middle[lead] == '(' || middle[lead] == '<') {
      ++lead;
    } else if (middle.compare(lead, 4, U"&lt;") == 0) {
      lead += 4;
    } else {
      break;
    }
  }
  head = middle.substr(0, lead);
  middle = middle.substr(lead);
  // Trailing `)`, `>`, `.`, `,`, newline and `&gt;`: the leftmost start from which the rest
  // is made of them only.
  std::vector<bool> rest_ok(middle.size() + 1, false);
  rest_ok[middle.size()] = true;
  for (std::size_t p = middle.size(); p-- > 0;) {
    char32_t c = middle[p];
    rest_ok[p] = ((c == ')' || c == '>' || c == '.' || c == ',' || c == '\n') && rest_ok[p + 1]) ||
                 (middle.compare(p, 4, U"&gt;") == 0 && rest_ok[p + 4]);
  }
  for (std::size_t p = 0; p < middle.size(); ++p) {
    if (rest_ok[p]) {
      tail = middle.substr(p);
      middle.resize(p);
      break;
    }
  }
  // Balance brackets by moving closing ones back from the tail.
  for (auto [open, close] :
       {std::pair<TextView, TextView>{U"(", U")"}, {U"<", U">"}, {U"&lt;", U"&gt;"}}) {
    std::size_t opened = count_of(middle, open);
    if (opened <= count_of(middle, close)) continue;
    std::size_t moves = std::min(opened, count_of(tail, close));
    for (std::size_t i = 0; i < moves; ++i) {
      std::size_t end = tail.find(close) + close.size();
      middle += tail.substr(0, end);
      tail = tail.substr(end);
    }
  }
  if (is_http_url(middle)) {
    bool has_scheme = starts_with(middle, U"https://") || starts_with(middle, U"http://");
    middle = U"<a href=\"" + Text(has_scheme ? U"" : U"https://") + middle + U"\"" + o.rel_attr +
             o.target_attr + U">" + trim_url(middle, o) + U"</a>";
  } else if (starts_with(middle, U"mailto:") && is_email(TextView(middle).substr(7))) {
    middle = U"<a href=\"" + middle + U"\">" + middle.substr(7) + U"</a>";
  } else if (middle.find(U'@') != Text::npos && !starts_with(middle, U"www.") &&
             !starts_with(middle, U"@") && middle.find(U':') == Text::npos && is_email(middle)) {
    middle = U"<a href=\"mailto:" + middle + U"\">" + middle + U"</a>";
  } else {
    // Jinja2 keeps looping after a match, so a later scheme can wrap the link again.
    for (const Text& scheme : o.extra_schemes) {
      if (middle != scheme && starts_with(middle, scheme)) {
        middle =
            U"<a href=\"" + middle + U"\"" + o.rel_attr + o.target_attr + U">" + middle + U"</a>";
      }
    }
  }
  return head + middle + tail;
}

Text attribute(const char* name, const Value& value) {
  return detail::to_code_points(std::string(" ") + name + "=\"" +
                                detail::escape(value).as_string() + "\"");
}

Value do_urlize(const Value& v, Arguments& args, const CallContext&) {
  UrlizeOptions o;
  const Value& limit = args.bound[0];
  if (!limit.is_none()) o.trim_limit = detail::to_index(limit);
  // rel: the words of `rel`, "nofollow" when asked, and the policy's "noopener", sorted.
  std::vector<std::string> rel;
  const Value& rel_arg = args.bound[3];
  if (rel_arg.truthy()) {
    if (!rel_arg.is_string()) {
      fail(std::string("'") + rel_arg.type_name() + "' object has no attribute 'split'");
    }
    const Value words = detail::call_method(rel_arg, "split", {}, {});
    for (const auto& word : words.as_list()) rel.push_back(word.as_string());
  }
  if (args.bound[1].truthy()) rel.emplace_back("nofollow");
  rel.emplace_back("noopener");
  std::sort(rel.begin(), rel.end());
  rel.erase(std::unique(rel.begin(), rel.end()), rel.end());
  std::string rel_text;
  for (const auto& word : rel) rel_text += (rel_text.empty() ? "" : " ") + word;
  o.rel_attr = attribute("rel", Value(rel_text));
  const Value& target = args.bound[2];
  if (target.truthy()) o.target_attr = attribute("target", target);
  const Value& schemes = args.bound[4];
  if (!schemes.is_none()) {
    ValueList storage;
    for (const auto& scheme : detail::iterate(schemes, storage)) {
      if (!scheme.is_string() || !valid_scheme(detail::to_code_points(scheme.as_string()))) {
        fail(scheme.repr() + " is not a valid URI scheme prefix.");
      }
      o.extra_schemes.push_back(detail::to_code_points(scheme.as_string()));
    }
  }
  Text text = detail::to_code_points(detail::escape(v).as_string());
  // re.split(r"(\s+)"): words and the whitespace runs between them, both kept.
  Text out;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t j = i;
    bool space = detail::is_space(text[i]);
    while (j < text.size() && detail::is_space(text[j]) == space) ++j;
    Text piece = text.substr(i, j - i);
    out += space ? piece : urlize_word(piece, o);
    i = j;
  }
  return Value(detail::from_code_points(out));
}

}  // namespace

namespace detail {

void register_html_filters(FunctionRegistry& registry) {
  const Value none(nullptr);
  auto add = [&](FunctionSpec spec) { registry.add(FunctionKind::Filter, std::move(spec)); };
  add({"escape", {}, false, do_escape});
  add({"forceescape", {}, false, do_forceescape});
  add({"safe", {}, false, do_safe});
  add({"striptags", {}, false, do_striptags});
  add({"urlencode", {}, false, do_urlencode});
  add({"urlize",
       {Parameter{"trim_url_limit", none}, Parameter{"nofollow", Value(false)},
        Parameter{"target", none}, Parameter{"rel", none}, Parameter{"extra_schemes", none}},
       false,
       do_urlize});
  add({"xmlattr", {Parameter{"autospace", Value(true)}}, false, do_xmlattr});
  registry.add_alias(FunctionKind::Filter, "e", "escape");
}

}  // namespace detail
}  // namespace zf
