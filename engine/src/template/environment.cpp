// SPDX-License-Identifier: MIT
// Environment: the template search path (with its containment rules), the parse cache and
// the function registry.
#include "zeroforge/environment.hpp"

#include <algorithm>
#include <atomic>
#include <set>

#include "template/include_memo.hpp"
#include "template/parser.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace fs = std::filesystem;
namespace {

// Normalises `a/./b//c` and resolves `..` lexically; a name that is absolute or climbs
// above the search-path root is refused.
std::string normalize_name(std::string_view name) {
  if (name.empty()) throw Error(ErrorKind::Template, "empty template name");
  if (name.front() == '/') {
    throw Error(ErrorKind::Template,
                "template name '" + std::string(name) +
                    "' is absolute; names are relative to the template search path");
  }
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t slash = name.find('/', start);
    std::string_view part = name.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part == "..") {
      if (parts.empty()) {
        throw Error(ErrorKind::Template, "template name '" + std::string(name) +
                                             "' climbs out of the template search path with '..'");
      }
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (parts.empty())
    throw Error(ErrorKind::Template, "template name '" + std::string(name) + "' names no file");
  std::string out;
  for (auto part : parts) {
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

// How a template file is shown in errors: relative to the working directory when inside it.
std::string display_path(const fs::path& path) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (!ec) {
    fs::path relative = path.lexically_proximate(cwd);
    if (!relative.empty() && *relative.begin() != "..") return relative.string();
  }
  return path.string();
}

}  // namespace

namespace {
std::uint64_t new_environment_id() noexcept {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

Environment::Environment(EnvironmentOptions options)
    : options_(std::move(options)), id_(new_environment_id()) {
  register_builtin_filters(functions_);
  register_builtin_tests(functions_);
  register_builtin_globals(functions_);
}

Environment::~Environment() = default;

detail::IncludeMemo& Environment::include_memo_of_this_thread() const {
  const std::thread::id self = std::this_thread::get_id();
  std::lock_guard lock(memo_mutex_);
  for (auto& [thread, memo] : memos_) {
    if (thread == self) return *memo;
  }
  return *memos_.emplace_back(self, std::make_unique<detail::IncludeMemo>()).second;
}

void Environment::add_function(FunctionKind kind, FunctionSpec spec) {
  functions_.add(kind, std::move(spec));
  added_functions_ = true;
}

std::optional<fs::path> Environment::resolve(std::string_view name) const {
  std::string normalized = normalize_name(name);
  for (const auto& dir : options_.search_path) {
    fs::path candidate = dir / normalized;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) {
      std::lock_guard lock(found_mutex_);
      if (std::find(found_.begin(), found_.end(), candidate) == found_.end())
        found_.push_back(candidate);
      return candidate;
    }
  }
  return std::nullopt;
}

std::vector<fs::path> Environment::files_found() const {
  std::lock_guard lock(found_mutex_);
  return found_;
}

std::shared_ptr<const Template> Environment::load(std::string_view name) const {
  if (auto tpl = try_load(name)) return tpl;
  std::string normalized = normalize_name(name);
  {
    std::string searched;
    std::string not_files;  // a directory or FIFO at the name: said, rather than "not found"
    for (const auto& dir : options_.search_path) {
      searched += (searched.empty() ? "" : ", ") + dir.string();
      const fs::path candidate = dir / normalized;
      if (std::string what = not_a_file_problem(candidate); !what.empty())
        not_files += "; " + candidate.string() + " " + what;
    }
    throw Error(ErrorKind::Template, "template '" + normalized + "' not found (searched: " +
                                         (searched.empty() ? "no directories" : searched) +
                                         not_files + ")");
  }
}

std::shared_ptr<const Template> Environment::try_load(std::string_view name) const {
  // Names the renderer passes are usually already normal; only normalise on a cache miss.
  {
    std::lock_guard lock(cache_mutex_);
    auto it = cache_.find(name);
    if (it != cache_.end()) return it->second;
  }
  std::string normalized = normalize_name(name);
  {
    std::lock_guard lock(cache_mutex_);
    auto it = cache_.find(normalized);
    if (it != cache_.end()) return it->second;
  }
  auto path = resolve(normalized);
  if (!path) return nullptr;
  std::string source = read_file(*path);
  detail::LexerOptions lexer{options_.trim_blocks, options_.lstrip_blocks};
  auto tree = detail::parse_template(normalized, display_path(*path), source, lexer, functions_,
                                     options_.max_nesting);
  auto tpl = std::make_shared<const Template>(*this, std::move(tree));
  std::lock_guard lock(cache_mutex_);
  return cache_.emplace(normalized, std::move(tpl)).first->second;
}

std::shared_ptr<const Template> Environment::from_string(const std::string& source,
                                                         std::string name) const {
  detail::LexerOptions lexer{options_.trim_blocks, options_.lstrip_blocks};
  std::string origin = name;
  auto tree = detail::parse_template(std::move(name), std::move(origin), source, lexer, functions_,
                                     options_.max_nesting);
  return std::make_shared<const Template>(*this, std::move(tree));
}

std::vector<std::string> Environment::list_templates() const {
  std::set<std::string> names;
  for (const auto& dir : options_.search_path) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(
             dir, fs::directory_options::follow_directory_symlink, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec))
        names.insert(it->path().lexically_relative(dir).generic_string());
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace zf
