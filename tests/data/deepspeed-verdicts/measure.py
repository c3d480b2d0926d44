#!/usr/bin/env python3
"""Records what DeepSpeed's own DeepSpeedConfig says of every real config the tests hold.

Run it where a DeepSpeed source tree of each release can be imported (it needs torch, pydantic 2,
hjson, numpy, packaging, psutil, py-cpuinfo; no GPU and no compiled ops): once per release, each
in a fresh interpreter, it builds `DeepSpeedConfig(path)` for every config, as DeepSpeed does for
`--deepspeed_config FILE` (hjson with duplicate keys refused, world size 1: no process group), runs
what DeepSpeedEngine.__init__ checks of it (INIT_STAGE below: `_do_sanity_check`, supported
optimizer names, LAMB's dynamic loss scale, the mixed-precision dtypes; then `_configure_optimizer`,
which builds the config's optimizer in `_configure_basic_optimizer`, and `_configure_lr_scheduler`,
which builds the config's scheduler, on the parameters of torch.nn.Linear(4, 4)), and records
ACCEPTED or the first exception's type and first line; with --accelerate and --transformers,
the same for the Trainer's path (TRAINER_WORKER below); with --migrated DIR, DeepSpeedConfig of
release R on each file under DIR/R/ (what `compare.py --write-migrated DIR` wrote: zeroforge
migrate's output for R). compare.py then holds zeroforge to these verdicts, without DeepSpeed.

  compare.py --zeroforge build/bin/zeroforge --data tests/data --write-migrated /tmp/migrated
  measure.py --data tests/data --release 0.19.6=/src/DeepSpeed ... [--accelerate accelerate/src
      --transformers hf_trainer_config.py] [--migrated /tmp/migrated] -o verdicts.json

The shims below stand in only for what a newer torch or numpy removed or has not yet added,
what DeepSpeedConfig never runs, and, in INIT_STAGE, what needs compiled ops, a GPU or a process
group (README.md in this folder lists them).
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

CORPUS_DIRS = ("peer-configs", "collected-configs", "real-configs")

PRELUDE = r'''
import io, json, logging, os, sys, typing
sys.path.insert(0, os.getcwd())
logging.disable(logging.CRITICAL)
import torch
# torch 2.6's custom-op schemas know typing.List[int] but not list[int] (torch 2.7 does); DeepSpeed
# 0.19 registers an op annotated with list[int] at import.
try:
    import torch._library.infer_schema as schema
    for t in (int, float, bool, torch.Tensor):
        if typing.List[t] in schema.SUPPORTED_PARAM_TYPES:
            schema.SUPPORTED_PARAM_TYPES.setdefault(list[t], schema.SUPPORTED_PARAM_TYPES[typing.List[t]])
except ImportError:
    pass
# DeepSpeed 0.12 imports names that torch 2.6 and numpy 2 no longer have, in modules that the
# config never calls (the elastic agent, the autotuner's scheduler).
import numpy
if not hasattr(numpy, "BUFSIZE"):
    numpy.BUFSIZE = 8192
import torch.distributed.elastic.agent.server.api as agent
if not hasattr(agent, "log"):
    agent.log = logging.getLogger("torchelastic")
if not hasattr(agent, "_get_socket_with_port"):
    agent._get_socket_with_port = lambda: None
import deepspeed
from deepspeed.runtime.config import DeepSpeedConfig


def judge(run):
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = io.StringIO()  # what the run prints (ZenFlow's CPU Adam prints) is no verdict
    try:
        run()
        return {"accepted": True}
    except BaseException as e:  # what the consumer raises is the verdict, whatever its type
        said = " | ".join(line.strip() for line in str(e).strip().splitlines() if line.strip())
        return {"accepted": False, "error": type(e).__name__ + ": " + said[:300]}
    finally:
        sys.stdout, sys.stderr = stdout, stderr
'''

INIT_STAGE = r'''
# --- deepspeed.initialize's optimizer and LR-scheduler stage (INIT_STAGE), shared by both paths ---
import inspect, re, types
import deepspeed.runtime.engine as engine_module
from deepspeed.runtime.engine import DeepSpeedEngine
from deepspeed.accelerator import get_accelerator

# The cluster's GPUs take fp16 and bf16 (this machine's CPU accelerator may say otherwise).
accelerator = get_accelerator()
accelerator.is_fp16_supported = lambda: True
accelerator.is_bf16_supported = lambda: True


class Harness(Exception):
    pass


def stand_in_optimizer(cls):
    """The optimizer classes whose constructors build compiled ops or need a process group are not
    run: the class keeps its identity (isinstance checks see the real class), its __init__ binds
    the call to the real __init__'s signature (TypeError for an unknown keyword or a missing
    argument, as the real call raises), performs the one pure-Python argument check these
    constructors make ("if amsgrad: raise RuntimeError(...)", read from this release's source, where
    it has it) and then builds a plain torch.optim.Optimizer whose param_groups carry the given
    values (torch.optim.Optimizer.__init__, which checks no values)."""
    if getattr(cls, "_stand_in", False):
        return
    real = cls.__dict__["__init__"]
    signature = inspect.signature(real)
    names = list(signature.parameters)
    found = re.search(r"if amsgrad:\s*raise RuntimeError\((['\"])(.+?)\1\)", inspect.getsource(real))
    amsgrad_message = found.group(2) if found else None

    def __init__(self, *args, **kwargs):
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{real.__qualname__}() {e}") from None
        bound.apply_defaults()
        given = dict(bound.arguments)
        given.pop(names[0])
        params = given.pop(names[1])
        given.pop("deepspeed", None)  # 1-bit optimizers: the engine, not a value
        if amsgrad_message and given.get("amsgrad"):
            raise RuntimeError(amsgrad_message)
        torch.optim.Optimizer.__init__(self, params, given)

    cls.__init__ = __init__
    if "__del__" in cls.__dict__:  # would destroy the op the stand-in never made
        cls.__del__ = lambda self: None
    cls._stand_in = True


def stand_in_optimizers():
    import importlib
    for module, name in (("deepspeed.ops.adam", "FusedAdam"), ("deepspeed.ops.adam", "DeepSpeedCPUAdam"),
                         ("deepspeed.ops.lamb", "FusedLamb"), ("deepspeed.ops.adagrad", "DeepSpeedCPUAdagrad"),
                         ("deepspeed.ops.lion", "DeepSpeedCPULion"), ("deepspeed.ops.lion", "FusedLion"),
                         ("deepspeed.runtime.fp16.onebit.adam", "OnebitAdam"),
                         ("deepspeed.runtime.fp16.onebit.zoadam", "ZeroOneAdam"),
                         ("deepspeed.runtime.fp16.onebit.lamb", "OnebitLamb")):
        try:
            cls = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue  # not in this release
        stand_in_optimizer(cls)


stand_in_optimizers()
import deepspeed.comm as ds_comm
# apex is not installed here; where a config enables amp without ZeRO the engine's amp branch ends in
# amp.initialize: a stand-in module that returns the model and optimizer it is given.
if not hasattr(engine_module, "amp"):
    engine_module.amp = types.SimpleNamespace(__path__=["(stand-in)"], initialize=lambda model, optimizer, **kw: (model, optimizer))


def stand_in_engine(config, client_optimizer=None, client_lr_scheduler=None, model=None):
    """An engine that holds only the config and what deepspeed.initialize hands it (no pipeline, no
    MoE layers, rank 0 of one process). The optimizer wrappers that need a process group or a GPU
    (ZeRO's, the fp16 and bf16 optimizers) return the basic optimizer unchanged, so the scheduler
    gets the optimizer whose param_groups they would wrap; so do model broadcast and amp's model."""
    engine = DeepSpeedEngine.__new__(DeepSpeedEngine)
    passthrough = lambda optimizer=None, *args, **kwargs: optimizer
    for name, value in (("_config", config), ("client_optimizer", client_optimizer),
                        ("client_lr_scheduler", client_lr_scheduler), ("pipeline_parallelism", False),
                        ("has_moe_layers", False), ("global_rank", 0), ("module", model),
                        ("optimizer", None), ("basic_optimizer", None), ("lr_scheduler", None),
                        ("training_dataloader", None), ("checkpoint_engine", None),
                        # nn.Module's own dicts, empty, so that a name the stand-in lacks raises
                        # AttributeError (a harness failure) instead of recursing in __getattr__
                        ("_parameters", {}), ("_buffers", {}), ("_modules", {}),
                        ("_configure_zero_optimizer", passthrough), ("_configure_fp16_optimizer", passthrough),
                        ("_configure_bf16_optimizer", passthrough), ("_set_client_model", lambda model: None),
                        ("_broadcast_model", lambda: None)):
        object.__setattr__(engine, name, value)
    return engine


def sanity_check(engine):
    """DeepSpeedEngine._do_sanity_check, the engine's first check of the config at initialize."""
    try:
        engine._do_sanity_check()
    except AttributeError as e:  # the stand-in engine lacks what the check read: not a verdict
        raise Harness(f"_do_sanity_check read what the stand-in engine lacks: {e}")


def optimizer_and_scheduler(engine, client_optimizer, client_lr_scheduler, model_parameters):
    """What DeepSpeedEngine.__init__ does with the config's optimizer and scheduler after the sanity
    check, as this release's engine.py does it: ZenFlow's configuration where the release has it, then,
    where there is a client optimizer or the config names one, _configure_optimizer (with no client
    optimizer: _configure_basic_optimizer, which builds the config's optimizer; then
    _do_optimizer_sanity_check) and _configure_lr_scheduler (the config's scheduler through
    _scheduler_from_config, or the client's)."""
    # One process of rank 0: what deepspeed.comm answers there (is_zero_supported_optimizer asks the
    # rank to log), without the process group this machine has not made; for this stage only, so that
    # DeepSpeedConfig, built before, still finds no process group (world size 1).
    get_rank = ds_comm.get_rank
    ds_comm.get_rank = lambda group=None: 0
    try:
        if hasattr(engine_module, "configure_zenflow"):
            engine_module.configure_zenflow(engine)
        if model_parameters is None:
            model_parameters = engine.module.parameters()
        if not isinstance(model_parameters, list):
            model_parameters = list(model_parameters)
        if client_optimizer or engine.optimizer_name():
            engine._configure_optimizer(client_optimizer, model_parameters)
            if len(inspect.signature(DeepSpeedEngine._configure_lr_scheduler).parameters) > 1:
                engine._configure_lr_scheduler(client_lr_scheduler)  # before 0.14: the client's passed in
            else:
                engine._configure_lr_scheduler()
    except AttributeError as e:
        if "object has no attribute" in str(e) and ("DeepSpeedEngine" in str(e) or "'NoneType'" in str(e)):
            raise Harness(f"the optimizer stage read what the stand-in engine lacks: {e}")
        raise
    finally:
        ds_comm.get_rank = get_rank


def initialize_stages(config, client_optimizer=None, client_lr_scheduler=None, model_parameters=None, model=None):
    """deepspeed.initialize's checks of the config on a tiny real module (torch.nn.Linear(4, 4))."""
    model = torch.nn.Linear(4, 4) if model is None else model
    engine = stand_in_engine(config, client_optimizer, client_lr_scheduler, model)
    sanity_check(engine)
    optimizer_and_scheduler(engine, client_optimizer, client_lr_scheduler,
                            list(model.parameters()) if model_parameters is None else model_parameters)
'''

DEEPSPEED_WORKER = PRELUDE + INIT_STAGE + r'''

def deepspeed_verdict(path):
    initialize_stages(DeepSpeedConfig(path))


request = json.load(sys.stdin)
out = {"version": deepspeed.__version__, "configs": {}, "migrated": {}}
for key, files in (("configs", request["files"]), ("migrated", request.get("migrated", []))):
    for rel, path in files:
        verdict = judge(lambda: deepspeed_verdict(path))
        if verdict.get("error", "").startswith("Harness: "):
            sys.exit(f"{rel}: {verdict['error']}")
        out[key][rel] = verdict
json.dump(out, sys.stdout)
'''

# The Trainer's path, as transformers' Trainer takes a config file with accelerate: TrainingArguments
# builds transformers' HfTrainerDeepSpeedConfig and runs trainer_config_process, then accelerate's
# DeepSpeedPlugin(hf_ds_config=...) and set_mixed_precision; the Trainer runs trainer_config_finalize
# with the model, creates its AdamW where the config has no optimizer (setting
# zero_allow_untested_optimizer, as deepspeed_optim_sched does) and calls accelerate's own
# Accelerator._prepare_deepspeed, whose call of deepspeed.initialize is where the config is taken:
# DeepSpeedConfig of that dict and INIT_STAGE's engine checks with the optimizer, scheduler and
# parameters it passes are the verdict. The Trainer's arguments agree with every value the
# config writes (a run whose flags match its config: the batch, accumulation the batch keys imply
# at world size 1, clipping, the optimizer's and the warmup's numbers, the number of steps); the
# rest are TrainingArguments' defaults.
TRAINER_WORKER = PRELUDE + INIT_STAGE + r'''
request = json.load(sys.stdin)
sys.path.insert(0, request["accelerate"])
sys.path.insert(0, os.path.dirname(request["transformers"]))
sys.path.insert(0, request["metadata"])
sys.path.insert(0, request["stubs"])
from consumer_stubs import stub_missing_modules
stub_missing_modules("huggingface_hub", "safetensors")
import accelerate.utils.deepspeed as acc_ds
from accelerate.accelerator import Accelerator
from accelerate.utils import DeepSpeedPlugin, DummyOptim, DummyScheduler
import importlib
classes = importlib.import_module(os.path.splitext(os.path.basename(request["transformers"]))[0])


class Taken(Exception):
    pass


def initialize(**kwargs):
    raise Taken(kwargs)


deepspeed.initialize = initialize
# The tensor-parallel device mesh needs a process group; it does not change the config handed to
# deepspeed.initialize. (accelerate's own map_pytorch_optim_to_deepspeed runs: the DeepSpeed CPU
# optimizer it builds for an offloaded torch optimizer is INIT_STAGE's stand-in of the real class.)
import accelerate.accelerator as acc_accelerator
import torch.distributed.device_mesh
torch.distributed.device_mesh.init_device_mesh = lambda *args, **kwargs: None
# accelerate's logger wants the process state Accelerator() would have made; its messages are not
# verdicts.
acc_accelerator.logger = logging.getLogger("accelerate")


def concrete(config, dotted):
    node = config
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return None if node == "auto" else node


def arguments(config):
    args = types.SimpleNamespace(
        world_size=1, per_device_train_batch_size=8, gradient_accumulation_steps=1, max_grad_norm=1.0,
        learning_rate=5e-5, adam_beta1=0.9, adam_beta2=0.999, adam_epsilon=1e-8, weight_decay=0.0,
        fp16=False, fp16_full_eval=False, fp16_backend="auto", fp16_opt_level="O1", bf16=False,
        bf16_full_eval=False, save_on_each_node=False, get_warmup_steps=lambda steps: 0)
    gas = concrete(config, "gradient_accumulation_steps")
    if isinstance(gas, int) and gas > 0:
        args.gradient_accumulation_steps = gas
    micro = concrete(config, "train_micro_batch_size_per_gpu")
    total = concrete(config, "train_batch_size")
    if (gas is None and isinstance(micro, int) and isinstance(total, int) and micro > 0
            and total % micro == 0):
        args.gradient_accumulation_steps = total // micro
    if isinstance(micro, int) and micro > 0:
        args.per_device_train_batch_size = micro
    elif isinstance(total, int) and total > 0 and total % args.gradient_accumulation_steps == 0:
        args.per_device_train_batch_size = total // args.gradient_accumulation_steps
    for key, name in (("gradient_clipping", "max_grad_norm"), ("optimizer.params.lr", "learning_rate"),
                      ("optimizer.params.eps", "adam_epsilon"), ("optimizer.params.weight_decay", "weight_decay")):
        value = concrete(config, key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            setattr(args, name, value)
    if concrete(config, "optimizer.params.lr") is None:
        warmup_max = concrete(config, "scheduler.params.warmup_max_lr")
        if isinstance(warmup_max, (int, float)) and not isinstance(warmup_max, bool):
            args.learning_rate = warmup_max
    warmup = concrete(config, "scheduler.params.warmup_num_steps")
    if isinstance(warmup, int) and not isinstance(warmup, bool):
        args.get_warmup_steps = lambda steps: warmup
    total_steps = concrete(config, "scheduler.params.total_num_steps")
    args.num_training_steps = total_steps if isinstance(total_steps, int) and not isinstance(total_steps, bool) else 100
    betas = concrete(config, "optimizer.params.betas")
    if isinstance(betas, list) and len(betas) == 2:
        args.adam_beta1, args.adam_beta2 = betas
    args.fp16 = concrete(config, "fp16.enabled") is True
    args.bf16 = concrete(config, "bf16.enabled") is True or concrete(config, "bfloat16.enabled") is True
    return args


def trainer_path(path):
    with open(path) as f:
        written = json.load(f)
    args = arguments(written)
    hf = classes.HfTrainerDeepSpeedConfig(path)
    hf.trainer_config_process(args)
    plugin = DeepSpeedPlugin(hf_ds_config=hf)
    plugin.set_mixed_precision("bf16" if args.bf16 else "fp16" if args.fp16 else "no")
    model = torch.nn.Linear(4, 4)
    model.config = types.SimpleNamespace(hidden_size=4096)
    hf.trainer_config_finalize(args, model, args.num_training_steps)
    if "optimizer" in hf.config:
        optimizer = DummyOptim(params=list(model.parameters()))
    else:
        hf.config["zero_allow_untested_optimizer"] = True
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    if "scheduler" in hf.config:
        scheduler = DummyScheduler(optimizer)
    elif isinstance(optimizer, DummyOptim):
        # the Trainer's callable builds its own scheduler (linear by default: a LambdaLR) on the
        # optimizer DeepSpeed built
        scheduler = DummyScheduler(optimizer, lr_scheduler_callable=lambda o: torch.optim.lr_scheduler.LambdaLR(
            o, lambda step: 1.0))
    else:
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
    accelerator = types.SimpleNamespace(
        fp8_backend=None, deepspeed_plugin=plugin, parallelism_config=None,
        gradient_accumulation_steps=args.gradient_accumulation_steps, num_processes=1, split_batches=False,
        device=torch.device("cpu"), state=types.SimpleNamespace())
    try:
        Accelerator._prepare_deepspeed(accelerator, model, optimizer, scheduler)
    except Taken as taken:
        kwargs = taken.args[0]
        initialize_stages(DeepSpeedConfig(kwargs["config_params"]), kwargs.get("optimizer"),
                          kwargs.get("lr_scheduler"), kwargs.get("model_parameters"), kwargs["model"])
        return
    raise RuntimeError("accelerate did not call deepspeed.initialize")


out = {"version": deepspeed.__version__, "configs": {}}
for rel, path in request["files"]:
    verdict = judge(lambda: trainer_path(path))
    if verdict.get("error", "").startswith("Harness: "):
        sys.exit(f"{rel}: {verdict['error']}")
    out["configs"][rel] = verdict
json.dump(out, sys.stdout)
'''


def corpus(data, dirs=CORPUS_DIRS):
    """(path relative to data, absolute path) of every config under the corpus folders, sorted."""
    files = []
    for d in dirs:
        root = os.path.join(data, d)
        for dirpath, _, names in os.walk(root):
            for name in names:
                if name.endswith(".json") and name != "sources.json":
                    full = os.path.join(dirpath, name)
                    files.append((os.path.relpath(full, data), os.path.abspath(full)))
    return sorted(files)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def metadata(directory, name, version):
    """A dist-info, so that importlib.metadata finds a package imported from its source."""
    info = os.path.join(directory, f"{name}-{version}.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def run_worker(python, worker, tree, request, what):
    run = subprocess.run([python, "-c", worker], cwd=tree, input=json.dumps(request),
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"measure.py: {what} in {tree} did not run:\n{run.stderr[-4000:]}")
    return json.loads(run.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="the tests/data folder")
    parser.add_argument("--release", action="append", required=True,
                        help="VERSION=DIR: a DeepSpeed source tree (deepspeed/, version.txt)")
    parser.add_argument("--source", action="append", default=[],
                        help="NAME=TEXT: where a tree came from (a release, accelerate, transformers), recorded")
    parser.add_argument("--accelerate", help="accelerate's src/ folder: also judge the Trainer's path")
    parser.add_argument("--transformers", help="a module with transformers' HfTrainerDeepSpeedConfig "
                        "(integrations/deepspeed.py), importing only accelerate and torch")
    parser.add_argument("--migrated", help="compare.py --write-migrated's folder: judge DIR/R/ at R")
    parser.add_argument("--dirs", default=",".join(CORPUS_DIRS),
                        help="comma-separated folders under --data to measure (default: %(default)s)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    if bool(args.accelerate) != bool(args.transformers):
        parser.error("--accelerate and --transformers go together")
    # The output itself may lie in a measured folder (held-back-configs/verdicts.json): not a config.
    files = [(rel, path) for rel, path in corpus(args.data, tuple(d for d in args.dirs.split(",") if d))
             if path != os.path.abspath(args.output)]
    sources = dict(s.split("=", 1) for s in args.source)
    stubs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "consumers")
    releases = {}
    with tempfile.TemporaryDirectory() as scratch:
        if args.accelerate:
            with open(os.path.join(args.accelerate, "accelerate", "__init__.py")) as f:
                accelerate_version = re.search(r'__version__ = "([^"]+)"', f.read()).group(1)
            metadata(scratch, "accelerate", accelerate_version)
        for spec in args.release:
            version, tree = spec.split("=", 1)
            request = {"files": files}
            migrated_dir = os.path.join(args.migrated, version) if args.migrated else None
            if migrated_dir and os.path.isdir(migrated_dir):
                request["migrated"] = corpus(migrated_dir, CORPUS_DIRS)
            result = run_worker(args.python, DEEPSPEED_WORKER, tree, request, f"DeepSpeed {version}")
            migrated_paths = dict(request.get("migrated", []))
            if result["version"] != version:
                sys.exit(f"measure.py: {tree} is DeepSpeed {result['version']}, not {version}")
            configs = {rel: {"deepspeed": verdict} for rel, verdict in result["configs"].items()}
            if args.accelerate:
                meta = os.path.join(scratch, version)
                metadata(meta, "deepspeed", version)
                for name in os.listdir(scratch):
                    if name.endswith(".dist-info"):
                        shutil.copytree(os.path.join(scratch, name), os.path.join(meta, name), dirs_exist_ok=True)
                request.pop("migrated", None)
                request.update(accelerate=os.path.abspath(args.accelerate),
                               transformers=os.path.abspath(args.transformers), metadata=meta,
                               stubs=os.path.abspath(stubs))
                trainer = run_worker(args.python, TRAINER_WORKER, tree, request, f"the Trainer's path on {version}")
                for rel, verdict in trainer["configs"].items():
                    configs[rel]["trainer"] = verdict
            releases[version] = {"source": sources.get(version, tree), "configs": configs}
            if result["migrated"]:
                # The bytes judged, so that compare.py knows the verdict is of today's output.
                releases[version]["migrated"] = {
                    rel: dict(verdict, sha256=sha256(migrated_paths[rel])) for rel, verdict in result["migrated"].items()}
            for path in ("deepspeed", "trainer"):
                judged = [c[path]["accepted"] for c in configs.values() if path in c]
                if judged:
                    print(f"{version} {path}: {sum(judged)} of {len(judged)} accepted", file=sys.stderr)
            if result["migrated"]:
                judged = [v["accepted"] for v in result["migrated"].values()]
                print(f"{version} migrated to it: {sum(judged)} of {len(judged)} accepted", file=sys.stderr)
    probe = subprocess.run([args.python, "-c", "import sys, torch, pydantic; print(sys.version.split()[0], "
                            "torch.__version__, pydantic.VERSION)"], capture_output=True, text=True, check=True)
    python, torch, pydantic = probe.stdout.split()
    measured_with = {"python": python, "torch": torch, "pydantic": pydantic,
                     "deepspeed": "DeepSpeedConfig(path), then what DeepSpeedEngine.__init__ checks of it: "
                                  "_do_sanity_check, _configure_optimizer (the config's optimizer: "
                                  "_configure_basic_optimizer; _do_optimizer_sanity_check) and _configure_lr_scheduler "
                                  "(_scheduler_from_config), on torch.nn.Linear(4, 4), compiled-op optimizers stood "
                                  "in; world size 1"}
    if args.accelerate:
        measured_with["trainer"] = ("transformers' HfTrainerDeepSpeedConfig, accelerate's DeepSpeedPlugin and "
                                    "Accelerator._prepare_deepspeed, then DeepSpeedConfig of what it passes to "
                                    "deepspeed.initialize and the same engine checks with the optimizer, scheduler and "
                                    "parameters it passes; world size 1")
        measured_with["accelerate"] = sources.get("accelerate", accelerate_version)
        measured_with["transformers"] = sources.get("transformers", args.transformers)
    record = {"measured_with": measured_with, "releases": releases}
    tmp = args.output + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, args.output)


if __name__ == "__main__":
    main()
