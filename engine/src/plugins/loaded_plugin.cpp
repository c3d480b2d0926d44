// SPDX-License-Identifier: MIT
// LoadedPlugin: descriptor checks (ABI version first, then sizes, names and tables) and hook
// calls with the ownership rules of plugin.h: out-strings always go back through free_string.
#include "plugins/loaded_plugin.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "launch/launch_text.hpp"
#include "text_helpers.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/tiers.hpp"

namespace zf::detail {
namespace {

// True when a struct the other side says is `size` bytes long contains `member`.
#define ZF_HAS_FIELD(type, size, member) \
  (offsetof(type, member) + sizeof(type::member) <= static_cast<std::size_t>(size))

bool valid_plugin_name(std::string_view name) {
  if (name.empty() || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

bool valid_identifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
      return false;
    }
  }
  return true;
}

const char* or_empty(const char* text) { return text ? text : ""; }

// A copy of `text` the plugin releases with zf_host::free_host_string; nullptr when memory ran
// out (the plugin then sees no message, never a crash).
char* host_string(std::string_view text, std::size_t* size = nullptr) noexcept {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (!out) return nullptr;
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  if (size) *size = text.size();
  return out;
}

}  // namespace

const char* function_kind_name(int kind) noexcept {
  switch (kind) {
    case ZF_FUNCTION_GLOBAL:
      return "function";
    case ZF_FUNCTION_FILTER:
      return "filter";
    case ZF_FUNCTION_TEST:
      return "test";
    default:
      return "function";
  }
}

