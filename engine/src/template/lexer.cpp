// SPDX-License-Identifier: MIT
// Jinja2's lexer rules: data/tag scanning, whitespace control, comments, raw blocks, and the
// tokens inside `{{ }}` and `{% %}` (names, numbers, strings, operators).
#include "template/lexer.hpp"

#include <cstring>

#include "source_position.hpp"

namespace zf::detail {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

class Lexer {
 public:
  Lexer(std::string_view source, const std::string& name, const LexerOptions& options)
      : src_(source), name_(name), options_(options) {}

  std::vector<Token> run() {
    tokens_.reserve(src_.size() / 8 + 8);
    while (pos_ < src_.size()) {
      std::size_t tag = find_tag(pos_);
      if (tag == std::string_view::npos) {
        emit_data(pos_, src_.size());
        pos_ = src_.size();
        break;
      }
      char kind = src_[tag + 1];  // '{', '%' or '#'
      char modifier = tag + 2 < src_.size() ? src_[tag + 2] : '\0';
      std::size_t data_end = tag;
      if (modifier == '-') {
        while (data_end > pos_ && is_space(src_[data_end - 1])) --data_end;
      } else if (options_.lstrip_blocks && modifier != '+' && (kind == '%' || kind == '#')) {
        data_end = lstrip_end(pos_, tag);
      }
      emit_data(pos_, data_end);
      std::size_t inner = tag + 2 + ((modifier == '-' || modifier == '+') ? 1 : 0);
      if (kind == '#') {
        lex_comment(tag, inner);
      } else if (kind == '%' && try_raw(tag, inner)) {
        // handled
      } else {
        lex_tag(tag, inner, kind == '{');
      }
    }
    tokens_.push_back({TokenKind::End, {}, src_.size()});
    return std::move(tokens_);
  }

 private:
  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    throw error_at(ErrorKind::Syntax, message, name_, src_, offset);
  }

  std::size_t find_tag(std::size_t from) const {
    while (true) {
      std::size_t brace = src_.find('{', from);
      if (brace == std::string_view::npos || brace + 1 >= src_.size())
        return std::string_view::npos;
      char next = src_[brace + 1];
      if (next == '{' || next == '%' || next == '#') return brace;
      from = brace + 1;
    }
  }

  // lstrip_blocks: strip spaces and tabs between the start of the line and the tag, when only
  // those stand there and the line starts inside this data (or the previous token ended a line).
  std::size_t lstrip_end(std::size_t begin, std::size_t tag) const {
    std::size_t i = tag;
    while (i > begin && (src_[i - 1] == ' ' || src_[i - 1] == '\t')) --i;
    if (i > begin) return src_[i - 1] == '\n' ? i : tag;
    bool line_start = begin == 0 || src_[begin - 1] == '\n';
    return line_start ? i : tag;
  }

  void emit_data(std::size_t begin, std::size_t end) {
    if (end > begin) tokens_.push_back({TokenKind::Data, src_.substr(begin, end - begin), begin});
  }

  // After a closing tag: `-` strips all following whitespace; trim_blocks removes one newline
  // after block and comment tags unless the tag ends with `+`.
  void after_close(std::size_t close_end, char modifier, bool block_like) {
    pos_ = close_end;
    if (modifier == '-') {
      while (pos_ < src_.size() && is_space(src_[pos_])) ++pos_;
    } else if (block_like && options_.trim_blocks && modifier != '+' && pos_ < src_.size() &&
               src_[pos_] == '\n') {
      ++pos_;
    }
  }

  void lex_comment(std::size_t tag, std::size_t inner) {
    std::size_t close = src_.find("#}", inner);
    if (close == std::string_view::npos) fail(tag, "unclosed comment: missing '#}'");
    char modifier = '\0';
    if (close > inner && (src_[close - 1] == '-' || src_[close - 1] == '+'))
      modifier = src_[close - 1];
    after_close(close + 2, modifier, true);
  }

  // `{% raw %}...{% endraw %}`: everything between is data, untouched. As in Jinja2's lexer,
  // trim_blocks applies after `endraw` but not after `raw`, and `raw +%}` is not accepted.
  bool try_raw(std::size_t tag, std::size_t inner) {
    std::size_t i = inner;
    while (i < src_.size() && is_space(src_[i])) ++i;
    if (src_.compare(i, 3, "raw") != 0) return false;
    i += 3;
    if (i < src_.size() && is_name_char(src_[i])) return false;
    while (i < src_.size() && is_space(src_[i])) ++i;
    bool strip_body = i < src_.size() && src_[i] == '-';
    if (strip_body) ++i;
    if (src_.compare(i, 2, "%}") != 0) fail(i, "expected '%}' after 'raw'");
    std::size_t body = i + 2;
    if (strip_body) {
      while (body < src_.size() && is_space(src_[body])) ++body;
    }
    // Find `{%[-+]? endraw [-+]?%}`.
    std::size_t search = body;
    while (true) {
      std::size_t open = src_.find("{%", search);
      if (open == std::string_view::npos) fail(tag, "unclosed 'raw' block: missing '{% endraw %}'");
      std::size_t j = open + 2;
      char left = '\0';
      if (j < src_.size() && (src_[j] == '-' || src_[j] == '+')) left = src_[j++];
      while (j < src_.size() && is_space(src_[j])) ++j;
      if (src_.compare(j, 6, "endraw") != 0 || (j + 6 < src_.size() && is_name_char(src_[j + 6]))) {
        search = open + 2;
        continue;
      }
      j += 6;
      while (j < src_.size() && is_space(src_[j])) ++j;
      char right = '\0';
      if (j < src_.size() && (src_[j] == '-' || src_[j] == '+')) right = src_[j++];
      if (src_.compare(j, 2, "%}") != 0) fail(j, "expected '%}' after 'endraw'");
      std::size_t body_end = open;
      if (left == '-') {
        while (body_end > body && is_space(src_[body_end - 1])) --body_end;
      } else if (options_.lstrip_blocks && left != '+') {
        body_end = lstrip_end(body, open);
      }
      emit_data(body, body_end);
      after_close(j + 2, right, true);
      return true;
    }
  }

