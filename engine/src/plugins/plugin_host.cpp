// SPDX-License-Identifier: MIT
// PluginHost: the search path, all-or-nothing loading, and running hooks in load order with
// their results checked, applied and attributed (values layers, output fields, manifest notes).
#include "zeroforge/plugin_host.hpp"

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <mutex>
#include <set>
#include <utility>

#include "plugins/loaded_plugin.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using detail::LoadedPlugin;

struct PluginHost::Log {
  std::mutex mutex;
  std::vector<PluginMessage> messages;
  std::function<void(const PluginMessage&)> sink;
};

namespace {

bool is_path(std::string_view name_or_path) {
  return name_or_path.find('/') != std::string_view::npos || name_or_path.ends_with(".so") ||
         name_or_path.ends_with(".dylib");
}

std::vector<std::string> candidate_files(std::string_view name) {
  std::string n(name);
#if defined(__APPLE__)
  return {n + ".so", n + ".dylib", "lib" + n + ".so", "lib" + n + ".dylib"};
#else
  return {n + ".so", "lib" + n + ".so"};
#endif
}

// Objects merge key by key; anything else replaces (the rule values layers follow).
void merge_into(Json& target, const Json& patch) {
  for (const auto& [key, value] : patch.items()) {
    auto it = target.find(key);
    if (value.is_object() && it != target.end() && it->is_object()) {
      merge_into(*it, value);
    } else {
      target[key] = value;
    }
  }
}

// Checks that a hook's result is an object whose keys are among `allowed`.
void check_keys(const LoadedPlugin& plugin, std::string_view hook, const Json& result,
                std::initializer_list<const char*> allowed) {
  std::string expected;
  for (const char* key : allowed)
    expected += (expected.empty() ? "'" : ", '") + std::string(key) + "'";
  if (!result.is_object()) {
    throw plugin.error(std::string(hook) + " returned " + result.type_name() +
                       ", expected an object with " + expected);
  }
  for (const auto& [key, value] : result.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) {
      throw plugin.error(std::string(hook) + " returned unknown key '" + key + "' (expected " +
                         expected + ")");
    }
  }
}

void collect_patch_fields(const Json& patch, const std::string& pointer, const std::string& plugin,
                          std::vector<FieldOrigin>& out) {
  if (patch.is_object() && !patch.empty()) {
    for (const auto& [key, value] : patch.items()) {
      collect_patch_fields(value, pointer + "/" + escape_pointer_segment(key), plugin, out);
    }
    return;
  }
  out.push_back({pointer, plugin, patch.is_null()});
}

}  // namespace

PluginOption parse_plugin_option(std::string_view text) {
  std::string origin = "--plugin-opt " + std::string(text);
  auto dot = text.find('.');
  auto equals = text.find('=');
  if (dot == std::string_view::npos || equals == std::string_view::npos || dot > equals ||
      dot == 0 || dot + 1 == equals) {
    throw Error(ErrorKind::Usage, "expected NAME.KEY=VALUE in '" + origin + "'");
  }
  PluginOption option;
  option.plugin = std::string(text.substr(0, dot));
  option.options = parse_set(text.substr(dot + 1));
  option.origin = std::move(origin);
  return option;
}

PluginHost::PluginHost(PluginHostOptions options)
    : options_(std::move(options)), log_(std::make_shared<Log>()) {}

PluginHost::~PluginHost() {
  // Unload in reverse order, the way a stack of layers is taken down.
  while (!plugins_.empty()) plugins_.pop_back();
}

std::vector<fs::path> PluginHost::search_path() const {
  std::vector<fs::path> dirs = options_.plugin_dirs;
  if (options_.use_environment) {
    if (const char* env = std::getenv("ZEROFORGE_PLUGIN_PATH"); env && *env) {
      std::string_view rest(env);
      while (!rest.empty()) {
        auto colon = rest.find(':');
        std::string_view part = rest.substr(0, colon);
        if (!part.empty()) dirs.emplace_back(std::string(part));
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
      }
    }
  }
  dirs.insert(dirs.end(), options_.builtin_dirs.begin(), options_.builtin_dirs.end());
  return dirs;
}

