# SPDX-License-Identifier: MIT
# release_history: turns the per-release facts extract_deepspeed_releases.py reads from
# DeepSpeed's source into the "releases" block of the validator's schema data (once per
# change: what each release added, removed or changed), and checks the schema data against them.
"""The schema data's release history, computed from extracted facts (see
extract_deepspeed_releases.py). Pure functions over JSON; no git, no DeepSpeed."""
import json
import re

# Keys DeepSpeed reads that the schema data leaves out on purpose, and why.
NOT_IN_SCHEMA = {
    "/allgather_size": "read only with the legacy boolean form \"zero_optimization\": true, which "
                       "the validator reports as deprecated; otherwise DeepSpeed ignores it",
}
# Keys the schema data has that no release reads, and why.
NOT_READ = {
    "/$schema": "an editor hint; DeepSpeed does not read it",
}

# Checks DeepSpeed gained or lost between releases that a rule follows: the id the rules ask
# for (validate::Context::has), the file and the text whose presence means the check is there.
CHECKS = {
    "warmup-positive-integer": ("deepspeed/runtime/lr_schedules.py", r"warmup_num_steps <= 0",
                                "WarmupLR, WarmupDecayLR and WarmupCosineLR raise unless "
                                "warmup_num_steps is an int > 0 (rules warmup-steps, hf-warmup-auto)"),
    "fp16-master-weights-stage-2-only": ("deepspeed/runtime/config.py",
                                         r"only supported with ZeRO Stage 2 for now",
                                         "fp16_master_weights_and_grads is refused at every stage "
                                         "but 2 (rule master-weights)"),
    "bf16-optimizer-states-offload-checked": (
        "deepspeed/runtime/base_optimizer.py", r"not self\.bf16_optimizer_states or offload_enabled",
        "bf16_optimizer_states with the optimizer offloaded is held to the master weights' "
        "offload validator (CPU offload with DeepSpeedCPUAdam; rule master-weights)"),
    "loss-scale-from-fp16-section": (
        "deepspeed/runtime/engine.py", r"return self\._config\.float16_config\.loss_scale == 0",
        "the engine's dynamic_loss_scale() reads fp16.loss_scale whether or not fp16 is enabled "
        "(before, the loss scale was fp16's only when fp16 was enabled, 1.0 with bf16 and 0 "
        "otherwise; rule lamb-loss-scale)"),
    "fp16-scale-params-checked": (
        "deepspeed/runtime/precision_config.py", r"def _reject_non_integer_scale_params",
        "fp16.loss_scale_window and fp16.min_loss_scale refuse a bool, and must be > 0 when fp16 "
        "is enabled with dynamic loss scaling (rules type, bounds)"),
    "pydantic-2": ("deepspeed/runtime/config_utils.py", r"ConfigDict",
                   "the config models are pydantic 2 models; pydantic 1 truncates a float given "
                   "for an integer field instead of refusing it (rule type)"),
}


def version_key(version):
    return tuple(int(p) for p in version.split("."))


def resolved(schema, node):
    if isinstance(node, dict) and "$ref" in node:
        out = dict(schema["sections"][node["$ref"]])
        out.update({k: v for k, v in node.items() if k != "$ref"})
        return out
    return node


def is_section(node):
    return isinstance(node, dict) and ("keys" in node or "kind" in node)


def schema_nodes(schema):
    """{pointer: node} of every node under the root, `$ref` resolved ("" is the root)."""
    out = {}

    def walk(node, pointer):
        node = resolved(schema, node)
        out[pointer] = node
        if isinstance(node, dict):
            for key, child in node.get("keys", {}).items():
                walk(child, pointer + "/" + key)

    walk(schema["root"], "")
    return out


def compared(node):
    """A section whose keys the schema data lists completely: a pydantic model or a section read
    key by key (not `open`, not an alias of another section)."""
    return is_section(node) and node.get("kind", "dict") != "open" and "alias_of" not in node


def known_default(entry):
    """("value", default) of an extracted key, or None when its default could not be read (a
    call, a required key, a `default_factory`)."""
    if isinstance(entry, dict) and ("expr" in entry or "required" in entry):
        return None
    return ("value", entry)


# Reads the extractor's flow analysis gets wrong, corrected here with the reason:
# (section pointer, key, read or not). Before 0.19.3 get_eigenvalue_config rebinds
# `param_dict = param_dict[QUANTIZE_TRAINING]` and then reads "eigenvalue" from it, which the
# analysis takes for a top-level read; every release reads quantize_training (and eigenvalue
# inside it) when compression_training quantizes weights, and no release reads a top-level
# eigenvalue.
READ_CORRECTIONS = [
    ("", "eigenvalue", False),
    ("", "quantize_training", True),
]


