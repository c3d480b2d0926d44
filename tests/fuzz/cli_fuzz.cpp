// SPDX-License-Identifier: MIT
// Fuzz target: the command line itself, in process (zf::cli::run_main, which never exits):
// the arguments and the files they name, every command, the bundled plugins on the search
// path. Every run must end with exit code 0, 1 or 2 and print no raw byte of its input in a
// message: stderr is valid UTF-8 without control characters (but the newline ending a line and
// the tab of a source line over its caret). A crash, a sanitizer report, another exit code or
// an unescaped byte is a bug. (stdout is data: a rendered template may hold any text.)
//
// Input: the arguments, separated by NUL; then, after two NULs, up to three files, separated
// by two NULs each. In an argument `@0`, `@1` and `@2` stand for the files' paths (f0.json,
// f1.json, f2.j2), `@I` for their directory (a --template-dir) and `@D` for an output
// directory; all are absolute and long, since short paths hide lifetime bugs in a
// 15-character small-string buffer. Each run works in a fresh directory
// below a root of its own; a run whose arguments could reach outside it (an absolute path,
// `..`, a plugin library file) is skipped.
#include <dlfcn.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"

namespace {

namespace fs = std::filesystem;

// Long on purpose: every path the CLI sees is far past a small-string buffer.
constexpr const char* kWork =
    "a-working-directory-with-a-long-name-so-that-no-path-fits-a-small-string-buffer";

fs::path root;      // made once
fs::path run_dir;   // root/kWork/run, fresh for each input
fs::path original;  // the directory the fuzzer started in

// Where output goes: kept, to be checked, and cleared before each run.
std::stringstream captured_out, captured_err;
std::streambuf* saved_out = nullptr;
std::streambuf* saved_err = nullptr;

std::vector<std::string> split(std::string_view text, std::string_view separator) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (true) {
    const std::size_t next = text.find(separator, at);
    parts.emplace_back(text.substr(at, next == std::string_view::npos ? next : next - at));
    if (next == std::string_view::npos) return parts;
    at = next + separator.size();
  }
}

