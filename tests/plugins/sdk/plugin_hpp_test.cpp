// SPDX-License-Identifier: MIT
// zeroforge/plugin.hpp's host services on their own, over hand-made zf_host structs: the file
// reader and the launch text check hand back the host's answers and release every string the
// host gave, and a host older than the services is an error that says so, never a crash.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <zeroforge/plugin.hpp>

namespace zf {
namespace {

// A host whose services answer from these statics, counting what the plugin releases.
int released = 0;
char* copy(const char* text) {
  char* out = static_cast<char*>(std::malloc(std::strlen(text) + 1));
  std::strcpy(out, text);
  return out;
}
int read_ok(void*, const char*, char** contents, std::size_t* size, char** error) {
  *contents = static_cast<char*>(std::malloc(4));
  std::memcpy(*contents, "a\0b", 4);  // binary-safe: three bytes and the terminating NUL
  *size = 3;
  *error = nullptr;
  return ZF_OK;
}
int read_fails(void*, const char* path, char** contents, std::size_t*, char** error) {
  *contents = nullptr;
  *error = copy(("cannot read '" + std::string(path) + "': No such file or directory").c_str());
  return ZF_ERROR;
}
int check(void*, int kind, const char* text, std::size_t size, char** message) {
  if (kind == ZF_LAUNCH_HOST_NAME && std::string(text, size) == "gpu-1") return ZF_OK;
  *message = copy("\"gpu 1\" is not a host name");
  return ZF_ERROR;
}
void release(void*, char* text) {
  if (text) ++released;
  std::free(text);
}

struct FakeHost {
  zf_host host{};
  zf_context context{};
  explicit FakeHost(std::size_t size) {
    host.abi_version = ZF_PLUGIN_ABI_VERSION;
    host.struct_size = static_cast<std::uint32_t>(size);
    host.host_version = "0.1.0";
    host.read_file = read_ok;
    host.check_launch_text = check;
    host.free_host_string = release;
    context.struct_size = sizeof(zf_context);
    context.host = &host;
    context.options_json = "{}";
  }
};

TEST(PluginHppTest, ReadFileReturnsTheHostsBytesAndReleasesThem) {
  FakeHost fake(sizeof(zf_host));
  released = 0;
  EXPECT_EQ(sdk::Context(&fake.context).read_file("/a/site/profile/of/some/length.json"),
            std::string("a\0b", 3));
  EXPECT_EQ(released, 1);
}

TEST(PluginHppTest, ReadFileThrowsTheHostsMessage) {
  FakeHost fake(sizeof(zf_host));
  fake.host.read_file = read_fails;
  released = 0;
  const std::string path = "/srv/cluster-profiles/site-fields/no-such-profile.json";
  try {
    sdk::Context(&fake.context).read_file(path);
    FAIL() << "no error";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read '" + path + "': No such file or directory");
  }
  EXPECT_EQ(released, 1);
}

TEST(PluginHppTest, LaunchTextProblemIsEmptyOrTheHostsMessage) {
  FakeHost fake(sizeof(zf_host));
  released = 0;
  sdk::Context ctx(&fake.context);
  EXPECT_EQ(ctx.launch_text_problem(ZF_LAUNCH_HOST_NAME, "gpu-1"), "");
  EXPECT_EQ(ctx.launch_text_problem(ZF_LAUNCH_HOST_NAME, "gpu 1"), "\"gpu 1\" is not a host name");
  EXPECT_EQ(released, 1);
}

TEST(PluginHppTest, AHostWithoutTheServicesIsAnErrorNamingIt) {
  // A zeroforge built before read_file existed: its zf_host ends at note_input.
  FakeHost fake(offsetof(zf_host, read_file));
  sdk::Context ctx(&fake.context);
  try {
    ctx.read_file("site.json");
    FAIL() << "no error";
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(),
                 "this zeroforge (0.1.0) does not offer plugins zf_host::read_file; use a newer "
                 "zeroforge");
  }
  try {
    ctx.launch_text_problem(ZF_LAUNCH_VARIABLE_NAME, "X");
    FAIL() << "no error";
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(),
                 "this zeroforge (0.1.0) does not offer plugins zf_host::check_launch_text; use a "
                 "newer zeroforge");
  }
}

}  // namespace
}  // namespace zf
