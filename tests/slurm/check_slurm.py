#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The `slurm` companion against a real SLURM (Debian's slurmctld, slurmd and munge, which
# `./setup.sh --test` installs): for each shipped tier a cluster of that shape on this host (one
# slurmd per node, GPUs as GRES backed by device files, its CPUs and memory), started and
# stopped here with all its state in a temporary directory. Every sbatch script of every shipped
# family passes `sbatch --test-only` on nodes whose RealMemory is below the tier's memory (as a
# real node's is below its MemTotal) and whose CPUs are the tier's cpu_cores; a one-node and a
# multi-node job run to completion with a fake torchrun (and accelerate) on PATH that records its
# argv and environment, checked against the config and against the CPUs and memory SLURM gave
# (all of each node's); an allocation of another shape is refused by the script before any
# launcher starts. Exit 77 (skipped) where SLURM is not installed or this is not root, unless CI=true:
# there a missing daemon is a failure. tests/slurm/README.md says more.
import argparse
import glob
import json
import re
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
SKIP = 77
PROGRAMS = ["slurmctld", "slurmd", "munged", "mungekey", "sbatch", "scontrol", "sinfo", "srun"]
# Passed to the sbatch script itself: it hands them on to the training script, through srun and
# the launcher, and each must arrive as written.
SCRIPT_ARGS = ["--run_name", "it's $HOME `id` $(id) 100%n", "a\\b \"c\"", "", "*"]
# The family's own launch.args, written into the script: the same kind of text.
LAUNCH_ARGS = ["--note", "a;b|c `id` $(id) %n \"q\" 'x' *"]
FAKE_LAUNCHER = """#!/bin/bash
# A stand-in for {name}: records its arguments and environment, one file per node.
set -eu
base="$ZF_RECORD/$SLURM_JOB_ID-{name}-$SLURM_NODEID"
printf '%s\\0' "$@" > "$base.argv"
env -0 > "$base.env"
"""

failures = []


def log(*parts):
    print(*parts, flush=True)


def check(condition, message):
    if not condition:
        failures.append(message)
        log("FAIL:", message)
    return condition


def free_ports(count):
    sockets, ports = [], []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        sockets.append(s)
        ports.append(s.getsockname()[1])
    for s in sockets:
        s.close()
    return ports