LoadedPlugin::LoadedPlugin(const std::filesystem::path& path) : library_(path) {
  info.path = path;
  Location where{path.string(), 0, 0};
  auto fail = [&](const std::string& message) { return Error(ErrorKind::Plugin, message, where); };

  auto entry = reinterpret_cast<zf_plugin_entry_fn>(library_.symbol(ZF_PLUGIN_ENTRY_NAME));
  if (!entry) {
    throw fail("no entry symbol '" ZF_PLUGIN_ENTRY_NAME
               "' (define it with ZF_PLUGIN_EXPORT so that it is exported)");
  }
  descriptor = entry(ZF_PLUGIN_ABI_VERSION);
  if (!descriptor) throw fail("'" ZF_PLUGIN_ENTRY_NAME "' returned no descriptor (NULL)");
  // The version decides the layout of everything else, so it is read first and alone.
  info.abi_version = descriptor->abi_version;
  if (info.abi_version != ZF_PLUGIN_ABI_VERSION) {
    throw fail("plugin ABI version " + std::to_string(info.abi_version) +
               " does not match zeroforge's ABI version " + std::to_string(ZF_PLUGIN_ABI_VERSION) +
               "; rebuild the plugin against this zeroforge's zeroforge/plugin.h");
  }
  const std::uint32_t size = descriptor->struct_size;
  if (!ZF_HAS_FIELD(zf_plugin, size, free_string)) {
    throw fail("descriptor struct_size " + std::to_string(size) + " is smaller than the " +
               std::to_string(offsetof(zf_plugin, free_string) + sizeof(zf_plugin::free_string)) +
               " bytes every ABI " + std::to_string(ZF_PLUGIN_ABI_VERSION) + " descriptor has");
  }
  if (!descriptor->name || !valid_plugin_name(descriptor->name)) {
    throw fail("plugin name '" + std::string(or_empty(descriptor->name)) +
               "' is invalid: use lower-case letters, digits and '_', starting with a letter");
  }
  info.name = descriptor->name;
  if (!descriptor->version || !*descriptor->version) throw error("descriptor has no version");
  info.version = descriptor->version;
  info.description = or_empty(descriptor->description);
  free_string_ = descriptor->free_string;

  if (ZF_HAS_FIELD(zf_plugin, size, init)) init_ = descriptor->init;
  if (ZF_HAS_FIELD(zf_plugin, size, destroy)) destroy_ = descriptor->destroy;
  if (ZF_HAS_FIELD(zf_plugin, size, values_hook)) values_hook = descriptor->values_hook;
  if (ZF_HAS_FIELD(zf_plugin, size, output_hook)) output_hook = descriptor->output_hook;
  info.has_values_hook = values_hook != nullptr;
  info.has_output_hook = output_hook != nullptr;

  if (ZF_HAS_FIELD(zf_plugin, size, functions) && descriptor->functions) {
    for (const zf_function* const* it = descriptor->functions; *it; ++it) {
      const zf_function& f = **it;
      std::string label = "function #" + std::to_string(functions.size() + 1);
      if (!ZF_HAS_FIELD(zf_function, f.struct_size, call)) {
        throw error(label + " has struct_size " + std::to_string(f.struct_size) + ", too small");
      }
      if (!f.name || !valid_identifier(f.name)) {
        throw error(label + " has an invalid name '" + or_empty(f.name) + "'");
      }
      label = std::string(function_kind_name(f.kind)) + " '" + f.name + "'";
      if (f.kind != ZF_FUNCTION_GLOBAL && f.kind != ZF_FUNCTION_FILTER &&
          f.kind != ZF_FUNCTION_TEST) {
        throw error("function '" + std::string(f.name) + "' has an unknown kind " +
                    std::to_string(f.kind));
      }
      if (!f.call) throw error(label + " has no call hook");
      if (f.min_args < 0 || (f.max_args >= 0 && f.max_args < f.min_args) || f.max_args < -1) {
        throw error(label + " has invalid argument bounds " + std::to_string(f.min_args) + ".." +
                    std::to_string(f.max_args));
      }
      for (const zf_function* seen : functions) {
        if (seen->kind == f.kind && std::string_view(seen->name) == f.name) {
          throw error(label + " is declared twice");
        }
      }
      functions.push_back(&f);
      info.functions.push_back(label.substr(0, label.find(' ')) + " " + f.name);
    }
  }
  if (ZF_HAS_FIELD(zf_plugin, size, commands) && descriptor->commands) {
    for (const zf_command* const* it = descriptor->commands; *it; ++it) {
      const zf_command& c = **it;
      std::string label = "command #" + std::to_string(commands.size() + 1);
      if (!ZF_HAS_FIELD(zf_command, c.struct_size, run)) {
        throw error(label + " has struct_size " + std::to_string(c.struct_size) + ", too small");
      }
      if (!c.name || !*c.name) throw error(label + " has no name");
      if (!c.run) throw error("command '" + std::string(c.name) + "' has no run hook");
      for (const zf_command* seen : commands) {
        if (std::string_view(seen->name) == c.name) {
          throw error("command '" + std::string(c.name) + "' is declared twice");
        }
      }
      commands.push_back(&c);
      info.commands.emplace_back(c.name, or_empty(c.summary));
    }
  }
  if (ZF_HAS_FIELD(zf_plugin, size, option_names) && descriptor->option_names) {
    info.option_names.emplace();
    for (const char* const* it = descriptor->option_names; *it; ++it) {
      if (!**it)
        throw error("option name #" + std::to_string(info.option_names->size() + 1) + " is empty");
      info.option_names->emplace_back(*it);
    }
  }
  if (ZF_HAS_FIELD(zf_plugin, size, path_options) && descriptor->path_options) {
    for (const char* const* it = descriptor->path_options; *it; ++it) {
      if (!**it)
        throw error("path option name #" + std::to_string(info.path_options.size() + 1) +
                    " is empty");
      info.path_options.emplace_back(*it);
    }
  }
  bool has_hooks = values_hook || output_hook || init_ || !functions.empty() || !commands.empty();
  if (has_hooks && !free_string_) {
    throw error("descriptor has hooks but no free_string to release their results");
  }
}

LoadedPlugin::~LoadedPlugin() {
  if (started_ && destroy_) {
    std::lock_guard lock(mutex_);
    destroy_(&context_);
  }
  // library_ is closed after this body, once the plugin can no longer be called.
}

void LoadedPlugin::check_option_names(const nlohmann::ordered_json& options) const {
  // An option nothing reads is a typo that would otherwise change nothing, silently.
  if (options.empty()) return;
  if (!info.option_names && init_) return;  // the plugin's init checks them itself
  const std::vector<std::string> none;
  const auto& names = info.option_names ? *info.option_names : none;
  for (const auto& [key, value] : options.items()) {
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    std::string message = "unknown option '" + key + "'";
    if (names.empty()) {
      message += " (the plugin takes no options)";
    } else {
      std::string guess = nearest_name(key, names);
      if (!guess.empty()) message += "; did you mean '" + guess + "'?";
      message += " (it takes:";
      for (const auto& name : names) message += " " + name;
      message += ")";
    }
    throw error(message);
  }
}

