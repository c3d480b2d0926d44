// SPDX-License-Identifier: MIT
// The release history of the schema data (its "releases" block: the DeepSpeed releases zeroforge
// knows and, once per change, what each one added, removed or changed), read into the releases
// each key exists in and the facts it had before a change. Header-only: the build tool
// compile_schema and the engine (the JSON Schema of a release) read it the same way.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace zf::deepspeed::history {

using json = nlohmann::ordered_json;

/// Releases [since, until), as indices into History::versions.
struct Range {
  int since = 0;
  int until = 0;
};

/// The facts a node had before release `until`: `fields` with these values instead of the
/// newest ones (its `default`, its `kind`).
struct Era {
  int until = 0;
  std::vector<std::pair<std::string, json>> fields;
};

/// The "releases" block, read.
struct History {
  std::vector<std::string> versions;  ///< oldest first; the last is the newest
  std::vector<std::string> commits;
  /// The releases a key (a config pointer) or a feature ("optimizer:muon", "scheduler:...",
  /// "check:...") exists in; absent from the map: every release.
  std::map<std::string, std::vector<Range>> presence;
  /// A key's older facts, `until` ascending; absent from the map: none changed.
  std::map<std::string, std::vector<Era>> eras;

  /// The index of `version` in `versions`, or -1.
  int index_of(const std::string& version) const {
    for (std::size_t i = 0; i < versions.size(); ++i) {
      if (versions[i] == version) return static_cast<int>(i);
    }
    return -1;
  }
  /// True when `name` (a config pointer or a feature) exists in release `release`.
  bool present(const std::string& name, int release) const {
    auto it = presence.find(name);
    if (it == presence.end()) return true;
    for (const Range& range : it->second) {
      if (release >= range.since && release < range.until) return true;
    }
    return false;
  }
};

/// A JSON pointer segment: `~` as `~0`, `/` as `~1`. The engine has zf::escape_pointer_segment,
/// but compile_schema builds the engine's tables before that library exists, so it cannot link it.
inline std::string escape_segment(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

/// The key a JSON pointer segment names.
inline std::string unescape_segment(const std::string& segment) {
  std::string out;
  for (std::size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] == '~' && i + 1 < segment.size() &&
        (segment[i + 1] == '0' || segment[i + 1] == '1')) {
      out += segment[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += segment[i];
    }
  }
  return out;
}

[[noreturn]] inline void fail(const std::string& pointer, const std::string& message) {
  throw std::runtime_error(pointer + ": " + message);
}

