// SPDX-License-Identifier: MIT
// The schema data as JSON (the whole of it for deepspeed_schema_data(), parsed once, and as one
// release saw it; a part for the rules that read JSON, parsed on first use) and the small helpers
// every rule family uses to walk the config. The facts of the schema's nodes are generated tables
// (schema_facts.hpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <optional>

#include "deepspeed/release_history.hpp"
#include "deepspeed/schema_text.hpp"
#include "rules.hpp"
#include "text_helpers.hpp"
#include "zeroforge/deepspeed_release.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/values.hpp"

namespace zf {

const nlohmann::ordered_json& deepspeed_schema_data() {
  // The text is compiled in and checked by a test, so a parse failure here is a build bug.
  static const nlohmann::ordered_json data =
      nlohmann::ordered_json::parse(deepspeed::schema_text());
  return data;
}

nlohmann::ordered_json deepspeed_schema_data_at(std::string_view version) {
  const deepspeed::ReleaseIndex release = deepspeed::require_release(version);
  // compile_schema read the same history at build time, so it reads here too.
  static const deepspeed::history::History history =
      deepspeed::history::read(deepspeed_schema_data());
  return deepspeed::history::data_at(deepspeed_schema_data(), history, release);
}

}  // namespace zf

namespace zf::deepspeed {

const json& schema_part(SchemaPart part) {
  // Our reader, keeping numbers as written as nlohmann's does: a part is parsed by the first
  // config that needs it (most name an optimizer), so its cost is part of a render's start-up.
  static std::array<std::once_flag, kSchemaParts> once;
  static std::array<json, kSchemaParts> parts;
  const auto index = static_cast<std::size_t>(part);
  std::call_once(once[index], [&] {
    parts[index] =
        parse_json_text(schema_part_text(part), "deepspeed_schema.json", JsonNumbers::AsWritten);
  });
  return parts[index];
}

const json* trainer_fill(std::string_view pointer) {
  for (const auto& fill : schema_part(SchemaPart::HfTrainer).at("fills")) {
    if (fill.at("pointer").get_ref<const std::string&>() == pointer) return &fill;
  }
  return nullptr;
}

std::string PointerPath::str() const {
  if (parent == nullptr) return std::string();
  std::string out = parent->str();
  out += '/';
  out += is_index ? std::to_string(index) : escape_pointer_segment(key);
  return out;
}

std::string pointer_join(const std::string& pointer, std::string_view key) {
  return pointer + "/" + escape_pointer_segment(key);
}

namespace {

// `token` as an array index the way RFC 6901 (and nlohmann's json_pointer) reads one: digits,
// no leading zero, below `size`; anything else (`-` included) names no element.
std::optional<std::size_t> array_index(std::string_view token, std::size_t size) {
  if (token.empty() || (token.size() > 1 && token[0] == '0')) return std::nullopt;
  std::size_t index = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    if (index > size) return std::nullopt;  // past every element already; no overflow
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  if (index >= size) return std::nullopt;
  return index;
}

// Whether every `~` of a pointer segment starts `~0` or `~1`: a pointer with any other names
// nothing (RFC 6901; nlohmann's json_pointer refuses it).
bool escapes_well(std::string_view token) {
  for (std::size_t at = token.find('~'); at != std::string_view::npos;
       at = token.find('~', at + 2)) {
    if (at + 1 == token.size() || (token[at + 1] != '0' && token[at + 1] != '1')) return false;
  }
  return true;
}

}  // namespace

// Walked in place: the rules ask it of every config, and a json_pointer built per question
// (a vector of token strings, then contains() and at() each walking it) was a sixth of the
// validator's time in generate.
const json* at_pointer(const json& document, const std::string& pointer) {
  if (pointer.empty()) return &document;
  if (pointer.front() != '/') return nullptr;
  const std::string_view text(pointer);
  const json* node = &document;
  std::string unescaped;
  std::size_t start = 1;
  while (true) {
    const std::size_t slash = text.find('/', start);
    std::string_view token =
        text.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (token.find('~') != std::string_view::npos) {
      if (!escapes_well(token)) return nullptr;
      unescaped = history::unescape_segment(std::string(token));
      token = unescaped;
    }
    if (node->is_object()) {
      const auto& members = node->get_ref<const json::object_t&>();
      auto it = std::find_if(members.begin(), members.end(),
                             [token](const auto& member) { return member.first == token; });
      if (it == members.end()) return nullptr;
      node = &it->second;
    } else if (node->is_array()) {
      const auto& elements = node->get_ref<const json::array_t&>();
      const auto index = array_index(token, elements.size());
      if (!index) return nullptr;
      node = &elements[*index];
    } else {
      return nullptr;
    }
    if (slash == std::string_view::npos) return node;
    start = slash + 1;
  }
}

std::optional<long long> as_integer(const json& value) {
  if (value.is_number_integer()) return value.get<long long>();
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18)
      return static_cast<long long>(d);
  }
  return std::nullopt;
}

std::string show(const json& value) { return value.dump(); }

std::string closest(std::string_view key, const std::vector<std::string>& candidates) {
  return detail::nearest_name(key, candidates);
}

std::string stages_text(unsigned stage_mask) {
  std::vector<int> list;
  for (int stage = 0; stage <= 3; ++stage) {
    if (stage_mask >> stage & 1U) list.push_back(stage);
  }
  if (list.empty()) return "";
  if (list.size() == 1) return std::to_string(list.front());
  bool contiguous = list.back() - list.front() + 1 == static_cast<int>(list.size());
  if (contiguous) return std::to_string(list.front()) + "-" + std::to_string(list.back());
  std::string out;
  for (int s : list) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

int zero_stage(const json& config) {
  const json* zero = member(config, "zero_optimization");
  if (zero == nullptr) return 0;
  if (zero->is_boolean()) return zero->get<bool>() ? 1 : 0;  // legacy form
  const json* stage = member(*zero, "stage");
  if (stage == nullptr) return 0;
  std::optional<long long> value = as_integer(*stage);
  if (!value && stage->is_string()) {
    // pydantic's lax mode reads "3" as 3.
    const auto& text = stage->get_ref<const std::string&>();
    if (text.size() == 1 && text[0] >= '0' && text[0] <= '3') value = text[0] - '0';
  }
  return value && *value >= 0 && *value <= 3 ? static_cast<int>(*value) : 0;
}

const json* bf16_section(const json& config) {
  if (const json* bf16 = member(config, "bf16")) return bf16;
  return member(config, "bfloat16");
}

bool enabled_true(const json* section) {
  return section != nullptr && is_true(*section, "enabled");
}

bool is_true(const json& object, std::string_view key) {
  const json* value = member(object, key);
  return value != nullptr && value->is_boolean() && value->get<bool>();
}

std::string Context::deepspeed() const {
  return release == newest_release() ? std::string("DeepSpeed")
                                     : "DeepSpeed " + std::string(version_of(release));
}

void Context::report(std::string pointer, Severity severity, const char* rule,
                     std::string message) const {
  if (options.strict && severity == Severity::Warning) severity = Severity::Error;
  findings.push_back(Finding{file, std::move(pointer), severity, rule, std::move(message)});
}

}  // namespace zf::deepspeed
