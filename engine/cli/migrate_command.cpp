// SPDX-License-Identifier: MIT
// `zeroforge migrate CONFIG... --to V -o DIR` and `zeroforge migrate FAMILY.json --to V -o FILE`:
// configs (or a family) written for one DeepSpeed release rewritten for another, each rewrite a
// note; exit 0, 1 (--check: something would change) or 2 (a refusal or bad input: nothing written).
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <system_error>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/migrate.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace zf::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

std::string version_arg(const char* option, const std::string& version) {
  try {
    check_deepspeed_version(version);
  } catch (const Error& e) {
    throw Error(ErrorKind::Usage, std::string("migrate: --") + option + ": " + e.message());
  }
  return version;
}

// Each input's path below the directory all inputs share (as import names its members), so a
// folder of configs comes back as the same tree under -o.
std::vector<fs::path> output_paths(const std::vector<std::string>& files, const fs::path& dir) {
  std::vector<fs::path> absolute;
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < files.size(); ++i) {
    absolute.push_back(fs::absolute(files[i]).lexically_normal());
    auto [it, added] = seen.emplace(absolute.back().string(), i);
    if (!added) {
      throw Error(ErrorKind::Usage,
                  "migrate: " + files[i] + " is given twice (also as " + files[it->second] + ")");
    }
  }
  fs::path common = absolute.front().parent_path();
  for (const auto& path : absolute) {
    while (!common.empty() && path.lexically_relative(common).string().starts_with("..")) {
      common = common.parent_path();
    }
  }
  std::vector<fs::path> out;
  const fs::path target = fs::absolute(dir).lexically_normal();
  for (std::size_t i = 0; i < absolute.size(); ++i) {
    fs::path output = dir / absolute[i].lexically_relative(common);
    if ((target / absolute[i].lexically_relative(common)).lexically_normal() == absolute[i]) {
      throw Error(ErrorKind::Usage, "migrate: -o " + dir.string() + " would replace the input " +
                                        files[i] + "; pass --in-place to rewrite inputs");
    }
    out.push_back(std::move(output));
  }
  return out;
}

struct FileResult {
  std::string file;
  std::string from;
  bool inferred = false;
  std::string to;
  std::string output;  // "" with --check
  bool changed = false;
  std::vector<MigrationNote> notes;
};

// `output`: null when nothing was written (--check, or a refusal).
nlohmann::ordered_json outcome_json(const FileResult& o, bool written) {
  nlohmann::ordered_json notes = nlohmann::ordered_json::array();
  for (const auto& note : o.notes) notes.push_back(migration_note_to_json(note));
  nlohmann::ordered_json out = {{"file", o.file}, {"from", o.from}};
  out["from_inferred"] = o.inferred;
  out["to"] = o.to;
  out["output"] =
      !written || o.output.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(o.output);
  out["changed"] = o.changed;
  out["notes"] = std::move(notes);
  return out;
}

}  // namespace

