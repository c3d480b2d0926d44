/* SPDX-License-Identifier: MIT */
/* The zeroforge plugin ABI: the whole contract between zeroforge and a plugin (a shared
 * library). C99 and C++; only C types cross; data is UTF-8 JSON text. See docs/plugins.md. */
#ifndef ZEROFORGE_PLUGIN_H
#define ZEROFORGE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

/*
 * A plugin exports one function, `zf_plugin_entry`, that returns a pointer to a static
 * `zf_plugin` descriptor: the ABI version it was built against, its name and version, and
 * the hooks it offers. Everything else is optional.
 *
 *     #include <zeroforge/plugin.h>
 *     #include <stdlib.h>
 *     #include <string.h>
 *
 *     static int shout(const zf_context* ctx, const char* args, char** result, char** error) {
 *       (void)ctx; (void)args; (void)error;
 *       *result = strdup("\"HELLO\"");  // JSON text; the host frees it with free_string
 *       return ZF_OK;
 *     }
 *     static void release(char* text) { free(text); }
 *
 *     static const zf_function shout_fn = {sizeof(zf_function), ZF_FUNCTION_GLOBAL, "shout",
 *                                          "returns \"HELLO\"", 0, 0, shout};
 *     static const zf_function* const functions[] = {&shout_fn, NULL};
 *     static const zf_plugin descriptor = {
 *         .abi_version = ZF_PLUGIN_ABI_VERSION, .struct_size = sizeof(zf_plugin),
 *         .name = "hello", .version = "1.0.0", .description = "says hello",
 *         .free_string = release, .functions = functions};
 *
 *     ZF_PLUGIN_EXPORT const zf_plugin* zf_plugin_entry(uint32_t host_abi_version) {
 *       (void)host_abi_version;
 *       return &descriptor;
 *     }
 *
 * Ownership. Inputs (`const char*` arguments, the zf_context, the zf_host) are borrowed:
 * valid for the duration of the call, or for `zf_context` and `zf_host` until `destroy`.
 * Every string a hook hands back through a `char**` out-parameter (results, errors, command
 * output) is allocated by the plugin and released by the host through the plugin's
 * `free_string`, whatever the hook returned. The host sets every out-parameter to NULL
 * before a call. Strings the host hands the plugin through a host service (zf_host.read_file,
 * check_launch_text) are the host's, released with zf_host.free_host_string. Strings in the
 * descriptor, its function and command tables must stay valid until the library is unloaded
 * (static storage is the norm).
 *
 * Errors. A hook returns ZF_OK or ZF_ERROR; on ZF_ERROR it may set `*error` to a one-line
 * message, which the host reports with the plugin's name, file and hook. No C++ exception
 * may leave a hook (zeroforge/plugin.hpp catches them for C++ authors).
 *
 * Threads. The host never calls into one plugin from two threads at once.
 *
 * Versioning. Structs only grow at the end; each starts with `struct_size` (the size the
 * plugin or host was compiled with) so the other side knows which fields exist. Removing,
 * reordering, retyping or changing the meaning of a field bumps ZF_PLUGIN_ABI_VERSION, and a
 * host loads only plugins built for its own ABI version. A plugin built against an older
 * header keeps working (the fields it lacks read as NULL); initialise descriptors with
 * designated initializers (`.name = ...`), as above, so that rebuilding it against a newer
 * header needs no change either (positional ones warn under -Wextra about a new field).
 */

/** The ABI version this header describes. */
#define ZF_PLUGIN_ABI_VERSION 1u

/** The name of the one symbol a plugin exports. */
#define ZF_PLUGIN_ENTRY_NAME "zf_plugin_entry"

/** Marks the entry function exported (plugins are built with hidden visibility). */
#ifdef __cplusplus
#define ZF_PLUGIN_EXTERN_C extern "C"
#else
#define ZF_PLUGIN_EXTERN_C
#endif
#if defined(_WIN32)
#define ZF_PLUGIN_EXPORT ZF_PLUGIN_EXTERN_C __declspec(dllexport)
#else
#define ZF_PLUGIN_EXPORT ZF_PLUGIN_EXTERN_C __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Hook return values. */
#define ZF_OK 0
#define ZF_ERROR 1

/** Log levels for zf_host.log. The CLI shows warnings and errors; all are kept. */
#define ZF_LOG_DEBUG 0
#define ZF_LOG_INFO 1
#define ZF_LOG_WARNING 2
#define ZF_LOG_ERROR 3

/** Kinds of launch text for zf_host.check_launch_text. */
#define ZF_LAUNCH_HOST_NAME 0     /**< a host name, as a hostfile line and pdsh's -w list take it */
#define ZF_LAUNCH_VARIABLE_NAME 1 /**< the name of an environment variable of the launch */
#define ZF_LAUNCH_VARIABLE_VALUE 2 /**< its value, as DeepSpeed's .deepspeed_env carries it */

