# SPDX-License-Identifier: MIT
# zeroforge.generate against `zeroforge generate` for the same inputs: the same files, the same
# summary (GenerateResult.to_dict() is --format json, byte for byte once serialised), the same
# errors; companions; --check drift; the GIL released while it runs.
import json
import os
import threading
import time

import pytest

import zeroforge
from conftest import tree


def run_both(cli, tmp_path, family, *cli_args, **kwargs):
    """Generates `family` into py/out with the module and cli/out with the CLI, each run from
    its own directory so that both name the output `out`."""
    (tmp_path / "py").mkdir()
    (tmp_path / "cli").mkdir()
    cwd = os.getcwd()
    os.chdir(tmp_path / "py")
    try:
        result = zeroforge.generate(family, "out", **kwargs)
    finally:
        os.chdir(cwd)
    done = cli("generate", family, "-o", "out", "--format", "json", *cli_args, cwd=tmp_path / "cli")
    return result, done


def test_example_family_writes_what_the_cli_writes(cli, tmp_path):
    result, done = run_both(cli, tmp_path, "example")
    assert done.returncode == 0, done.stderr
    assert zeroforge.dumps(result.to_dict()) == done.stdout
    assert tree(tmp_path / "py" / "out") == tree(tmp_path / "cli" / "out")
    assert result.ok and result.exit_code == 0
    assert result.configs == 18
    assert result.manifest == os.path.join("out", "manifest.json")
    assert "large/zero3-fp16.json" in result.written


def test_tiers_make_only_those_tiers_as_the_cli_does(cli, tmp_path):
    # A whole set in both, then one tier again: the summary and the trees agree with the CLI's.
    for where in ("py", "cli"):
        assert cli("generate", "example", "-o", tmp_path / where / "out").returncode == 0
        (tmp_path / where / "out" / "medium" / "zero2-bf16.json").write_text("{}\n")
    cwd = os.getcwd()
    os.chdir(tmp_path / "py")
    try:
        result = zeroforge.generate("example", "out", tiers="medium")
        check = zeroforge.generate("example", "out", tiers=["small", "large"], check=True)
    finally:
        os.chdir(cwd)
    done = cli("generate", "example", "-o", "out", "--tier", "medium", "--format", "json",
               cwd=tmp_path / "cli")
    assert done.returncode == 0, done.stderr
    assert zeroforge.dumps(result.to_dict()) == done.stdout
    assert tree(tmp_path / "py" / "out") == tree(tmp_path / "cli" / "out")
    assert (result.tiers, result.configs, result.kept) == (["medium"], 6, 12)
    assert result.written == ["medium/zero2-bf16.json"]
    assert check.ok and check.tiers == ["small", "large"] and check.configs == 12


def test_an_unknown_tier_raises_what_the_cli_prints(cli, in_tmp):
    done = cli("generate", "example", "-o", "out", "--tier", "mediun")
    assert done.returncode == 2
    with pytest.raises(zeroforge.UsageError) as raised:
        zeroforge.generate("example", "out", tiers=["mediun"])
    assert str(raised.value) + "\n" == done.stderr
    assert raised.value.code == "generate.unknown-tier"


def test_companions_values_and_set_match_the_cli(cli, tmp_path):
    values = tmp_path / "values.json"
    values.write_text('{"gradient_clipping": 0.5}')
    result, done = run_both(cli, tmp_path, "llama-7b", "--companions", "deepspeed,accelerate",
                            "--values", values, "--set", "zero.reduce_bucket_size=5e8",
                            companions=["deepspeed", "accelerate"], values=values,
                            set={"zero.reduce_bucket_size": 5e8})
    assert done.returncode == 0, done.stderr
    assert zeroforge.dumps(result.to_dict()) == done.stdout
    assert tree(tmp_path / "py" / "out") == tree(tmp_path / "cli" / "out")
    assert result.companions > 0
    assert any(path.endswith(".sh") for path in result.written)
    manifest = json.loads((tmp_path / "py" / "out" / "manifest.json").read_text())
    assert {"deepspeed", "accelerate"} <= set(manifest["configs"][0]["companions"])


def test_a_mapping_of_values_is_a_values_layer(in_tmp, cli):
    (in_tmp / "v.json").write_text('{"gradient_clipping": 0.25}')
    by_file = zeroforge.generate("example", "a", values="v.json")
    by_dict = zeroforge.generate("example", "b", values={"gradient_clipping": 0.25})
    assert by_file.configs == by_dict.configs == 18
    assert tree(in_tmp / "a") == tree(in_tmp / "b")


