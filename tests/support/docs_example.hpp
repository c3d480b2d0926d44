// SPDX-License-Identifier: MIT
// The JSON example under a heading of docs/plugins.md, read from the page so that a test
// checks the documented example itself (the SDK's record sections show one each).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace zf::test {

/// The first ```json block after `heading` in docs/plugins.md; an empty object, and a test
/// failure, where the page has none.
inline nlohmann::ordered_json plugins_doc_example(std::string_view heading) {
  std::ifstream in(std::string(ZF_SOURCE_DIR) + "/docs/plugins.md");
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto section = page.find(heading);
  const auto start = section == std::string::npos ? section : page.find("```json\n", section);
  const auto end = start == std::string::npos ? start : page.find("```\n", start + 8);
  if (end == std::string::npos) {
    ADD_FAILURE() << "docs/plugins.md has no example under " << heading;
    return nlohmann::ordered_json::object();
  }
  return nlohmann::ordered_json::parse(page.substr(start + 8, end - start - 8));
}

}  // namespace zf::test
