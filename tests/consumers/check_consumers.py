#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The real-consumer check: every companion of every shipped family (and of the families in
# tests/consumers/families/, whose launch values are hostile), read by the programs that read
# them, from their own source: torch's torchrun parser, DeepSpeed's runner (parse_args,
# fetch_hostfile, PDSHRunner.parse_user_args and a whole multi-node launch through a pdsh/ssh
# stand-in and `bash -c`), accelerate's config loader, launch path and DeepSpeedPlugin, and
# transformers' TrainingArguments + HfTrainerDeepSpeedConfig; the Kubernetes job's container
# command (as the kubelet expands it) through the same torchrun parser. tests/consumers/README.md says how
# to run it and which versions were checked. Nothing of the consumers is copied here: their
# sources are imported from the paths given on the command line (or the environment).
import argparse
import base64
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
KINDS = "deepspeed,torchrun,accelerate,hf-args,kubernetes"
# The kubernetes companion's PyTorchJob needs an image; which one does not matter to its command.
KUBERNETES_IMAGE = "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"
# What the Kubeflow controllers set in every training container, for the kubelet's $(NAME).
KUBERNETES_ENV = {"PET_NODE_RANK": "1", "PET_MASTER_ADDR": "10.0.0.1", "PET_MASTER_PORT": "29400"}
# Appended to every launch script's command line: the scripts pass their own arguments on to the
# training script, and each must arrive as written (the launch.args of the hostile families are
# the same kind of text, written into the scripts).
RUNTIME_ARGS = ["--run_name", "it's $HOME `id` $(id) 100%n", "a\\b \"c\"", "", "%h", "*"]
SKIP = 77  # ctest's SKIP_RETURN_CODE: nothing asked for could be run


def log(*parts):
    print(*parts, flush=True)


# ---------------------------------------------------------------------------------------------
# The cases: one per generated config, with what its launch must do (from the family, the tier
# and the config's manifest entry, not from the companions).


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# What auto-fit assumed that no TrainingArguments field carries, from its record in the manifest
# (docs/companions.md, "What auto-fit assumed"): every rank must start with these variables.
FIT_ATTENTION = {"eager": "eager", "sdpa": "sdpa", "flash": "flash_attention_2"}


def fit_environment(entry):
    fit = ((entry.get("plugins") or {}).get("memory") or {}).get("auto_fit")
    if not fit:
        return {}
    return {"ZEROFORGE_SEQ_LEN": str(fit["model"]["seq_len"]),
            "ZEROFORGE_ATTN_IMPLEMENTATION": FIT_ATTENTION[fit["model"]["attention"]]}


def style_environment(style, precision, stage):
    """The variables of fixed value a launch style sets where no accelerate launch sets them
    (docs/companions.md, "Launch styles"): the accelerate style's, as accelerate launch sets
    them for a DeepSpeed process (accelerate utils/launch.py, prepare_deepspeed_cmd_env)."""
    if style != "accelerate":
        return {}
    return {"ACCELERATE_USE_DEEPSPEED": "true",
            "ACCELERATE_MIXED_PRECISION": "no" if precision == "fp32" else precision,
            "ACCELERATE_DEEPSPEED_ZERO3_INIT": "true" if stage == 3 else "false"}


# The variables a style sets to the config's path.
CONFIG_VARIABLES = {"plain": ["ZEROFORGE_DS_CONFIG"],
                    "accelerate": ["ACCELERATE_DEEPSPEED_CONFIG_FILE"]}


def generate(zeroforge, families, out_root):
    cases = []
    for index, family_path in enumerate(families):
        family = load_json(family_path)
        # Both Kubeflow APIs, family by family (the container's command is the same words).
        api = "TrainJob" if index % 2 else "PyTorchJob"
        name = os.path.splitext(os.path.basename(family_path))[0]
        out = os.path.join(out_root, name)
        result = subprocess.run([zeroforge, "generate", family_path, "-o", out, "--companions",
                                 KINDS, "--set", "launch.kubernetes.image=" + KUBERNETES_IMAGE,
                                 "--set", "launch.kubernetes.api=" + api],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"zeroforge generate {family_path} failed:\n{result.stderr}")
        launch = (family.get("values") or {}).get("launch") or {}
        for entry in load_json(os.path.join(out, "manifest.json"))["configs"]:
            tier = load_json(os.path.join(SOURCE_DIR, "presets", "tiers", entry["tier"] + ".json"))
            nodes = int((family.get("values") or {}).get("nodes", tier.get("nodes", 1)))
            world = int(entry["world_size"])
            companions = {k: os.path.join(out, v) for k, v in entry["companions"].items()}
            style = entry["launch"].get("style", "hf-trainer")
            cases.append({
                "name": f"{name}/{entry['path']}",
                "out": out,
                "config": os.path.join(out, entry["path"]),
                "companions": companions,
                "world": world,
                "nodes": nodes,
                "gpus": world // nodes,
                "precision": entry["precision"],
                "hf_auto": entry["hf_auto"],
                "master_port": int(launch.get("master_port", 29500)),
                "script": launch.get("script", "train.py"),
                "launch_args": list(launch.get("args", [])),
                "environment": dict(launch.get("environment") or {}, **fit_environment(entry)),
                "hf_args": load_json(companions["hf-args"]),
                "style": style,
                "style_environment": style_environment(style, entry["precision"],
                                                       int(entry["stage"])),
                "config_variables": CONFIG_VARIABLES.get(style, []),
            })
    return cases


# launch.args that a launcher's argparse may read as its own options although they follow the
# training script (docs/companions.md, "Values: launch"): zeroforge refuses one exactly where the
# launcher's real parser stops at it, and names that launcher; the rest must reach the script.
ABBREVIATION_ARGS = [
    ["--num", "1"], ["--no"], ["--master", "a"], ["--node", "1"], ["--local", "x"], ["--max", "2"],
    ["--log", "d"], ["--n", "1"], ["--rdzv", "x"], ["--rdzv=x y"], ["--h"], ["--=1"],
    ["--nnodes", "2"], ["--nn", "2"], ["--num_nodes=2"], ["--master_port", "1"], ["-m"], ["-mx"],
    ["--output_dir", "o"], ["--rdzv x"], ["--", "--no"], ["x", "--", "--no"], ["--", "--num"],
    ["", "x"], ["-"], ["x", ""],
]
ABBREVIATION_PLACEHOLDER = "--zf-placeholder-argument"