/** What the host offers a plugin. One per loaded plugin; valid until `destroy` returns. */
typedef struct zf_host {
  uint32_t abi_version;     /**< the host's ZF_PLUGIN_ABI_VERSION */
  uint32_t struct_size;     /**< sizeof(zf_host) in the host */
  const char* host_version; /**< zeroforge's version, e.g. "0.1.0" */
  const char* plugin_path;  /**< the file this plugin was loaded from */
  const char* data_dir;     /**< zeroforge's data dir (templates/, presets/), or "" */
  void* host_data;          /**< opaque; pass it back to the services below */
  /** Records a message (one line, UTF-8) attributed to this plugin. */
  void (*log)(void* host_data, int level, const char* message);
  /** Tells the host that the plugin read the file at `path` (a model preset, a site profile),
   *  so that build systems regenerate when it changes (`zeroforge generate --depfile`). Added
   *  after the first release: present when `struct_size` covers it. */
  void (*note_input)(void* host_data, const char* path);
  /** Reads the whole file at `path` as zeroforge reads its own inputs: at most its input limit
   *  (64 MiB, or ZEROFORGE_MAX_INPUT_MIB), a FIFO no one writes to as empty instead of waiting
   *  forever, a directory refused; and notes it as note_input does. On ZF_OK, `*contents`
   *  holds `*size` bytes plus a terminating NUL; on ZF_ERROR, `*error` is a one-line message
   *  naming the path. Both strings are the host's: release them with free_host_string.
   *  Added after the first release, with check_launch_text and free_host_string: present
   *  when `struct_size` covers free_host_string. */
  int (*read_file)(void* host_data, const char* path, char** contents, size_t* size, char** error);
  /** Checks `size` bytes of `text` against the rules zeroforge's companions apply to launch
   *  values of `kind` (ZF_LAUNCH_*), so that a plugin refuses exactly what they would:
   *  ZF_OK when acceptable, else ZF_ERROR with `*message` (release it with free_host_string)
   *  showing the text and the rule, e.g. `"gpu 1" is not a host name (letters, digits, ...)`. */
  int (*check_launch_text)(void* host_data, int kind, const char* text, size_t size,
                           char** message);
  /** Releases a string read_file, check_launch_text or find_tier handed to the plugin (NULL:
   *  nothing). */
  void (*free_host_string)(void* host_data, char* text);
  /** Finds a tier as zeroforge's own commands do (docs/tiers.md): `ref` holding a '/' or
   *  ending in .json is that file (relative to the working directory); any other is NAME.json
   *  in the first directory of the tier search path that has it (./tiers, each directory of
   *  ZEROFORGE_TIER_PATH, the shipped tiers). On ZF_OK, `*path` is the file; where the name
   *  is also found later on the path, the host itself warns (`tier.shadowed`, naming both
   *  files). On ZF_ERROR, `*error` is a one-line message naming every directory searched.
   *  Both strings are the host's: release them with free_host_string. Added after
   *  free_host_string: present when `struct_size` covers it. */
  int (*find_tier)(void* host_data, const char* ref, char** path, char** error);
} zf_host;

/** Handed to every hook: the host, the plugin's options and the state `init` made. */
typedef struct zf_context {
  uint32_t struct_size;     /**< sizeof(zf_context) in the host */
  const zf_host* host;      /**< never NULL */
  const char* options_json; /**< the plugin's options, a JSON object ("{}" when none) */
  void* state;              /**< what `init` stored, or NULL */
} zf_context;

/** A hook: reads `input_json`, may set `*output_json` (JSON text) and returns ZF_OK, or
 *  sets `*error` and returns ZF_ERROR. The shapes of input and output are per hook. */
typedef int (*zf_json_hook)(const zf_context* ctx, const char* input_json, char** output_json,
                            char** error);

/** Namespaces a template function can live in: `name(...)`, `x | name`, `x is name`. */
#define ZF_FUNCTION_GLOBAL 0
#define ZF_FUNCTION_FILTER 1
#define ZF_FUNCTION_TEST 2

/** A template function, filter or test.
 *  `call` input:  {"args": [...], "kwargs": {...}} plus "subject" for filters and tests.
 *  `call` output: the result as JSON (tests return true or false). */
typedef struct zf_function {
  uint32_t struct_size; /**< sizeof(zf_function) in the plugin */
  int kind;             /**< ZF_FUNCTION_GLOBAL, ZF_FUNCTION_FILTER or ZF_FUNCTION_TEST */
  const char* name;     /**< the name templates use; unique across loaded plugins */
  const char* summary;  /**< one line for `zeroforge list plugins`, or NULL */
  int min_args;         /**< fewest positional arguments (a filter's subject not counted) */
  int max_args;         /**< most positional arguments, or -1 for any number */
  zf_json_hook call;
} zf_function;