/// The data's node at a config pointer ("" is the root), `$ref` resolved (the section with the
/// referring node's own fields over it), or null when the data has none.
inline json node_at(const json& data, const std::string& pointer) {
  auto resolve = [&](const json& node) {
    if (!node.is_object() || !node.contains("$ref")) return node;
    const std::string& name = node.at("$ref").get_ref<const std::string&>();
    if (!data.at("sections").contains(name)) return json();
    json out = data.at("sections").at(name);
    for (const auto& [key, value] : node.items()) {
      if (key != "$ref") out[key] = value;
    }
    return out;
  };
  json node = resolve(data.at("root"));
  std::size_t at = 0;
  while (at < pointer.size()) {
    std::size_t next = pointer.find('/', at + 1);
    std::string key = unescape_segment(
        pointer.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
    if (!node.is_object() || !node.contains("keys") || !node.at("keys").contains(key))
      return json();
    node = resolve(node.at("keys").at(key));
    at = next == std::string::npos ? pointer.size() : next;
  }
  return node;
}

/// Reads `data["releases"]`. Throws std::runtime_error ("POINTER: message", the pointer into
/// the data) for a history it cannot use: no releases, versions out of order, a change at an
/// unknown release or naming no key of the data, a key added that is there already (or removed
/// that is not), a changed value whose "after" is not what the newer data says.
inline History read(const json& data) {
  History history;
  if (!data.contains("releases")) fail("/releases", "missing");
  const json& block = data.at("releases");
  const json& known = block.at("known");
  if (!known.is_array() || known.empty())
    fail("/releases/known", "expected the releases, oldest first");
  auto key_of = [](const std::string& version) {
    std::vector<long> parts;
    std::size_t at = 0;
    while (at <= version.size()) {
      std::size_t dot = version.find('.', at);
      std::string part =
          version.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
      if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
        return std::vector<long>();
      parts.push_back(std::stol(part));
      if (dot == std::string::npos) break;
      at = dot + 1;
    }
    return parts.size() == 3 ? parts : std::vector<long>();
  };
  for (std::size_t i = 0; i < known.size(); ++i) {
    const std::string where = "/releases/known/" + std::to_string(i);
    const std::string version = known[i].at("version").get<std::string>();
    if (key_of(version).empty()) fail(where + "/version", "\"" + version + "\" is not X.Y.Z");
    if (i > 0 && !(key_of(history.versions.back()) < key_of(version)))
      fail(where + "/version", version + " does not follow " + history.versions.back());
    history.versions.push_back(version);
    history.commits.push_back(known[i].at("commit").get<std::string>());
  }
  if (data.contains("deepspeed") &&
      data.at("deepspeed").value("version", "") != history.versions.back())
    fail("/deepspeed/version", "the data describes " + data.at("deepspeed").value("version", "") +
                                   " but the newest release in /releases/known is " +
                                   history.versions.back());
  const int count = static_cast<int>(history.versions.size());
  // Per name, the events in release order: (release, added?).
  std::map<std::string, std::vector<std::pair<int, bool>>> toggles;
  // Per pointer and field, the changes in release order: (release, [before, after], where).
  struct Change {
    int release;
    json before, after;
    std::string where;
  };
  std::map<std::string, std::map<std::string, std::vector<Change>>> changed;
  int last = 0;
  const json& changes = block.at("changes");
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const std::string where = "/releases/changes/" + std::to_string(i);
    const json& change = changes[i];
    const std::string version = change.at("release").get<std::string>();
    const int release = history.index_of(version);
    if (release < 0) fail(where + "/release", "\"" + version + "\" is not in /releases/known");
    if (release <= last) fail(where + "/release", version + " is not after the release before it");
    last = release;
    for (const char* field : {"added", "removed"}) {
      if (!change.contains(field)) continue;
      const json& names = change.at(field);
      for (std::size_t j = 0; j < names.size(); ++j) {
        const std::string name = names[j].get<std::string>();
        const std::string at = where + "/" + field + "/" + std::to_string(j);
        if (name.starts_with("/")) {
          if (node_at(data, name).is_null()) fail(at, "the data has no key " + name);
        } else if (!name.starts_with("optimizer:") && !name.starts_with("scheduler:") &&
                   !name.starts_with("check:")) {
          fail(at,
               "\"" + name + "\" is neither a JSON pointer nor optimizer:, scheduler: or check:");
        }
        toggles[name].emplace_back(release, std::string(field) == "added");
      }
    }
    if (change.contains("changed")) {
      for (const auto& [pointer, fields] : change.at("changed").items()) {
        if (node_at(data, pointer).is_null())
          fail(where + "/changed/" + escape_segment(pointer), "the data has no key " + pointer);
        for (const auto& [field, pair] : fields.items()) {
          const std::string at = where + "/changed/" + escape_segment(pointer) + "/" + field;
          if (!pair.is_array() || pair.size() != 2) fail(at, "expected [before, after]");
          changed[pointer][field].push_back(Change{release, pair[0], pair[1], at});
        }
      }
    }
  }
  for (const auto& [name, events] : toggles) {
    // Present in the oldest release unless the first event adds it.
    bool present = !events.front().second;
    int since = 0;
    std::vector<Range> ranges;
    for (const auto& [release, added] : events) {
      if (added == present)
        fail("/releases/changes", name + (added ? " is added" : " is removed") + " in " +
                                      history.versions[release] +
                                      (added ? " but is there already" : " but is not there"));
      if (present) ranges.push_back(Range{since, release});
      since = release;
      present = added;
    }
    if (present) ranges.push_back(Range{since, count});
    history.presence[name] = ranges;
  }
  for (const auto& [pointer, fields] : changed) {
    const json node = node_at(data, pointer);
    // Newest first: each change is undone in turn, from the data's (newest) value back.
    std::map<int, std::vector<std::pair<std::string, json>>> by_release;
    for (const auto& [field, list] : fields) {
      json current = node.contains(field) ? node.at(field) : json();
      for (auto it = list.rbegin(); it != list.rend(); ++it) {
        if (it->after != current)
          fail(it->where, "the value after " + history.versions[it->release] + " is " +
                              current.dump() + " in the data, not " + it->after.dump());
        current = it->before;
        by_release[it->release];
      }
    }
    std::vector<Era> eras;
    for (const auto& [release, unused] : by_release) {
      Era era{release, {}};
      for (const auto& [field, list] : fields) {
        // The value before `release`: the `before` of the first change at or after it.
        for (const Change& c : list) {
          if (c.release >= release) {
            era.fields.emplace_back(field, c.before);
            break;
          }
        }
      }
      eras.push_back(std::move(era));
    }
    history.eras[pointer] = std::move(eras);
  }
  return history;
}

/// The data as release `release` saw it: keys it lacks dropped, changed facts set to what
/// they were then, `$ref`s inlined, and the version and commit of `deepspeed` set to it.
inline json data_at(const json& data, const History& history, int release) {
  std::function<json(const json&, const std::string&)> walk = [&](const json& raw,
                                                                  const std::string& pointer) {
    json node = raw;
    if (node.is_object() && node.contains("$ref")) {
      node = data.at("sections").at(node.at("$ref").get<std::string>());
      for (const auto& [key, value] : raw.items()) {
        if (key != "$ref") node[key] = value;
      }
    }
    if (!node.is_object()) return node;
    if (auto eras = history.eras.find(pointer); eras != history.eras.end()) {
      for (const Era& era : eras->second) {
        if (release < era.until) {
          for (const auto& [field, value] : era.fields) node[field] = value;
          break;
        }
      }
    }
    if (node.contains("keys")) {
      json keys = json::object();
      for (const auto& [key, child] : node.at("keys").items()) {
        const std::string child_pointer = pointer + "/" + escape_segment(key);
        if (history.present(child_pointer, release)) keys[key] = walk(child, child_pointer);
      }
      node["keys"] = keys;
    }
    return node;
  };
  json out = data;
  out["root"] = walk(data.at("root"), "");
  out["deepspeed"]["version"] = history.versions.at(static_cast<std::size_t>(release));
  out["deepspeed"]["commit"] = history.commits.at(static_cast<std::size_t>(release));
  return out;
}

}  // namespace zf::deepspeed::history
