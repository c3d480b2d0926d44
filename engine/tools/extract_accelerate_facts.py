#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# extract_accelerate_facts: reads, from each accelerate release's own source, what its
# DeepSpeedPlugin does to a DeepSpeed config file that the HF Trainer hands it, and compares
# that with the "accelerate" block of the validator's schema data
# (engine/src/deepspeed/deepspeed_schema.json). Run by hand with a clone of
# huggingface/accelerate; the build never runs it (docs/validate.md, "The Trainer's path").
"""Read what accelerate's DeepSpeedPlugin requires of and fills in a DeepSpeed config file.

Usage:
  extract_accelerate_facts.py --repo DIR [--oldest 0.18.0] facts
  extract_accelerate_facts.py --repo DIR [--oldest 0.18.0] check|write SCHEMA.json

DIR is a git directory of huggingface/accelerate (a bare mirror is enough: files are read with
git show). The releases are its tags vX.Y.Z from --oldest on. Nothing is imported: the source is
parsed with Python's ast module. Per release it reads, in DeepSpeedPlugin.__post_init__ (the
branch taken when a config file is given, which is the Trainer's: TrainingArguments builds
DeepSpeedPlugin(hf_ds_config=...)):
  - whether a config without "zero_optimization" is refused (the ValueError raised when the key
    is not in the config);
  - plugin_to_config_mapping: the plugin fields that fill a config key whose value is "auto",
    and each field's value when no ACCELERATE_* variable is set (the default of its
    os.environ.get): a field whose default is "auto" fills nothing;
  - the keys it writes into a config that lacks them (inserts: gradient_accumulation_steps 1);
  - that fill_match raises on an "auto" it has no value for (Accelerator._prepare_deepspeed
    runs it over every key: an "auto" nobody filled is a ValueError);
  - in Accelerator._prepare_deepspeed (src/accelerate/accelerator.py), the oldest DeepSpeed
    release it takes for tensor_parallel.autotp_size > 1 (it raises ImportError below it), or
    null where it does not check (autotp_needs_deepspeed);
  - there too, the config key whose value, other than "none", makes it swap the Trainer's own
    torch optimizer for DeepSpeedCPUAdam (swaps_optimizer_when, a JSON pointer; null where it
    never swaps): DeepSpeed refuses any other client optimizer under optimizer offload.
The block lists every release read ("known": what --accelerate-version accepts) and one fact set
per release whose facts differ from the release before ("from": the first release that has it).

Commands:
  facts  prints the facts of every release as JSON.
  check  exits 1 (and says what differs) unless SCHEMA.json's "accelerate" block is what the
         releases give; 0 when it is.
  write  rewrites SCHEMA.json's "accelerate" block (the rest of the file is kept byte for byte).
"""
import argparse
import ast
import json
import re
import subprocess
import sys

FILE = "src/accelerate/utils/dataclasses.py"
ACCELERATOR_FILE = "src/accelerate/accelerator.py"
REPOSITORY = "huggingface/accelerate"


def version_key(version):
    return tuple(int(p) for p in version.split("."))


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def releases(repo, oldest):
    tags = [t for t in git(repo, "tag").split() if re.fullmatch(r"v\d+\.\d+\.\d+", t)]
    versions = sorted((t[1:] for t in tags), key=version_key)
    return [v for v in versions if version_key(v) >= version_key(oldest)]


def find_class(tree, name, file=FILE):
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise SystemExit(f"{file}: no class {name}")


def find_method(cls, name):
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise SystemExit(f"{FILE}: {cls.name} has no {name}")