int run_migrate(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string to, from, output, format = "text";
  long long world_size = 0;
  po::options_description options(
      "zeroforge migrate CONFIG... --to V (-o DIR | --in-place | --check) [options]\n"
      "zeroforge migrate FAMILY.json --to V (-o FILE | --in-place | --check) [options]");
  options.add_options()("help,h", "show this help")(
      "to", po::value(&to),
      ("the DeepSpeed release to migrate to (" + deepspeed_versions().front() + " to " +
       deepspeed_versions().back() + ")")
          .c_str())("from", po::value(&from),
                    "the release the inputs were written for (default: a config's is the newest "
                    "release that accepts it and reads all its keys; a family's is its "
                    "deepspeed_version)")(
      "output,o", po::value(&output),
      "configs: the directory the migrated configs go to (their paths below the directory the "
      "inputs share); a family: the file to write")("in-place",
                                                    "rewrite each input in place (atomically)")(
      "check", "write nothing; list what would change; exit 1 if anything would")(
      "drop-unknown", "drop keys the target release does not know instead of refusing them")(
      "world-size", po::value(&world_size),
      "judge configs at this data-parallel world size, as validate --world-size")(
      "hf", "judge configs as the HF Trainer loads them (a config that says \"auto\" always is)")(
      "format", po::value(&format), "text (default) or json");
  po::options_description hidden;
  hidden.add_options()("input", po::value(&files));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("input", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << "Rewrites DeepSpeed configs (or a family) written for one DeepSpeed release into\n"
                 "what another release reads: renamed keys, floats where an integer is needed,\n"
                 "keys of another section, changed defaults; each rewrite is a note with its\n"
                 "reason (see docs/migrate.md). What has no equivalent is refused.\n"
                 "Exit 0; 1: --check found something to change; 2: a refusal or bad input\n"
                 "(nothing written).\n\n"
              << options << '\n';
    return kSuccess;
  }
  po::notify(vm);
  if (format != "text" && format != "json") {
    throw Error(ErrorKind::Usage, "migrate: --format must be text or json, not '" + format + "'");
  }
  if (format == "json") report_errors_as_json();
  if (files.empty()) throw Error(ErrorKind::Usage, "migrate: missing CONFIG.json or FAMILY.json");
  if (to.empty()) throw Error(ErrorKind::Usage, "migrate: missing --to VERSION");
  const bool check = vm.count("check") > 0;
  const bool in_place = vm.count("in-place") > 0;
  const int destinations = (check ? 1 : 0) + (in_place ? 1 : 0) + (vm.count("output") ? 1 : 0);
  if (destinations != 1) {
    throw Error(ErrorKind::Usage,
                destinations == 0 ? "migrate: say where the result goes: -o, --in-place or --check"
                                  : "migrate: -o, --in-place and --check exclude each other");
  }
  MigrateOptions migrate;
  migrate.to = version_arg("to", to);
  if (vm.count("from")) migrate.from = version_arg("from", from);
  migrate.drop_unknown = vm.count("drop-unknown") > 0;
  migrate.validate.hf = vm.count("hf") > 0;
  if (vm.count("world-size")) {
    migrate.validate.world_size =
        checked_number("migrate", "world-size", world_size, 1, kMaxWorldSize);
  }

  // Read everything first: a family is migrated alone.
  std::vector<std::string> texts;
  std::size_t families = 0;
  for (const auto& file : files) {
    texts.push_back(read_file(file));
    if (is_family_document(parse_json_text(texts.back(), file, JsonNumbers::AsWritten))) ++families;
  }
  if (families > 0 && files.size() > 1) {
    throw Error(ErrorKind::Usage,
                "migrate: a family file is migrated alone, not with other inputs");
  }

  std::vector<FileResult> outcomes;
  std::vector<Diagnostic> refusals;
  std::vector<std::pair<fs::path, std::string>> writes;
  if (families == 1) {
    const fs::path destination = in_place || check ? fs::path(files[0]) : fs::path(output);
    if (!destination.parent_path().empty() && !fs::is_directory(destination.parent_path())) {
      throw Error(ErrorKind::Usage, "migrate: -o " + output + ": the directory " +
                                        destination.parent_path().string() + " does not exist");
    }
    FamilyMigration m = migrate_family(files[0], destination, migrate, data_dir());
    refusals = std::move(m.refusals);
    FileResult o{m.file,
                 m.from,
                 false,
                 m.to,
                 check ? "" : destination.string(),
                 m.changed(),
                 std::move(m.notes)};
    if (!check) writes.emplace_back(destination, m.text);
    outcomes.push_back(std::move(o));
  } else {
    std::vector<fs::path> paths;
    if (in_place) {
      for (const auto& file : files) paths.emplace_back(file);
    } else if (!check) {
      paths = output_paths(files, output);
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
      ConfigMigration m = migrate_config(texts[i], files[i], migrate);
      for (auto& d : m.refusals) refusals.push_back(std::move(d));
      FileResult o{m.file,
                   m.from,
                   m.inferred,
                   m.to,
                   check ? "" : paths[i].string(),
                   m.changed(),
                   std::move(m.notes)};
      if (!check) writes.emplace_back(paths[i], std::move(m.text));
      outcomes.push_back(std::move(o));
    }
  }

  const bool refused = !refusals.empty();
  if (!refused) {
    for (const auto& [path, text] : writes) {
      // An input that needs nothing is written unchanged; in place it is left alone.
      if (in_place && text == read_file(path)) continue;
      if (!path.parent_path().empty()) fs::create_directories(path.parent_path());
      write_file_atomically(path, text);
    }
  }
  std::size_t changed = 0;
  for (const auto& o : outcomes) changed += o.changed ? 1 : 0;
  const int code = refused ? kError : check && changed > 0 ? kFindings : kSuccess;
  if (format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& o : outcomes) list.push_back(outcome_json(o, !refused));
    std::cout << to_json_text({{"exit_code", code},
                               {"migrations", std::move(list)},
                               {"errors", diagnostics_to_json(refusals)}});
    print_diagnostics(std::cerr, refusals);
    return code;
  }
  for (const auto& o : outcomes) {
    for (const auto& note : o.notes) print_message(std::cout, format_migration_note(note));
  }
  for (const auto& o : outcomes) {
    std::string line =
        o.file + ": " +
        (o.from.empty() ? std::string("no source release")
                        : "DeepSpeed " + o.from + (o.inferred ? " (inferred)" : "")) +
        " -> " + o.to + ": ";
    if (refused) {
      line += o.changed ? plural(o.notes.size(), "rewrite") + ", not written" : "not written";
    } else if (check) {
      line += o.changed ? plural(o.notes.size(), "rewrite") + " to make" : "nothing to change";
    } else {
      line += (o.changed ? plural(o.notes.size(), "rewrite") : std::string("unchanged")) +
              ", written to " + o.output;
    }
    print_message(std::cout, line);
  }
  std::cout.flush();  // the report, then why nothing was written
  print_diagnostics(std::cerr, refusals);
  if (refused) {
    print_coded_line(
        std::cerr,
        "zeroforge: error: " + plural(refusals.size(), "refusal") + "; nothing was written",
        codes::migrate_not_migrated);
  }
  return code;
}

}  // namespace zf::cli
