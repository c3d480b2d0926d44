// SPDX-License-Identifier: MIT
// `zeroforge list templates|presets|tiers|plugins`: what ships and what the search path finds.
#include <algorithm>
#include <boost/program_options.hpp>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "plugin_options.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/values.hpp"

namespace zf::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// Entry templates: `.j2` files outside `partials/` directories (those are only included).
bool is_entry_template(const std::string& name) {
  return name.ends_with(".j2") && name.find("partials/") == std::string::npos;
}

// A directory zeroforge ships that is not there is an error: a listing of nothing would read
// as "nothing ships".
void require_directory(const fs::path& dir, const char* what) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw Error(ErrorKind::Io, std::string("the ") + what + " directory '" + dir.string() +
                                   "' does not exist (set ZEROFORGE_DATA_DIR to where zeroforge's "
                                   "share/zeroforge is, or reinstall)");
  }
}

std::vector<fs::path> json_files(const fs::path& dir, const char* what) {
  require_directory(dir, what);
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    // `./tiers/x.json` as `tiers/x.json`, the file resolve_tier names.
    if (it->is_regular_file(ec) && it->path().extension() == ".json")
      files.push_back(it->path().lexically_normal());
  }
  if (ec) throw Error(ErrorKind::Io, "cannot list '" + dir.string() + "': " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::string number(const Json& json, const char* key) {
  auto it = json.find(key);
  return it == json.end() ? "?" : it->dump();
}

int list_templates(const std::vector<std::string>& args) {
  CommonInputs inputs;
  bool all = false;
  po::options_description options("zeroforge list templates [options]");
  options.add_options()("help,h", "show this help")("all", po::bool_switch(&all),
                                                    "include partials (templates only included)");
  add_template_options(options, inputs);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  if (vm.count("help")) {
    std::cout << options << '\n';
    return kSuccess;
  }
  po::notify(vm);
  require_directory(builtin_templates_dir(), "built-in templates");
  for (const auto& name :
       make_environment(config_request("", inputs, PluginInputs{}))->list_templates()) {
    if (all ? name.ends_with(".j2") : is_entry_template(name)) print_message(std::cout, name);
  }
  return kSuccess;
}

// `list presets` and `list tiers` take no options but --help: true when it printed the help.
bool plain_listing_help(const std::vector<std::string>& args, const char* kind, const char* what) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << "usage: zeroforge list " << kind << "\n\n" << what << "\n";
    return true;
  }
  if (!args.empty()) {
    throw Error(ErrorKind::Usage, std::string("list ") + kind + " takes no options but --help");
  }
  return false;
}

int list_presets(const std::vector<std::string>& args) {
  if (plain_listing_help(args, "presets",
                         "Lists the shipped families (presets/families/) with their template, "
                         "tier count and description."))
    return kSuccess;
  for (const auto& path : json_files(builtin_presets_dir() / "families", "shipped families")) {
    Family family = load_family(path);
    std::size_t tiers = std::max<std::size_t>(family.tiers.size(), 1);
    print_message(std::cout, family.name + "  (" + family.template_name + ", " +
                                 std::to_string(tiers) + (tiers == 1 ? " tier" : " tiers") + ")");
    if (!family.description.empty()) print_message(std::cout, "    " + family.description);
  }
  return kSuccess;
}

// One tier's line: its facts, as a tier file states them.
std::string tier_facts(const Json& tier) {
  std::string line = number(tier, "nodes") + " node(s) x " + number(tier, "gpus_per_node") +
                     " GPU(s) of " + number(tier, "gpu_memory_gib") + " GiB, " +
                     number(tier, "cpu_memory_gib") + " GiB host memory";
  if (auto nvme = tier.find("nvme_path"); nvme != tier.end() && nvme->is_string()) {
    line += ", NVMe at " + nvme->get<std::string>();
  }
  return line + "; micro batch " + number(tier, "micro_batch_size");
}

// What the family's template reads (a tier key it reads is the family's own value), or nothing
// when the template does not load here (a plugin's function, say): generate reports that.
std::vector<std::string> family_template_reads(const Family& family,
                                               const std::string& family_arg) {
  try {
    const ConfigRequest request = config_request(family_arg, CommonInputs{}, PluginInputs{});
    auto environment = make_environment(request, family_template_dirs(family));
    return names_read(*environment->load(family.template_name));
  } catch (const std::exception&) {
    return {};
  }
}

