// SPDX-License-Identifier: MIT
// The writer behind to_json_text (json_writer.cpp), for code that assembles JSON text itself,
// such as the manifest, which is written entry by entry.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace zf::detail {

/// Appends JSON text to `out` as to_json_text writes it. It writes through a raw pointer into
/// room it makes ahead of each step (std::string's own appends check the capacity and store
/// the length on every call, which was most of the writer's cost), so one appender should
/// serve a whole piece of text; `out` is cut to what was written when it goes away, also when
/// an exception passes.
///
///     std::string out;
///     {
///       detail::JsonAppender json(out);
///       json.raw("{\"path\": ");
///       json.string(path);
///     }
class JsonAppender {
 public:
  explicit JsonAppender(std::string& out) : out_(out), used_(out.size()) {}
  JsonAppender(const JsonAppender&) = delete;
  JsonAppender& operator=(const JsonAppender&) = delete;
  ~JsonAppender() { out_.resize(used_); }

  /// `text` as it is.
  void raw(std::string_view text);
  /// `text` as a JSON string, quoted and escaped.
  void string(std::string_view text);
  /// `json` nested `indent` spaces deep: the first line is not indented and there is no final
  /// newline.
  void value(const nlohmann::ordered_json& json, int indent);

  /// Where the next `n` bytes (at most) go; hand the end of what was written to `commit`.
  char* room(std::size_t n) {
    if (out_.size() - used_ < n) [[unlikely]]
      grow(n);
    return out_.data() + used_;
  }
  void commit(const char* end) { used_ = static_cast<std::size_t>(end - out_.data()); }

 private:
  [[gnu::noinline]] void grow(std::size_t n);

  std::string& out_;
  std::size_t used_;  // bytes of out_ written; the rest is room
};

}  // namespace zf::detail
