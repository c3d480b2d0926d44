// SPDX-License-Identifier: MIT
// DynamicLibrary: a shared library opened with dlopen(RTLD_NOW | RTLD_LOCAL), closed on
// destruction.
#pragma once

#include <filesystem>

namespace zf::detail {

/// An open shared library. Move-only; the library is closed when the object dies.
class DynamicLibrary {
 public:
  /// Opens `path`. Throws zf::Error (Plugin) located at `path`: "not a shared library"
  /// when the file is not one, else "cannot load shared library: <loader message>".
  explicit DynamicLibrary(const std::filesystem::path& path);
  ~DynamicLibrary();
  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  /// The address of exported symbol `name`, or nullptr.
  void* symbol(const char* name) const noexcept;

 private:
  void* handle_ = nullptr;
};

}  // namespace zf::detail