class Cluster:
    """A SLURM cluster of `nodes` nodes with `gpus` GPUs each, on this host, in `root`."""

    def __init__(self, root, nodes, gpus, cpus, memory_mib):
        self.root, self.nodes, self.gpus = root, nodes, gpus
        self.cpus, self.memory_mib = cpus, memory_mib
        self.processes = []
        self.env = dict(os.environ, SLURM_CONF=os.path.join(root, "slurm.conf"))
        host = socket.gethostname().split(".")[0]
        for sub in ["munge", "state", "spool", "log", "dev"]:
            os.makedirs(os.path.join(root, sub), exist_ok=True)
        os.chmod(os.path.join(root, "munge"), 0o700)
        for i in range(gpus):  # GRES files: a character device each, as a GPU's is
            os.mknod(os.path.join(root, "dev", f"gpu{i}"), 0o666 | 0o020000, os.makedev(1, 3))
        ctld_port, *node_ports = free_ports(1 + nodes)
        lines = [
            "ClusterName=zftest", f"SlurmctldHost={host}(127.0.0.1)", "AuthType=auth/munge",
            f"AuthInfo=socket={root}/munge/sock", "CredType=cred/munge", "SlurmUser=root",
            "SlurmdUser=root", f"SlurmctldPort={ctld_port}", f"StateSaveLocation={root}/state",
            f"SlurmdSpoolDir={root}/spool/%n", f"SlurmctldPidFile={root}/ctld.pid",
            f"SlurmdPidFile={root}/slurmd-%n.pid", f"SlurmctldLogFile={root}/log/ctld.log",
            f"SlurmdLogFile={root}/log/slurmd-%n.log", "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none", "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            # The nodes are what this file says, not what this host has (memory, CPUs).
            "SlurmdParameters=config_overrides", "GresTypes=gpu", "MpiDefault=none",
            "ReturnToService=2", "SchedulerType=sched/backfill", "JobCompType=jobcomp/none",
            "AccountingStorageType=accounting_storage/none"]
        # CPUs as a GPU node counts them: cores with two hardware threads each (CR_Core gives
        # whole cores, so --cpus-per-task=CPUs is every core of the node).
        threads = 2 if cpus % 2 == 0 else 1
        for i, port in enumerate(node_ports, 1):
            lines.append(f"NodeName=node{i} NodeHostname={host} NodeAddr=127.0.0.1 Port={port} "
                         f"CPUs={cpus} Sockets=1 CoresPerSocket={cpus // threads} "
                         f"ThreadsPerCore={threads} RealMemory={memory_mib} Gres=gpu:{gpus} "
                         "State=UNKNOWN")
        lines.append(f"PartitionName=debug Nodes=node[1-{nodes}] Default=YES MaxTime=INFINITE "
                     "State=UP")
        with open(os.path.join(root, "slurm.conf"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(root, "gres.conf"), "w") as f:
            last = f"[0-{gpus - 1}]" if gpus > 1 else "0"
            f.write(f"NodeName=node[1-{nodes}] Name=gpu File={root}/dev/gpu{last}\n")

    def start(self):
        root = self.root
        subprocess.run(["mungekey", "-c", "-f", "-k", f"{root}/munge/key"], check=True,
                       capture_output=True)
        self.spawn(["munged", "-F", "-f", "-S", f"{root}/munge/sock", f"--key-file={root}/munge/key",
                    f"--pid-file={root}/munge/pid", f"--log-file={root}/munge/log",
                    f"--seed-file={root}/munge/seed"])
        self.wait_for(lambda: os.path.exists(f"{root}/munge/sock"), "munged's socket")
        conf = self.env["SLURM_CONF"]
        self.spawn(["slurmctld", "-D", "-i", "-f", conf])
        for i in range(1, self.nodes + 1):
            self.spawn(["slurmd", "-D", "-f", conf, "-N", f"node{i}"])

        def idle():
            out = self.run(["sinfo", "-h", "-N", "-o", "%t"], check=False).stdout.split()
            return len(out) == self.nodes and all(state == "idle" for state in out)

        self.wait_for(idle, f"{self.nodes} idle nodes")

    def spawn(self, command):
        log_file = open(os.path.join(self.root, "log", os.path.basename(command[0]) + ".out"), "a")
        self.processes.append(subprocess.Popen(command, env=self.env, stdout=log_file,
                                               stderr=subprocess.STDOUT))

    def wait_for(self, ready, what, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if ready():
                return
            for process in self.processes:
                if process.poll() is not None:
                    raise RuntimeError(f"{process.args[0]} exited ({process.returncode}) while "
                                       f"waiting for {what}; logs in {self.root}/log")
            time.sleep(0.3)
        raise RuntimeError(f"no {what} after {seconds} s; logs in {self.root}/log")

    def run(self, command, check=True, **kwargs):
        return subprocess.run(command, env=kwargs.pop("env", self.env), capture_output=True,
                              text=True, check=check, timeout=kwargs.pop("timeout", 120), **kwargs)

    def stop(self):
        # Only what this test started, newest first (the nodes before their controller and munge).
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        self.processes = []


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def records(directory, job, name):
    """What the fake launcher `name` recorded on each node of `job`: node id -> (argv, env)."""
    out = {}
    for argv_file in glob.glob(os.path.join(directory, f"{job}-{name}-*.argv")):
        node = int(argv_file.rsplit("-", 1)[1].split(".")[0])
        with open(argv_file, "rb") as f:
            argv = [w.decode() for w in f.read().split(b"\0")[:-1]]
        with open(argv_file[:-5] + ".env", "rb") as f:
            env = dict(item.decode().split("=", 1) for item in f.read().split(b"\0")[:-1])
        out[node] = (argv, env)
    return out


# The time limits tests/engine/generate/launch_text_test.cpp has zeroforge accept and refuse:
# sbatch must agree on each.
TIMES_ACCEPTED = ["90", "90:30", "12:00:00", "2-0", "2-12:30", "2-12:30:15", "UNLIMITED",
                  "infinite"]
TIMES_REFUSED = ["1h", "1:2:3:4", "2-1:2:3:4", "12:", ":5", "", "1 day"]


def check_times(cluster, cwd):
    for text, accepted in [(t, True) for t in TIMES_ACCEPTED] + [(t, False) for t in TIMES_REFUSED]:
        result = cluster.run(["sbatch", "--test-only", f"--time={text}", "--wrap", "true"],
                             check=False, cwd=cwd)
        check((result.returncode == 0) == accepted,
              f"sbatch --time={text!r}: {'refused' if accepted else 'accepted'}, zeroforge "
              f"{'accepts' if accepted else 'refuses'} it: {result.stderr}")
    log(f"time limits: sbatch agrees on {len(TIMES_ACCEPTED) + len(TIMES_REFUSED)}")


def submit(cluster, out_dir, script, extra, record_dir, fake_bin):
    """sbatch --wait the script from DIR; (exit code, job id, the job's output)."""
    env = dict(cluster.env, PATH=fake_bin + ":" + os.environ["PATH"], ZF_RECORD=record_dir)
    result = cluster.run(["sbatch", "--parsable", "--wait", *extra, script, *SCRIPT_ARGS],
                         check=False, env=env, cwd=out_dir, timeout=300)
    job = result.stdout.strip().split(";")[0]
    output = ""
    if job and os.path.exists(os.path.join(out_dir, f"slurm-{job}.out")):
        with open(os.path.join(out_dir, f"slurm-{job}.out"), encoding="utf-8") as f:
            output = f.read()
    return result.returncode, job, output + result.stderr


def check_run(cluster, out_dir, entry, launcher, record_dir, fake_bin, nodes=None):
    """Runs one sbatch script to completion and checks what each node's launcher received."""
    config = load(os.path.join(out_dir, entry["path"]))
    script = entry["companions"]["slurm"]
    where = f"{script} ({launcher})"
    code, job, output = submit(cluster, out_dir, script, [], record_dir, fake_bin)
    if not check(code == 0, f"{where}: the job failed ({code}):\n{output}"):
        return
    got = records(record_dir, job, launcher)
    nodes, world = nodes or cluster.nodes, entry["world_size"]
    # What SLURM allocated: every CPU and all the memory (--mem=0: RealMemory) of each node.
    shown = cluster.run(["scontrol", "show", "job", "-o", job], check=False).stdout
    tres = dict(item.split("=", 1) for item in
                next((w[5:] for w in shown.split() if w.startswith("TRES=")), "").split(",")
                if "=" in item)
    check(tres.get("cpu") == str(cluster.cpus * nodes) and
          tres.get("mem") == f"{cluster.memory_mib * nodes}M",
          f"{where}: SLURM allocated cpu={tres.get('cpu')} mem={tres.get('mem')}, all of "
          f"{nodes} node(s) is cpu={cluster.cpus * nodes} mem={cluster.memory_mib * nodes}M")
    gpus = world // nodes
    check(sorted(got) == list(range(nodes)), f"{where}: one launcher per node, got {sorted(got)}")
    hf = load(os.path.join(out_dir, entry["companions"]["hf-args"])) \
        if "hf-args" in entry["companions"] else None
    for node, (argv, env) in sorted(got.items()):
        at = f"{where} node {node}"
        check(env.get("SLURM_JOB_NUM_NODES") == str(nodes), f"{at}: SLURM_JOB_NUM_NODES")
        check(env.get("SLURM_GPUS_ON_NODE") == str(gpus), f"{at}: SLURM_GPUS_ON_NODE")
        check(len(env.get("CUDA_VISIBLE_DEVICES", "").split(",")) == gpus,
              f"{at}: CUDA_VISIBLE_DEVICES {env.get('CUDA_VISIBLE_DEVICES')} for {gpus} GPUs")
        # The one task of the node has all of its CPUs (the tier's cpu_cores).
        check(env.get("SLURM_CPUS_ON_NODE") == str(cluster.cpus),
              f"{at}: SLURM_CPUS_ON_NODE {env.get('SLURM_CPUS_ON_NODE')}, the node has "
              f"{cluster.cpus} CPUs")
        check(env.get("SLURM_CPUS_PER_TASK") == str(cluster.cpus),
              f"{at}: SLURM_CPUS_PER_TASK {env.get('SLURM_CPUS_PER_TASK')} for the step's task, "
              f"the node has {cluster.cpus} CPUs")
        script_at = argv.index("train.py") if "train.py" in argv else -1
        if not check(script_at > 0, f"{at}: no training script in {argv}"):
            continue
        options, training = argv[:script_at], argv[script_at + 1:]
        if "two-nodes" not in out_dir:
            check(training[:len(LAUNCH_ARGS)] == LAUNCH_ARGS,
                  f"{at}: launch.args arrived as {training[:len(LAUNCH_ARGS)]}")
        check(training[-len(SCRIPT_ARGS):] == SCRIPT_ARGS,
              f"{at}: the script's arguments arrived as {training[-len(SCRIPT_ARGS):]}")

        def option(name):
            return options[options.index(name) + 1] if name in options else None

        if launcher == "torchrun":
            nproc, nnodes = int(option("--nproc_per_node")), int(option("--nnodes"))
            check(nproc * nnodes == world and nnodes == nodes,
                  f"{at}: torchrun starts {nnodes} x {nproc}, the config's world is {world}")
            if nodes > 1:
                check(option("--rdzv_endpoint") == "node1:29500",
                      f"{at}: rendezvous {option('--rdzv_endpoint')}, not on the head node")
                check(option("--rdzv_id") == job, f"{at}: rendezvous id {option('--rdzv_id')}")
                check(option("--rdzv_backend") == "c10d", f"{at}: rendezvous backend")
            else:
                check("--standalone" in options, f"{at}: one node runs --standalone")
        else:
            check(argv[0] == "launch", f"{at}: accelerate {argv[:1]}")
            check(option("--machine_rank") == env.get("SLURM_NODEID") == str(node),
                  f"{at}: machine rank {option('--machine_rank')} on node {node}")
            check(int(option("--num_processes")) == world and int(option("--num_machines")) == nodes,
                  f"{at}: accelerate starts {option('--num_machines')} machines, "
                  f"{option('--num_processes')} processes; the config's world is {world}")
            check(option("--main_process_ip") == "node1", f"{at}: main process on the head node")
            accelerate_config = os.path.join(out_dir, option("--config_file"))
            check(os.path.isfile(accelerate_config), f"{at}: {accelerate_config} is not there")
        # The config the Trainer gets is this config, and the batch arguments are its own.
        flags = {}
        for i, word in enumerate(training):
            if word.startswith("--") and i + 1 < len(training):
                flags[word] = training[i + 1]
        check(os.path.samefile(os.path.join(out_dir, flags.get("--deepspeed", "")),
                               os.path.join(out_dir, entry["path"])),
              f"{at}: --deepspeed {flags.get('--deepspeed')} is not {entry['path']}")
        check(flags.get("--per_device_train_batch_size") ==
              str(config["train_micro_batch_size_per_gpu"]), f"{at}: micro batch")
        check(flags.get("--gradient_accumulation_steps") ==
              str(config["gradient_accumulation_steps"]), f"{at}: accumulation")
        check(("--bf16" in training) == config.get("bf16", {}).get("enabled", False),
              f"{at}: --bf16 against bf16.enabled")
        if hf is not None:
            check(hf["per_device_train_batch_size"] * hf["gradient_accumulation_steps"] * world ==
                  config["train_batch_size"], f"{at}: the batch arithmetic")
    log(f"ran {where}: job {job}, {nodes} node(s), checked")


def check_guard(cluster, out_dir, entry, record_dir, fake_bin, extra, what):
    script = entry["companions"]["slurm"]
    code, job, output = submit(cluster, out_dir, script, extra, record_dir, fake_bin)
    check(code != 0, f"{script} with {extra}: the job ran ({what})")
    check(not glob.glob(os.path.join(record_dir, f"{job}-*")),
          f"{script} with {extra}: a launcher started before the guard")
    wanted = f"zeroforge: {entry['path']} is for "
    check(wanted in output and "; submit the script without -N/--nodes/--gres/--gpus" in output,
          f"{script} with {extra}: no one-line refusal in\n{output}")
    log(f"refused {script} with {' '.join(extra)} ({what})")


# Batch scripts whose directives zeroforge's reader (engine/src/validate/sbatch_script.cpp) must
# read as sbatch does: (name, directives, the launch's --nnodes when sbatch takes it, or None
# when sbatch refuses the script). The text before the directives is "#!/bin/bash\n" unless the
# case replaces it.
DIRECTIVE_CASES = [
    ("an indented #SBATCH is a comment", "#SBATCH --nodes=2\n  #SBATCH --nodes=99\n", 2),
    ("a comment inside a word", "#SBATCH --nodes=3#x\n", 3),
    ("a comment after a value", "#SBATCH --nodes=3 # three nodes\n", 3),
    ("a quoted value", "#SBATCH --nodes '2'\n", 2),
    ("an escaped character", "#SBATCH --nodes=\\3\n", 3),
    ("an empty word ends the line", "#SBATCH --nodes=2\n#SBATCH '' --nodes=99\n", 2),
    ("a directive after the first command", "#SBATCH --nodes=2\ntrue\n#SBATCH --nodes=99\n", 2),
    ("DOS line breaks", "#SBATCH --nodes=2\r\n", None),
    ("a NUL byte", "#SBATCH --job-name=a\0b\n", None),
    ("an unmatched quote", "#SBATCH --job-name 'x\n", None),
]


def check_directives(cluster, zeroforge, work):
    """sbatch --test-only and zeroforge validate --against-args agree on each script."""
    cases = list(DIRECTIVE_CASES) + [("no #! line", None, None)]
    directory = os.path.join(work, "directives")
    os.makedirs(directory)
    with open(os.path.join(directory, "ds.json"), "w") as f:
        json.dump({"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 0}}, f)
    for i, (name, directives, nodes) in enumerate(cases):
        script = f"job{i}.sh"
        launch = (f"srun torchrun --nnodes {nodes or 1} --nproc_per_node {cluster.gpus} train.py "
                  "--deepspeed ds.json\n")
        text = "#SBATCH --nodes=1\n" + launch if directives is None else (
            "#!/bin/bash\n" + directives + launch)
        with open(os.path.join(directory, script), "wb") as f:
            f.write(text.encode())
        result = cluster.run(["sbatch", "--test-only", script], check=False, cwd=directory)
        accepted = result.returncode == 0 and "to start at" in result.stderr
        if not check(accepted == (nodes is not None),
                     f"{name}: sbatch {'accepted' if accepted else 'refused'} it: {result.stderr}"):
            continue
        if accepted:  # "... using N processors on nodes node[1-3] in partition ..."
            listed = re.search(r"on nodes (\S+)", result.stderr)
            hosts = cluster.run(["scontrol", "show", "hostnames", listed.group(1)]).stdout.split()
            check(len(hosts) == nodes, f"{name}: sbatch allocates {len(hosts)} nodes, not {nodes}")
        mine = subprocess.run([zeroforge, "validate", "ds.json", "--against-args",
                               f"sbatch {script}"], capture_output=True, text=True, cwd=directory)
        check(mine.returncode == (0 if accepted else 2),
              f"{name}: zeroforge validate --against-args exit {mine.returncode} where sbatch "
              f"{'accepts' if accepted else 'refuses'} the script: {mine.stdout}{mine.stderr}")
    log(f"#SBATCH directives: sbatch and zeroforge agree on {len(cases)} scripts")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--zeroforge", required=True)
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    ci = os.environ.get("CI") == "true"
    missing = [p for p in PROGRAMS if shutil.which(p) is None]
    if missing or os.geteuid() != 0:
        why = (f"not installed: {', '.join(missing)} (./setup.sh --test installs them)" if missing
               else "slurmd runs as root here, and this is not root")
        log(("FAIL: " if ci else "SKIPPED: ") + why)
        return 1 if ci else SKIP

    work = tempfile.mkdtemp(prefix="zf-slurm-")
    try:
        return run_all(args.zeroforge, work)
    finally:
        if args.keep:
            log("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


def run_all(zeroforge, work):
    fake_bin = os.path.join(work, "bin")
    os.makedirs(fake_bin)
    for name in ["torchrun", "accelerate"]:
        path = os.path.join(fake_bin, name)
        with open(path, "w") as f:
            f.write(FAKE_LAUNCHER.format(name=name))
        os.chmod(path, 0o755)

    # Every shipped family's sbatch scripts, with torchrun and with accelerate on the nodes.
    generated = {}  # tier -> [(out dir, manifest entry, launcher)]
    families = sorted(glob.glob(os.path.join(SOURCE_DIR, "presets", "families", "*.json")))
    for family in families:
        name = os.path.splitext(os.path.basename(family))[0]
        for launcher in ["torchrun", "accelerate"]:
            out = os.path.join(work, "out", f"{name}-{launcher}")
            result = subprocess.run(
                [zeroforge, "generate", family, "-o", out, "--companions", "slurm,hf-args",
                 "--set", f"launch.slurm.launcher={launcher}",
                 "--set", "launch.args=" + json.dumps(LAUNCH_ARGS)], capture_output=True, text=True)
            if not check(result.returncode == 0, f"generate {name}: {result.stderr}"):
                continue
            for entry in load(os.path.join(out, "manifest.json"))["configs"]:
                generated.setdefault(entry["tier"], []).append((out, entry, launcher))
    check(sorted(generated) == ["large", "medium", "small"], f"tiers {sorted(generated)}")
    # Two nodes of the large tier: a job on part of its cluster.
    two_nodes = os.path.join(work, "out", "two-nodes")
    result = subprocess.run(
        [zeroforge, "generate", os.path.join(SOURCE_DIR, "presets", "families", "example.json"),
         "-o", two_nodes, "--companions", "slurm,hf-args", "--set", "nodes=2"],
        capture_output=True, text=True)
    check(result.returncode == 0, f"generate two nodes: {result.stderr}")
    two_node_entry = next(e for e in load(os.path.join(two_nodes, "manifest.json"))["configs"]
                          if e["tier"] == "large")

    for tier_name in sorted(generated):
        tier = load(os.path.join(SOURCE_DIR, "presets", "tiers", tier_name + ".json"))
        nodes, gpus = tier.get("nodes", 1), tier.get("gpus_per_node", 1)
        cpus = tier["cpu_cores"]
        # RealMemory below the tier's memory (its MemTotal), as a site sets it: 94 %, the rest
        # for the system; a job that asks for the tier's memory is refused there.
        tier_mib = int(tier["cpu_memory_gib"] * 1024)
        memory = tier_mib * 94 // 100
        cluster = Cluster(os.path.join(work, "cluster-" + tier_name), nodes, gpus, cpus, memory)
        record_dir = os.path.join(work, "records-" + tier_name)  # job ids restart per cluster
        os.makedirs(record_dir)
        try:
            cluster.start()
            log(f"cluster {tier_name}: {nodes} node(s) x {gpus} GPU(s), {cpus} CPUs, {memory} "
                f"MiB (the tier says {tier_mib} MiB)")
            entries = generated[tier_name]
            for out, entry, launcher in entries:
                script = entry["companions"]["slurm"]
                result = cluster.run(["sbatch", "--test-only", script], check=False, cwd=out)
                check(result.returncode == 0 and "to start at" in result.stderr,
                      f"sbatch --test-only {out}/{script}: {result.stderr}")
            log(f"sbatch --test-only: {len(entries)} scripts of tier {tier_name}")
            if tier_name == "small":
                check_times(cluster, work)
            if nodes >= 3:
                check_directives(cluster, zeroforge, work)
            # A request beyond the cluster is refused by SLURM itself: what zeroforge's tier
            # check (more GPUs per node than the tier has) keeps from reaching it.
            out, entry, _ = entries[0]
            # And so is what the defaults avoid: the tier's whole memory (above RealMemory), or
            # more CPUs than a node has.
            for extra in [["--gres", f"gpu:{gpus + 1}"], ["-N", str(nodes + 1)],
                          [f"--mem={tier_mib}"], [f"--cpus-per-task={cpus + 1}"]]:
                result = cluster.run(["sbatch", "--test-only", *extra, entry["companions"]["slurm"]],
                                     check=False, cwd=out)
                check(result.returncode != 0, f"sbatch --test-only {extra} was accepted")
            # Whole jobs: the first config of the tier with each launcher.
            for launcher in ["torchrun", "accelerate"]:
                out, entry, _ = next(e for e in entries if e[2] == launcher)
                check_run(cluster, out, entry, launcher, record_dir, fake_bin)
            if nodes > 1:
                check_run(cluster, two_nodes, two_node_entry, "torchrun", record_dir, fake_bin,
                          nodes=2)
                check_guard(cluster, out, entry, record_dir, fake_bin, ["-N", "2"],
                            "fewer nodes than the config")
            elif gpus > 1:
                check_guard(cluster, out, entry, record_dir, fake_bin, ["--gres", "gpu:1"],
                            "fewer GPUs per node than the config")
        finally:
            cluster.stop()
    log(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