fs::path PluginHost::find(std::string_view name_or_path) const {
  std::error_code ec;
  if (is_path(name_or_path)) {
    fs::path path{std::string(name_or_path)};
    if (!fs::is_regular_file(path, ec)) {
      // A directory or FIFO at the path is named for what it is (read_file's words).
      const std::string what = not_a_file_problem(path);
      throw Error(ErrorKind::Plugin, what.empty() ? "plugin file not found" : "plugin file " + what,
                  Location{path.string(), 0, 0});
    }
    return path;
  }
  std::vector<fs::path> dirs = search_path();
  for (const auto& dir : dirs) {
    for (const auto& file : candidate_files(name_or_path)) {
      if (fs::is_regular_file(dir / file, ec)) return dir / file;
    }
  }
  std::string searched;
  for (const auto& dir : dirs) searched += (searched.empty() ? "" : ", ") + dir.string();
  throw Error(ErrorKind::Plugin, "plugin '" + std::string(name_or_path) + "' not found (searched " +
                                     (searched.empty() ? std::string("no directories") : searched) +
                                     ")");
}

std::vector<fs::path> PluginHost::discover() const {
  std::vector<fs::path> found;
  std::set<std::string> seen;
  for (const auto& dir : search_path()) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> here;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const fs::path& p = entry.path();
      if (!entry.is_regular_file(ec)) continue;
      if (p.extension() != ".so" && p.extension() != ".dylib") continue;
      here.push_back(p);
    }
    std::sort(here.begin(), here.end());
    for (auto& p : here) {
      if (seen.insert(p.filename().string()).second) found.push_back(std::move(p));
    }
  }
  return found;
}

namespace {

// A request's options with each relative path of a path option resolved against the file the
// options were written in (PluginRequest::base_dir), before command-line options merge in.
Json with_paths_based(const PluginRequest& request, const std::vector<std::string>& path_options) {
  Json options = request.options;
  if (request.base_dir.empty() || !options.is_object()) return options;
  for (const auto& name : path_options) {
    auto it = options.find(name);
    if (it == options.end() || !it->is_string()) continue;
    const std::string& text = it->get_ref<const std::string&>();
    // A NUL is refused where the family is read; an empty path is the plugin's to refuse.
    if (text.empty() || text.find('\0') != std::string::npos) continue;
    const std::filesystem::path path(text);
    if (path.is_absolute()) continue;
    *it = (request.base_dir / path).lexically_normal().string();
  }
  return options;
}

}  // namespace

void PluginHost::load(const std::vector<PluginRequest>& requests,
                      const std::vector<PluginOption>& options) {
  std::vector<std::shared_ptr<LoadedPlugin>> batch;
  std::vector<Json> batch_options;
  auto all = [&] {
    std::vector<const LoadedPlugin*> out;
    for (const auto& p : plugins_) out.push_back(p.get());
    for (const auto& p : batch) out.push_back(p.get());
    return out;
  };
  for (const auto& request : requests) {
    auto plugin = std::make_shared<LoadedPlugin>(find(request.name_or_path));
    for (const LoadedPlugin* other : all()) {
      if (other->info.name == plugin->info.name) {
        throw plugin->error("a plugin named '" + plugin->info.name + "' is already loaded from " +
                            other->info.path.string());
      }
      for (const zf_function* f : plugin->functions) {
        for (const zf_function* g : other->functions) {
          if (f->kind == g->kind && std::string_view(f->name) == g->name) {
            throw plugin->error(std::string(detail::function_kind_name(f->kind)) + " '" + f->name +
                                "' is already provided by plugin '" + other->info.name + "' (" +
                                other->info.path.string() + ")");
          }
        }
      }
      for (const zf_command* c : plugin->commands) {
        for (const zf_command* d : other->commands) {
          if (std::string_view(c->name) == d->name) {
            throw plugin->error("command '" + std::string(c->name) +
                                "' is already provided by plugin '" + other->info.name + "' (" +
                                other->info.path.string() + ")");
          }
        }
      }
    }
    if (!request.options.is_object()) {
      throw plugin->error("options must be a JSON object, got " +
                          std::string(request.options.type_name()));
    }
    batch_options.push_back(with_paths_based(request, plugin->info.path_options));
    batch.push_back(std::move(plugin));
  }
  for (const auto& option : options) {
    bool matched = false;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (batch[i]->info.name != option.plugin) continue;
      merge_into(batch_options[i], option.options);
      matched = true;
    }
    if (!matched) {
      std::string loaded;
      for (const LoadedPlugin* p : all()) loaded += (loaded.empty() ? "" : ", ") + p->info.name;
      throw Error(ErrorKind::Usage, "'" + option.origin + "' names plugin '" + option.plugin +
                                        "', which is not loaded" +
                                        (loaded.empty() ? std::string(" (no plugins are loaded)")
                                                        : " (loaded: " + loaded + ")"));
    }
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    std::weak_ptr<Log> log = log_;
    std::string name = batch[i]->info.name;
    batch[i]->start(batch_options[i], options_.data_dir,
                    [log, name](PluginLogLevel level, std::string text, std::string code) {
                      auto shared = log.lock();
                      if (!shared) return;
                      PluginMessage message{name, level, std::move(text), std::move(code)};
                      std::function<void(const PluginMessage&)> sink;
                      {
                        std::lock_guard lock(shared->mutex);
                        shared->messages.push_back(message);
                        sink = shared->sink;
                      }
                      if (sink) sink(message);
                    });
  }
  plugins_.insert(plugins_.end(), batch.begin(), batch.end());
}