// Prints the tiers of `files` under a heading; a name found before is shown as shadowed
// (`found` counts the files of each name).
// Returns false when a tier file could not be read (its error is printed, the listing goes on).
bool print_tier_group(const std::string& heading, const std::vector<fs::path>& files,
                      std::map<std::string, fs::path>& seen, std::map<std::string, int>& found,
                      const std::vector<std::string>& template_reads) {
  print_message(std::cout, heading + ":");
  if (files.empty()) print_message(std::cout, "  (no tiers)");
  bool ok = true;
  std::size_t width = 0;
  for (const auto& path : files) width = std::max(width, path.stem().string().size());
  for (const auto& path : files) {
    std::string name = path.stem().string();
    std::string shown = name;
    shown.resize(width, ' ');
    if (auto first = seen.find(name); first != seen.end()) {
      print_message(std::cout, "  " + shown + "  shadowed by " + first->second.string());
      ++found[name];
      continue;
    }
    seen.emplace(name, path);
    found[name] = 1;
    try {
      const Json tier = load_tier_file(path);
      print_message(std::cout, "  " + shown + "  " + tier_facts(tier));
      // A key outside the contract may be one of another template's values: a warning here,
      // an error where the tier is used with a template that does not read it.
      for (const auto& problem : check_tier_keys(tier, path.string(), template_reads)) {
        Diagnostic warning = to_diagnostic(problem, codes::tier_unknown_key);
        warning.severity = Severity::Warning;
        print_diagnostic(std::cerr, warning);
      }
    } catch (const Error& error) {
      print_message(std::cout, "  " + shown + "  unreadable (below)");
      print_error(std::cerr, error);
      ok = false;
    }
  }
  return ok;
}

int list_tiers(const std::vector<std::string>& args) {
  std::string family_arg;
  po::options_description options("zeroforge list tiers [options]");
  options.add_options()("help,h", "show this help")(
      "family", po::value(&family_arg),
      "also the family's tiers: tiers/ beside FAMILY (a file or shipped name), searched first, "
      "and the tier files it names by path");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  if (vm.count("help")) {
    std::cout << "Lists the tiers on the tier search path, directory by directory in search "
                 "order:\ntiers/ beside the family (with --family), ./tiers, ZEROFORGE_TIER_PATH, "
                 "then the\nbuilt-in tiers. A name found earlier on the path shadows the later "
                 "ones (a\nwarning names both files).\n\n"
              << options << '\n';
    return kSuccess;
  }
  po::notify(vm);
  std::optional<Family> family;
  fs::path family_file;
  if (!family_arg.empty()) {
    family_file = resolve_family(family_arg, data_dir());
    family = load_family(family_file);
  }
  std::map<std::string, fs::path> seen;
  std::map<std::string, int> found;
  bool ok = true;
  const std::vector<std::string> reads =
      family ? family_template_reads(*family, family_arg) : std::vector<std::string>{};
  if (family) {
    std::vector<fs::path> named;
    for (const auto& tier : family->tiers) {
      if (is_tier_path(tier.ref)) named.push_back(family_file.parent_path() / tier.ref);
    }
    if (!named.empty())
      ok =
          print_tier_group("named by path in " + family_file.string(), named, seen, found, reads) &&
          ok;
  }
  for (const auto& dir : tier_search_path(family_file, data_dir())) {
    std::string heading = std::string(to_string(dir.origin)) + " " + dir.path.string();
    if (dir.origin == TierOrigin::Family) heading = dir.path.string() + " (beside the family)";
    // The shipped tiers must be there (a listing without them would read as "none ship"); a
    // team's directory or one of ZEROFORGE_TIER_PATH may not exist yet. ./tiers is searched
    // wherever zeroforge runs: listed only where there is one.
    std::error_code ec;
    if (dir.origin != TierOrigin::BuiltIn && !fs::is_directory(dir.path, ec)) {
      if (dir.origin == TierOrigin::WorkingDirectory) continue;
      print_message(std::cout, heading + ":");
      print_message(std::cout, "  (not a directory)");
      continue;
    }
    ok = print_tier_group(heading, json_files(dir.path, "shipped tiers"), seen, found, reads) && ok;
  }
  // Each name found twice, warned about as every command that uses the name warns.
  std::set<std::string> shadowed;
  for (const auto& [name, count] : found)
    if (count > 1) shadowed.insert(name);
  for (const auto& name : shadowed) {
    try {
      const ResolvedTier tier = resolve_tier(name, {family_file, "", data_dir()});
      for (Diagnostic warning : tier.warnings) {
        warning.where = {};  // about the listing, not one place in the family
        print_diagnostic(std::cerr, warning);
      }
    } catch (const Error&) {
      // Shadowed only by a tier the family names by its path: nothing on the path to warn of.
    }
  }
  return ok ? kSuccess : kError;
}

struct Listing {
  const char* kind;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
};

const Listing kListings[] = {
    {"templates", "entry templates on the search path (--all adds partials)", list_templates},
    {"presets", "the shipped families (presets/families)", list_presets},
    {"tiers", "tiers on the tier search path (--family adds a family's own)", list_tiers},
    {"plugins", "plugins on the plugin search path", list_plugins},
};

}  // namespace

int run_list(const std::vector<std::string>& args) {
  if (args.empty() || args.front() == "--help" || args.front() == "-h") {
    std::ostream& out = args.empty() ? std::cerr : std::cout;
    out << "usage: zeroforge list KIND [options]\n\nkinds:\n";
    for (const auto& listing : kListings) {
      std::string kind = listing.kind;
      kind.resize(12, ' ');
      out << "  " << kind << listing.summary << '\n';
    }
    return args.empty() ? kError : kSuccess;
  }
  for (const auto& listing : kListings) {
    if (args.front() == listing.kind) {
      return listing.run(std::vector<std::string>(args.begin() + 1, args.end()));
    }
  }
  throw Error(ErrorKind::Usage, "list: unknown kind '" + args.front() +
                                    "' (expected templates, presets, tiers or plugins)");
}

}  // namespace zf::cli