def generate_abbreviations(zeroforge, out_root):
    """For each of ABBREVIATION_ARGS: zeroforge's refusal (or None), and the words each launch
    script of a one-node family runs, the args in place (from the scripts written for a
    placeholder: the same words zeroforge writes, where it refuses to write them)."""
    family = os.path.join(out_root, "abbreviations.json")
    with open(family, "w") as f:
        json.dump({"name": "abbreviations", "template": "deepspeed/config.json.j2",
                   "values": {"stage": 2}, "tiers": ["small"], "output": "{{ tier }}.json"}, f)
    base = os.path.join(out_root, "abbreviations")
    result = subprocess.run([zeroforge, "generate", family, "-o", base, "--companions",
                             "torchrun,deepspeed,accelerate", "--set",
                             "launch.args=" + json.dumps([ABBREVIATION_PLACEHOLDER])],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"zeroforge generate {family} failed:\n{result.stderr}")
    words = {kind: dry_run_words(os.path.join(base, f"small.{kind}.sh"), [], base)
             for kind in ("torchrun", "deepspeed")}
    words["accelerate"] = header_launch_line(os.path.join(base, "small.accelerate.yaml"))
    cases = []
    for args in ABBREVIATION_ARGS:
        result = subprocess.run([zeroforge, "generate", family, "-o", base + "-case",
                                 "--companions", "torchrun,deepspeed,accelerate", "--set",
                                 "launch.args=" + json.dumps(args)],
                                capture_output=True, text=True)
        if result.returncode not in (0, 2):
            raise SystemExit(f"zeroforge generate with launch.args {args}: {result.stderr}")
        launched = {}
        for kind, line in words.items():
            at = line.index(ABBREVIATION_PLACEHOLDER)
            launched[kind] = line[:at] + args + line[at + 1:]
        cases.append({"args": args, "launched": launched,
                      "refusal": result.stderr if result.returncode == 2 else None})
    return cases


def abbreviation_problems(case, launcher, refused, script_args=None):
    """What is wrong with zeroforge's answer for `case` where the parser `launcher` (as the
    refusal names it: `torchrun (torch 1.13)`) refused it or not, and took `script_args`."""
    named = case["refusal"] is not None and launcher in case["refusal"]
    if refused and not named:
        return [f"{launcher} stops at launch.args {case['args']!r}, zeroforge "
                + ("refuses it without naming this launcher: " + case["refusal"].strip()
                   if case["refusal"] else "accepts it")]
    if not refused and named:
        return [f"{launcher} takes launch.args {case['args']!r}, zeroforge says it stops: "
                + case["refusal"].strip()]
    if script_args is not None and not refused:
        expected = case["args"][1:] if case["args"][:1] == ["--"] else case["args"]
        if script_args[:len(expected)] != expected:
            return [f"{launcher} hands the script {script_args[:len(expected)]!r} of "
                    f"{case['args']!r}"]
    return []


def worker_abbreviations(kind, cases, parse):
    """Runs parse(case) -> [(launcher, refused, script args or None)] for each abbreviation case
    and reports each against zeroforge's answer."""
    for case in cases:
        name = {"name": "abbreviations " + json.dumps(case["args"])}
        guarded(name, f"{kind} argparse and zeroforge agree",
                lambda: [p for launcher, refused, args in parse(case)
                         for p in abbreviation_problems(case, launcher, refused, args)])


def kubelet_expand(word, env):
    """A container command word as the kubelet hands it on (k8s third_party/forked/golang/
    expansion): `$$` is `$`, `$(NAME)` the container's variable NAME, anything else as is."""
    out, i = [], 0
    while i < len(word):
        if word[i] == "$" and word[i + 1:i + 2] == "$":
            out.append("$")
            i += 2
        elif word[i] == "$" and word[i + 1:i + 2] == "(" and ")" in word[i + 2:]:
            name = word[i + 2:word.index(")", i + 2)]
            if name in env:
                out.append(env[name])
                i += len(name) + 3
                continue
            out.append("$")
            i += 1
        else:
            out.append(word[i])
            i += 1
    return "".join(out)