  void lex_tag(std::size_t tag, std::size_t inner, bool variable) {
    tokens_.push_back({variable ? TokenKind::VariableBegin : TokenKind::BlockBegin,
                       src_.substr(tag, inner - tag), tag});
    std::string open_brackets;  // the brackets open inside this tag, innermost last
    std::size_t i = inner;
    while (true) {
      while (i < src_.size() && is_space(src_[i])) ++i;
      if (i >= src_.size()) {
        fail(tag, variable ? "unclosed '{{': missing '}}'" : "unclosed '{%': missing '%}'");
      }
      if (open_brackets.empty()) {
        // End of tag, with optional whitespace-control modifier.
        char c = src_[i];
        if ((c == '-' || c == '+') && src_.compare(i + 1, 2, variable ? "}}" : "%}") == 0) {
          if (c == '+' && variable) fail(i, "unexpected '+'");
          tokens_.push_back(
              {variable ? TokenKind::VariableEnd : TokenKind::BlockEnd, src_.substr(i, 3), i});
          after_close(i + 3, c, !variable);
          return;
        }
        if (src_.compare(i, 2, variable ? "}}" : "%}") == 0) {
          tokens_.push_back(
              {variable ? TokenKind::VariableEnd : TokenKind::BlockEnd, src_.substr(i, 2), i});
          after_close(i + 2, '\0', !variable);
          return;
        }
      }
      i = lex_expression_token(i, open_brackets);
    }
  }

  std::size_t lex_expression_token(std::size_t i, std::string& open_brackets) {
    char c = src_[i];
    if (is_name_start(c)) {
      std::size_t j = i + 1;
      while (j < src_.size() && is_name_char(src_[j])) ++j;
      tokens_.push_back({TokenKind::Name, src_.substr(i, j - i), i});
      return j;
    }
    if (is_digit(c)) return lex_number(i);
    if (c == '\'' || c == '"') {
      std::size_t j = i + 1;
      while (j < src_.size() && src_[j] != c) {
        if (src_[j] == '\\') ++j;
        ++j;
      }
      if (j >= src_.size()) fail(i, "unterminated string");
      tokens_.push_back({TokenKind::String, src_.substr(i, j + 1 - i), i});
      return j + 1;
    }
    struct Op {
      const char* text;
      TokenKind kind;
    };
    static const Op ops[] = {
        {"**", TokenKind::StarStar},    {"//", TokenKind::SlashSlash},
        {"==", TokenKind::Equal},       {"!=", TokenKind::NotEqual},
        {"<=", TokenKind::LessEqual},   {">=", TokenKind::GreaterEqual},
        {"+", TokenKind::Plus},         {"-", TokenKind::Minus},
        {"*", TokenKind::Star},         {"/", TokenKind::Slash},
        {"%", TokenKind::Percent},      {"~", TokenKind::Tilde},
        {".", TokenKind::Dot},          {",", TokenKind::Comma},
        {":", TokenKind::Colon},        {"|", TokenKind::Pipe},
        {"=", TokenKind::Assign},       {"<", TokenKind::Less},
        {">", TokenKind::Greater},      {"(", TokenKind::LeftParen},
        {")", TokenKind::RightParen},   {"[", TokenKind::LeftBracket},
        {"]", TokenKind::RightBracket}, {"{", TokenKind::LeftBrace},
        {"}", TokenKind::RightBrace},
    };
    for (const auto& op : ops) {
      std::size_t len = std::strlen(op.text);
      if (src_.compare(i, len, op.text) != 0) continue;
      if (op.kind == TokenKind::LeftParen || op.kind == TokenKind::LeftBracket ||
          op.kind == TokenKind::LeftBrace) {
        open_brackets += op.text[0];
      } else if (op.kind == TokenKind::RightParen || op.kind == TokenKind::RightBracket ||
                 op.kind == TokenKind::RightBrace) {
        if (open_brackets.empty()) fail(i, std::string("unexpected '") + op.text + "'");
        char open = open_brackets.back();
        char expected = open == '(' ? ')' : open == '[' ? ']' : '}';
        if (op.text[0] != expected) {
          fail(i, std::string("unexpected '") + op.text + "', expected '" + expected + "'");
        }
        open_brackets.pop_back();
      }
      tokens_.push_back({op.kind, src_.substr(i, len), i});
      return i + len;
    }
    fail(i, std::string("unexpected character '") + c + "'");
  }

