// SPDX-License-Identifier: MIT
// parse_json_text: a strict JSON reader that keeps key order, rejects duplicate keys, turns
// integral exponent numbers (`5e8`) into integers and reports line and column.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "io/json_limits.hpp"
#include "source_position.hpp"
#include "text_helpers.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

using json = nlohmann::ordered_json;

class Reader {
 public:
  Reader(std::string_view text, const std::string& name, JsonNumbers numbers)
      : text_(text), name_(name), numbers_(numbers) {}

  json document() {
    skip_space();
    json value = parse_value(0);
    skip_space();
    if (pos_ < text_.size()) fail("unexpected " + describe_here() + " after the JSON value");
    return value;
  }

 private:
  static constexpr int kMaxDepth = detail::kMaxJsonDepth;

  [[noreturn]] void fail(const std::string& message) const { fail_at(pos_, message); }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    auto [line, column] = detail::line_column(text_, offset);
    // Its own code: a file zeroforge reads is not valid JSON. `output.json` (the kind's code)
    // stays what it has always meant, a rendered config that is not JSON.
    throw CodedError(
        Error(ErrorKind::Json, message, Location{name_, line, column})
            .located(Location{name_, line, column}, std::string(detail::line_text(text_, offset))),
        codes::json_syntax);
  }

  std::string describe_here() const {
    if (pos_ >= text_.size()) return "end of input";
    char c = text_[pos_];
    if (static_cast<unsigned char>(c) < 0x20) return "control character";
    return std::string("'") + c + "'";
  }

  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
      ++pos_;
    }
  }

  bool consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  json parse_value(int depth) {
    if (depth > kMaxDepth) fail("JSON nested too deeply");
    if (pos_ >= text_.size()) fail("expected a JSON value, found end of input");
    char c = text_[pos_];
    switch (c) {
      case '{':
        return parse_object(depth);
      case '[':
        return parse_array(depth);
      case '"':
        return parse_string();
      case 't':
        expect_word("true");
        return true;
      case 'f':
        expect_word("false");
        return false;
      case 'n':
        expect_word("null");
        return nullptr;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
        fail("expected a JSON value, found " + describe_here());
    }
  }

  void expect_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      fail("expected a JSON value, found " + describe_here());
    pos_ += word.size();
  }

  json parse_object(int depth) {
    ++pos_;  // {
    json object = json::object();
    skip_space();
    if (consume('}')) return object;
    // Members are collected in a buffer kept per depth (reused by every object at that
    // depth) and moved into the object at its exact size: growing nlohmann's ordered_map one
    // member at a time reallocated and moved every member several times per object.
    if (members_.size() <= static_cast<std::size_t>(depth))
      members_.resize(static_cast<std::size_t>(depth) + 1);
    auto& members = members_[static_cast<std::size_t>(depth)];
    members.clear();
    while (true) {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"') {
        fail("expected a string key, found " + describe_here());
      }
      std::size_t key_offset = pos_;
      std::string key = parse_string_raw();
      if (is_duplicate(depth, members, key)) {
        fail_at(key_offset, "duplicate key \"" + key + "\"");
      }
      skip_space();
      if (!consume(':')) fail("expected ':' after key \"" + key + "\", found " + describe_here());
      skip_space();
      json value = parse_value(depth + 1);
      members.emplace_back(std::move(key), std::move(value));
      skip_space();
      if (consume('}')) break;
      if (!consume(',')) fail("expected ',' or '}' in object, found " + describe_here());
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == '}') fail("trailing comma in object");
    }
    auto& target = object.get_ref<json::object_t&>();
    target.reserve(members.size());
    for (auto& [key, value] : members) target.emplace_back(std::move(key), std::move(value));
    members.clear();
    if (key_sets_.size() > static_cast<std::size_t>(depth))
      key_sets_[static_cast<std::size_t>(depth)].clear();
    return object;
  }

  // Whether `key` is already a member. A linear scan while the object is small; from
  // kHashedFrom members on, an open-addressing index of the members (one per depth, like the
  // member buffers) that holds their positions, not copies of their keys: an object of a
  // million keys is read in linear time and without an allocation per key.
  bool is_duplicate(int depth, const std::vector<std::pair<std::string, json>>& members,
                    const std::string& key) {
    constexpr std::size_t kHashedFrom = 32;
    if (members.size() < kHashedFrom) {
      for (const auto& member : members) {
        if (member.first == key) return true;
      }
      return false;
    }
    if (key_sets_.size() <= static_cast<std::size_t>(depth))
      key_sets_.resize(static_cast<std::size_t>(depth) + 1);
    KeyIndex& index = key_sets_[static_cast<std::size_t>(depth)];
    if (index.used == 0 || index.used * 2 >= index.slots.size()) index.rebuild(members);
    // `key` becomes member members.size() (the caller appends it next).
    return !index.insert(members, key, static_cast<std::uint32_t>(members.size()));
  }

  // Positions + 1 of an object's members by the hash of their keys (0: an empty slot); a
  // power of two of slots, at most half of them used.
  struct KeyIndex {
    std::vector<std::uint32_t> slots;
    std::size_t used = 0;

    static std::uint64_t hash(std::string_view key) noexcept {
      std::uint64_t h = 0xCBF29CE484222325ULL;
      for (char c : key) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ULL;
      return h;
    }
    // Inserts position `at` for `key` unless a member has that key (then false).
    bool insert(const std::vector<std::pair<std::string, json>>& members, std::string_view key,
                std::uint32_t at) {
      const std::size_t mask = slots.size() - 1;
      for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
        if (slots[i] == 0) {
          slots[i] = at + 1;
          ++used;
          return true;
        }
        if (members[slots[i] - 1].first == key) return false;
      }
    }
    void rebuild(const std::vector<std::pair<std::string, json>>& members) {
      std::size_t size = 64;
      while (size < 4 * (members.size() + 1)) size *= 2;
      slots.assign(size, 0);
      used = 0;
      for (std::size_t i = 0; i < members.size(); ++i)
        insert(members, members[i].first, static_cast<std::uint32_t>(i));
    }
    void clear() noexcept { used = 0; }
  };

  json parse_array(int depth) {
    ++pos_;  // [
    json array = json::array();
    skip_space();
    if (consume(']')) return array;
    while (true) {
      skip_space();
      array.push_back(parse_value(depth + 1));
      skip_space();
      if (consume(']')) return array;
      if (!consume(',')) fail("expected ',' or ']' in array, found " + describe_here());
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ']') fail("trailing comma in array");
    }
  }

  json parse_string() { return parse_string_raw(); }

  std::uint32_t parse_hex4() {
    if (pos_ + 4 > text_.size()) fail("incomplete \\u escape");
    std::uint32_t cp = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      cp <<= 4;
      if (c >= '0' && c <= '9') {
        cp |= static_cast<std::uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        cp |= static_cast<std::uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        cp |= static_cast<std::uint32_t>(c - 'A' + 10);
      } else {
        --pos_;
        fail("invalid \\u escape");
      }
    }
    return cp;
  }

  // Fails at the first byte of text_[begin, end) that is not well-formed UTF-8: the output
  // is JSON text, which must be UTF-8.
  void check_utf8(std::size_t begin, std::size_t end) const {
    const std::size_t bad = detail::invalid_utf8_at(text_.substr(begin, end - begin));
    if (bad == std::string_view::npos) return;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text_[begin + bad]));
    fail_at(begin + bad, std::string("invalid UTF-8 (byte ") + byte + "); JSON text is UTF-8");
  }

  std::string parse_string_raw() {
    std::size_t start = pos_++;
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail_at(start, "unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string (escape it)");
      if (c != '\\') {
        // A run of plain characters is appended at once; it is found 8 bytes at a time, and
        // checked for UTF-8 only when one of its bytes is not ASCII (rendered configs, read
        // back on generate's hot path, rarely have one). Outside strings such a byte is a
        // syntax error anyway, and a run never splits a sequence: it ends at an ASCII byte.
        std::size_t run = pos_ + 1;
        std::uint64_t high_bits = static_cast<unsigned char>(c);
        while (run + 8 <= text_.size()) {
          std::uint64_t word;
          std::memcpy(&word, text_.data() + run, 8);
          if (detail::json_word_needs_escape(word)) break;
          high_bits |= word;
          run += 8;
        }
        while (run < text_.size()) {
          char r = text_[run];
          if (r == '"' || r == '\\' || static_cast<unsigned char>(r) < 0x20) break;
          high_bits |= static_cast<unsigned char>(r);
          ++run;
        }
        if (high_bits & 0x8080808080808080ull) check_utf8(pos_, run);
        out.append(text_, pos_, run - pos_);
        pos_ = run;
        continue;
      }
      ++pos_;
      if (pos_ >= text_.size()) fail_at(start, "unterminated string");
      char e = text_[pos_++];
      if (char plain = detail::shared_escape_value(e)) {
        out += plain;
        continue;
      }
      switch (e) {
        case '/':
          out += '/';
          break;
        case 'u': {
          std::uint32_t cp = parse_hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            std::uint32_t low = parse_hex4();
            if (low >= 0xDC00 && low <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else {
              fail("invalid surrogate pair");
            }
          } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            // A lone surrogate is no character: written out it would be invalid UTF-8.
            fail_at(pos_ - 6, "a lone surrogate escape (\\u" +
                                  std::string(text_.substr(pos_ - 4, 4)) + ") is not a character");
          }
          detail::append_utf8(out, cp);
          break;
        }
        default:
          --pos_;
          fail(std::string("invalid escape '\\") + e + "'");
      }
    }
  }

  json parse_number() {
    std::size_t start = pos_;
    consume('-');
    auto digits = [&] {
      std::size_t n = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_, ++n;
      return n;
    };
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
      if (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        fail_at(start, "numbers cannot have leading zeros");
      }
    } else if (digits() == 0) {
      fail_at(start, "invalid number");
    }
    bool fraction = false, exponent = false;
    if (consume('.')) {
      fraction = true;
      if (digits() == 0) fail_at(start, "invalid number: expected digits after '.'");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      exponent = true;
      ++pos_;
      if (!consume('+')) consume('-');
      if (digits() == 0) fail_at(start, "invalid number: expected digits in the exponent");
    }
    std::string_view lexeme = text_.substr(start, pos_ - start);
    if (!fraction && !exponent) {
      std::int64_t i = 0;
      auto r = std::from_chars(lexeme.data(), lexeme.data() + lexeme.size(), i);
      if (r.ec == std::errc()) return i;
      // Python (and Jinja2) would keep it exact; a double would silently round it
      // (2**64 printed as 1.8446744073709552e+19). Refuse instead of changing it.
      fail_at(start, "integer " + std::string(lexeme) +
                         " is out of range: integers are 64-bit (-9223372036854775808 to "
                         "9223372036854775807); write " +
                         std::string(lexeme) + ".0 if a float is meant");
    }
    double d = 0;
    auto r = std::from_chars(lexeme.data(), lexeme.data() + lexeme.size(), d);
    if (r.ec != std::errc() || !std::isfinite(d)) fail_at(start, "number out of range");
    // `5e8` is how people write bucket sizes, and Jinja2 prints it as `500000000.0`: an
    // integral value written with an exponent, or of magnitude 1e6 and above, is a count or
    // a size and becomes an integer. Small ones such as `1.0` (gradient_clipping) stay floats.
    if (numbers_ == JsonNumbers::Counts && d == std::floor(d) && std::fabs(d) < 9.2e18 &&
        (exponent || std::fabs(d) >= 1e6)) {
      return static_cast<std::int64_t>(d);
    }
    return d;
  }

  std::string_view text_;
  const std::string& name_;
  JsonNumbers numbers_;
  std::size_t pos_ = 0;
  // Object members being read, one buffer per depth; a deque so that opening a deeper
  // object never moves the buffers of the objects around it.
  std::deque<std::vector<std::pair<std::string, json>>> members_;
  std::deque<KeyIndex> key_sets_;
};

}  // namespace

nlohmann::ordered_json parse_json_text(std::string_view text, const std::string& name,
                                       JsonNumbers numbers) {
  return Reader(text, name, numbers).document();
}

}  // namespace zf
