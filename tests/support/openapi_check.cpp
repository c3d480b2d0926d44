// SPDX-License-Identifier: MIT
// openapi_problems (openapi_check.hpp): the structural-schema rules of
// k8s.io/apiextensions-apiserver pkg/apiserver/schema and kube-openapi's validate package, for
// the keywords the Kubeflow CRDs use.
#include "support/openapi_check.hpp"

#include <cmath>
#include <limits>
#include <regex>
#include <set>

namespace zf::test {
namespace {

using Json = nlohmann::ordered_json;

std::string escape(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

bool has_type(const Json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_boolean();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  return false;
}

void check(const Json& schema, const Json& value, const std::string& at,
           std::vector<std::string>& out) {
  const std::size_t before = out.size();
  if (schema.value("x-kubernetes-int-or-string", false)) {
    if (!value.is_number_integer() && !value.is_string())
      out.push_back(at + ": expected an integer or a string, got " + value.dump());
  } else if (schema.contains("type") && !has_type(value, schema["type"].get<std::string>())) {
    if (!(value.is_null() && schema.value("nullable", false)))
      out.push_back(at + ": expected " + schema["type"].get<std::string>() + ", got " +
                    value.dump());
  }
  if (out.size() != before) return;
  if (schema.contains("enum")) {
    bool found = false;
    for (const auto& allowed : schema["enum"]) found = found || allowed == value;
    if (!found) out.push_back(at + ": " + value.dump() + " is not one of " + schema["enum"].dump());
  }
  if (value.is_number()) {
    const double v = value.get<double>();
    if (schema.contains("minimum") && v < schema["minimum"].get<double>())
      out.push_back(at + ": " + value.dump() + " is below the minimum " + schema["minimum"].dump());
    if (schema.contains("maximum") && v > schema["maximum"].get<double>())
      out.push_back(at + ": " + value.dump() + " is above the maximum " + schema["maximum"].dump());
    if (schema.value("format", "") == "int32" && (v < std::numeric_limits<std::int32_t>::min() ||
                                                  v > std::numeric_limits<std::int32_t>::max()))
      out.push_back(at + ": " + value.dump() + " is not an int32");
  }
  if (value.is_string()) {
    // Lengths count characters (code points), as Go's utf8.RuneCountInString.
    std::size_t length = 0;
    for (unsigned char c : value.get_ref<const std::string&>()) length += (c & 0xC0) != 0x80;
    if (schema.contains("maxLength") && length > schema["maxLength"].get<std::size_t>())
      out.push_back(at + ": longer than " + schema["maxLength"].dump());
    if (schema.contains("minLength") && length < schema["minLength"].get<std::size_t>())
      out.push_back(at + ": shorter than " + schema["minLength"].dump());
    // The CRDs' patterns (resource quantities, condition types) are ECMAScript as well as RE2.
    if (schema.contains("pattern") &&
        !std::regex_search(value.get<std::string>(),
                           std::regex(schema["pattern"].get<std::string>())))
      out.push_back(at + ": " + value.dump() + " does not match " + schema["pattern"].dump());
  }
  if (value.is_array()) {
    if (schema.contains("maxItems") && value.size() > schema["maxItems"].get<std::size_t>())
      out.push_back(at + ": more than " + schema["maxItems"].dump() + " items");
    if (schema.contains("minItems") && value.size() < schema["minItems"].get<std::size_t>())
      out.push_back(at + ": fewer than " + schema["minItems"].dump() + " items");
    // A list of type map holds each combination of its keys once (two env entries, volumes or
    // ports of one name: the API server refuses "Duplicate value").
    if (schema.value("x-kubernetes-list-type", "") == "map") {
      std::set<std::string> seen;
      for (std::size_t i = 0; i < value.size(); ++i) {
        Json key = Json::array();
        for (const auto& name : schema.value("x-kubernetes-list-map-keys", Json::array()))
          key.push_back(value[i].is_object() ? value[i].value(name.get<std::string>(), Json())
                                             : Json());
        if (!seen.insert(key.dump()).second)
          out.push_back(at + "/" + std::to_string(i) + ": a duplicate of the list's key " +
                        key.dump());
      }
    }
    if (schema.contains("items"))
      for (std::size_t i = 0; i < value.size(); ++i)
        check(schema["items"], value[i], at + "/" + std::to_string(i), out);
  }
  if (value.is_object()) {
    for (const auto& name : schema.value("required", Json::array()))
      if (!value.contains(name.get<std::string>()))
        out.push_back(at + ": the required field " + name.dump() + " is missing");
    const Json properties = schema.value("properties", Json::object());
    // `metadata` is declared `type: object` alone: the API server checks it as ObjectMeta, by
    // its own rules rather than the CRD's, so such an object takes any field here.
    const bool preserve =
        schema.value("x-kubernetes-preserve-unknown-fields", false) ||
        (!schema.contains("properties") && !schema.contains("additionalProperties"));
    for (const auto& [key, item] : value.items()) {
      const std::string there = at + "/" + escape(key);
      if (properties.contains(key)) {
        check(properties[key], item, there, out);
      } else if (schema.contains("additionalProperties")) {
        const Json& extra = schema["additionalProperties"];
        if (extra.is_boolean()) {
          if (!extra.get<bool>()) out.push_back(there + ": unknown field");
        } else {
          check(extra, item, there, out);
        }
      } else if (!preserve) {
        out.push_back(there + ": unknown field \"" + key + "\"");
      }
    }
  }
  for (const auto& part : schema.value("allOf", Json::array())) check(part, value, at, out);
  if (schema.contains("anyOf")) {
    bool any = false;
    for (const auto& part : schema["anyOf"]) {
      std::vector<std::string> problems;
      check(part, value, at, problems);
      any = any || problems.empty();
    }
    if (!any) out.push_back(at + ": matches none of anyOf");
  }
}

}  // namespace

std::vector<std::string> openapi_problems(const Json& schema, const Json& value) {
  std::vector<std::string> out;
  check(schema, value, "", out);
  return out;
}

}  // namespace zf::test