  std::size_t lex_number(std::size_t i) {
    auto digits = [&](std::size_t j, auto accept) {
      while (j < src_.size() &&
             (accept(src_[j]) || (src_[j] == '_' && j + 1 < src_.size() && accept(src_[j + 1]))))
        ++j;
      return j;
    };
    auto dec = [](char ch) { return is_digit(ch); };
    bool after_dot = !tokens_.empty() && tokens_.back().kind == TokenKind::Dot;
    if (src_[i] == '0' && i + 1 < src_.size()) {
      char p = static_cast<char>(src_[i + 1] | 0x20);
      auto base_digit = [p](char ch) {
        if (p == 'b') return ch == '0' || ch == '1';
        if (p == 'o') return ch >= '0' && ch <= '7';
        return is_digit(ch) || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f');
      };
      if ((p == 'b' || p == 'o' || p == 'x') && i + 2 < src_.size() &&
          (base_digit(src_[i + 2]) || src_[i + 2] == '_')) {
        std::size_t j = i + 2;
        if (src_[j] == '_') ++j;
        j = digits(j, base_digit);
        tokens_.push_back({TokenKind::Integer, src_.substr(i, j - i), i});
        return j;
      }
    }
    std::size_t j = digits(i, dec);
    bool is_float = false;
    if (!after_dot) {
      if (j + 1 < src_.size() && src_[j] == '.' && is_digit(src_[j + 1])) {
        j = digits(j + 1, dec);
        is_float = true;
      }
      if (j < src_.size() && (src_[j] == 'e' || src_[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < src_.size() && (src_[k] == '+' || src_[k] == '-')) ++k;
        if (k < src_.size() && is_digit(src_[k])) {
          j = digits(k, dec);
          is_float = true;
        }
      }
    }
    std::string_view text = src_.substr(i, j - i);
    // As in Python (and Jinja2's integer rule), `007` is not an integer; `0_0` and `007.5` are
    // fine.
    if (!is_float && text.size() > 1 && text[0] == '0' &&
        text.find_first_not_of("0_") != std::string_view::npos) {
      fail(i, "leading zeros in decimal integer literals are not permitted");
    }
    tokens_.push_back({is_float ? TokenKind::Float : TokenKind::Integer, text, i});
    return j;
  }

  std::string_view src_;
  const std::string& name_;
  LexerOptions options_;
  std::size_t pos_ = 0;
  std::vector<Token> tokens_;
};

}  // namespace

std::string normalize_source(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    char c = source[i];
    if (c == '\r') {
      out += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      out += c;
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::vector<Token> tokenize(std::string_view source, const std::string& name,
                            const LexerOptions& options) {
  return Lexer(source, name, options).run();
}

const char* describe(TokenKind kind) noexcept {
  switch (kind) {
    case TokenKind::Data:
      return "template data";
    case TokenKind::VariableBegin:
      return "'{{'";
    case TokenKind::VariableEnd:
      return "end of print statement '}}'";
    case TokenKind::BlockBegin:
      return "'{%'";
    case TokenKind::BlockEnd:
      return "end of statement block '%}'";
    case TokenKind::Name:
      return "name";
    case TokenKind::Integer:
      return "integer";
    case TokenKind::Float:
      return "float";
    case TokenKind::String:
      return "string";
    case TokenKind::Plus:
      return "'+'";
    case TokenKind::Minus:
      return "'-'";
    case TokenKind::Star:
      return "'*'";
    case TokenKind::StarStar:
      return "'**'";
    case TokenKind::Slash:
      return "'/'";
    case TokenKind::SlashSlash:
      return "'//'";
    case TokenKind::Percent:
      return "'%'";
    case TokenKind::Tilde:
      return "'~'";
    case TokenKind::Dot:
      return "'.'";
    case TokenKind::Comma:
      return "','";
    case TokenKind::Colon:
      return "':'";
    case TokenKind::Pipe:
      return "'|'";
    case TokenKind::Assign:
      return "'='";
    case TokenKind::Equal:
      return "'=='";
    case TokenKind::NotEqual:
      return "'!='";
    case TokenKind::Less:
      return "'<'";
    case TokenKind::LessEqual:
      return "'<='";
    case TokenKind::Greater:
      return "'>'";
    case TokenKind::GreaterEqual:
      return "'>='";
    case TokenKind::LeftParen:
      return "'('";
    case TokenKind::RightParen:
      return "')'";
    case TokenKind::LeftBracket:
      return "'['";
    case TokenKind::RightBracket:
      return "']'";
    case TokenKind::LeftBrace:
      return "'{'";
    case TokenKind::RightBrace:
      return "'}'";
    case TokenKind::End:
      return "end of template";
  }
  return "token";
}

}  // namespace zf::detail