std::vector<std::filesystem::path> PluginHost::files_read() const {
  std::vector<std::filesystem::path> out;
  for (const auto& plugin : plugins_) {
    for (auto& path : plugin->files_read()) out.push_back(std::move(path));
  }
  return out;
}

std::vector<PluginInfo> PluginHost::plugins() const {
  std::vector<PluginInfo> out;
  for (const auto& p : plugins_) out.push_back(p->info);
  return out;
}

void PluginHost::register_functions(Environment& environment) const {
  for (const auto& plugin : plugins_) {
    for (const zf_function* f : plugin->functions) {
      FunctionKind kind = f->kind == ZF_FUNCTION_FILTER ? FunctionKind::Filter
                          : f->kind == ZF_FUNCTION_TEST ? FunctionKind::Test
                                                        : FunctionKind::Global;
      std::string label = std::string(detail::function_kind_name(f->kind)) + " '" + f->name + "'";
      FunctionSpec spec;
      spec.name = f->name;
      spec.variadic = true;
      // The spec keeps the plugin loaded for as long as the Environment can call it.
      spec.body = [plugin, f, label](const Value& subject, Arguments& args,
                                     const CallContext&) -> Value {
        const auto given = static_cast<long>(args.extra_positional.size());
        if (given < f->min_args || (f->max_args >= 0 && given > f->max_args)) {
          std::string bounds = f->max_args < 0 ? "at least " + std::to_string(f->min_args)
                               : f->min_args == f->max_args ? std::to_string(f->min_args)
                                                            : std::to_string(f->min_args) + " to " +
                                                                  std::to_string(f->max_args);
          throw Error(ErrorKind::Render, "plugin '" + plugin->info.name + "': " + label +
                                             " takes " + bounds + " positional argument" +
                                             (bounds == "1" ? "" : "s") + ", got " +
                                             std::to_string(given));
        }
        Json input = Json::object();
        if (f->kind != ZF_FUNCTION_GLOBAL) input["subject"] = subject.to_json();
        input["args"] = Json::array();
        for (const auto& arg : args.extra_positional) input["args"].push_back(arg.to_json());
        input["kwargs"] = Json::object();
        for (const auto& [key, value] : args.extra_keywords) input["kwargs"][key] = value.to_json();
        // Errors leave without a location so that the renderer places them in the template.
        try {
          auto text = plugin->call(f->call, label, input.dump());
          if (!text) throw plugin->error(label + " returned no result");
          Json result = plugin->parse(label, *text);
          if (f->kind == ZF_FUNCTION_TEST && !result.is_boolean()) {
            throw plugin->error(label + " returned " + result.type_name() +
                                ", expected true or false");
          }
          return Value::from_json(result);
        } catch (const Error& e) {
          throw Error(ErrorKind::Plugin, e.message());
        }
      };
      try {
        environment.add_function(kind, std::move(spec));
      } catch (const Error& e) {
        throw plugin->error("cannot register " + label + ": " + e.message());
      }
    }
  }
}

