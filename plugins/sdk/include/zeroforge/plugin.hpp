// SPDX-License-Identifier: MIT
// Header-only C++ convenience layer over zeroforge/plugin.h: hooks are plain C++ functions
// over nlohmann::ordered_json; every exception is caught at the boundary and returned as an error.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/path_text.hpp"
#include "zeroforge/plugin.h"

namespace zf::sdk {

/// JSON as zeroforge passes it: keys keep their order.
using Json = nlohmann::ordered_json;

/// Throw this (or any std::exception) from a hook to fail it with `what()` as the message.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The call's view of the host: options, state, logging.
class Context {
 public:
  explicit Context(const zf_context* raw) noexcept : raw_(raw) {}

  /// The plugin's options (a JSON object, `{}` when none were given), parsed on first use.
  const Json& options() const {
    if (!options_) options_ = Json::parse(raw_->options_json ? raw_->options_json : "{}");
    return *options_;
  }
  /// The option `key`, or `fallback` when it is absent.
  template <class T>
  T option(const std::string& key, T fallback) const {
    auto it = options().find(key);
    return it == options().end() ? fallback : it->template get<T>();
  }
  /// The state object made by `Descriptor::state<T>()`.
  template <class T>
  T& state() const {
    return *static_cast<T*>(raw_->state);
  }
  /// Records a message attributed to this plugin (ZF_LOG_DEBUG ... ZF_LOG_ERROR).
  void log(int level, const std::string& message) const {
    if (raw_->host->log) raw_->host->log(raw_->host->host_data, level, message.c_str());
  }
  void warn(const std::string& message) const { log(ZF_LOG_WARNING, message); }
  /// Tells the host this plugin read `path`, so `generate --depfile` lists it (a no-op with
  /// hosts older than zf_host::note_input).
  void note_input(const std::string& path) const {
    if (!path_text_problem(path).empty()) return;  // never read: read_file refuses it
    const zf_host* host = raw_->host;
    if (host->struct_size >= offsetof(zf_host, note_input) + sizeof(host->note_input) &&
        host->note_input)
      host->note_input(host->host_data, path.c_str());
  }
  /// The file at `path`, read by the host as it reads its own inputs: its size limit (64 MiB,
  /// or ZEROFORGE_MAX_INPUT_MIB), a FIFO no one writes to as empty instead of waiting, a
  /// directory refused. The file is noted as an input (note_input). Throws Error with the
  /// host's one-line message naming the path, e.g. `cannot read 'site.json': No such file or
  /// directory`, or path_text_problem()'s when `path` holds a NUL (the host would see only
  /// the text before it). Every file a plugin reads goes through here, so no input is
  /// unbounded.
  ///
  ///     Json profile = Json::parse(ctx.read_file(path));
  std::string read_file(const std::string& path) const {
    if (std::string why = path_text_problem(path); !why.empty()) throw Error(why);
    const zf_host* host = services("read_file");
    char* contents = nullptr;
    char* error = nullptr;
    std::size_t size = 0;
    if (host->read_file(host->host_data, path.c_str(), &contents, &size, &error) != ZF_OK) {
      std::string message = error ? error : "cannot read '" + path + "'";
      host->free_host_string(host->host_data, error);
      host->free_host_string(host->host_data, contents);
      throw Error(message);
    }
    host->free_host_string(host->host_data, error);
    std::string out;
    try {
      if (contents) out.assign(contents, size);
    } catch (...) {
      host->free_host_string(host->host_data, contents);
      throw;
    }
    host->free_host_string(host->host_data, contents);
    return out;
  }
  /// "" when `text` passes the host's check for launch text of `kind` (ZF_LAUNCH_HOST_NAME,
  /// ZF_LAUNCH_VARIABLE_NAME, ZF_LAUNCH_VARIABLE_VALUE): the rules zeroforge's companions
  /// apply, so a plugin refuses what they would refuse, with the same words. Otherwise the
  /// host's message, which shows the text and the rule.
  std::string launch_text_problem(int kind, std::string_view text) const {
    const zf_host* host = services("check_launch_text");
    char* message = nullptr;
    if (host->check_launch_text(host->host_data, kind, text.data(), text.size(), &message) ==
        ZF_OK) {
      host->free_host_string(host->host_data, message);
      return "";
    }
    std::string out = message ? message : "refused by the host";
    host->free_host_string(host->host_data, message);
    return out;
  }
  /// True when the host finds tiers for plugins (zf_host::find_tier, a newer host).
  bool has_find_tier() const noexcept {
    const zf_host* host = raw_->host;
    return host->struct_size >= offsetof(zf_host, find_tier) + sizeof(host->find_tier) &&
           host->find_tier && host->free_host_string;
  }
  /// The file of tier `ref` (a name or a path) as zeroforge's commands resolve it: the host
  /// warns of a shadowed name itself. Throws Error with the host's message (every directory
  /// searched), or naming the service when the host is older (see has_find_tier()).
  ///
  ///     std::string file = ctx.find_tier("small");   // ./tiers/small.json, if there is one
  std::string find_tier(const std::string& ref) const {
    if (!has_find_tier()) {
      throw Error(std::string("this zeroforge (") +
                  (raw_->host->host_version ? raw_->host->host_version : "?") +
                  ") does not offer plugins zf_host::find_tier; use a newer zeroforge");
    }
    if (std::string why = path_text_problem(ref); !why.empty()) throw Error("tier " + why);
    const zf_host* host = raw_->host;
    char* path = nullptr;
    char* error = nullptr;
    const int status = host->find_tier(host->host_data, ref.c_str(), &path, &error);
    std::string out;
    try {
      out = status == ZF_OK ? (path ? path : "") : (error ? error : "tier '" + ref + "' not found");
    } catch (...) {
      host->free_host_string(host->host_data, path);
      host->free_host_string(host->host_data, error);
      throw;
    }
    host->free_host_string(host->host_data, path);
    host->free_host_string(host->host_data, error);
    if (status != ZF_OK) throw Error(out);
    return out;
  }
  /// zeroforge's data directory (templates/, presets/), or empty when unknown.
  std::string data_dir() const { return raw_->host->data_dir ? raw_->host->data_dir : ""; }
  /// The file this plugin was loaded from.
  std::string plugin_path() const { return raw_->host->plugin_path ? raw_->host->plugin_path : ""; }
  const zf_context* raw() const noexcept { return raw_; }

