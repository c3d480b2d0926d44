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

  // Reads the text into `target`, keeping what storage of it the text can use: an object's
  // members whose keys come in the same order, an array's elements, a string's buffer.
  void document(json& target) {
    skip_space();
    parse_value(target, 0);
    skip_space();
    if (pos_ < text_.size()) fail("unexpected " + describe_here() + " after the JSON value");
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

  void parse_value(json& target, int depth) {
    if (depth > kMaxDepth) fail("JSON nested too deeply");
    if (pos_ >= text_.size()) fail("expected a JSON value, found end of input");
    char c = text_[pos_];
    switch (c) {
      case '{':
        parse_object(target, depth);
        return;
      case '[':
        parse_array(target, depth);
        return;
      case '"':
        if (!target.is_string()) target = std::string();
        parse_string_into(target.get_ref<std::string&>());
        return;
      case 't':
        expect_word("true");
        target = true;
        return;
      case 'f':
        expect_word("false");
        target = false;
        return;
      case 'n':
        expect_word("null");
        target = nullptr;
        return;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          target = parse_number();
          return;
        }
        fail("expected a JSON value, found " + describe_here());
    }
  }

  void expect_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      fail("expected a JSON value, found " + describe_here());
    pos_ += word.size();
  }

  void parse_object(json& target, int depth) {
    if (target.is_object() && !target.empty()) {
      parse_object_in_place(target.get_ref<json::object_t&>(), depth);
      return;
    }
    ++pos_;  // {
    target = json::object();
    skip_space();
    if (consume('}')) return;
    // Members are collected in a buffer kept per depth (reused by every object at that
    // depth) and moved into the object at its exact size: growing nlohmann's ordered_map one
    // member at a time reallocated and moved every member several times per object.
    if (members_.size() <= static_cast<std::size_t>(depth))
      members_.resize(static_cast<std::size_t>(depth) + 1);
    auto& members = members_[static_cast<std::size_t>(depth)];
    members.clear();
    while (true) {
      std::string key;
      const std::size_t key_offset = read_key(key);
      if (is_duplicate(depth, members, members.size(), key)) duplicate_key(key_offset, key);
      after_key(key);
      members.emplace_back(std::move(key), json());
      parse_value(members.back().second, depth + 1);
      if (end_of_member()) break;
    }
    auto& object = target.get_ref<json::object_t&>();
    object.reserve(members.size());
    for (auto& [key, value] : members) object.emplace_back(std::move(key), std::move(value));
    members.clear();
    end_of_object(depth);
  }

  // An object read over one that has members: the members whose keys come in the same order
  // keep their storage (a family's configs share their shape), the first key that differs
  // and the members after it are replaced. A key equal to the held member's at its place
  // needs no duplicate check: the held keys are distinct (as in every nlohmann object), and
  // the text's keys before it are the held keys before it.
  void parse_object_in_place(json::object_t& object, int depth) {
    ++pos_;  // {
    skip_space();
    std::size_t count = 0;
    if (!consume('}')) {
      while (true) {
        const std::size_t key_offset = read_key(key_);
        if (count == object.size() || object.begin()[count].first != key_) {
          if (is_duplicate(depth, object, count, key_)) duplicate_key(key_offset, key_);
          while (object.size() > count) object.pop_back();
          object.emplace_back(key_, json());
        }
        after_key(key_);
        // `object` does not change while the member's value is read (only deeper ones do).
        parse_value(object.begin()[count].second, depth + 1);
        ++count;
        if (end_of_member()) break;
      }
    }
    while (object.size() > count) object.pop_back();
    end_of_object(depth);
  }

  // Reads a member's key into `key`; returns where it starts.
  std::size_t read_key(std::string& key) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '"') {
      fail("expected a string key, found " + describe_here());
    }
    const std::size_t key_offset = pos_;
    parse_string_into(key);
    return key_offset;
  }

  [[noreturn]] void duplicate_key(std::size_t key_offset, const std::string& key) const {
    fail_at(key_offset, "duplicate key \"" + key + "\"");
  }

  // The ':' after a key, and the space around it.
  void after_key(const std::string& key) {
    skip_space();
    if (!consume(':')) fail("expected ':' after key \"" + key + "\", found " + describe_here());
    skip_space();
  }

  // After a member's value: true at the object's '}', false after a ',' with more to read.
  bool end_of_member() {
    skip_space();
    if (consume('}')) return true;
    if (!consume(',')) fail("expected ',' or '}' in object, found " + describe_here());
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '}') fail("trailing comma in object");
    return false;
  }

  void end_of_object(int depth) {
    if (key_sets_.size() > static_cast<std::size_t>(depth))
      key_sets_[static_cast<std::size_t>(depth)].clear();
  }

  // Whether `key` is already a member. A linear scan while the object is small; from
  // kHashedFrom members on, an open-addressing index of the members (one per depth, like the
  // member buffers) that holds their positions, not copies of their keys: an object of a
  // million keys is read in linear time and without an allocation per key.
  // (`members`: the object's first `count` members; the key becomes member `count`.)
  template <typename Members>
  bool is_duplicate(int depth, const Members& members, std::size_t count, const std::string& key) {
    constexpr std::size_t kHashedFrom = 32;
    if (count < kHashedFrom) {
      for (std::size_t i = 0; i < count; ++i) {
        if (members.begin()[i].first == key) return true;
      }
      return false;
    }
    if (key_sets_.size() <= static_cast<std::size_t>(depth))
      key_sets_.resize(static_cast<std::size_t>(depth) + 1);
    KeyIndex& index = key_sets_[static_cast<std::size_t>(depth)];
    if (index.used == 0 || index.used * 2 >= index.slots.size()) index.rebuild(members, count);
    return !index.insert(members, key, static_cast<std::uint32_t>(count));
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
    template <typename Members>
    bool insert(const Members& members, std::string_view key, std::uint32_t at) {
      const std::size_t mask = slots.size() - 1;
      for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
        if (slots[i] == 0) {
          slots[i] = at + 1;
          ++used;
          return true;
        }
        if (members.begin()[slots[i] - 1].first == key) return false;
      }
    }
    template <typename Members>
    void rebuild(const Members& members, std::size_t count) {
      std::size_t size = 64;
      while (size < 4 * (count + 1)) size *= 2;
      slots.assign(size, 0);
      used = 0;
      for (std::size_t i = 0; i < count; ++i)
        insert(members, members.begin()[i].first, static_cast<std::uint32_t>(i));
    }
    void clear() noexcept { used = 0; }
  };

  // Over an array `target` held, its elements keep their storage.
  void parse_array(json& target, int depth) {
    ++pos_;  // [
    if (!target.is_array()) target = json::array();
    auto& array = target.get_ref<json::array_t&>();
    std::size_t count = 0;
    skip_space();
    if (!consume(']')) {
      while (true) {
        skip_space();
        if (count == array.size()) array.emplace_back();
        parse_value(array[count], depth + 1);
        ++count;
        skip_space();
        if (consume(']')) break;
        if (!consume(',')) fail("expected ',' or ']' in array, found " + describe_here());
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ']') fail("trailing comma in array");
      }
    }
    array.resize(count);
  }

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

  // Reads a string into `out` (cleared first; its buffer is kept).
  void parse_string_into(std::string& out) {
    std::size_t start = pos_++;
    out.clear();
    while (true) {
      if (pos_ >= text_.size()) fail_at(start, "unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return;
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
  std::string key_;  // the key being read by parse_object_in_place (used up before its value)
};

}  // namespace

nlohmann::ordered_json parse_json_text(std::string_view text, const std::string& name,
                                       JsonNumbers numbers) {
  nlohmann::ordered_json value;
  Reader(text, name, numbers).document(value);
  return value;
}

void parse_json_text_into(nlohmann::ordered_json& target, std::string_view text,
                          const std::string& name, JsonNumbers numbers) {
  Reader(text, name, numbers).document(target);
}

}  // namespace zf
