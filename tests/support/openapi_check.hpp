// SPDX-License-Identifier: MIT
// A checker for the OpenAPI v3 schemas of Kubernetes CustomResourceDefinitions (structural
// schemas: the subset apiextensions.k8s.io/v1 allows), as the API server applies them to a
// custom resource, with kubectl's strict field validation: an unknown field is an error.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace zf::test {

/// Every way `value` breaks `schema` (a CRD version's `openAPIV3Schema`), each as
/// `/json/pointer: what`: `type` (integer, number, string, boolean, object, array),
/// `properties`, `additionalProperties`, `required`, `items`, `enum`, `minimum`, `maximum`,
/// `minLength`, `maxLength`, `minItems`, `maxItems`, `format: int32/int64` ranges,
/// `x-kubernetes-int-or-string`, `x-kubernetes-preserve-unknown-fields` and `anyOf`/`allOf`.
/// Other keywords (CEL `x-kubernetes-validations`, `pattern`, list types) are not checked.
std::vector<std::string> openapi_problems(const nlohmann::ordered_json& schema,
                                          const nlohmann::ordered_json& value);

}  // namespace zf::test
