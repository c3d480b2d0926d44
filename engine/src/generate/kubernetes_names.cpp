// SPDX-License-Identifier: MIT
// Kubernetes' name rules (kubernetes_names.hpp), as apimachinery's validation writes them as
// regular expressions, here as the same tests character by character.
#include "kubernetes_names.hpp"

#include <algorithm>
#include <cctype>

namespace zf::pipeline {

namespace {

bool is_lower_alnum(unsigned char c) { return std::islower(c) || std::isdigit(c); }
bool is_alnum(unsigned char c) { return std::isalnum(c) != 0; }

// hasChDirPrefix: a name the kubelet might take for a directory.
bool is_chdir_name(std::string_view text) { return text == "." || text.starts_with(".."); }

bool is_label_of(std::string_view text, std::size_t max) {
  if (text.empty() || text.size() > max) return false;
  if (!is_lower_alnum(text.front()) || !is_lower_alnum(text.back())) return false;
  return std::all_of(text.begin(), text.end(),
                     [](unsigned char c) { return is_lower_alnum(c) || c == '-'; });
}

}  // namespace

bool is_dns_label(std::string_view text) { return is_label_of(text, 63); }

bool is_dns1035_label(std::string_view text) {
  return is_dns_label(text) && std::islower(static_cast<unsigned char>(text.front()));
}

bool is_dns_subdomain(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = text.find('.', start);
    if (!is_label_of(text.substr(start, dot - start), 253)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool is_label_name(std::string_view text) {
  if (text.empty() || text.size() > 63 || !is_alnum(text.front()) || !is_alnum(text.back()))
    return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return is_alnum(c) || c == '-' || c == '_' || c == '.';
  });
}

bool is_label_key(std::string_view text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return is_label_name(text);
  return is_dns_subdomain(text.substr(0, slash)) && is_label_name(text.substr(slash + 1));
}

bool is_label_value(std::string_view text) { return text.empty() || is_label_name(text); }

bool is_env_var_name(std::string_view text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text.front())) || is_chdir_name(text))
    return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return is_alnum(c) || c == '_' || c == '-' || c == '.';
  });
}

bool is_config_map_key(std::string_view text) {
  if (text.empty() || text.size() > 253 || is_chdir_name(text)) return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return is_alnum(c) || c == '_' || c == '-' || c == '.';
  });
}

}  // namespace zf::pipeline
