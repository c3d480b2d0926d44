// SPDX-License-Identifier: MIT
// The site profile: what a site sets on every config (NVMe path, monitors, comms logger,
// steps_per_print, extra fields), read and checked once, then turned into a merge patch; and
// what its launches need (host names, environment), handed to companions as values.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>
#include <zeroforge/plugin.hpp>

namespace site_fields {

using zf::sdk::Json;

/// The host's check of launch text (zf::sdk::Context::launch_text_problem): "" when `text` is
/// acceptable as `kind` (ZF_LAUNCH_*), else the message saying why.
using LaunchCheck = std::function<std::string(int kind, std::string_view text)>;

/// A checked site profile. Throws zf::sdk::Error naming the file and JSON pointer of the
/// first problem (unknown profile key, wrong type, a key DeepSpeed does not know, a host or
/// environment variable the companions would refuse).
class Profile {
 public:
  /// `source` names the profile in errors (its path, or "(inline)"); `launch_text_problem`
  /// checks its hosts and environment with the rules the companions apply.
  Profile(const Json& profile, std::string source, const LaunchCheck& launch_text_problem);

  /// The merge patch for one rendered config (the NVMe path only where it offloads to NVMe).
  Json patch_for(const Json& config) const;
  /// The values the profile gives a config whose values are `values`, for companions
  /// (docs/companions.md): `{"launch": {"hosts": [...], "environment": {...}, "slurm": {...},
  /// "kubernetes": {...}}}` with what the profile sets, or null when it sets none of them. The
  /// lists of named things merge with the config's own (merged_lists()): an entry of the
  /// profile's replaces the config's entry of the same name in place, the others follow the
  /// config's; a list the profile gives as `{"$replace": [...]}` replaces the config's.
  Json launch_values(const Json& values) const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  Json nvme_path_;                  // null when the profile sets none
  Json sections_ = Json::object();  // monitors, comms_logger, steps_per_print, in profile order
  Json fields_ = Json::object();
  Json hosts_;                               // null when the profile lists none
  Json environment_ = Json::object();        // NAME -> value, in profile order
  Json slurm_;                               // launch.slurm, null when the profile sets none
  Json kubernetes_;                          // launch.kubernetes, null when the profile sets none
  std::vector<std::string> replaced_lists_;  // the profile pointers given as {"$replace": [...]}
};

/// A list of launch values that a profile's list merges with: where it is in the profile
/// (`/kubernetes/volumes`), and the key that names an entry ("" : the entry is its own name,
/// as a host name; nullptr: entries have no name and the profile's are appended unless equal).
struct MergedList {
  const char* pointer;
  const char* key;
};
/// The lists that merge: hosts by name, Kubernetes volumes by name, volume mounts by
/// mountPath, tolerations appended, the container's variables from Secrets (`env`) by name,
/// `env_from` appended.
const std::vector<MergedList>& merged_lists();

/// True when DeepSpeed reads `key` at the top level of its config.
bool is_deepspeed_key(const std::string& key);
/// The keys DeepSpeed's pydantic model for `section` accepts (it rejects any other), or
/// nullptr when the section's keys are not checked here.
const std::vector<std::string>* section_keys(const std::string& section);

}  // namespace site_fields
