// SPDX-License-Identifier: MIT
// What a test does when an oracle it checks against (Python's Jinja2, jsonschema, PyYAML, a
// browser) is missing: skip on a developer's machine, fail in CI (CI=true), where
// ./setup.sh --test must have installed it, so that a skip never hides a check there.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace zf::test {

/// True under CI=true.
inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

}  // namespace zf::test

/// Ends the current test when an oracle is missing: a failure in CI, else a skip. `why` says
/// what is missing and how to install it.
#define ZF_ORACLE_MISSING(why)                                                                     \
  do {                                                                                             \
    if (::zf::test::in_ci()) FAIL() << (why) << " (in CI the oracle must run: ./setup.sh --test)"; \
    GTEST_SKIP() << (why);                                                                         \
  } while (false)