def is_environ_get(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get" and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "environ")


def evaluate(node, names):
    """The value of a plugin field's default expression with no ACCELERATE_* variable set."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return names[node.id]
    if is_environ_get(node):
        return evaluate(node.args[1], names) if len(node.args) > 1 else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "float"):
        value = evaluate(node.args[0], names)
        return {"int": int, "float": float}[node.func.id](value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "lower":
        return evaluate(node.func.value, names).lower()
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "isdigit":
        return evaluate(node.func.value, names).isdigit()
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
        return evaluate(node.left, names) == evaluate(node.comparators[0], names)
    if isinstance(node, ast.IfExp):
        return evaluate(node.body if evaluate(node.test, names) else node.orelse, names)
    raise ValueError(ast.dump(node))


def field_defaults(post_init):
    """{field: value} for each `if self.FIELD is None: self.FIELD = EXPR` at the top of the method."""
    out = {}
    for stmt in post_init.body:
        if not (isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Compare)
                and isinstance(stmt.test.left, ast.Attribute)
                and isinstance(stmt.test.ops[0], ast.Is)):
            continue
        field = stmt.test.left.attr
        names = {}
        for inner in stmt.body:
            if not isinstance(inner, ast.Assign) or len(inner.targets) != 1:
                continue
            target = inner.targets[0]
            try:
                value = evaluate(inner.value, names)
            except (ValueError, KeyError, TypeError):
                continue
            if isinstance(target, ast.Name):
                names[target.id] = value
            elif isinstance(target, ast.Attribute) and target.attr == field:
                out[field] = value
    return out


def mapping(post_init):
    for node in ast.walk(post_init):
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "plugin_to_config_mapping"):
            return {k.value: v.value for k, v in zip(node.value.keys, node.value.values)}
    raise SystemExit(f"{FILE}: DeepSpeedPlugin.__post_init__ has no plugin_to_config_mapping")


def release_facts(repo, version):
    source = git(repo, "show", f"v{version}:{FILE}")
    cls = find_class(ast.parse(source), "DeepSpeedPlugin")
    post_init = find_method(cls, "__post_init__")
    text = ast.get_source_segment(source, post_init)
    requires = []
    if re.search(r'"zero_optimization" not in self\.hf_ds_config\.config:\s*raise ValueError', text):
        requires.append("/zero_optimization")
    fill_match = ast.get_source_segment(source, find_method(cls, "fill_match"))
    if "not found in kwargs" not in fill_match:
        raise SystemExit(f"v{version}: fill_match no longer raises on an unfilled \"auto\"")
    defaults = field_defaults(post_init)
    fills = []
    for field, key in mapping(post_init).items():
        value = defaults.get(field)
        if value is None or value == "auto":
            continue  # fills nothing: "auto" stays for the Trainer (or raises)
        fills.append({"pointer": "/" + key.replace(".", "/"), "value": value, "field": field})
    fills.sort(key=lambda f: f["pointer"])
    inserts = [{"pointer": "/" + key, "value": int(value)} for key, key_again, value in re.findall(
        r'if "(\w+)" not in self\.hf_ds_config\.config:\s*self\.hf_ds_config\.config\["(\w+)"\] = (\d+)\b', text)
        if key == key_again]
    accelerator_text = prepare_deepspeed_text(repo, version)
    return {"requires": requires, "fills": fills, "inserts": inserts,
            "autotp_needs_deepspeed": autotp_needs(accelerator_text, version),
            "swaps_optimizer_when": optimizer_swap(accelerator_text, version)}


def prepare_deepspeed_text(repo, version):
    """The source of Accelerator._prepare_deepspeed at the release."""
    source = git(repo, "show", f"v{version}:{ACCELERATOR_FILE}")
    accelerator = find_class(ast.parse(source), "Accelerator", ACCELERATOR_FILE)
    method = next((node for node in accelerator.body
                   if isinstance(node, ast.FunctionDef) and node.name == "_prepare_deepspeed"), None)
    if method is None:
        raise SystemExit(f"v{version}: {ACCELERATOR_FILE} has no Accelerator._prepare_deepspeed")
    return ast.get_source_segment(source, method)


def optimizer_swap(text, version):
    """The config key whose value (other than "none") makes _prepare_deepspeed swap the Trainer's
    own torch optimizer for DeepSpeedCPUAdam, as a JSON pointer; None where it never swaps."""
    if "DeepSpeedCPUAdam" not in text and "map_pytorch_optim_to_deepspeed" not in text:
        return None
    read = re.search(r'self\.deepspeed_config\["(\w+)"\]\.get\(\s*"(\w+)",\s*\{\}\s*\)\.get\(\s*'
                     r'"(\w+)",\s*"none"\s*\)\s*!=\s*"none"', text)
    if read is None:
        raise SystemExit(f"v{version}: _prepare_deepspeed swaps the optimizer, but the key it reads was not found")
    return "/" + "/".join(read.groups())


def autotp_needs(text, version):
    """The DeepSpeed release _prepare_deepspeed (its source, `text`) requires for automatic
    tensor parallelism."""
    if '"autotp_size"' not in text:
        return None
    needed = re.search(r'if\s+tp_size\s*>\s*1:\s*if not compare_versions\("deepspeed",\s*">=",\s*"([0-9.]+)"\)', text)
    if needed is None:
        raise SystemExit(f"v{version}: _prepare_deepspeed reads autotp_size, but no DeepSpeed version check was found")
    return needed.group(1)


def block(repo, oldest):
    """The "accelerate" block: one entry per release whose facts differ from the one before."""
    versions = releases(repo, oldest)
    entries = []
    for version in versions:
        facts = release_facts(repo, version)
        if entries and {k: entries[-1][k] for k in facts} == facts:
            continue
        entries.append({"from": version, "commit": git(repo, "rev-list", "-n1", f"v{version}").strip(),
                        **facts})
    return {
        "about": "What accelerate's DeepSpeedPlugin does to the DeepSpeed config file the HF "
                 "Trainer hands it: the keys it requires, and the \"auto\" values it fills with "
                 "its defaults (no ACCELERATE_* variable set); any other \"auto\" the Trainer "
                 "did not fill makes Accelerator.prepare raise. Read from each release by "
                 "engine/tools/extract_accelerate_facts.py.",
        "repository": REPOSITORY,
        "file": FILE,
        "newest": versions[-1],
        "known": versions,
        "releases": entries,
    }


def block_text(new_block):
    """The block as the schema data writes it: a top-level member, one fill per line."""
    lines = ['  "accelerate": {']
    for key in ("about", "repository", "file", "newest", "known"):
        lines.append(f'    {json.dumps(key)}: {json.dumps(new_block[key], ensure_ascii=False)},')
    lines.append('    "releases": [')
    for i, entry in enumerate(new_block["releases"]):
        lines.append("      {")
        lines.append(f'        "from": {json.dumps(entry["from"])},')
        lines.append(f'        "commit": {json.dumps(entry["commit"])},')
        lines.append(f'        "requires": {json.dumps(entry["requires"])},')
        lines.append(f'        "inserts": {json.dumps(entry["inserts"])},')
        lines.append(f'        "autotp_needs_deepspeed": {json.dumps(entry["autotp_needs_deepspeed"])},')
        lines.append(f'        "swaps_optimizer_when": {json.dumps(entry["swaps_optimizer_when"])},')
        lines.append('        "fills": [')
        fills = [json.dumps(f) for f in entry["fills"]]
        lines += [f"          {f}" + ("," if j + 1 < len(fills) else "") for j, f in enumerate(fills)]
        lines.append("        ]")
        lines.append("      }" + ("," if i + 1 < len(new_block["releases"]) else ""))
    lines.append("    ]")
    lines.append("  },")
    return "\n".join(lines) + "\n"


def replace_block(text, new_block):
    """SCHEMA.json's text with its "accelerate" member replaced, or added before "native_auto";
    every other byte is kept."""
    start = text.find('\n  "accelerate": {')
    if start < 0:
        at = text.index('\n  "native_auto": {') + 1
        return text[:at] + block_text(new_block) + text[at:]
    start += 1
    end = re.compile(r'^  "[^"]+": ', re.M).search(text, start + 1).start()
    return text[:start] + block_text(new_block) + text[end:]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--oldest", default="0.18.0")
    parser.add_argument("command", choices=["facts", "check", "write"])
    parser.add_argument("schema", nargs="?")
    args = parser.parse_args()
    computed = block(args.repo, args.oldest)
    if args.command == "facts":
        json.dump(computed, sys.stdout, indent=2)
        print()
        return 0
    if not args.schema:
        parser.error(f"{args.command} needs SCHEMA.json")
    with open(args.schema, encoding="utf-8") as f:
        text = f.read()
    if args.command == "check":
        held = json.loads(text).get("accelerate")
        if held == computed:
            print(f"{args.schema}: the accelerate block holds {len(computed['releases'])} "
                  f"fact sets for accelerate {args.oldest}..{computed['newest']}")
            return 0
        print(f"{args.schema}: the accelerate block differs from the releases' facts:\n"
              + json.dumps(computed, indent=2), file=sys.stderr)
        return 1
    with open(args.schema, "w", encoding="utf-8") as f:
        f.write(replace_block(text, computed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
