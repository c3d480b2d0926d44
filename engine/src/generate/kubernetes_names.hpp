// SPDX-License-Identifier: MIT
// The name rules of Kubernetes' API server that the kubernetes companion's values are checked
// by (k8s.io/apimachinery pkg/api/validate/content: dns.go, kube.go; core/validation for the
// variables): DNS-1123 and DNS-1035 labels, DNS-1123 subdomains, label keys and values,
// variable names and the keys of Secrets and ConfigMaps.
#pragma once

#include <string_view>

namespace zf::pipeline {

/// A DNS-1123 label (IsDNS1123Label): at most 63 lower-case letters, digits and '-', starting
/// and ending with a letter or digit: namespaces, volume names, most object names.
bool is_dns_label(std::string_view text);
/// A DNS-1035 label (IsDNS1035Label): a DNS-1123 label that starts with a letter, the rule of
/// a Service's name.
bool is_dns1035_label(std::string_view text);
/// A DNS-1123 subdomain (IsDNS1123Subdomain): DNS-1123 labels joined by '.', at most 253
/// characters: ConfigMaps, Secrets, service accounts, priority classes, schedulers.
bool is_dns_subdomain(std::string_view text);
/// The name part of a label key, and a non-empty label value (IsLabelKey's name part,
/// IsLabelValue): at most 63 letters, digits, '-', '_' and '.', starting and ending with a
/// letter or digit.
bool is_label_name(std::string_view text);
/// A label key (IsLabelKey, the "qualified name"): an optional DNS-1123 subdomain prefix and
/// '/', then a label name.
bool is_label_key(std::string_view text);
/// A label value (IsLabelValue): empty, or a label name.
bool is_label_value(std::string_view text);
/// A container variable's name (core/validation IsEnvVarName, the strict rule every
/// Kubernetes release takes): letters, digits, '_', '-' and '.', not starting with a digit,
/// not "." and not starting with "..".
bool is_env_var_name(std::string_view text);
/// A key of a Secret's or ConfigMap's data (IsConfigMapKey): at most 253 letters, digits,
/// '-', '_' and '.', not "." and not starting with "..".
bool is_config_map_key(std::string_view text);

}  // namespace zf::pipeline