void LoadedPlugin::start(const nlohmann::ordered_json& options,
                         const std::filesystem::path& data_dir,
                         std::function<void(PluginLogLevel, std::string, std::string)> log) {
  check_option_names(options);
  info.options = options;
  path_text_ = info.path.string();
  data_dir_text_ = data_dir.string();
  options_text_ = options.dump();
  log_ = std::move(log);
  host_.abi_version = ZF_PLUGIN_ABI_VERSION;
  host_.struct_size = sizeof(zf_host);
  host_.host_version = ZEROFORGE_VERSION;
  host_.plugin_path = path_text_.c_str();
  host_.data_dir = data_dir_text_.c_str();
  host_.host_data = this;
  host_.log = &LoadedPlugin::host_log;
  host_.note_input = &LoadedPlugin::host_note_input;
  host_.read_file = &LoadedPlugin::host_read_file;
  host_.check_launch_text = &LoadedPlugin::host_check_launch_text;
  host_.free_host_string = &LoadedPlugin::host_free_string;
  host_.find_tier = &LoadedPlugin::host_find_tier;
  context_.struct_size = sizeof(zf_context);
  context_.host = &host_;
  context_.options_json = options_text_.c_str();
  context_.state = nullptr;
  if (init_) {
    std::lock_guard lock(mutex_);
    void* state = nullptr;
    char* message = nullptr;
    int status = init_(&context_, &state, &message);
    std::string text;
    take(message, &text);
    if (status != ZF_OK) {
      // A failed init owns nothing: destroy is not called for it.
      throw error("init failed: " + (text.empty() ? std::string("no message") : text));
    }
    context_.state = state;
  }
  started_ = true;
}

void LoadedPlugin::take(char* text, std::string* out) const noexcept {
  if (!text) return;
  if (out) {
    try {
      *out = text;
    } catch (...) {
    }
  }
  free_string_(text);
}

std::optional<std::string> LoadedPlugin::call(zf_json_hook hook, std::string_view hook_name,
                                              const std::string& input) const {
  char* output = nullptr;
  char* message = nullptr;
  int status;
  {
    std::lock_guard lock(mutex_);
    status = hook(&context_, input.c_str(), &output, &message);
  }
  std::optional<std::string> result;
  if (output) result.emplace();
  std::string text;
  take(output, result ? &*result : nullptr);
  take(message, &text);
  if (status != ZF_OK) {
    throw error(std::string(hook_name) +
                " failed: " + (text.empty() ? std::string("no message") : text));
  }
  return result;
}

CommandResult LoadedPlugin::run(const zf_command& command, const std::string& args_json) const {
  char* output = nullptr;
  char* message = nullptr;
  int exit_code = 0;
  int status;
  {
    std::lock_guard lock(mutex_);
    status = command.run(&context_, args_json.c_str(), &output, &exit_code, &message);
  }
  CommandResult result;
  std::string text;
  take(output, &result.output);
  take(message, &text);
  if (status != ZF_OK) {
    throw error("command '" + std::string(command.name) +
                "' failed: " + (text.empty() ? std::string("no message") : text));
  }
  result.exit_code = exit_code;
  result.message = std::move(text);
  return result;
}

nlohmann::ordered_json LoadedPlugin::parse(std::string_view hook_name,
                                           const std::string& text) const {
  try {
    return parse_json_text(text, std::string(hook_name));
  } catch (const Error& e) {
    std::string where;
    if (e.where().line != 0) {
      where = " (line " + std::to_string(e.where().line) + ", column " +
              std::to_string(e.where().column) + ")";
    }
    throw error(std::string(hook_name) + " returned malformed JSON" + where + ": " + e.message());
  }
}

Error LoadedPlugin::error(const std::string& message) const {
  std::string prefix = info.name.empty() ? "" : "plugin '" + info.name + "': ";
  return Error(ErrorKind::Plugin, prefix + message, Location{info.path.string(), 0, 0});
}

void LoadedPlugin::host_log(void* host_data, int level, const char* message) noexcept {
  auto* self = static_cast<LoadedPlugin*>(host_data);
  if (!self || !message || !self->log_) return;
  PluginLogLevel mapped = level <= ZF_LOG_DEBUG     ? PluginLogLevel::Debug
                          : level == ZF_LOG_INFO    ? PluginLogLevel::Info
                          : level == ZF_LOG_WARNING ? PluginLogLevel::Warning
                                                    : PluginLogLevel::Error;
  try {
    self->log_(mapped, message, "");
  } catch (...) {
    // A log sink must never unwind into plugin code.
  }
}