/** A CLI command the plugin serves: `zeroforge NAME ARGS...` (e.g. `estimate`).
 *  `run` input: the arguments after NAME as a JSON array of strings. On ZF_OK, `*output`
 *  (plain text or JSON, may be NULL) goes to stdout and `*exit_code` (initialised to 0) is
 *  the process's exit code (0 success, 1 findings, 2 bad arguments); a `*error` set on
 *  ZF_OK is the command's own message to the user (a usage error, say), printed as
 *  `zeroforge NAME: error: MESSAGE` with a pointer to `--help`. On ZF_ERROR (the plugin
 *  itself failed) the host prints `*error` naming the plugin file and exits 2. */
typedef struct zf_command {
  uint32_t struct_size; /**< sizeof(zf_command) in the plugin */
  const char* name;     /**< the command name, e.g. "estimate" */
  const char* summary;  /**< one line for `zeroforge --help` and `list plugins`, or NULL */
  int (*run)(const zf_context* ctx, const char* args_json, char** output, int* exit_code,
             char** error);
} zf_command;

/** The descriptor `zf_plugin_entry` returns. Static; the host never writes to it. */
typedef struct zf_plugin {
  /** ZF_PLUGIN_ABI_VERSION as the plugin saw it; read before anything else. */
  uint32_t abi_version;
  /** sizeof(zf_plugin) in the plugin; fields past it are treated as NULL. */
  uint32_t struct_size;
  /** Unique name: lower-case letters, digits and '_' (used in `--plugin-opt NAME.key=v`). */
  const char* name;
  /** The plugin's own version, e.g. "1.2.0". */
  const char* version;
  /** One line saying what it does, or NULL. */
  const char* description;
  /** Releases a string the plugin returned. Required when any hook is set. */
  void (*free_string)(char* text);

  /** Optional. Called once after loading, with `ctx->state` NULL and the options in
   *  `ctx->options_json`; validates them and may store state in `*state`. */
  int (*init)(const zf_context* ctx, void** state, char** error);
  /** Optional. Called once before unloading; releases `ctx->state`. */
  void (*destroy)(const zf_context* ctx);

  /** Values hook, before rendering (estimators). Input:
   *    {"values": {merged values}, "origins": {"/ptr": {"kind": "tier", "label": "..."}},
   *     "context": {"template": "...", "tier": "...", ...}}
   *  Output (NULL = no change): {"values": {merged on top as layer "plugin NAME"},
   *                              "manifest": {recorded in the config's manifest entry}}
   *  or, to refuse the values as a finding (the config cannot be made as asked, e.g. it
   *  does not fit; the command exits 1 and writes nothing):
   *    {"findings": [{"message": "one line", "pointer": "/json/pointer (optional)"}]} */
  zf_json_hook values_hook;
  /** Output hook, after rendering (site fields). Input:
   *    {"config": {rendered config}, "values": {merged values}, "context": {...}}
   *  Output (NULL = no change): {"patch": {RFC 7396 merge patch}} or
   *    {"replace": {whole config}}, optionally with "manifest": {...}. */
  zf_json_hook output_hook;

  /** NULL-terminated table of template functions, or NULL. */
  const zf_function* const* functions;
  /** NULL-terminated table of CLI commands, or NULL. */
  const zf_command* const* commands;

  /** NULL-terminated list of the option names (top-level keys of `options_json`) the plugin
   *  reads, or NULL. When given, the host refuses any other option by name before `init`
   *  runs. When NULL, a plugin with an `init` checks its options there, and a plugin without
   *  one takes no options: the host refuses any it is given, since nothing would read them. */
  const char* const* option_names;
  /** NULL-terminated list of the option names whose value, when it is a string, is a path (a
   *  file or a directory: a site profile, a data directory), or NULL. A relative path the
   *  options of a family file give is resolved by the host against that file's directory
   *  before `init` runs, so a family finds its inputs from any working directory; one given on
   *  the command line (`--plugin-opt`) stays relative to the working directory. Added after
   *  option_names: present when `struct_size` covers it. */
  const char* const* path_options;
} zf_plugin;

/** The entry function's type. `host_abi_version` is the host's ZF_PLUGIN_ABI_VERSION; a
 *  plugin may return NULL to decline (the host then reports it). */
typedef const zf_plugin* (*zf_plugin_entry_fn)(uint32_t host_abi_version);

#ifdef __cplusplus
} /* extern "C" */
#endif

/** Declared here so that a plugin's definition is checked against this signature. */
ZF_PLUGIN_EXPORT const zf_plugin* zf_plugin_entry(uint32_t host_abi_version);

#endif /* ZEROFORGE_PLUGIN_H */
