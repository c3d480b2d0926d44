# SPDX-License-Identifier: MIT
# zeroforge.validate against `zeroforge validate --format json` for the same config and options:
# the same findings (to_dict() of each is the CLI's JSON), from a dict or a file.
import json

import pytest

import zeroforge

CONFIGS = {
    "clean": {"train_batch_size": 32, "train_micro_batch_size_per_gpu": 4,
              "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 2},
              "bf16": {"enabled": True}},
    "wrong_batch": {"train_batch_size": 30, "train_micro_batch_size_per_gpu": 4,
                    "gradient_accumulation_steps": 2, "zero_optimization": {"stage": 2}},
    "offload_param_at_stage_2": {"train_micro_batch_size_per_gpu": 1,
                                 "zero_optimization": {"stage": 2,
                                                       "offload_param": {"device": "cpu"}},
                                 "fp16": {"enabled": True}, "bf16": {"enabled": True}},
    "auto_without_hf": {"train_batch_size": "auto", "zero_optimization": {"stage": 3},
                        "memory_efficient_linear": False},
    # accelerate fills the stage and the devices, and the NVMe path from 0.20.0 only.
    "accelerate_fills": {"train_micro_batch_size_per_gpu": "auto",
                         "zero_optimization": {"stage": "auto",
                                               "offload_param": {"device": "auto",
                                                                 "nvme_path": "auto"}}},
    "no_zero_section": {"train_micro_batch_size_per_gpu": "auto"},
}

OPTIONS = [
    ({}, []),
    ({"world_size": 8}, ["--world-size", "8"]),
    ({"hf": True, "strict": True}, ["--hf", "--strict"]),
    ({"deepspeed_version": "0.14.5"}, ["--deepspeed-version", "0.14.5"]),
    ({"hf": True, "accelerate_version": "0.19.0"}, ["--hf", "--accelerate-version", "0.19.0"]),
    ({"against_args": "deepspeed --num_gpus 4 train.py --per_device_train_batch_size 2 --fp16"},
     ["--against-args", "deepspeed --num_gpus 4 train.py --per_device_train_batch_size 2 --fp16"]),
    ({"against_args": ["torchrun", "--nproc_per_node", "8", "train.py", "--bf16"]},
     ["--against-args", "torchrun --nproc_per_node 8 train.py --bf16"]),
]


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("kwargs, flags", OPTIONS)
def test_findings_are_the_clis(cli, in_tmp, name, kwargs, flags):
    path = in_tmp / f"{name}.json"
    path.write_text(json.dumps(CONFIGS[name], indent=2))
    done = cli("validate", path.name, "--format", "json", *flags, cwd=in_tmp)
    assert done.returncode in (0, 1), done.stderr
    expected = json.loads(done.stdout)
    from_file = zeroforge.validate(path.name, **kwargs)
    from_dict = zeroforge.validate(CONFIGS[name], name=path.name, **kwargs)
    assert [f.to_dict() for f in from_file] == expected
    assert from_dict == from_file
    assert zeroforge.dumps([f.to_dict() for f in from_file]) == done.stdout
    has_errors = any(f.severity == "error" for f in from_file)
    assert done.returncode == (1 if has_errors else 0)


def test_a_finding_prints_as_the_cli_prints_it(cli, in_tmp):
    path = in_tmp / "c.json"
    path.write_text(json.dumps(CONFIGS["wrong_batch"]))
    findings = zeroforge.validate("c.json", world_size=8)
    done = cli("validate", "c.json", "--world-size", "8", cwd=in_tmp)
    assert [str(f) for f in findings] == done.stdout.splitlines()[:-1]
    assert findings[0].rule and findings[0].pointer.startswith("/")


def test_a_dict_is_labelled_config():
    findings = zeroforge.validate(CONFIGS["wrong_batch"], world_size=8)
    assert findings and all(f.file == "config" for f in findings)
    assert [f for f in zeroforge.validate(CONFIGS["clean"], world_size=8)
            if f.severity == "error"] == []


@pytest.mark.parametrize("kwargs, flags, error", [
    ({"deepspeed_version": "0.11.2"}, ["--deepspeed-version", "0.11.2"], zeroforge.UsageError),
    ({"hf": True, "accelerate_version": "0.17.1"}, ["--hf", "--accelerate-version", "0.17.1"],
     zeroforge.UsageError),
    ({"accelerate_version": "1.0.0"}, ["--accelerate-version", "1.0.0"], zeroforge.UsageError),
    ({"world_size": 0}, ["--world-size", "0"], zeroforge.UsageError),
    ({"against_args": "deepspeed 'unterminated"}, ["--against-args", "deepspeed 'unterminated"],
     zeroforge.UsageError),
])
def test_bad_options_raise_usage_errors(cli, in_tmp, kwargs, flags, error):
    (in_tmp / "c.json").write_text("{}")
    with pytest.raises(error) as caught:
        zeroforge.validate("c.json", **kwargs)
    done = cli("validate", "c.json", *flags, cwd=in_tmp)
    assert done.returncode == 2
    # The same message, naming the keyword where the CLI names its option.
    expected = done.stderr.strip().replace("--world-size", "world_size")
    expected = expected.replace("--accelerate-version needs --hf",
                                "accelerate_version needs hf=True")
    expected = expected.replace("--accelerate-version", "accelerate_version")
    assert str(caught.value) == expected.replace("--deepspeed-version", "deepspeed_version")


def test_a_malformed_file_names_its_line_and_column(cli, in_tmp):
    (in_tmp / "bad.json").write_text('{"train_batch_size": 8,\n  "zero_optimization": {]}\n')
    with pytest.raises(zeroforge.ValuesError) as caught:
        zeroforge.validate("bad.json")
    done = cli("validate", "bad.json", cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) + "\n" == done.stderr
    assert (caught.value.file, caught.value.line) == ("bad.json", 2)
    assert caught.value.column is not None
    assert (caught.value.code, caught.value.kind) == ("json.syntax", "json")


def test_a_missing_file_is_a_file_error(cli, in_tmp):
    with pytest.raises(zeroforge.FileError) as caught:
        zeroforge.validate("nope.json")
    assert isinstance(caught.value, OSError)
    assert str(caught.value) + "\n" == cli("validate", "nope.json", cwd=in_tmp).stderr
