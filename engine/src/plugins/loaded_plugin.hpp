// SPDX-License-Identifier: MIT
// LoadedPlugin: one opened plugin: its descriptor checked against the ABI, the host and context
// structs handed to it, and the one place that calls its hooks and takes back their strings.
#pragma once

#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/dynamic_library.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/plugin.h"
#include "zeroforge/plugin_host.hpp"

namespace zf::detail {

/// A plugin in memory. Lives behind a shared_ptr at a fixed address (the plugin keeps
/// pointers to `host_` and `context_`). `init` runs separately, after all checks passed.
struct LoadedPlugin {
  /// Opens `path`, checks the ABI version first, then the descriptor and its tables.
  /// Throws zf::Error (Plugin) located at `path`.
  explicit LoadedPlugin(const std::filesystem::path& path);
  ~LoadedPlugin();
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;

  /// Refuses an option the plugin does not declare (or any, for a plugin that neither
  /// declares options nor has an init to check them).
  void check_option_names(const nlohmann::ordered_json& options) const;
  /// Checks the option names, then calls `init` with `options` (a JSON object); throws when
  /// either fails.
  /// `log` receives the plugin's messages (code "") and the host's own warnings about what
  /// the plugin asked of it (a code: `tier.shadowed` from find_tier).
  void start(const nlohmann::ordered_json& options, const std::filesystem::path& data_dir,
             std::function<void(PluginLogLevel, std::string, std::string)> log);

  /// Calls a JSON hook with `input`. Returns its output text, or nullopt when it set none.
  /// Throws zf::Error "plugin 'NAME': HOOK failed: MESSAGE" when it returns ZF_ERROR.
  std::optional<std::string> call(zf_json_hook hook, std::string_view hook_name,
                                  const std::string& input) const;
  /// Runs a command; throws like `call`.
  CommandResult run(const zf_command& command, const std::string& args_json) const;

  /// Parses a hook's output; throws "plugin 'NAME': HOOK returned malformed JSON ...".
  nlohmann::ordered_json parse(std::string_view hook_name, const std::string& text) const;
  /// An error located at the plugin file: `FILE: error: plugin 'NAME': MESSAGE`.
  Error error(const std::string& message) const;

  PluginInfo info;
  const zf_plugin* descriptor = nullptr;
  zf_json_hook values_hook = nullptr;
  zf_json_hook output_hook = nullptr;
  std::vector<const zf_function*> functions;
  std::vector<const zf_command*> commands;

 private:
  void take(char* text, std::string* out) const noexcept;

  DynamicLibrary library_;
  void (*free_string_)(char*) = nullptr;
  int (*init_)(const zf_context*, void**, char**) = nullptr;
  void (*destroy_)(const zf_context*) = nullptr;
  // Strings the plugin borrows through host_ and context_ for its whole lifetime.
  std::string path_text_;
  std::string data_dir_text_;
  std::string options_text_ = "{}";
  std::function<void(PluginLogLevel, std::string, std::string)> log_;
  zf_host host_{};
  zf_context context_{};
  bool started_ = false;
  // Calls into one plugin never overlap (the ABI promises plugins this).
  mutable std::mutex mutex_;

  static void host_log(void* host_data, int level, const char* message) noexcept;
  static void host_note_input(void* host_data, const char* path) noexcept;
  static int host_read_file(void* host_data, const char* path, char** contents, std::size_t* size,
                            char** error) noexcept;
  static int host_check_launch_text(void* host_data, int kind, const char* text, std::size_t size,
                                    char** message) noexcept;
  static void host_free_string(void* host_data, char* text) noexcept;
  static int host_find_tier(void* host_data, const char* ref, char** path, char** error) noexcept;

 public:
  /// The files the plugin said it read (zf_host::note_input), each once, in order.
  std::vector<std::filesystem::path> files_read() const;

 private:
  mutable std::mutex inputs_mutex_;
  std::vector<std::filesystem::path> inputs_;
};

/// The namespace word of a ZF_FUNCTION_* kind: "function", "filter", "test".
const char* function_kind_name(int kind) noexcept;

}  // namespace zf::detail