 private:
  // The host, when it offers read_file, check_launch_text and free_host_string (added
  // together, after the first release); an older host gets an error naming `service`.
  const zf_host* services(const char* service) const {
    const zf_host* host = raw_->host;
    if (host->struct_size < offsetof(zf_host, free_host_string) + sizeof(host->free_host_string) ||
        !host->read_file || !host->check_launch_text || !host->free_host_string) {
      throw Error(std::string("this zeroforge (") +
                  (host->host_version ? host->host_version : "?") +
                  ") does not offer plugins zf_host::" + service + "; use a newer zeroforge");
    }
    return host;
  }

  const zf_context* raw_;
  mutable std::optional<Json> options_;
};

/// The arguments of a template function call.
struct Call {
  Json subject;  ///< the filtered or tested value (null for globals)
  Json args;     ///< positional arguments, an array
  Json kwargs;   ///< keyword arguments, an object
};

/// Thrown by a command for arguments it cannot take: the user sees `zeroforge NAME: error:
/// MESSAGE` and a pointer to `--help`, and the process exits 2 (any other exception is a
/// failure of the plugin, reported with its file).
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Hook signatures a plugin author writes.
using JsonHookFn = Json (*)(const Context&, const Json& input);
using FunctionFn = Json (*)(const Context&, const Call& call);
using CommandFn = int (*)(const Context&, const std::vector<std::string>& args, std::string& out);

namespace detail {

/// A copy of `text` the host releases with `free_string` (std::free).
inline char* duplicate(std::string_view text) noexcept {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (!out) return nullptr;
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return out;
}

inline void free_string(char* text) { std::free(text); }

/// Runs `body`, turning any exception into ZF_ERROR with `*error` set.
template <class Body>
int guarded(char** error, Body&& body) noexcept {
  try {
    body();
    return ZF_OK;
  } catch (const std::exception& e) {
    if (error) *error = duplicate(e.what());
  } catch (...) {
    if (error) *error = duplicate("unknown C++ exception");
  }
  return ZF_ERROR;
}

inline char* dump(const Json& json) {
  if (json.is_null()) return nullptr;
  std::string text = json.dump();
  char* out = duplicate(text);
  if (!out) throw std::bad_alloc();
  return out;
}

template <JsonHookFn Fn>
int json_hook(const zf_context* ctx, const char* input, char** output, char** error) noexcept {
  return guarded(error, [&] { *output = dump(Fn(Context(ctx), Json::parse(input))); });
}

template <FunctionFn Fn>
int function_hook(const zf_context* ctx, const char* input, char** output, char** error) noexcept {
  return guarded(error, [&] {
    Json in = Json::parse(input);
    Call call{in.value("subject", Json()), in.value("args", Json::array()),
              in.value("kwargs", Json::object())};
    Json result = Fn(Context(ctx), call);
    // A function returning null returns JSON null, not "no result".
    *output = result.is_null() ? duplicate("null") : dump(result);
  });
}

template <CommandFn Fn>
int command_hook(const zf_context* ctx, const char* args_json, char** output, int* exit_code,
                 char** error) noexcept {
  return guarded(error, [&] {
    std::vector<std::string> args = Json::parse(args_json).get<std::vector<std::string>>();
    std::string out;
    try {
      *exit_code = Fn(Context(ctx), args, out);
    } catch (const UsageError& e) {
      *exit_code = 2;
      *error = duplicate(e.what());
    }
    if (!out.empty()) *output = duplicate(out);
  });
}

template <class State>
int init_state(const zf_context* ctx, void** state, char** error) noexcept {
  return guarded(error, [&] { *state = new State(Context(ctx)); });
}

template <class State>
void destroy_state(const zf_context* ctx) noexcept {
  delete static_cast<State*>(ctx->state);
}

}  // namespace detail

/// Builds a plugin's descriptor. Strings must be literals (or otherwise static); hooks are
/// functions given as template arguments so they become plain C function pointers.
///
///     zf::sdk::Json shout(const zf::sdk::Context&, const zf::sdk::Call& call) { ... }
///
///     ZF_PLUGIN_EXPORT const zf_plugin* zf_plugin_entry(uint32_t) {
///       static zf::sdk::Descriptor plugin =
///           zf::sdk::Descriptor("example", "1.0.0", "what it does")
///               .function<shout>(ZF_FUNCTION_FILTER, "shout", 0, 0, "upper-cases a string");
///       return plugin.get();
///     }
class Descriptor {
 public:
  Descriptor(const char* name, const char* version, const char* description) noexcept {
    plugin_.abi_version = ZF_PLUGIN_ABI_VERSION;
    plugin_.struct_size = sizeof(zf_plugin);
    plugin_.name = name;
    plugin_.version = version;
    plugin_.description = description;
    plugin_.free_string = detail::free_string;
  }

