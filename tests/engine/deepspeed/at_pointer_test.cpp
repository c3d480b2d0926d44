// SPDX-License-Identifier: MIT
// at_pointer, the rules' look-up of a JSON pointer, walks the document itself: it must answer
// exactly what nlohmann's json_pointer (contains, then at) answers, escapes, array indices and
// malformed pointers included.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "deepspeed/rules.hpp"

namespace zf::deepspeed {
namespace {

// What the rules asked before: nlohmann's own pointer, a malformed one naming nothing.
const json* reference_at(const json& document, const std::string& pointer) {
  try {
    const auto ptr = json::json_pointer(pointer);
    return document.contains(ptr) ? &document.at(ptr) : nullptr;
  } catch (const json::exception&) {
    return nullptr;
  }
}

TEST(AtPointerTest, AnswersAsNlohmannsJsonPointer) {
  const json document = json::parse(R"({
    "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}},
    "a/b": 1, "m~n": 2, "~1": 3, "": {"": 4},
    "list": [10, [20, 21], {"k": 30}],
    "scalar": 5,
    "zero_optimization/offload_param~nvme_settings_of_a_long_name": {"pin_memory": true}
  })");
  const std::vector<std::string> pointers = {
      "", "/", "//", "/zero_optimization", "/zero_optimization/stage",
      "/zero_optimization/offload_optimizer/device", "/zero_optimization/missing",
      "/zero_optimization/stage/deeper", "/a~1b", "/m~0n", "/~01", "/a/b", "/m~n", "/m~2n", "/m~",
      "/list", "/list/0", "/list/1/1", "/list/2/k", "/list/3", "/list/-", "/list/00", "/list/01",
      "/list/1a", "/list/", "/list/99999999999999999999999", "/scalar/0", "zero_optimization",
      "/missing", "/list/1/2",
      // Escapes in a key past the small-string buffer, then a key below it.
      "/zero_optimization~1offload_param~0nvme_settings_of_a_long_name/pin_memory",
      "/zero_optimization~1offload_param~0nvme_settings_of_a_long_name/missing",
      "/zero_optimization~1offload_param~2nvme_settings_of_a_long_name/pin_memory"};
  for (const std::string& pointer : pointers) {
    EXPECT_EQ(at_pointer(document, pointer), reference_at(document, pointer)) << pointer;
  }
  ASSERT_NE(at_pointer(document, "/list/2/k"), nullptr);
  EXPECT_EQ(*at_pointer(document, "/list/2/k"), 30);
  const json* pinned = at_pointer(
      document, "/zero_optimization~1offload_param~0nvme_settings_of_a_long_name/pin_memory");
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(*pinned, true);
}

}  // namespace
}  // namespace zf::deepspeed
