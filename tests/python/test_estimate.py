# SPDX-License-Identifier: MIT
# zeroforge.estimate against `zeroforge estimate --format json`: the memory plugin, reached
# through the plugin host as the CLI reaches it, gives the same record.
import json

import pytest

import zeroforge

CASES = [
    ({"model": "llama-2-7b", "stage": 3, "offload_optimizer": "cpu", "precision": "bf16",
      "micro_batch_size": 2, "sequence_length": 2048, "gpu_memory_gib": 80},
     ["--model", "llama-2-7b", "--stage", "3", "--offload-optimizer", "cpu", "--precision",
      "bf16", "--micro-batch-size", "2", "--seq-len", "2048", "--gpu-memory-gib", "80"]),
    ({"model": "gpt2", "stage": 2, "tier": "small", "activation_checkpointing": "full"},
     ["--model", "gpt2", "--stage", "2", "--tier", "small", "--activation-checkpointing", "full"]),
    ({"params": 13_000_000_000, "stage": 1, "gpus_per_node": 8, "nodes": 2,
      "gpu_memory_gib": 40, "zero_init": False},
     ["--params", "13000000000", "--stage", "1", "--gpus-per-node", "8", "--nodes", "2",
      "--gpu-memory-gib", "40", "--zero-init", "false"]),
    ({"model": "llama-2-70b", "stage": 3, "gpu_memory_gib": 24},  # does not fit: still data
     ["--model", "llama-2-70b", "--stage", "3", "--gpu-memory-gib", "24"]),
    ({"model": "llama-2-7b", "all_stages": True, "tier": "medium"},
     ["--model", "llama-2-7b", "--all-stages", "--tier", "medium"]),
    ({"model": "llama-2-7b", "stage": 3, "tier": "large", "gradient_accumulation_steps": 4,
      "gpu": "A100-SXM4-80GB", "inter_node_gbs": 100.0},
     ["--model", "llama-2-7b", "--stage", "3", "--tier", "large",
      "--gradient-accumulation-steps", "4", "--gpu", "A100-SXM4-80GB", "--inter-node-gbs", "100"]),
]


def test_the_estimate_carries_the_step_time():
    record = zeroforge.estimate("llama-2-7b", stage=3, tier="large", gradient_accumulation_steps=4)
    step = record["step"]
    assert set(step["parts"]) == {"compute", "communication", "offload", "optimizer"}
    assert step["seconds"] == pytest.approx(sum(step["parts"].values()))
    assert step["hardware"]["gpu"] == "H100-SXM5-80GB"
    assert record["inputs"]["gradient_accumulation_steps"] == 4


@pytest.mark.parametrize("kwargs, flags", CASES)
def test_the_estimate_is_the_clis(cli, in_tmp, kwargs, flags):
    done = cli("estimate", *flags, "--format", "json", cwd=in_tmp)
    assert done.returncode in (0, 1), done.stderr
    record = zeroforge.estimate(**kwargs)
    assert record == json.loads(done.stdout)
    assert zeroforge.dumps(record) == done.stdout


def test_refused_options_raise_the_clis_message(cli, in_tmp):
    with pytest.raises(zeroforge.UsageError) as caught:
        zeroforge.estimate("llama-2-7b", stage=7)
    done = cli("estimate", "--model", "llama-2-7b", "--stage", "7", cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) == done.stderr.splitlines()[0]


def test_an_unknown_model_raises(cli, in_tmp):
    with pytest.raises(zeroforge.UsageError) as caught:
        zeroforge.estimate("no-such-model", stage=2)
    done = cli("estimate", "--model", "no-such-model", "--stage", "2", cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) == done.stderr.splitlines()[0]


def test_an_unknown_keyword_is_refused_before_the_plugin_runs():
    with pytest.raises(zeroforge.UsageError, match="unknown option 'stages'"):
        zeroforge.estimate("llama-2-7b", stages=3)