  /// A state object built once from the options (`State(const Context&)`, which may throw
  /// to reject them) and reached in hooks with `ctx.state<State>()`.
  template <class State>
  Descriptor&& state() && {
    plugin_.init = detail::init_state<State>;
    plugin_.destroy = detail::destroy_state<State>;
    return std::move(*this);
  }
  /// The values hook: returns {"values": {...}, "manifest": {...}}, null for no change, or
  /// {"findings": [{"message": ..., "pointer": ...}]} to refuse the values (see plugin.h).
  template <JsonHookFn Fn>
  Descriptor&& values_hook() && {
    plugin_.values_hook = detail::json_hook<Fn>;
    return std::move(*this);
  }
  /// The output hook: returns {"patch": {...}} or {"replace": {...}}, or null.
  template <JsonHookFn Fn>
  Descriptor&& output_hook() && {
    plugin_.output_hook = detail::json_hook<Fn>;
    return std::move(*this);
  }
  /// A template function, filter or test (`kind` is a ZF_FUNCTION_* value).
  template <FunctionFn Fn>
  Descriptor&& function(int kind, const char* name, int min_args, int max_args,
                        const char* summary = nullptr) && {
    functions_.push_back(zf_function{sizeof(zf_function), kind, name, summary, min_args, max_args,
                                     detail::function_hook<Fn>});
    return std::move(*this);
  }
  /// The option names (top-level keys) the plugin reads; the host refuses any other. Without
  /// this (and without a `state` to check them) the plugin takes no options at all.
  Descriptor&& options(std::initializer_list<const char*> names) && {
    option_names_.assign(names.begin(), names.end());
    declares_options_ = true;
    return std::move(*this);
  }
  /// The options whose string value is a path (zf_plugin::path_options): the host resolves a
  /// relative one a family file gives against the family file's directory.
  Descriptor&& path_options(std::initializer_list<const char*> names) && {
    path_option_names_.assign(names.begin(), names.end());
    return std::move(*this);
  }
  /// A CLI command, `zeroforge NAME ARGS...`; `Fn` writes to `out` and returns the exit code.
  template <CommandFn Fn>
  Descriptor&& command(const char* name, const char* summary) && {
    commands_.push_back(zf_command{sizeof(zf_command), name, summary, detail::command_hook<Fn>});
    return std::move(*this);
  }

  /// The finished descriptor; call once the Descriptor has its final (static) address. The
  /// tables are built by the first call and only read after: the entry function may run in
  /// several threads at once (one process, several hosts: the Python module's threads), and
  /// a host that has the descriptor reads it while another thread asks for it again.
  const zf_plugin* get() {
    static std::mutex building;
    std::lock_guard<std::mutex> lock(building);
    if (built_) return &plugin_;
    for (const auto& f : functions_) function_table_.push_back(&f);
    function_table_.push_back(nullptr);
    for (const auto& c : commands_) command_table_.push_back(&c);
    command_table_.push_back(nullptr);
    plugin_.functions = function_table_.data();
    plugin_.commands = command_table_.data();
    if (declares_options_) {
      option_table_ = option_names_;
      option_table_.push_back(nullptr);
      plugin_.option_names = option_table_.data();
    }
    if (!path_option_names_.empty()) {
      path_option_table_ = path_option_names_;
      path_option_table_.push_back(nullptr);
      plugin_.path_options = path_option_table_.data();
    }
    built_ = true;
    return &plugin_;
  }

 private:
  zf_plugin plugin_{};
  std::vector<zf_function> functions_;
  std::vector<zf_command> commands_;
  std::vector<const zf_function*> function_table_;
  std::vector<const zf_command*> command_table_;
  std::vector<const char*> option_names_;
  std::vector<const char*> option_table_;
  std::vector<const char*> path_option_names_;
  std::vector<const char*> path_option_table_;
  bool declares_options_ = false;
  bool built_ = false;
};

}  // namespace zf::sdk