ValuesHookResult PluginHost::run_values_hooks(LayeredValues& values, const Json& context) const {
  ValuesHookResult result;
  LayeredValues working = values;
  for (const auto& plugin : plugins_) {
    if (!plugin->values_hook) continue;
    Json origins = Json::object();
    for (const auto& [pointer, source] : working.leaves()) {
      origins[pointer] = {{"kind", layer_kind_name(source.kind)}, {"label", source.label}};
    }
    Json input = {
        {"values", working.merged()}, {"origins", std::move(origins)}, {"context", context}};
    auto text = plugin->call(plugin->values_hook, "values hook", input.dump());
    if (!text) continue;
    Json output = plugin->parse("values hook", *text);
    check_keys(*plugin, "values hook", output, {"values", "manifest", "findings", "label"});
    if (auto it = output.find("findings"); it != output.end()) {
      auto bad = [&] {
        return plugin->error(
            "values hook returned \"findings\" that is not a list of "
            "{\"message\": \"...\", \"pointer\": \"/...\"}");
      };
      if (!it->is_array()) throw bad();
      for (const auto& finding : *it) {
        if (!finding.is_object() || !finding.contains("message") ||
            !finding.at("message").is_string() ||
            (finding.contains("pointer") && !finding.at("pointer").is_string())) {
          throw bad();
        }
        result.findings.push_back({plugin->info.name, finding.value("pointer", ""),
                                   finding.at("message").get<std::string>(), "", ""});
      }
      if (!it->empty()) continue;  // refused: nothing of this answer applies
    }
    if (auto it = output.find("values"); it != output.end()) {
      if (!it->is_object()) {
        throw plugin->error(std::string("values hook returned \"values\" of type ") +
                            it->type_name() + ", expected an object");
      }
      // `label` says what the values are (the memory plugin's "auto-fit"), so `explain` shows
      // them as a layer of their own: "plugin memory (auto-fit)".
      std::string layer = "plugin " + plugin->info.name;
      if (auto label = output.find("label"); label != output.end()) {
        if (!label->is_string() || label->get_ref<const std::string&>().empty() ||
            label->get_ref<const std::string&>().size() > 64 ||
            std::any_of(label->get_ref<const std::string&>().begin(),
                        label->get_ref<const std::string&>().end(),
                        [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
          throw plugin->error(
              "values hook returned \"label\" that is not a short line of text (1-64 "
              "characters, no control characters): " +
              label->dump());
        }
        layer += " (" + label->get<std::string>() + ")";
      }
      for (auto& change : working.apply_under_user({LayerKind::Plugin, layer}, *it)) {
        const Json& after = working.merged().at(Json::json_pointer(change.pointer));
        result.replaced.push_back({plugin->info.name, std::move(change.pointer),
                                   std::move(change.before), after, change.layer});
      }
    }
    if (auto it = output.find("manifest"); it != output.end()) {
      result.manifest[plugin->info.name] = *it;
    }
  }
  values = std::move(working);
  return result;
}

OutputHookResult PluginHost::run_output_hooks(Json config, const Json& values,
                                              const Json& context) const {
  OutputHookResult result;
  for (const auto& plugin : plugins_) {
    if (!plugin->output_hook) continue;
    Json input = {{"config", config}, {"values", values}, {"context", context}};
    auto text = plugin->call(plugin->output_hook, "output hook", input.dump());
    if (!text) continue;
    Json output = plugin->parse("output hook", *text);
    check_keys(*plugin, "output hook", output, {"patch", "replace", "manifest"});
    bool has_patch = output.contains("patch");
    bool has_replace = output.contains("replace");
    if (has_patch && has_replace) {
      throw plugin->error("output hook returned both \"patch\" and \"replace\"; give one");
    }
    if (has_patch) {
      const Json& patch = output["patch"];
      if (!patch.is_object()) {
        throw plugin->error(std::string("output hook returned \"patch\" of type ") +
                            patch.type_name() + ", expected an object (RFC 7396 merge patch)");
      }
      config.merge_patch(patch);
      collect_patch_fields(patch, "", plugin->info.name, result.fields);
    } else if (has_replace) {
      // A config is a JSON object; anything else would be written as the "config" unnoticed.
      const Json& replacement = output["replace"];
      if (!replacement.is_object()) {
        throw plugin->error(std::string("output hook returned \"replace\" of type ") +
                            replacement.type_name() + ", expected an object (the whole config)");
      }
      config = replacement;
      result.fields.push_back({"", plugin->info.name, false});
    }
    if (auto it = output.find("manifest"); it != output.end()) {
      result.manifest[plugin->info.name] = *it;
    }
  }
  result.config = std::move(config);
  return result;
}

const PluginInfo* PluginHost::find_command(std::string_view name) const {
  for (const auto& plugin : plugins_) {
    for (const zf_command* c : plugin->commands) {
      if (name == c->name) return &plugin->info;
    }
  }
  return nullptr;
}

CommandResult PluginHost::run_command(std::string_view name,
                                      const std::vector<std::string>& args) const {
  for (const auto& plugin : plugins_) {
    for (const zf_command* c : plugin->commands) {
      if (name == c->name) return plugin->run(*c, Json(args).dump());
    }
  }
  throw Error(ErrorKind::Usage, "no loaded plugin provides command '" + std::string(name) + "'");
}

std::vector<PluginMessage> PluginHost::messages() const {
  std::lock_guard lock(log_->mutex);
  return log_->messages;
}

void PluginHost::on_message(std::function<void(const PluginMessage&)> sink) {
  std::lock_guard lock(log_->mutex);
  log_->sink = std::move(sink);
}

PluginInfo PluginHost::inspect(const fs::path& path) {
  LoadedPlugin plugin(path);
  return plugin.info;
}

}  // namespace zf
