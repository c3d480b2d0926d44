// SPDX-License-Identifier: MIT
// Bytes in and out, the bottom layer every stage uses (engine/src/io/): zeroforge's stable
// JSON text form and strict JSON reader, whole-file reading, atomic file writing, SHA-256.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace zf {

/// Serialises JSON the one way zeroforge writes it: 2-space indent, keys in stored order,
/// `[]`/`{}` for empty containers, integers as integers, floats in shortest round-trip form
/// (`0.0001`, `3e-05` is written `3e-5`, `1.0` stays `1.0`), a final newline.
std::string to_json_text(const nlohmann::ordered_json& json);
/// The same text appended to `out` (a caller writing many configs reuses one buffer).
void append_json_text(std::string& out, const nlohmann::ordered_json& json);

/// How parse_json_text reads a number written with a fraction or an exponent.
enum class JsonNumbers {
  /// An integral one written with an exponent (`5e8`) or of magnitude 1e6 and above
  /// (`500000000.0`, as Jinja2 prints 5e8) becomes an integer; `1.0` stays a float.
  Counts,
  /// Every such number stays a float, as Python's json module (and so DeepSpeed) reads it.
  AsWritten,
};

/// Parses JSON text the way .json templates are normalised: keys keep their order, a
/// duplicate key is an error, the text must be UTF-8, and numbers are read as `numbers`
/// says. Throws zf::Error (Json) with `name`, line and column of the first problem.
nlohmann::ordered_json parse_json_text(std::string_view text, const std::string& name,
                                       JsonNumbers numbers = JsonNumbers::Counts);
/// The same, read into `target`, whose storage is reused where the text has the same shape
/// (an object's members with the same keys in the same order, an array's elements, a
/// string's buffer): a caller reading many texts of one shape, as generate reads its
/// rendered configs, allocates little per text. On success `target` is what parse_json_text
/// returns; after an error it holds some valid JSON value.
void parse_json_text_into(nlohmann::ordered_json& target, std::string_view text,
                          const std::string& name, JsonNumbers numbers = JsonNumbers::Counts);

/// Reads a whole file; throws zf::Error (Io) naming it when it cannot be read or is larger than
/// max_input_bytes(). A path that is not a file says what it is: `cannot read 'x': is a
/// directory` (also a character device such as /dev/zero or /dev/null, a block device, a
/// socket). A FIFO or pipe is read (`--values <(...)`); one no one writes to does not block,
/// and is an error that says it is a FIFO with nothing written to it.
std::string read_file(const std::filesystem::path& path);

/// What `path` is when it exists but is not a regular file (following links), in read_file's
/// words: "is a directory", "is a FIFO (a named pipe), not a file", "is a character device
/// (...)"; "" for a regular file or a path that does not exist. For lookups that test a path
/// before reading it (a tier given by its path), so they do not call it "not found".
std::string not_a_file_problem(const std::filesystem::path& path);

/// The most ZEROFORGE_MAX_INPUT_MIB may say: 1 TiB.
inline constexpr std::uint64_t kMaxInputMib = std::uint64_t{1} << 20;

/// The largest input file read_file accepts: 64 MiB, or ZEROFORGE_MAX_INPUT_MIB MiB when that
/// environment variable is set (`/dev/zero` as a values file is an error, not an exhausted
/// machine). Throws zf::Error (Usage) when the variable is set to anything but a whole number
/// from 1 to kMaxInputMib (`0`, `64M`, ``): a limit set wrongly is never ignored.
std::uint64_t max_input_bytes();

/// Writes `content` to `path` through a temporary file in the same directory and a rename,
/// so readers see the old file or the new one, never a partial one. Creates missing parent
/// directories. Throws zf::Error (Io) and removes the temporary file on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// SHA-256 of `data` as 64 lowercase hex digits (the manifest's content hashes).
std::string sha256_hex(std::string_view data);

}  // namespace zf
