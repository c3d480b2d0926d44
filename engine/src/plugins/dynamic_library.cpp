// SPDX-License-Identifier: MIT
// DynamicLibrary on POSIX: dlopen/dlsym/dlclose, with a check that tells "not a shared
// library" apart from a library that fails to load (missing dependency, wrong architecture).
#include "plugins/dynamic_library.hpp"

#include <dlfcn.h>

#include <fstream>
#include <string>
#include <utility>

#include "zeroforge/error.hpp"

namespace zf::detail {
namespace {

// RTLD_LOCAL keeps each plugin's symbols to itself, so two plugins may both define (say)
// a static helper or bundle different nlohmann_json versions without clashing.
constexpr int kOpenFlags = RTLD_NOW | RTLD_LOCAL;

bool looks_like_shared_library(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, sizeof magic);
  if (in.gcount() != sizeof magic) return false;
#if defined(__APPLE__)
  const unsigned char m0 = static_cast<unsigned char>(magic[0]);
  return m0 == 0xCF || m0 == 0xCE || m0 == 0xCA || m0 == 0xFE;  // Mach-O, fat binaries
#else
  return magic[0] == '\x7f' && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
#endif
}

}  // namespace

DynamicLibrary::DynamicLibrary(const std::filesystem::path& path) {
  Location where{path.string(), 0, 0};
  if (!looks_like_shared_library(path)) {
    throw Error(ErrorKind::Plugin, "not a shared library", where);
  }
  dlerror();
  handle_ = dlopen(path.c_str(), kOpenFlags);
  if (!handle_) {
    const char* message = dlerror();
    throw Error(ErrorKind::Plugin,
                std::string("cannot load shared library: ") + (message ? message : "unknown error"),
                where);
  }
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_) dlclose(handle_);
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void* DynamicLibrary::symbol(const char* name) const noexcept {
  return handle_ ? dlsym(handle_, name) : nullptr;
}

}  // namespace zf::detail
