// SPDX-License-Identifier: MIT
// CompanionWriter (companions.hpp): companion templates loaded once, rendered per config over
// its values plus `job`, and staged (or compared) like the configs themselves.
#include "companions.hpp"

#include <algorithm>

#include "zeroforge/error.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/output.hpp"

namespace zf::pipeline {

CompanionWriter::CompanionWriter(const Environment& environment, std::vector<std::string> kinds)
    : kinds_(std::move(kinds)) {
  // The kinds a request may write, and those it brings with it (a multi-node `deepspeed`
  // launch needs its hostfile and environment file), in companion_kinds() order.
  auto wanted = [&](const std::string& kind) {
    auto has = [&](std::string_view k) {
      return std::find(kinds_.begin(), kinds_.end(), k) != kinds_.end();
    };
    if (has(kind)) return true;
    if (kind == "accelerate") return has("slurm");  // a SLURM job may launch accelerate
    return (kind == "hostfile" || kind == "deepspeed-env") && has("deepspeed");
  };
  for (const auto& kind : companion_kinds()) {
    if (!wanted(kind)) continue;
    const std::string name = companion_template(kind);
    if (!environment.resolve(name)) {
      throw Error(ErrorKind::Template, "companion template '" + name +
                                           "' not found on the template search path (the '" + kind +
                                           "' companion renders it)");
    }
    templates_.emplace_back(kind, environment.load(name));
  }
}

std::vector<DriftStatus> CompanionWriter::write(const CompanionPlan& plan, const Value& values,
                                                const Value* globals, StagedOutput* staged,
                                                const DriftCheck* drift) const {
  std::vector<DriftStatus> out;
  out.reserve(plan.files.size());
  // The config's values plus `job`; `job.kind` names the companion being rendered.
  ValueDict context = values.as_dict();
  nlohmann::ordered_json job = plan.job;
  for (const auto& [kind, path] : plan.files) {
    auto found = std::find_if(templates_.begin(), templates_.end(),
                              [&k = kind](const auto& entry) { return entry.first == k; });
    if (found == templates_.end())
      throw Error(ErrorKind::Template, "no template loaded for companion '" + kind + "'");
    const Template& tpl = *found->second;
    job["kind"] = kind;
    context.set("job", Value::from_json(job));
    const Value scope(context);
    std::string text;
    if (tpl.is_json()) {
      append_json_text(text, tpl.render_json(scope, globals));
    } else {
      tpl.render_into(scope, text, globals);
      // Text files end with a newline (Jinja2 drops the template's last one).
      if (!text.empty() && text.back() != '\n') text += '\n';
    }
    const bool executable = companion_is_executable(kind);
    if (drift != nullptr) {
      out.push_back(drift->compare(path, text, executable));
    } else {
      if (staged != nullptr) staged->write(path, text, executable);  // none: a dry run
      out.push_back(DriftStatus::Same);
    }
  }
  return out;
}

}  // namespace zf::pipeline