// An argument that could name something outside the run's directory.
bool reaches_out(const std::string& arg) {
  if (arg.find("..") != std::string::npos || arg.find(".so") != std::string::npos) return true;
  for (std::size_t i = 0; i < arg.size(); ++i) {
    if (arg[i] != '/') continue;
    const char before = i == 0 ? '\0' : arg[i - 1];
    const bool plain = (before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') ||
                       (before >= '0' && before <= '9') || before == '.' || before == '_' ||
                       before == '-' || before == '+';
    if (!plain) return true;  // `/x`, `--values=/x`, `a,/x`, `a//x`
  }
  return false;
}

void replace_all(std::string& text, std::string_view from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// The length of the UTF-8 sequence at `at`, or 0 when it is not one.
std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  const std::size_t size = lead < 0x80                    ? 1
                           : lead >= 0xC2 && lead <= 0xDF ? 2
                           : lead >= 0xE0 && lead <= 0xEF ? 3
                           : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                          : 0;
  if (size == 0 || at + size > text.size()) return 0;
  for (std::size_t i = 1; i < size; ++i) {
    if ((static_cast<unsigned char>(text[at + i]) & 0xC0) != 0x80) return 0;
  }
  return size;
}

// Messages are shown escaped: valid UTF-8, no control character but the newline that ends a
// line and the tab of a source line with its caret (diagnostic_printer.cpp).
void check_messages(std::string_view text, const char* stream) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t size = utf8_length(text, at);
    const auto c = static_cast<unsigned char>(text[at]);
    const bool c1 = size == 2 && c == 0xC2 && static_cast<unsigned char>(text[at + 1]) < 0xA0;
    if (size == 0 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F || c1) {
      std::fprintf(stderr, "cli_fuzz: %s holds a raw byte 0x%02x at %zu:\n%.*s\n", stream, c, at,
                   static_cast<int>(text.size()), text.data());
      std::abort();
    }
    at += size;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  original = fs::current_path();
  char pattern[] = "/tmp/zeroforge-cli-fuzz-XXXXXX";
  if (mkdtemp(pattern) == nullptr) std::abort();
  root = pattern;
  run_dir = root / kWork / "run";
  // What ships: the source tree's templates and presets, the fuzz build's plugins; no
  // nvidia-smi (probe's subprocess is tested in tests/cli/probe_cli_test.cpp).
  setenv("ZEROFORGE_DATA_DIR", ZF_FUZZ_DATA_DIR, 1);
  setenv("ZEROFORGE_PLUGIN_PATH", ZF_FUZZ_PLUGIN_DIR, 1);
  setenv("PATH", "/nonexistent-zeroforge-cli-fuzz", 1);
  unsetenv("CUDA_VISIBLE_DEVICES");
  unsetenv("ZEROFORGE_MAX_INPUT_MIB");
  // The plugins are instrumented too: libFuzzer keeps their coverage counters from the first
  // dlopen on, so they must stay mapped when a run's PluginHost closes them (RTLD_NODELETE
  // here; the host's own dlopen and dlclose then only count references).
  for (const auto& entry : fs::directory_iterator(ZF_FUZZ_PLUGIN_DIR)) {
    if (entry.path().extension() != ".so") continue;
    if (dlopen(entry.path().c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) == nullptr) {
      std::fprintf(stderr, "cli_fuzz: %s\n", dlerror());
      std::abort();
    }
  }
  saved_out = std::cout.rdbuf(captured_out.rdbuf());
  saved_err = std::cerr.rdbuf(captured_err.rdbuf());
  std::atexit([] {
    std::cout.rdbuf(saved_out);
    std::cerr.rdbuf(saved_err);
    std::error_code ec;
    fs::current_path(original, ec);
    fs::remove_all(root, ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split_at = input.find(std::string_view("\0\0", 2));
  std::vector<std::string> args = split(input.substr(0, split_at), std::string_view("\0", 1));
  std::vector<std::string> files;
  if (split_at != std::string_view::npos)
    files = split(input.substr(split_at + 2), std::string_view("\0\0", 2));
  if (args.size() > 32 || files.size() > 3) return 0;

  std::error_code ec;
  fs::remove_all(run_dir, ec);
  const fs::path inputs = run_dir / "the-inputs-this-run-of-the-command-line-fuzzer-reads";
  fs::create_directories(inputs);
  const char* names[] = {"f0.json", "f1.json", "f2.j2"};
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::ofstream(inputs / names[i], std::ios::binary) << files[i];
  }
  // libFuzzer names its files relative to where it started: go back there after the run.
  struct Back {
    ~Back() {
      std::error_code ignored;
      fs::current_path(original, ignored);
    }
  } back;
  for (auto& arg : args) {
    if (arg.size() > 4096 || reaches_out(arg)) return 0;
    replace_all(arg, "@0", (inputs / names[0]).string());
    replace_all(arg, "@1", (inputs / names[1]).string());
    replace_all(arg, "@2", (inputs / names[2]).string());
    replace_all(arg, "@I", inputs.string());
    replace_all(arg, "@D",
                (run_dir / "an-output-directory-named-at-length-by-the-fuzzer").string());
  }

  fs::current_path(run_dir);
  captured_out.str("");
  captured_err.str("");
  std::cout.clear();
  std::cerr.clear();
  const int code = zf::cli::run_main(args);
  if (code < 0 || code > 2) {
    std::fprintf(stderr, "cli_fuzz: exit code %d\n", code);
    std::abort();
  }
  check_messages(captured_err.str(), "stderr");
  // ZF_CLI_FUZZ_VERBOSE=1: what each run did, to see what a corpus reaches.
  if (std::getenv("ZF_CLI_FUZZ_VERBOSE")) {
    std::fprintf(stderr, "cli_fuzz: exit %d,", code);
    for (const auto& arg : args) std::fprintf(stderr, " [%s]", arg.c_str());
    std::fprintf(stderr, "\n  stdout %zu bytes; stderr:\n%s", captured_out.str().size(),
                 captured_err.str().c_str());
  }
  return 0;
}