def test_check_reports_drift_as_data(cli, in_tmp):
    zeroforge.generate("example", "configs")
    assert zeroforge.generate("example", "configs", check=True).ok
    os.remove("configs/large/zero3-fp16.json")
    (in_tmp / "configs" / "small" / "zero1-bf16.json").write_text("{}\n")
    result = zeroforge.generate("example", "configs", check=True)
    done = cli("generate", "example", "-o", "configs", "--check", "--format", "json", cwd=in_tmp)
    assert done.returncode == result.exit_code == 1
    assert zeroforge.dumps(result.to_dict()) == done.stdout
    assert result.missing == ["large/zero3-fp16.json"]
    assert result.changed == ["small/zero1-bf16.json"]
    assert result.drift == ["large/zero3-fp16.json: missing", "small/zero1-bf16.json: changed"]


def test_validator_findings_are_data_and_nothing_is_written(cli, in_tmp):
    # fp16 and bf16 both enabled: the validator refuses every config (exit 1).
    family = in_tmp / "fam.json"
    family.write_text(json.dumps({
        "name": "both", "template": "deepspeed/config.json.j2",
        "values": {"extra": {"fp16": {"enabled": True}}}, "axes": {"stage": [2]}}))
    result = zeroforge.generate(str(family), "out")
    done = cli("generate", family, "-o", "out", "--format", "json", cwd=in_tmp)
    assert done.returncode == result.exit_code
    assert zeroforge.dumps(result.to_dict()) == done.stdout
    if result.exit_code == 1:
        assert result.findings and all(isinstance(f, zeroforge.Finding) for f in result.findings)
        assert not (in_tmp / "out").exists()


def test_values_errors_raise_what_the_cli_prints(cli, in_tmp):
    with pytest.raises(zeroforge.ValuesError) as caught:
        zeroforge.generate("example", "out", set={"stage": 7})
    done = cli("generate", "example", "-o", "out", "--set", "stage=7", cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) + "\n" == done.stderr
    assert caught.value.file == "--set stage=7"
    assert caught.value.pointer == "/stage"
    assert caught.value.variant is not None
    assert not (in_tmp / "out").exists()


@pytest.mark.parametrize("family, code, pointer", [
    ({"name": "a", "template": "deepspeed/config.json.j2", "axes": {"stage": [3, 4]}},
     "values.contract", "/axes/stage/1"),
    ({"name": "a", "template": "deepspeed/zero2.json.j2", "axes": {"stage": [2, 3]},
      "tiers": ["small"], "output": "{{ tier }}/z{{ stage }}.json"}, "values.pinned",
     "/axes/stage/1"),
    ({"name": "a", "template": "deepspeed/config.json.j2", "axes": {"stage": [1, 2]},
      "output": "x.json"}, "output.shared-path", "/output"),
    ({"name": "a", "template": "deepspeed/config.json.j2",
      "tiers": ["tiers/no-such-site-tier-of-the-team.json"]}, "tier.not-found", "/tiers/0"),
    ({"name": "a", "template": "deepspeed/config.json.j2", "tier": "a100-site-tier"},
     "family.invalid", "/tier"),
    ({"name": "a", "template": "deepspeed/config.json.j2",
      "template_dirs": ["site-templates-the-team-never-checked-in"]}, "family.template-dir",
     "/template_dirs/0"),
])
def test_values_errors_carry_their_diagnostic_code(cli, in_tmp, family, code, pointer):
    path = in_tmp / "platform-team-deepspeed-configurations" / "families" / "family.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(family))
    with pytest.raises(zeroforge.ValuesError) as caught:
        zeroforge.generate(str(path), "out")
    assert caught.value.code == code
    assert caught.value.pointer == pointer
    assert caught.value.file == str(path)
    done = cli("generate", path, "-o", "out", cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) + "\n" == done.stderr
    assert not (in_tmp / "out").exists()


def test_template_errors_raise_with_their_location(cli, in_tmp):
    (in_tmp / "t" / "mine").mkdir(parents=True)
    (in_tmp / "t" / "mine" / "x.json.j2").write_text('{"stage": {{ stage }},\n "b": {{ nope }}}\n')
    family = in_tmp / "fam.json"
    family.write_text(json.dumps({"name": "mine", "template": "mine/x.json.j2",
                                  "axes": {"stage": [1, 2]}}))
    with pytest.raises(zeroforge.TemplateError) as caught:
        zeroforge.generate(str(family), "out", template_dirs=["t"])
    done = cli("generate", family, "-o", "out", "--template-dir", "t", cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) + "\n" == done.stderr
    error = caught.value
    assert (error.file, error.line, error.column) == ("t/mine/x.json.j2", 2, 10)
    assert error.source_line == ' "b": {{ nope }}}'
    assert error.kind == "undefined"