def extracted_view(facts):
    """{section pointer: {"kind": "pydantic" | "dict", "keys": {key: known_default}}} of one
    release."""
    view = {}
    for pointer, keys in facts["read"].items():
        pointer = "" if pointer == "/" else pointer
        view[pointer] = {"kind": "dict", "keys": {k: known_default(d) for k, d in keys.items()}}
    for pointer, model in facts["models"].items():
        keys = {}
        for name, field in model["fields"].items():
            default = known_default(field["default"]) if "default" in field else None
            keys[name] = default
            if "alias" in field:
                keys[field["alias"]] = default  # pydantic takes the field name and its alias
        view[pointer] = {"kind": "pydantic" if model["extra"] == "forbid" else "dict", "keys": keys}
        parent, _, key = pointer.rpartition("/")
        view.setdefault(parent, {"kind": "dict", "keys": {}})["keys"].setdefault(key, None)
    for section, key, read in READ_CORRECTIONS:
        keys = view.setdefault(section, {"kind": "dict", "keys": {}})["keys"]
        if read:
            keys.setdefault(key, None)
        else:
            keys.pop(key, None)
    return view


def same_value(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return a == b


def observations(all_facts, schema):
    """Per release: {pointer: (present, default or None)} of every key of a compared section,
    observed where its section is read; {pointer: kind} of the sections; other features."""
    nodes = schema_nodes(schema)
    sections = [p for p, n in nodes.items() if compared(n)]
    views = [extracted_view(facts) for facts in all_facts]
    ever = {}  # section pointer -> every key some release reads there
    for view in views:
        for pointer in sections:
            ever.setdefault(pointer, set()).update(view.get(pointer, {"keys": {}})["keys"])
    out = []
    for facts, view in zip(all_facts, views):
        keys, kinds = {}, {}
        for pointer in sections:
            section = view.get(pointer)
            if section is None:
                continue
            kinds[pointer] = section["kind"]
            names = ever[pointer] | set(nodes[pointer].get("keys", {}))
            for name in names:
                key = pointer + "/" + name
                if key in NOT_IN_SCHEMA:
                    continue
                keys[key] = (name in section["keys"], section["keys"].get(name))
        features = {"optimizer:" + n for n in facts["optimizers"]["deepspeed"]}
        features |= {"scheduler:" + n for n in facts["schedulers"]}
        features |= {"check:" + c for c, present in facts.get("checks", {}).items() if present}
        out.append({"version": facts["version"], "keys": keys, "kinds": kinds, "features": features})
    return out


def changes(all_facts, schema):
    """The "releases" block: the known releases and what changed at each, once per change."""
    obs = observations(all_facts, schema)
    nodes = schema_nodes(schema)
    events = {}  # version -> {"added": [], "removed": [], "changed": {}}

    def event(version):
        return events.setdefault(version, {"added": [], "removed": [], "changed": {}})

    # Keys: their own state, observed only where their section is read.
    last = {}
    for o in obs:
        for key, (present, default) in sorted(o["keys"].items()):
            before = last.get(key)
            if before is not None:
                if present != before[0]:
                    event(o["version"])["added" if present else "removed"].append(key)
                elif present and before[1] is not None and default is not None and not same_value(
                        before[1][1], default[1]) and "alias_of" not in nodes.get(key, {}):
                    event(o["version"])["changed"].setdefault(key, {})["default"] = [before[1][1], default[1]]
            if present and default is None and before is not None and before[0]:
                default = before[1]  # an unreadable default keeps the last one read
            last[key] = (present, default)
    # Sections: a section key appears where its parent reads it (above); its kind may change.
    last_kind = {}
    for o in obs:
        for pointer, kind in sorted(o["kinds"].items()):
            if pointer in last_kind and last_kind[pointer] != kind:
                event(o["version"])["changed"].setdefault(pointer, {})["kind"] = [last_kind[pointer], kind]
            last_kind[pointer] = kind
    # Optimizer and scheduler names, checks.
    for before, after in zip(obs, obs[1:]):
        for feature in sorted(after["features"] - before["features"]):
            event(after["version"])["added"].append(feature)
        for feature in sorted(before["features"] - after["features"]):
            event(after["version"])["removed"].append(feature)
    block = {
        "about": ("The DeepSpeed releases zeroforge judges configs by, oldest first (the last is "
                  "the default), and what changed at each relative to the one before, read from "
                  "each release's source by engine/tools/extract_deepspeed_releases.py: keys "
                  "added and removed (JSON pointers into a config), sections whose kind changed "
                  "(dict: unknown keys ignored; pydantic: refused), defaults that changed "
                  "([before, after]), DeepSpeed optimizer and scheduler names, and the checks "
                  "below. The rest of this file describes the newest release; a key it has that "
                  "a release lacks (or the reverse) is listed here."),
        "checks": {name: text for name, (_, _, text) in sorted(CHECKS.items())},
        "known": [{"version": f["version"], "commit": f["commit"]} for f in all_facts],
        "changes": [],
    }
    for version in sorted(events, key=version_key):
        e = events[version]
        entry = {"release": version}
        for field in ("added", "removed"):
            if e[field]:
                entry[field] = sorted(e[field])
        if e["changed"]:
            entry["changed"] = {k: e["changed"][k] for k in sorted(e["changed"])}
        block["changes"].append(entry)
    return block


def base_problems(all_facts, schema):
    """Where the schema data (the newest release) disagrees with the newest extracted facts, and
    keys some release reads that the schema data has no node for."""
    problems = []
    nodes = schema_nodes(schema)
    obs = observations(all_facts, schema)
    newest = obs[-1]
    for key, (present, default) in sorted(newest["keys"].items()):
        node = nodes.get(key)
        if present and node is None:
            problems.append(f"{key}: DeepSpeed {newest['version']} reads it; the schema data has no node")
        if node is None or not present:
            continue
        if default is not None and "default" in node and not is_section(node) and not same_value(
                node["default"], default[1]):
            problems.append(f"{key}: default {json.dumps(node['default'])} in the schema data, "
                            f"{json.dumps(default[1])} in DeepSpeed {newest['version']}")
    for pointer, kind in sorted(newest["kinds"].items()):
        node_kind = nodes[pointer].get("kind", "dict")
        if node_kind != kind:
            problems.append(f"{pointer or '/'}: kind {node_kind} in the schema data, {kind} in DeepSpeed "
                            f"{newest['version']}")
    ever = {}
    for o in obs:
        for key, (present, _) in o["keys"].items():
            if present:
                ever.setdefault(key, o["version"])
    for key, version in sorted(ever.items()):
        if key not in nodes:
            problems.append(f"{key}: DeepSpeed {version} reads it; the schema data has no node for it")
    for pointer, node in sorted(nodes.items()):
        parent = pointer.rpartition("/")[0]
        if pointer and compared(nodes[parent]) and pointer not in ever and pointer not in NOT_READ:
            problems.append(f"{pointer}: in the schema data, but no release from {obs[0]['version']} on reads it")
    return problems


def check(block, schema):
    """Exit status of `check`: 0 when the schema data's "releases" block is `block`."""
    have = schema.get("releases")
    if have is None:
        print("the schema data has no \"releases\" block")
        return 1
    status = 0
    for field in ("known", "changes", "checks"):
        if have.get(field) != block[field]:
            status = 1
            print(f"releases/{field} differs from the extracted facts:")
            mine = {json.dumps(x, sort_keys=True) for x in (have.get(field) or [])} if isinstance(
                block[field], list) else set()
            theirs = {json.dumps(x, sort_keys=True) for x in block[field]} if isinstance(block[field],
                                                                                      list) else set()
            for line in sorted(mine - theirs):
                print("  schema only:    " + line)
            for line in sorted(theirs - mine):
                print("  extracted only: " + line)
    return status


def block_text(block, indent="  "):
    """The block as the schema data writes it: one release or change per line (a change's
    fields on lines of their own)."""
    inner = indent * 2
    lines = [indent + '"releases": {', inner + '"about": ' + json.dumps(block["about"]) + ",",
             inner + '"checks": {']
    checks = list(block["checks"].items())
    for i, (name, text) in enumerate(checks):
        lines.append(inner + indent + json.dumps(name) + ": " + json.dumps(text) + ("," if i + 1 < len(checks) else ""))
    lines.append(inner + "},")
    lines.append(inner + '"known": [')
    for i, known in enumerate(block["known"]):
        lines.append(inner + indent + json.dumps(known) + ("," if i + 1 < len(block["known"]) else ""))
    lines.append(inner + "],")
    lines.append(inner + '"changes": [')
    for i, change in enumerate(block["changes"]):
        parts = [json.dumps(k) + ": " + json.dumps(v) for k, v in change.items()]
        text = inner + indent + "{" + (",\n" + inner + indent + " ").join(parts) + "}"
        lines.append(text + ("," if i + 1 < len(block["changes"]) else ""))
    lines.append(inner + "]")
    lines.append(indent + "}")
    return "\n".join(lines)


def write(block, path):
    """Replaces the "releases" member of the schema data file (its last member) with `block`,
    leaving the rest of the text as it is; appends it when there is none."""
    with open(path) as f:
        text = f.read()
    at = text.find('\n  "releases": {')
    if at >= 0:
        head = text[:at].rstrip()
    else:
        head = text.rstrip()
        assert head.endswith("}"), "the schema data is not a JSON object"
        head = head[:-1].rstrip() + ","
    if not head.endswith(","):
        head += ","
    with open(path, "w") as f:
        f.write(head + "\n" + block_text(block) + "\n}\n")
    json.loads(open(path).read())  # still JSON
