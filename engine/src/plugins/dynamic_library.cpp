// SPDX-License-Identifier: MIT
// DynamicLibrary on POSIX: dlopen/dlsym/dlclose, with a check that tells "not a shared
// library" and a truncated one (which dlopen would map and crash on with SIGBUS) apart from a
// library that fails to load (missing dependency, wrong architecture).
#include "plugins/dynamic_library.hpp"

#include <dlfcn.h>
#if !defined(__APPLE__)
#include <elf.h>
#endif

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>

#include "zeroforge/error.hpp"

namespace zf::detail {
namespace {

// RTLD_LOCAL keeps each plugin's symbols to itself, so two plugins may both define (say)
// a static helper or bundle different nlohmann_json versions without clashing.
constexpr int kOpenFlags = RTLD_NOW | RTLD_LOCAL;

#if defined(__APPLE__)
// What is wrong with the file as a shared library, or "" when dlopen may try it.
std::string shared_library_problem(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[4] = {};
  in.read(reinterpret_cast<char*>(magic), sizeof magic);
  if (in.gcount() != sizeof magic) return "not a shared library";
  const unsigned char m0 = magic[0];
  bool mach_o = m0 == 0xCF || m0 == 0xCE || m0 == 0xCA || m0 == 0xFE;  // Mach-O, fat binaries
  return mach_o ? "" : "not a shared library";
}
#else
// The parts of an ELF file the loader maps. dlopen maps each loadable segment with mmap, and
// touching a page past the end of a truncated file is SIGBUS, so every range the headers name
// must lie inside the file before dlopen sees it.
// Reads `length` bytes at `offset` into `out`; false when the file is shorter.
bool read_at(std::ifstream& in, std::uint64_t offset, void* out, std::size_t length) {
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(static_cast<char*>(out), static_cast<std::streamsize>(length));
  return static_cast<std::size_t>(in.gcount()) == length;
}

template <typename Header, typename ProgramHeader>
std::string elf_problem(std::ifstream& in, std::uint64_t size) {
  Header header;
  if (!read_at(in, 0, &header, sizeof header)) {
    return "truncated ELF file (" + std::to_string(size) + " bytes)";
  }
  if (header.e_type != ET_DYN) return "not a shared library (an ELF file of another type)";
  auto inside = [size](std::uint64_t offset, std::uint64_t length) {
    return offset <= size && length <= size - offset;
  };
  if (header.e_phentsize != sizeof(ProgramHeader) ||
      !inside(header.e_phoff, std::uint64_t{header.e_phnum} * header.e_phentsize)) {
    return "truncated or damaged ELF file: its program headers lie past its " +
           std::to_string(size) + " bytes";
  }
  if (header.e_shnum != 0 &&
      !inside(header.e_shoff, std::uint64_t{header.e_shnum} * header.e_shentsize)) {
    return "truncated ELF file: its section headers end past its " + std::to_string(size) +
           " bytes";
  }
  for (std::size_t i = 0; i < header.e_phnum; ++i) {
    ProgramHeader segment;
    if (!read_at(in, header.e_phoff + i * sizeof segment, &segment, sizeof segment)) {
      return "cannot read the ELF program headers";
    }
    if (segment.p_type == PT_LOAD && !inside(segment.p_offset, segment.p_filesz)) {
      return "truncated ELF file: segment " + std::to_string(i) + " ends at byte " +
             std::to_string(std::uint64_t{segment.p_offset} + segment.p_filesz) + ", past its " +
             std::to_string(size) + " bytes";
    }
  }
  return "";
}

std::string shared_library_problem(const std::filesystem::path& path) {
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) return "cannot read the file";
  unsigned char ident[EI_NIDENT] = {};
  if (!read_at(in, 0, ident, sizeof ident) || std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    return "not a shared library";
  }
  switch (ident[EI_CLASS]) {
    case ELFCLASS64:
      return elf_problem<Elf64_Ehdr, Elf64_Phdr>(in, size);
    case ELFCLASS32:
      return elf_problem<Elf32_Ehdr, Elf32_Phdr>(in, size);
    default:
      return "not a shared library (unknown ELF class)";
  }
}
#endif

}  // namespace

DynamicLibrary::DynamicLibrary(const std::filesystem::path& path) {
  Location where{path.string(), 0, 0};
  if (std::string problem = shared_library_problem(path); !problem.empty()) {
    throw Error(ErrorKind::Plugin, problem, where);
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
