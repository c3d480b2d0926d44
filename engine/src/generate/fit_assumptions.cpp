// SPDX-License-Identifier: MIT
// read_fit_assumptions (see fit_assumptions.hpp): schema version 1 of the fit assumptions
// record checked key by key. An unknown key is an error, not skipped: a field the companions
// did not read is an assumption the launch would silently not carry out.
#include "fit_assumptions.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "zeroforge/error.hpp"
#include "zeroforge/fit_assumptions.hpp"
#include "zeroforge/nearest_name.hpp"

namespace zf::pipeline {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kKeys[] = {"schema_version", "activation_checkpointing", "attention",
                                      "loss", "seq_len"};

template <std::size_t N>
std::string listed(const std::string_view (&names)[N], const char* last_separator) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i)
    out += (i == 0 ? "" : i + 1 == N ? last_separator : ", ") + std::string(names[i]);
  return out;
}

// A key as a JSON pointer token (RFC 6901: ~ as ~0, / as ~1).
std::string escaped(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

// One plugin's record; every error names the plugin and the pointer inside its annotation.
class Record {
 public:
  Record(const Json& record, std::string plugin) : record_(record), plugin_(std::move(plugin)) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw Error(ErrorKind::Plugin,
                "the companions cannot read its fit assumptions record: " + message,
                "plugin " + plugin_, "/" + std::string(zf::sdk::kFitAssumptionsKey) + pointer);
  }
  void check_keys() const {
    if (!record_.is_object()) fail("", "expected an object, got " + record_.dump());
    for (const auto& item : record_.items()) {
      if (std::find(std::begin(kKeys), std::end(kKeys), item.key()) != std::end(kKeys)) continue;
      std::string message =
          "unknown key '" + item.key() + "' (expected " + listed(kKeys, ", ") + ")";
      const std::string guess = zf::sdk::nearest_name(item.key(), kKeys);
      if (!guess.empty()) message += "; did you mean '" + guess + "'?";
      fail("/" + escaped(item.key()), message);
    }
  }
  const Json& at(const char* key) const {
    auto it = record_.find(key);
    if (it == record_.end()) fail(std::string("/") + key, "missing");
    return *it;
  }
  std::int64_t integer(const char* key, std::int64_t least) const {
    const Json& v = at(key);
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX) ||
        v.get<std::int64_t>() < least) {
      fail(std::string("/") + key,
           "expected an integer >= " + std::to_string(least) + ", got " + v.dump());
    }
    return v.get<std::int64_t>();
  }
  template <std::size_t N>
  std::string one_of(const char* key, const std::string_view (&names)[N]) const {
    const Json& v = at(key);
    if (!v.is_string() ||
        std::find(std::begin(names), std::end(names), v.get<std::string>()) == std::end(names))
      fail(std::string("/") + key, "expected " + listed(names, " or ") + ", got " + v.dump());
    return v.get<std::string>();
  }

 private:
  const Json& record_;
  std::string plugin_;
};

FitAssumptions read_record(const Json& record, const std::string& plugin) {
  const Record r(record, plugin);
  r.check_keys();
  const std::int64_t version = r.integer("schema_version", 1);
  if (version != zf::sdk::kFitAssumptionsVersion) {
    r.fail("/schema_version",
           "schema version " + std::to_string(version) + " is not one this zeroforge reads (" +
               std::to_string(zf::sdk::kFitAssumptionsVersion) +
               "); build the plugin against this zeroforge's zeroforge/fit_assumptions.hpp");
  }
  FitAssumptions out;
  out.plugin = plugin;
  out.activation_checkpointing = r.one_of("activation_checkpointing", zf::sdk::kFitCheckpointing);
  out.attention = r.one_of("attention", zf::sdk::kFitAttention);
  out.loss = r.one_of("loss", zf::sdk::kFitLoss);
  out.seq_len = r.integer("seq_len", 1);
  return out;
}

}  // namespace

std::optional<FitAssumptions> read_fit_assumptions(const Json& plugins) {
  if (!plugins.is_object()) return std::nullopt;
  const std::string key(zf::sdk::kFitAssumptionsKey);
  std::optional<FitAssumptions> found;
  for (const auto& item : plugins.items()) {
    const Json& annotation = item.value();
    if (!annotation.is_object() || !annotation.contains(key)) continue;
    if (found) {
      Record(annotation[key], item.key())
          .fail("", "a second fit assumptions record for this config: plugin '" + found->plugin +
                        "' published one too; load one plugin that fits configs");
    }
    found = read_record(annotation[key], item.key());
  }
  return found;
}

}  // namespace zf::pipeline