def kubernetes_launch(path):
    """The training container's command of a kubernetes companion, as the kubelet expands it, and
    where it mounts the ConfigMap's config and what that holds."""
    import yaml  # PyYAML reads YAML 1.1 as Kubernetes' go-yaml does
    with open(path, encoding="utf-8") as f:
        config_map, job = list(yaml.safe_load_all(f))
    if job["kind"] == "PyTorchJob":
        pod = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]
        container = pod["containers"][0]
        command, mounts = container["command"], container["volumeMounts"]
    else:
        command = job["spec"]["trainer"]["command"]
        patch = job["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]
        mounts = patch["replicatedJobs"][0]["template"]["spec"]["template"]["spec"][
            "containers"][0]["volumeMounts"]
    mount = next(m["mountPath"] for m in mounts if m.get("subPath") == "deepspeed-config.json")
    env = container.get("env") if job["kind"] == "PyTorchJob" else job["spec"]["trainer"].get("env")
    return {"words": [kubelet_expand(w, KUBERNETES_ENV) for w in command], "mount": mount,
            "config_text": config_map["data"]["deepspeed-config.json"],
            "env": {v["name"]: v["value"] for v in env or []}}


def dry_run_words(script, args, cwd, extra_env=None):
    """The command a launch script runs, word by word, as bash expands it (ZEROFORGE_DRY_RUN)."""
    env = dict(os.environ, ZEROFORGE_DRY_RUN="1", **(extra_env or {}))
    program = ('out=$(bash "$0" "$@") || exit $?; eval "words=($out)"; '
               'printf "%s\\0" "${words[@]}"')
    result = subprocess.run(["bash", "-c", program, script] + args, cwd=cwd, env=env,
                            capture_output=True)
    if result.returncode != 0:
        raise RuntimeError(f"{script} failed in dry-run mode: {result.stderr.decode()}")
    return result.stdout.decode().split("\0")[:-1]


def header_launch_line(yaml_path):
    """The `accelerate launch ...` line in the accelerate YAML's header comment."""
    with open(yaml_path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# accelerate launch "):
                return shlex.split(line[2:])
    raise RuntimeError(f"{yaml_path} has no '# accelerate launch' line")


def names_config(case, path, base=None):
    """Whether `path` (relative: from `base`, DIR by default) is the case's config file."""
    where = os.path.join(base or case["out"], path) if path and not os.path.isabs(path) else path
    return bool(where) and os.path.exists(where) and os.path.samefile(where, case["config"])


def style_arg_problems(case, args, runtime_args):
    """The words a script of launch.style deepspeed or plain (the style's flags and
    --deepspeed_config FILE) or accelerate (none) receives, then launch.args and its own."""
    head = {"deepspeed": ["--deepspeed", "--deepspeed_config"],
            "plain": ["--deepspeed_config"]}.get(case["style"], [])
    n = len(head) + (1 if head else 0)
    problems = []
    if args[:len(head)] != head:
        problems.append(f"launch.style {case['style']} starts {args[:len(head)]!r}, not {head!r}")
    elif head and not names_config(case, args[len(head)] if len(args) > len(head) else ""):
        problems.append(f"--deepspeed_config {args[len(head):n]!r} is not {case['config']}")
    expected = case["launch_args"] + runtime_args
    if args[n:] != expected:
        problems.append(f"after the config the script receives {args[n:]!r}, written {expected!r}")
    return problems


def style_environment_problems(case, env, base=None):
    """The variables of the case's launch style in `env` (the config's path resolved from
    `base`, DIR by default)."""
    problems = [f"{k}={env.get(k)!r}, the style sets {v!r}"
                for k, v in case["style_environment"].items() if env.get(k) != v]
    problems += [f"{k}={env.get(k)!r} is not {case['config']}"
                 for k in case["config_variables"] if not names_config(case, env.get(k), base)]
    return problems


def training_arg_problems(case, args, runtime_args, hf_args_as_written=None):
    """What is wrong with the arguments a training script receives: the family's launch.args,
    then the Trainer's arguments (as flags, agreeing with the hf-args file), then the script's
    own arguments, each exactly as written. In another launch.style, style_arg_problems."""
    if case["style"] != "hf-trainer":
        return style_arg_problems(case, args, runtime_args)
    problems = []
    n, r = len(case["launch_args"]), len(runtime_args)
    if args[:n] != case["launch_args"]:
        problems.append(f"launch.args arrive as {args[:n]!r}, written {case['launch_args']!r}")
    if r and args[len(args) - r:] != runtime_args:
        problems.append(f"the script's own arguments arrive as {args[len(args) - r:]!r}, "
                        f"given {runtime_args!r}")
    flags = args[n:len(args) - r]
    hf = case["hf_args"]
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    for key, value in hf.items():
        if isinstance(value, bool):
            parser.add_argument("--" + key, action="store_true")
        elif isinstance(value, (int, float)):
            parser.add_argument("--" + key, type=float)
        else:
            parser.add_argument("--" + key)
    try:
        parsed, unknown = parser.parse_known_args(flags)
    except (argparse.ArgumentError, SystemExit) as e:
        return problems + [f"the training arguments {flags!r} do not parse: {e}"]
    if unknown:
        problems.append(f"unexpected training arguments {unknown!r}")
    for key, value in hf.items():
        got = getattr(parsed, key)
        if key == "deepspeed":
            where = os.path.join(case["out"], got) if got and not os.path.isabs(got) else got
            if not got or not os.path.exists(where) or not os.path.samefile(where, case["config"]):
                problems.append(f"--deepspeed {got!r} is not {case['config']}")
        elif isinstance(value, bool):
            if got != value:
                problems.append(f"--{key} is {got}, the hf-args file says {value}")
        elif isinstance(value, (int, float)):
            if got is None or abs(got - value) > 1e-12 * max(1.0, abs(value)):
                problems.append(f"--{key} is {got}, the hf-args file says {value}")
    return problems


# ---------------------------------------------------------------------------------------------
# Workers: each consumer runs in a process of its own (its imports and stubs stay apart), reads
# the cases from a file and prints one JSON line per check: {"case", "check", "problems"}.


def report(case, check, problems):
    print(json.dumps({"case": case["name"], "check": check, "problems": problems}), flush=True)


def guarded(case, check, function):
    try:
        report(case, check, function())
    except BaseException as e:  # a consumer's SystemExit or error is a finding of that check
        detail = "".join(traceback.format_exception_only(type(e), e)).strip()
        report(case, check, [f"{type(e).__name__}: {detail}"])


def load_torch_run(spec):
    """torch.distributed.run: the installed torch's ("installed"), or run.py from a torch source
    tree (a pytorch checkout or any folder with torch/distributed/run.py and argparse_util.py),
    with torch's compiled and elastic runtime stubbed: only its argument parser is used."""
    if spec == "installed":
        import torch
        import torch.distributed.run as run
        return run, torch.__version__
    import consumer_stubs
    consumer_stubs.stub_modules("torch.distributed.elastic", "torch.distributed.launcher",
                                "torch.numa", "torch.utils", "torch._C")
    torch = consumer_stubs.package_from_source("torch", os.path.join(spec, "torch"))
    consumer_stubs.package_from_source("torch.distributed",
                                       os.path.join(spec, "torch", "distributed"))
    torch.__version__ = "source " + spec
    import torch.distributed.run as run
    return run, torch.__version__


def worker_torchrun(spec, cases, abbreviations=()):
    import contextlib
    import io
    run, version = load_torch_run(spec)
    print(json.dumps({"version": f"torch {version}"}), flush=True)
    # torch 2.x spells its options both ways; 1.x only with underscores.
    spellings = run.get_args_parser()._option_string_actions
    label = "torchrun (torch 2.x)" if "--nproc-per-node" in spellings else "torchrun (torch 1.13)"

    def parse(case):
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                args = run.parse_args(case["launched"]["torchrun"][1:])
        except SystemExit:
            return [(label, True, None)]
        return [(label, False, args.training_script_args)]

    worker_abbreviations("torchrun", abbreviations, parse)
    for case in cases:
        def check():
            words = dry_run_words(case["companions"]["torchrun"], RUNTIME_ARGS, case["out"],
                                  {"MASTER_ADDR": "10.0.0.1"})
            if words[0] != "torchrun":
                return [f"the script runs {words[0]!r}, not torchrun"]
            stderr = io.StringIO()
            try:
                with contextlib.redirect_stderr(stderr):
                    args = run.parse_args(words[1:])
            except SystemExit:
                return ["torchrun refuses the command: " + stderr.getvalue().strip().splitlines()[-1]]
            problems = []
            low, high = run.parse_min_max_nnodes(args.nnodes)
            if (low, high) != (case["nodes"], case["nodes"]):
                problems.append(f"--nnodes {args.nnodes}, the tier has {case['nodes']} nodes")
            if str(args.nproc_per_node) != str(case["gpus"]):
                problems.append(f"--nproc_per_node {args.nproc_per_node}, {case['gpus']} GPUs per node")
            if case["nodes"] == 1 and not args.standalone:
                problems.append("one node without --standalone")
            if case["nodes"] > 1:
                if args.rdzv_backend != "c10d":
                    problems.append(f"rendezvous backend {args.rdzv_backend!r}")
                if args.rdzv_endpoint != f"10.0.0.1:{case['master_port']}":
                    problems.append(f"rendezvous endpoint {args.rdzv_endpoint!r}")
                if args.rdzv_id in ("", "none"):
                    problems.append("no rendezvous id")
            if args.training_script != case["script"]:
                problems.append(f"training script {args.training_script!r}, written {case['script']!r}")
            if bool(args.no_python) == case["script"].endswith(".py"):
                problems.append(f"--no_python is {args.no_python} for {case['script']!r}")
            return problems + training_arg_problems(case, args.training_script_args, RUNTIME_ARGS)
        guarded(case, "torchrun parse_args", check)

        def kubernetes():
            launch = case["kubernetes"]
            words = list(launch["words"])
            if words[0] != "torchrun":
                return [f"the container runs {words[0]!r}, not torchrun"]
            stderr = io.StringIO()
            try:
                with contextlib.redirect_stderr(stderr):
                    args = run.parse_args(words[1:])
            except SystemExit:
                return ["torchrun refuses the command: " + stderr.getvalue().strip().splitlines()[-1]]
            problems = []
            with open(case["config"], encoding="utf-8") as f:
                if launch["config_text"] != f.read():
                    problems.append("the ConfigMap's config is not the config file")
            low, high = run.parse_min_max_nnodes(args.nnodes)
            if (low, high) != (case["nodes"], case["nodes"]):
                problems.append(f"--nnodes {args.nnodes}, the tier has {case['nodes']} nodes")
            if str(args.nproc_per_node) != str(case["gpus"]):
                problems.append(f"--nproc_per_node {args.nproc_per_node}, {case['gpus']} GPUs per node")
            if case["nodes"] == 1 and not args.standalone:
                problems.append("one node without --standalone")
            if case["nodes"] > 1:
                # A static rendezvous at what the controller set: address, port and node rank.
                if (args.master_addr, str(args.master_port), str(args.node_rank)) != (
                        KUBERNETES_ENV["PET_MASTER_ADDR"], KUBERNETES_ENV["PET_MASTER_PORT"],
                        KUBERNETES_ENV["PET_NODE_RANK"]):
                    problems.append(f"rendezvous {args.master_addr}:{args.master_port} node rank "
                                    f"{args.node_rank}, not the controller's")
                if args.rdzv_backend != "static":
                    problems.append(f"rendezvous backend {args.rdzv_backend!r}")
            if args.training_script != case["script"]:
                problems.append(f"training script {args.training_script!r}, written {case['script']!r}")
            # --deepspeed names the ConfigMap's config where the pod mounts it; the rest as the
            # other launches pass it (no arguments of its own: a job has no command line).
            if bool(args.no_python) == case["script"].endswith(".py"):
                problems.append(f"--no_python is {args.no_python} for {case['script']!r}")
            script_args = list(args.training_script_args)
            option = "--deepspeed" if case["style"] == "hf-trainer" else "--deepspeed_config"
            if option in script_args or case["style"] != "accelerate":
                at = script_args.index(option) + 1 if option in script_args else len(script_args)
                if at < len(script_args) and script_args[at] == launch["mount"]:
                    script_args[at] = case["config"]
                else:
                    problems.append(f"{option} does not name the mount {launch['mount']!r}")
            env = {k: case["config"] if v == launch["mount"] else v for k, v in launch["env"].items()}
            return (problems + training_arg_problems(case, script_args, []) +
                    style_environment_problems(case, env))
        guarded(case, "torchrun parse_args (kubernetes container)", kubernetes)


DEEPSPEED_SHIM = '''\
# The deepspeed package of {source}, without its __init__ (which starts the whole runtime), and
# with the runtime pieces the launcher imports but does not use stubbed.
import sys
sys.path.insert(0, {here!r})
import consumer_stubs
consumer_stubs.stub_modules("deepspeed.comm", "deepspeed.ops", "deepspeed.autotuning",
                            "deepspeed.elasticity")
__path__ = [{package!r}]
'''

# Stands in for pdsh -R ssh: for each host (rank = its place in -w), every word has %h, %u, %n
# and %% replaced (pdsh src/common/pipecmd.c, pipecmd_format_arg), ssh joins the words with
# spaces, and the remote login shell runs the line with -c, in a login environment of its own.
FAKE_PDSH = '''\
#!{python}
import os, subprocess, sys
args = sys.argv[1:]
hosts, words = [], []
while args:
    a = args.pop(0)
    if a == "-w": hosts = args.pop(0).split(",")
    elif a == "-f": args.pop(0)
    elif a.startswith("-") and not words: continue
    else: words = [a] + args; break
sys.path.insert(0, {here!r})
from check_consumers import pdsh_word as fmt
env = {{"PATH": os.environ["PATH"], "HOME": {home!r}, "LANG": "C.UTF-8"}}
nodes = [subprocess.Popen(["bash", "-c", " ".join(fmt(w, host, rank) for w in words)], env=env,
                          cwd={home!r}) for rank, host in enumerate(hosts)]
sys.exit(max(node.wait() for node in nodes))
'''

def pdsh_word(word, host, rank):
    """A word as pdsh's ssh module passes it on: %h the host, %u the user, %n the node's rank,
    %% a '%', any other % sequence kept."""
    out, i = "", 0
    while i < len(word):
        if word[i] == "%" and i + 1 < len(word):
            c = word[i + 1]
            out += {"h": host, "u": "zf", "n": str(rank), "%": "%"}.get(c, "%" + c)
            i += 2
        else:
            out += word[i]
            i += 1
    return out


FAKE_SSH = '''\
#!/bin/sh
# ssh as DeepSpeed's runner uses it before pdsh: `ssh host hostname` (reachable?) and
# `ssh host hostname -I` (the master address).
for last; do :; done
[ "$last" = "-I" ] && echo 127.0.0.1
exit 0
'''

FAKE_DEEPSPEED = '''\
#!{python}
# The `deepspeed` command: DeepSpeed's bin/deepspeed runs deepspeed.launcher.runner.main.
import sys
from deepspeed.launcher.runner import main
main()
'''

RECORDER = '''\
# A training script that records what it received, one file per rank.
import json, os, sys
with open(os.path.join({records!r}, "rank-" + os.environ.get("RANK", "x") + ".json"), "w") as f:
    json.dump({{"argv": sys.argv, "env": dict(os.environ)}}, f)
'''


def write_deepspeed_shim(directory, source):
    """DIR/deepspeed: the deepspeed package of `source` (DEEPSPEED_SHIM)."""
    shim = os.path.join(directory, "deepspeed")
    os.makedirs(shim)
    with open(os.path.join(shim, "__init__.py"), "w") as f:
        f.write(DEEPSPEED_SHIM.format(source=source, here=HERE,
                                      package=os.path.join(source, "deepspeed")))
    return shim


def add_config_arguments_problems(source, case, argv, runtime_args):
    """DeepSpeed's own parser (deepspeed/__init__.py: add_config_arguments, run from the
    checkout's source; its package __init__ itself starts the runtime, so the two functions are
    taken from it) in a script that also takes launch.py's --local_rank, reading `argv` as
    a script of launch.style deepspeed gets it: --deepspeed is True, --deepspeed_config names the
    config, and the rest is the script's own."""
    import ast
    with open(os.path.join(source, "deepspeed", "__init__.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    wanted = {"_add_core_arguments", "add_config_arguments"}
    module = ast.Module(body=[n for n in tree.body if isinstance(n, ast.FunctionDef)
                              and n.name in wanted], type_ignores=[])
    namespace = {"argparse": argparse}
    exec(compile(module, "deepspeed/__init__.py", "exec"), namespace)
    if set(namespace) < wanted:
        return [f"deepspeed/__init__.py of {source} has no add_config_arguments"]
    parser = namespace["add_config_arguments"](argparse.ArgumentParser(exit_on_error=False))
    parser.add_argument("--local_rank", type=int)
    try:
        args, rest = parser.parse_known_args(argv)
    except (argparse.ArgumentError, SystemExit) as e:
        return [f"add_config_arguments refuses {argv!r}: {e}"]
    problems = []
    if args.deepspeed is not True:
        problems.append(f"args.deepspeed is {args.deepspeed!r}")
    if not names_config(case, args.deepspeed_config or ""):
        problems.append(f"args.deepspeed_config {args.deepspeed_config!r} is not {case['config']}")
    if args.local_rank is None:
        problems.append("no --local_rank")
    if rest != case["launch_args"] + runtime_args:
        problems.append(f"the script's own arguments are {rest!r}")
    return problems


def worker_deepspeed(source, cases, abbreviations=()):
    work = tempfile.mkdtemp(prefix="zf-deepspeed-")
    shim = write_deepspeed_shim(os.path.join(work, "shim"), source)
    sys.path.insert(0, os.path.dirname(shim))
    home = os.path.join(work, "home")
    fakebin = os.path.join(work, "bin")
    os.makedirs(home)
    os.makedirs(fakebin)
    for name, text in (("pdsh", FAKE_PDSH), ("ssh", FAKE_SSH), ("deepspeed", FAKE_DEEPSPEED)):
        path = os.path.join(fakebin, name)
        with open(path, "w") as f:
            f.write(text.format(python=sys.executable, home=home, here=HERE))
        os.chmod(path, 0o755)
    import deepspeed.launcher.runner as runner
    import deepspeed.launcher.launch as node_launch
    from deepspeed.launcher.multinode_runner import PDSHRunner
    with open(os.path.join(source, "version.txt")) as f:
        print(json.dumps({"version": f"DeepSpeed {f.read().strip()} from {source}"}), flush=True)

    def parse(case):
        import contextlib
        import io
        runner_name = "deepspeed (DeepSpeed 0.19.6's runner)"
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                args = runner.parse_args(case["launched"]["deepspeed"][1:])
        except SystemExit:
            return [(runner_name, True, None)]
        # What the runner runs on every node (runner.py main, multinode_runner.py): launch.py
        # with the script and the arguments the runner kept.
        saved = sys.argv
        sys.argv = ["launch.py", "--world_info=e30=", "--master_addr=127.0.0.1",
                    "--master_port=29500", args.user_script] + args.user_args
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                node = node_launch.parse_args()
            refused = False
        except SystemExit:
            refused = True
        finally:
            sys.argv = saved
        return [(runner_name, False, args.user_args),
                ("deepspeed (DeepSpeed 0.19.6's launch.py on each node)", refused,
                 None if refused else node.training_script_args)]

    worker_abbreviations("deepspeed", abbreviations, parse)

    for case in cases:
        words = []

        def parse():
            words[:] = dry_run_words(case["companions"]["deepspeed"], RUNTIME_ARGS, case["out"])
            args = runner.parse_args(words[1:])
            problems = []
            if args.num_nodes != case["nodes"] or args.num_gpus != case["gpus"]:
                problems.append(f"--num_nodes {args.num_nodes} --num_gpus {args.num_gpus}, the "
                                f"tier has {case['nodes']} x {case['gpus']}")
            if args.master_port != case["master_port"]:
                problems.append(f"--master_port {args.master_port}")
            if bool(args.no_python) == case["script"].endswith(".py"):
                problems.append(f"--no_python is {args.no_python} for {case['script']!r}")
            if case["nodes"] == 1:
                if args.user_script != case["script"]:
                    problems.append(f"training script {args.user_script!r}")
                problems += training_arg_problems(case, args.user_args, RUNTIME_ARGS)
                return problems
            pool = runner.fetch_hostfile(args.hostfile)
            if pool is None or len(pool) != case["nodes"] or set(pool.values()) != {case["gpus"]}:
                problems.append(f"fetch_hostfile reads {pool}, the tier has {case['nodes']} "
                                f"nodes of {case['gpus']} GPUs")
            # What pdsh gets: the script and PDSHRunner.parse_user_args' words, as pdsh passes
            # them on and the remote shell runs them, one line (the launch below does it all).
            world_info = base64.urlsafe_b64encode(json.dumps({"h": [0]}).encode()).decode()
            user_words = PDSHRunner(args, world_info).parse_user_args()
            line = "printf '%s\\0' " + " ".join(pdsh_word(w, "node-1", 1)
                                                for w in [args.user_script] + user_words)
            arrived = subprocess.run(["bash", "-c", line], capture_output=True, cwd=home, env={
                "PATH": os.environ["PATH"], "HOME": home}).stdout.decode().split("\0")[:-1]
            if arrived[:1] != [case["script"]]:
                problems.append(f"the remote shell starts {arrived[:1]!r}, not {case['script']!r}")
            return problems + training_arg_problems(case, arrived[1:], RUNTIME_ARGS)

        guarded(case, "deepspeed parse_args/fetch_hostfile/parse_user_args", parse)

        def launch():
            # The script itself, not in dry-run mode: deepspeed (runner.main) -> pdsh stand-in ->
            # bash -c on each "node" -> deepspeed.launcher.launch -> the training script.
            cwd = os.path.join(work, "run")
            records = os.path.join(work, "records")
            for d in (cwd, records):
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
            script_path = os.path.join(cwd, case["script"])
            os.makedirs(os.path.dirname(script_path), exist_ok=True)
            with open(script_path, "w") as f:
                # A script that is not Python is run as it is (--no_python): here a recorder
                # with a #! line, as a wrapper or a binary would be.
                if not case["script"].endswith(".py"):
                    f.write(f"#!{sys.executable}\n")
                f.write(RECORDER.format(records=records))
            os.chmod(script_path, 0o755)
            env = {"PATH": fakebin + os.pathsep + os.environ["PATH"], "HOME": home,
                   "PYTHONPATH": os.path.dirname(shim), "LANG": "C.UTF-8"}
            result = subprocess.run(["bash", case["companions"]["deepspeed"]] + RUNTIME_ARGS,
                                    cwd=cwd, env=env, capture_output=True, timeout=600)
            files = sorted(os.listdir(records))
            problems = []
            if result.returncode != 0 or len(files) != case["world"]:
                tail = (result.stderr.decode(errors="replace").strip().splitlines() or [""])[-1]
                problems.append(f"{len(files)} of {case['world']} ranks started (exit "
                                f"{result.returncode}): {tail}")
            for name in files:
                record = load_json(os.path.join(records, name))
                argv = record["argv"]
                if argv[0] != case["script"] or not argv[1].startswith("--local_rank="):
                    problems.append(f"{name}: started as {argv[:2]!r}")
                problems += [f"{name}: {p}" for p in training_arg_problems(case, argv[2:],
                                                                             RUNTIME_ARGS)]
                if case["style"] == "deepspeed":
                    problems += [f"{name}: {p}" for p in add_config_arguments_problems(
                        source, case, argv[1:], RUNTIME_ARGS)]
                # The config's path from DeepSpeed's environment file (several nodes) is named
                # as static files name it, from DIR.
                problems += [f"{name}: {p}" for p in style_environment_problems(
                    case, record["env"], cwd if case["nodes"] == 1 else case["out"])]
                for key, value in case["environment"].items():
                    if record["env"].get(key) != value:
                        problems.append(f"{name}: {key}={record['env'].get(key)!r}, written "
                                        f"{value!r}")
                if problems:
                    break
            return problems

        guarded(case, "deepspeed launch round trip", launch)


def worker_accelerate(source, cases, abbreviations=()):
    import consumer_stubs
    consumer_stubs.stub_missing_modules("safetensors", "huggingface_hub")
    sys.path.insert(0, source)
    from accelerate.commands.config.config_args import load_config_from_file
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils import DeepSpeedPlugin, DistributedType
    from accelerate.utils.launch import prepare_deepspeed_cmd_env
    import accelerate
    print(json.dumps({"version": f"accelerate {accelerate.__version__} from {source}"}), flush=True)

    def parse(case):
        import contextlib
        import io
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                args = launch_command_parser().parse_args(case["launched"]["accelerate"][2:])
        except SystemExit:
            return [("accelerate launch", True, None)]
        # What accelerate's DeepSpeed launch does next, on one machine or several (standard):
        # hand the script and its arguments to torch's parser (deepspeed_launcher).
        import torch.distributed.run as distrib_run
        from accelerate.utils.launch import _filter_args
        try:
            _filter_args(args, distrib_run.get_args_parser(),
                         ["--training_script", args.training_script, "--training_script_args",
                          args.training_script_args])
        except (SystemExit, TypeError):
            return [("accelerate launch", True, None)]
        return [("accelerate launch", False, args.training_script_args)]

    worker_abbreviations("accelerate", abbreviations, parse)
    for case in cases:
        def check():
            os.chdir(case["out"])  # the YAML and its launch line name the config from here
            yaml_path = case["companions"]["accelerate"]
            config = load_config_from_file(yaml_path)
            problems = []
            if config.distributed_type != DistributedType.DEEPSPEED:
                problems.append(f"distributed_type {config.distributed_type}")
            if (config.num_processes, config.num_machines) != (case["world"], case["nodes"]):
                problems.append(f"num_processes {config.num_processes}, num_machines "
                                f"{config.num_machines}")
            named = config.deepspeed_config.get("deepspeed_config_file", "")
            if not os.path.exists(named) or not os.path.samefile(named, case["config"]):
                problems.append(f"deepspeed_config_file {named!r}")
            words = header_launch_line(yaml_path)
            args = launch_command_parser().parse_args(words[2:])
            if os.path.realpath(args.config_file) != os.path.realpath(yaml_path):
                problems.append(f"the launch line reads --config_file {args.config_file!r}")
            args, defaults, mp_from_config = _validate_launch_command(args)
            if args.training_script != case["script"]:
                problems.append(f"training script {args.training_script!r}")
            if bool(args.no_python) == case["script"].endswith(".py"):
                problems.append(f"--no_python is {args.no_python} for {case['script']!r}")
            problems += training_arg_problems(case, args.training_script_args, [])
            # What the launched processes get (the standard launcher: torchrun underneath) and
            # what a plain Accelerator() then makes of the DeepSpeed config.
            ds_fields = list(defaults.deepspeed_config.keys()) + (
                ["mixed_precision"] if mp_from_config else [])
            args.deepspeed_fields_from_accelerate_config = ",".join(ds_fields)
            _, env = prepare_deepspeed_cmd_env(args)
            saved = dict(os.environ)
            os.environ.update(env)
            try:
                plugin = DeepSpeedPlugin()
                plugin.set_mixed_precision(env["ACCELERATE_MIXED_PRECISION"])
            finally:
                os.environ.clear()
                os.environ.update(saved)
            ds = plugin.deepspeed_config
            got = ("bf16" if ds.get("bf16", {}).get("enabled") is True else
                   "fp16" if ds.get("fp16", {}).get("enabled") is True else "fp32")
            if got != case["precision"]:
                problems.append(f"an Accelerator() launched this way trains in {got} (mixed "
                                f"precision {env['ACCELERATE_MIXED_PRECISION']!r}), the family "
                                f"says {case['precision']}")
            return problems
        guarded(case, "accelerate load_config/launch/DeepSpeedPlugin", check)


def add_distribution(site, name, version):
    """A dist-info record, so that `importlib.metadata` finds a package imported from source
    (transformers asks for accelerate's and DeepSpeed's versions before it uses them)."""
    info = os.path.join(site, f"{name}-{version}.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def worker_transformers(source, accelerate_source, deepspeed_source, cases):
    import re
    import consumer_stubs
    consumer_stubs.stub_missing_modules("safetensors", "huggingface_hub", "httpx", "tokenizers")
    site = tempfile.mkdtemp(prefix="zf-transformers-")
    sys.path.insert(0, site)
    sys.path.insert(0, accelerate_source)
    sys.path.insert(0, source)
    import torch
    from packaging.version import Version
    if Version(torch.__version__.split("+")[0]) < Version("2.1"):
        consumer_stubs.torch_2_names_on_torch_1(site)
    import accelerate
    add_distribution(site, "accelerate", accelerate.__version__.split("+")[0])
    # transformers checks the versions of its hub and serialisation packages at import: the
    # stand-ins claim the lowest version it takes.
    table = {}
    exec(open(os.path.join(source, "transformers", "dependency_versions_table.py")).read(), table)
    for name in ("huggingface-hub", "safetensors", "httpx", "tokenizers"):
        wanted = re.search(r">=([0-9.]+)", table["deps"].get(name, ""))
        add_distribution(site, name.replace("-", "_"), wanted.group(1) if wanted else "1.0")
    # transformers' DeepSpeed glue is there only when `deepspeed` is importable and has a version.
    write_deepspeed_shim(site, deepspeed_source)
    with open(os.path.join(deepspeed_source, "version.txt")) as f:
        add_distribution(site, "deepspeed", f.read().strip())
    from transformers import HfArgumentParser, TrainingArguments
    import transformers
    import transformers.training_args
    if not torch.cuda.is_available():
        # The GPU's answer: TrainingArguments refuses --bf16 where the device cannot do it.
        transformers.training_args.is_torch_bf16_gpu_available = lambda: True
    print(json.dumps({"version": f"transformers {transformers.__version__} from {source}"}),
          flush=True)
    for case in cases:
        def check():
            os.chdir(case["out"])
            problems = []
            # The launch's world, as the distributed runtime would report it to the Trainer.
            TrainingArguments.world_size = property(lambda self: case["world"])
            parser = HfArgumentParser(TrainingArguments)
            output_dir = os.path.join(tempfile.gettempdir(), "zf-out")
            # The arguments file as HfArgumentParser reads it; TrainingArguments itself then runs
            # HfTrainerDeepSpeedConfig.trainer_config_process and builds the DeepSpeedPlugin.
            # (report_to none: 4.x defaults to every installed logging integration, and loads
            # the modelling code to find them.)
            (from_json,) = parser.parse_dict(dict(case["hf_args"], output_dir=output_dir,
                                                  report_to="none"))
            from_flags = parser.parse_args_into_dataclasses(
                ["--output_dir", output_dir, "--report_to", "none"] +
                [w for k, v in case["hf_args"].items()
                 for w in ((["--" + k] if v else []) if isinstance(v, bool) else ["--" + k, str(v)])])[0]
            for key in case["hf_args"]:
                if getattr(from_json, key) != getattr(from_flags, key):
                    problems.append(f"{key}: the JSON gives {getattr(from_json, key)!r}, the flags "
                                    f"{getattr(from_flags, key)!r}")
            config = from_json.hf_deepspeed_config

            class Model:  # what trainer_config_finalize reads of a model
                config = type("C", (), {"hidden_size": 4096, "hidden_sizes": None})()
            steps = from_json.max_steps if from_json.max_steps > 0 else 1000
            config.trainer_config_finalize(from_json, Model(), steps)  # raises on a mismatch
            left = [k for k, v in flatten(config.config) if v == "auto"]
            if left:
                problems.append(f"\"auto\" left unfilled: {left}")
            ds = config.config
            got = ("bf16" if ds.get("bf16", {}).get("enabled") is True else
                   "fp16" if ds.get("fp16", {}).get("enabled") is True else "fp32")
            if got != case["precision"]:
                problems.append(f"the Trainer trains in {got}, the family says {case['precision']}")
            batch = ds.get("train_batch_size")
            if batch != case["world"] * ds["train_micro_batch_size_per_gpu"] * ds[
                    "gradient_accumulation_steps"]:
                problems.append(f"train_batch_size {batch} after the Trainer filled it")
            return problems
        guarded(case, "transformers TrainingArguments/HfTrainerDeepSpeedConfig", check)


def flatten(tree, prefix=""):
    for key, value in tree.items():
        if isinstance(value, dict):
            yield from flatten(value, prefix + key + ".")
        else:
            yield prefix + key, value


# ---------------------------------------------------------------------------------------------
# The driver.


def run_worker(python, kind, spec, cases_file):
    result = subprocess.run([python, os.path.abspath(__file__), "--worker", kind, "--spec",
                             json.dumps(spec), "--cases", cases_file],
                            capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=HERE, PYTHONDONTWRITEBYTECODE="1"))
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 and not any("check" in line for line in lines):
        raise RuntimeError(result.stderr.strip().splitlines()[-1] if result.stderr.strip()
                           else f"exit {result.returncode}")
    return lines


def available(python, kind, spec):
    """Why a consumer cannot be run, or None."""
    if kind == "torchrun":
        if spec == "installed":
            ok = subprocess.run([python, "-c", "import torch.distributed.run"],
                                capture_output=True).returncode == 0
            return None if ok else f"{python} has no torch (Debian: apt-get install python3-torch)"
        path = os.path.join(spec, "torch", "distributed", "run.py")
        return None if os.path.isfile(path) else f"no {path}"
    paths = {"deepspeed": ("deepspeed/launcher/runner.py",),
             "accelerate": ("accelerate/commands/launch.py",),
             "transformers": ("transformers/training_args.py",)}[kind]
    sources = spec if isinstance(spec, list) else [spec]
    # transformers is checked with accelerate's and DeepSpeed's sources beside it.
    names = [kind, "accelerate", "deepspeed"][:len(sources)]
    for source, name in zip(sources, names):
        if not source:
            return f"no {name} source given ({ENV[name]} or --{name})"
    if not os.path.isfile(os.path.join(sources[0], paths[0])):
        return f"no {os.path.join(sources[0], paths[0])}"
    missing = subprocess.run([python, "-c", "import torch, yaml, numpy, packaging, psutil"],
                             capture_output=True).returncode != 0
    return f"{python} lacks torch, yaml, numpy, packaging or psutil" if missing else None


ENV = {"torchrun": "ZF_CONSUMER_TORCH", "deepspeed": "ZF_CONSUMER_DEEPSPEED",
       "accelerate": "ZF_CONSUMER_ACCELERATE", "transformers": "ZF_CONSUMER_TRANSFORMERS"}


def main():
    parser = argparse.ArgumentParser(
        description="The real-consumer check of the companions (tests/consumers/README.md).")
    parser.add_argument("--zeroforge", help="the zeroforge binary")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter the consumers run in (default: this one)")
    parser.add_argument("--only", default="torchrun,deepspeed,accelerate,transformers")
    parser.add_argument("--torch", action="append",
                        help="'installed' or a torch source tree (repeatable; env "
                             "ZF_CONSUMER_TORCH, separated by ':')")
    parser.add_argument("--deepspeed", help="DeepSpeed source tree (env ZF_CONSUMER_DEEPSPEED)")
    parser.add_argument("--accelerate", help="accelerate's src/ (env ZF_CONSUMER_ACCELERATE)")
    parser.add_argument("--transformers", help="transformers' src/ (env ZF_CONSUMER_TRANSFORMERS)")
    parser.add_argument("--family", action="append",
                        help="check these family files instead of the shipped ones and "
                             "tests/consumers/families/")
    parser.add_argument("--keep", help="generate into this directory and keep it")
    parser.add_argument("--generated",
                        help="check what an earlier run kept (--keep) instead of generating")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--spec", help=argparse.SUPPRESS)
    parser.add_argument("--cases", help=argparse.SUPPRESS)
    opts = parser.parse_args()

    if opts.worker:
        loaded = load_json(opts.cases)
        cases, abbreviations = loaded["cases"], loaded.get("abbreviations", [])
        spec = json.loads(opts.spec)
        if opts.worker == "torchrun":
            worker_torchrun(spec, cases, abbreviations)
        elif opts.worker == "deepspeed":
            worker_deepspeed(spec, cases, abbreviations)
        elif opts.worker == "accelerate":
            worker_accelerate(spec, cases, abbreviations)
        else:
            worker_transformers(spec[0], spec[1], spec[2], cases)
        return 0

    if opts.generated:
        # A directory a run kept (--keep), maybe moved: its paths are re-rooted where it is now.
        out_root = os.path.abspath(opts.generated)
        kept = load_json(os.path.join(out_root, "cases.json"))
        text = json.dumps(kept["cases"]).replace(json.dumps(kept["root"])[1:-1],
                                                json.dumps(out_root)[1:-1])
        cases = json.loads(text)
        abbreviations = json.loads(json.dumps(kept.get("abbreviations", [])).replace(
            json.dumps(kept["root"])[1:-1], json.dumps(out_root)[1:-1]))
    else:
        if not opts.zeroforge:
            parser.error("--zeroforge or --generated is required")
        families = opts.family or sorted(
            os.path.join(d, f) for d in (os.path.join(SOURCE_DIR, "presets", "families"),
                                         os.path.join(HERE, "families"))
            for f in os.listdir(d) if f.endswith(".json"))
        out_root = os.path.abspath(opts.keep or tempfile.mkdtemp(prefix="zf-consumers-"))
        cases = generate(os.path.abspath(opts.zeroforge), families, out_root)
        abbreviations = generate_abbreviations(os.path.abspath(opts.zeroforge), out_root)
    for case in cases:  # the files as they are now (a kept directory may have changed)
        case["hf_args"] = load_json(case["companions"]["hf-args"])
        case["kubernetes"] = kubernetes_launch(case["companions"]["kubernetes"])
    cases_file = os.path.join(out_root, "cases.json")
    with open(cases_file, "w") as f:
        json.dump({"root": out_root, "cases": cases, "abbreviations": abbreviations}, f)
    log(f"{len({c['name'].split('/')[0] for c in cases})} families, {len(cases)} configs, "
        f"{sum(len(c['companions']) for c in cases)} companion files in {out_root}")

    torch_specs = opts.torch or [s for s in os.environ.get(ENV["torchrun"], "installed").split(":")
                                 if s]
    # Sources are made absolute: the DeepSpeed round trip starts its ranks in another directory,
    # where a relative source no longer names the checkout.
    def given(name):
        path = getattr(opts, name) or os.environ.get(ENV[name], "")
        return os.path.abspath(path) if path else ""

    torch_specs = [s if s == "installed" else os.path.abspath(s) for s in torch_specs]
    runs = []
    for kind in opts.only.split(","):
        if kind == "torchrun":
            runs += [(kind, s) for s in torch_specs]
        elif kind == "transformers":
            runs.append((kind, [given(kind), given("accelerate"), given("deepspeed")]))
        else:
            runs.append((kind, given(kind)))
    passed = failed = skipped = 0
    for kind, spec in runs:
        why = available(opts.python, kind, spec)
        if why:
            log(f"SKIP {kind}: {why}")
            skipped += 1
            continue
        try:
            lines = run_worker(opts.python, kind, spec, cases_file)
        except RuntimeError as e:
            log(f"FAIL {kind}: the consumer could not be loaded: {e}")
            failed += 1
            continue
        versions = [line["version"] for line in lines if "version" in line]
        checks = [line for line in lines if "check" in line]
        bad = [line for line in checks if line["problems"]]
        log(f"{kind}: {versions[0] if versions else '?'}: {len(checks) - len(bad)} of "
            f"{len(checks)} checks pass")
        for line in bad:
            log(f"  FAIL {line['case']}: {line['check']}:")
            for problem in line["problems"][:6]:
                log(f"    {problem}")
        passed += len(checks) - len(bad)
        failed += len(bad)
    if not opts.keep and not opts.generated:
        shutil.rmtree(out_root, ignore_errors=True)
    log(f"{passed} passed, {failed} failed, {skipped} skipped")
    if failed:
        return 1
    if skipped and os.environ.get("CI") == "true":
        # CI's set-up installs what these checks need (setup.sh --test with CI=true): a skip
        # there would hide a check that never ran.
        log("FAIL: CI=true, and a consumer check was skipped")
        return 1
    return SKIP if passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
