// SPDX-License-Identifier: MIT
// sha256_hex (the manifest's content hashes): FIPS 180-4 test vectors, and the hardware path
// (x86 SHA extensions, when this CPU has them) against the portable one at every length
// around the block and padding boundaries.
#include "io/sha256.hpp"

#include <gtest/gtest.h>

#include <string>

#include "zeroforge/family.hpp"

namespace {

struct Vector {
  std::string input;
  const char* digest;
};

TEST(Sha256Test, MatchesTheFipsTestVectors) {
  const Vector vectors[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {std::string(1000000, 'a'),
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
  for (const auto& v : vectors) {
    EXPECT_EQ(zf::sha256_hex(v.input), v.digest) << "input of " << v.input.size() << " bytes";
    EXPECT_EQ(zf::detail::sha256_hex_portable(v.input), v.digest)
        << "input of " << v.input.size() << " bytes";
  }
}

TEST(Sha256Test, HardwareAndPortablePathsAgreeAtEveryLength) {
  if (!zf::detail::sha256_has_hardware()) GTEST_SKIP() << "this CPU has no SHA extensions";
  std::string data;
  unsigned state = 12345;
  for (std::size_t n = 0; n <= 300; ++n) {
    EXPECT_EQ(zf::sha256_hex(data), zf::detail::sha256_hex_portable(data)) << n << " bytes";
    state = state * 1103515245u + 12345u;
    data += static_cast<char>(state >> 16);
  }
}

}  // namespace