void LoadedPlugin::host_note_input(void* host_data, const char* path) noexcept {
  auto* self = static_cast<LoadedPlugin*>(host_data);
  if (!self || !path || !*path) return;
  try {
    std::lock_guard lock(self->inputs_mutex_);
    std::filesystem::path file(path);
    if (std::find(self->inputs_.begin(), self->inputs_.end(), file) == self->inputs_.end())
      self->inputs_.push_back(std::move(file));
  } catch (...) {
    // Never unwind into plugin code.
  }
}

int LoadedPlugin::host_read_file(void* host_data, const char* path, char** contents,
                                 std::size_t* size, char** error) noexcept {
  if (contents) *contents = nullptr;
  if (size) *size = 0;
  if (error) *error = nullptr;
  if (!path || !contents || !size) {
    if (error) *error = host_string("read_file: path, contents and size must not be NULL");
    return ZF_ERROR;
  }
  try {
    // The engine's own reader: the same size limit and FIFO guard as every other input.
    const std::string text = zf::read_file(path);
    *contents = host_string(text, size);
    if (!*contents) throw std::bad_alloc();
    host_note_input(host_data, path);
    return ZF_OK;
  } catch (const Error& e) {
    if (error) *error = host_string(e.message());
  } catch (const std::bad_alloc&) {
    if (error) *error = host_string(std::string("cannot read '") + path + "': out of memory");
  } catch (...) {
    if (error) *error = host_string(std::string("cannot read '") + path + "'");
  }
  return ZF_ERROR;
}

int LoadedPlugin::host_check_launch_text(void*, int kind, const char* text, std::size_t size,
                                         char** message) noexcept {
  if (message) *message = nullptr;
  try {
    using launch::LaunchText;
    std::string problem;
    if (kind != ZF_LAUNCH_HOST_NAME && kind != ZF_LAUNCH_VARIABLE_NAME &&
        kind != ZF_LAUNCH_VARIABLE_VALUE) {
      problem = "check_launch_text: unknown kind " + std::to_string(kind) +
                " (expected ZF_LAUNCH_HOST_NAME, ZF_LAUNCH_VARIABLE_NAME or "
                "ZF_LAUNCH_VARIABLE_VALUE)";
    } else if (!text && size != 0) {
      problem = "check_launch_text: text is NULL";
    } else {
      const LaunchText which = kind == ZF_LAUNCH_HOST_NAME       ? LaunchText::HostName
                               : kind == ZF_LAUNCH_VARIABLE_NAME ? LaunchText::VariableName
                                                                 : LaunchText::VariableValue;
      problem = launch::launch_text_problem(which, std::string_view(text ? text : "", size));
    }
    if (problem.empty()) return ZF_OK;
    if (message) *message = host_string(problem);
  } catch (...) {
    if (message) *message = host_string("check_launch_text: out of memory");
  }
  return ZF_ERROR;
}

void LoadedPlugin::host_free_string(void*, char* text) noexcept { std::free(text); }

int LoadedPlugin::host_find_tier(void* host_data, const char* ref, char** path,
                                 char** error) noexcept {
  if (path) *path = nullptr;
  if (error) *error = nullptr;
  auto* self = static_cast<LoadedPlugin*>(host_data);
  if (!self || !ref || !path) {
    if (error) *error = host_string("find_tier: ref and path must not be NULL");
    return ZF_ERROR;
  }
  try {
    // The one tier resolution of every command (family/tier_search.cpp); a plugin has no
    // family, so the search path starts at ./tiers.
    ResolvedTier tier = resolve_tier(ref, {{}, {}, self->data_dir_text_});
    if (self->log_) {
      for (const auto& warning : tier.warnings)
        self->log_(PluginLogLevel::Warning, warning.message, warning.code);
    }
    *path = host_string(tier.file.string());
    if (!*path) throw std::bad_alloc();
    return ZF_OK;
  } catch (const Error& e) {
    if (error) *error = host_string(e.message());
  } catch (...) {
    if (error) *error = host_string(std::string("find_tier: cannot resolve '") + ref + "'");
  }
  return ZF_ERROR;
}

std::vector<std::filesystem::path> LoadedPlugin::files_read() const {
  std::lock_guard lock(inputs_mutex_);
  return inputs_;
}

}  // namespace zf::detail