@pytest.mark.parametrize("call, error, cli_args", [
    (lambda: zeroforge.generate("no-such-family", "out"), zeroforge.UsageError,
     ["generate", "no-such-family", "-o", "out"]),
    (lambda: zeroforge.generate("example", "out", values="missing.json"), zeroforge.FileError,
     ["generate", "example", "-o", "out", "--values", "missing.json"]),
    (lambda: zeroforge.generate("example", "out", plugins=["no-such-plugin"]),
     zeroforge.PluginError, ["generate", "example", "-o", "out", "--plugin", "no-such-plugin"]),
    (lambda: zeroforge.generate("example", "out", companions="bogus"), zeroforge.Error,
     ["generate", "example", "-o", "out", "--companions", "bogus"]),
])
def test_each_error_class_carries_the_cli_message(cli, in_tmp, call, error, cli_args):
    with pytest.raises(error) as caught:
        call()
    done = cli(*cli_args, cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) + "\n" == done.stderr
    assert isinstance(caught.value, zeroforge.Error)


def test_bad_arguments_raise_instead_of_crashing(in_tmp):
    with pytest.raises(zeroforge.UsageError, match="jobs must be a whole number from 1 to 256"):
        zeroforge.generate("example", "out", jobs=0)
    with pytest.raises(zeroforge.ValuesError, match="integers are 64-bit"):
        zeroforge.generate("example", "out", values={"stage": 2**70})
    with pytest.raises(zeroforge.ValuesError, match="a float must be finite"):
        zeroforge.generate("example", "out", values={"x": {"y": float("nan")}})
    looped = {}
    looped["self"] = looped
    with pytest.raises(zeroforge.ValuesError, match="levels deep"):
        zeroforge.generate("example", "out", values=looped)
    with pytest.raises(zeroforge.ValuesError, match="keys must be str"):
        zeroforge.generate("example", "out", values={1: 2})
    with pytest.raises(zeroforge.ValuesError, match="expected a JSON value"):
        zeroforge.generate("example", "out", values={"x": object()})
    with pytest.raises(TypeError):
        zeroforge.generate(42, "out")
    assert not (in_tmp / "out").exists()


def test_the_gil_is_released_while_generating(in_tmp):
    # A family of 1500 configs takes long enough to see a second thread run meanwhile; were the
    # GIL held, that thread could not run at all between the call's start and its end.
    family = in_tmp / "big.json"
    family.write_text(json.dumps({"name": "big", "template": "deepspeed/config.json.j2",
                                  "axes": {"gradient_accumulation": list(range(1, 1501))}}))
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        start = time.monotonic()
        result = zeroforge.generate(str(family), "out", jobs=1)
        end = time.monotonic()
    finally:
        stop.set()
        ticker.join()
    assert result.configs == 1500
    margin = (end - start) / 5
    inside = [t for t in ticks if start + margin < t < end - margin]
    assert len(inside) >= 3, f"{len(inside)} ticks during a {end - start:.3f} s generate"


def test_a_site_profile_replacing_a_family_value_is_noted_as_the_cli_notes_it(cli, tmp_path):
    # issue #40 §1: the note is data in the result (and the summary equals --format json's).
    profile = tmp_path / "site.json"
    profile.write_text(json.dumps({"slurm": {"partition": "h100"}}))
    family = tmp_path / "family.json"
    family.write_text(json.dumps({
        "name": "team", "template": "deepspeed/config.json.j2",
        "values": {"launch": {"script": "train.py", "slurm": {"partition": "team-a100"}}},
        "tiers": ["small"], "companions": ["slurm"],
        "plugins": [{"name": "site_fields", "options": {"profile": str(profile)}}]}))
    result, done = run_both(cli, tmp_path, str(family))
    assert done.returncode == 0, done.stderr
    assert zeroforge.dumps(result.to_dict()) == done.stdout
    assert [d["code"] for d in result.diagnostics] == ["values.plugin-replaced"]
    assert result.diagnostics[0]["pointer"] == "/values/launch/slurm/partition"
    explained = zeroforge.explain(str(family))
    assert [d.code for d in explained.notes] == ["values.plugin-replaced"]
