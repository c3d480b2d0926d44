# SPDX-License-Identifier: MIT
# zeroforge.render and render_text against `zeroforge render` for the same inputs (the same
# bytes once serialised with zeroforge.dumps), the errors it raises with their locations, its
# warnings, and two threads rendering at once.
import json
import threading
import warnings

import pytest

import zeroforge

TEMPLATE = "deepspeed/config.json.j2"

CASES = [
    ({}, []),
    ({"tier": "medium"}, ["--tier", "medium"]),
    ({"tier": "large", "set": {"stage": 3, "offload_optimizer": "cpu"}},
     ["--tier", "large", "--set", "stage=3", "--set", "offload_optimizer=cpu"]),
    ({"tier": "small", "set": ["precision=fp16", "zero.reduce_bucket_size=5e8"]},
     ["--tier", "small", "--set", "precision=fp16", "--set", "zero.reduce_bucket_size=5e8"]),
    ({"tier": "medium", "set": {"stage": 3, "hf_auto": True}},
     ["--tier", "medium", "--set", "stage=3", "--set", "hf_auto=true"]),
]


@pytest.mark.parametrize("kwargs, flags", CASES)
def test_a_config_is_the_clis(cli, in_tmp, kwargs, flags):
    done = cli("render", TEMPLATE, *flags, cwd=in_tmp)
    assert done.returncode == 0, done.stderr
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        config = zeroforge.render(TEMPLATE, **kwargs)
    # What the CLI prints on stderr (the validator's warnings) comes as ConfigWarning.
    assert [str(w.message) for w in warned] == done.stderr.splitlines()
    assert isinstance(config, dict)
    assert zeroforge.dumps(config) == done.stdout
    assert config == json.loads(done.stdout)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert zeroforge.render_text(TEMPLATE, **kwargs) == done.stdout


def test_values_files_and_mappings_layer_in_order(cli, in_tmp):
    (in_tmp / "a.json").write_text('{"stage": 3, "gradient_clipping": 0.5}')
    (in_tmp / "b.json").write_text('{"gradient_clipping": 2.0}')
    done = cli("render", TEMPLATE, "--tier", "medium", "--values", "a.json", "--values",
               "b.json", cwd=in_tmp)
    assert done.returncode == 0, done.stderr
    assert zeroforge.dumps(zeroforge.render(TEMPLATE, tier="medium",
                                            values=["a.json", "b.json"])) == done.stdout
    mixed = zeroforge.render(TEMPLATE, tier="medium",
                             values=["a.json", {"gradient_clipping": 2.0}])
    assert zeroforge.dumps(mixed) == done.stdout


def test_a_text_template_and_a_template_dir(cli, in_tmp):
    (in_tmp / "mine").mkdir()
    (in_tmp / "mine" / "run.sh.j2").write_text("deepspeed --num_gpus {{ gpus }} train.py\n")
    done = cli("render", "run.sh.j2", "--template-dir", "mine", "--set", "gpus=8", cwd=in_tmp)
    assert done.returncode == 0, done.stderr
    text = zeroforge.render_text("run.sh.j2", template_dirs=["mine"], set={"gpus": 8})
    # Jinja2 drops the template's final newline (keep_trailing_newline is off), as the CLI does.
    assert text == done.stdout == "deepspeed --num_gpus 8 train.py"
    with pytest.raises(zeroforge.UsageError, match="render_text"):
        zeroforge.render("run.sh.j2", template_dirs=["mine"], set={"gpus": 8})


def test_values_errors_carry_the_layer_and_pointer(cli, in_tmp):
    with pytest.raises(zeroforge.ValuesError) as caught:
        zeroforge.render(TEMPLATE, tier="medium", set={"stage": 7})
    done = cli("render", TEMPLATE, "--tier", "medium", "--set", "stage=7", cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) + "\n" == done.stderr
    assert (caught.value.file, caught.value.pointer) == ("--set stage=7", "/stage")


def test_a_values_file_that_is_not_json_is_a_values_error(cli, in_tmp):
    (in_tmp / "v.json").write_text('{"stage": 3,\n "zero": }\n')
    with pytest.raises(zeroforge.ValuesError) as caught:
        zeroforge.render(TEMPLATE, values="v.json")
    done = cli("render", TEMPLATE, "--values", "v.json", cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) + "\n" == done.stderr
    error = caught.value
    assert (error.code, error.kind, error.file, error.line, error.column) == \
        ("json.syntax", "json", "v.json", 2, 10)


def test_a_mapping_is_named_values_in_errors():
    with pytest.raises(zeroforge.ValuesError) as caught:
        zeroforge.render(TEMPLATE, values={"stage": 7})
    assert (caught.value.file, caught.value.pointer) == ("values", "/stage")


def test_template_errors_carry_file_line_column_and_source_line(cli, in_tmp):
    (in_tmp / "t").mkdir()
    (in_tmp / "t" / "x.json.j2").write_text('{\n  "stage": {{ stage }},\n  "b": {{ zero.bucket }}\n}\n')
    with pytest.raises(zeroforge.TemplateError) as caught:
        zeroforge.render("x.json.j2", template_dirs=["t"], set={"stage": 2})
    done = cli("render", "x.json.j2", "--template-dir", "t", "--set", "stage=2", cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) + "\n" == done.stderr
    error = caught.value
    assert (error.file, error.line, error.column) == ("t/x.json.j2", 3, 11)
    assert error.source_line == '  "b": {{ zero.bucket }}'
    assert error.kind == "undefined"


@pytest.mark.parametrize("kwargs, flags, error", [
    ({"tier": "no-such-tier"}, ["--tier", "no-such-tier"], zeroforge.UsageError),
    ({"values": "missing.json"}, ["--values", "missing.json"], zeroforge.FileError),
    ({"plugins": ["no-such-plugin"]}, ["--plugin", "no-such-plugin"], zeroforge.PluginError),
    ({"set": ["novalue"]}, ["--set", "novalue"], zeroforge.UsageError),
])
def test_each_error_class_is_the_clis(cli, in_tmp, kwargs, flags, error):
    with pytest.raises(error) as caught:
        zeroforge.render(TEMPLATE, **kwargs)
    done = cli("render", TEMPLATE, *flags, cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) + "\n" == done.stderr


def test_a_template_that_is_not_found(cli, in_tmp):
    with pytest.raises(zeroforge.TemplateError) as caught:
        zeroforge.render("deepspeed/nope.json.j2")
    done = cli("render", "deepspeed/nope.json.j2", cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) + "\n" == done.stderr


def test_a_config_the_validator_refuses_raises_with_its_findings(cli, in_tmp):
    (in_tmp / "t").mkdir()
    (in_tmp / "t" / "bad.json.j2").write_text(
        '{"train_batch_size": 3, "train_micro_batch_size_per_gpu": 2,'
        ' "fp16": {"enabled": true}, "bf16": {"enabled": true}}\n')
    with pytest.raises(zeroforge.RefusedError) as caught:
        zeroforge.render("bad.json.j2", template_dirs=["t"], validation="deepspeed")
    done = cli("render", "bad.json.j2", "--template-dir", "t", "--validate", "deepspeed",
               cwd=in_tmp)
    assert done.returncode == 1
    assert str(caught.value) + "\n" == done.stderr
    findings = caught.value.findings
    assert findings and all(isinstance(f, zeroforge.Finding) for f in findings)
    assert any(f.severity == "error" for f in findings)
    # The code generate's failure diagnostics give a finding (docs/cli.md, "Diagnostic codes").
    assert caught.value.code == "validate.finding"
    # validation="none" makes it anyway, as --validate none does.
    config = zeroforge.render("bad.json.j2", template_dirs=["t"], validation="none")
    assert config["train_batch_size"] == 3


def test_warnings_are_the_clis(cli, in_tmp):
    done = cli("render", TEMPLATE, "--set", "frobnicate=1", cwd=in_tmp)
    assert done.returncode == 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        zeroforge.render(TEMPLATE, set={"frobnicate": 1})
    lines = [str(w.message) for w in caught if issubclass(w.category, zeroforge.ConfigWarning)]
    assert lines and "\n".join(lines) + "\n" == done.stderr


def test_bad_arguments_raise_instead_of_crashing():
    with pytest.raises(zeroforge.UsageError):
        zeroforge.render(TEMPLATE, validation="sometimes")
    with pytest.raises(zeroforge.ValuesError):
        zeroforge.render(TEMPLATE, values={"x": float("inf")})
    with pytest.raises(zeroforge.ValuesError):
        zeroforge.render(TEMPLATE, set={"x": float("nan")})
    with pytest.raises(zeroforge.UsageError):
        zeroforge.render("/abs/path.json.j2")
    with pytest.raises(zeroforge.TemplateError):
        zeroforge.render("../../etc/passwd.json.j2")
    with pytest.raises(TypeError):
        zeroforge.render(TEMPLATE, template_dirs=[3])


def test_threads_render_at_once_and_agree_with_one_thread():
    inputs = [{"tier": tier, "set": {"stage": stage, "precision": precision}}
              for tier in ("small", "medium", "large") for stage in (1, 2, 3)
              for precision in ("bf16", "fp16")]
    expected = [zeroforge.dumps(zeroforge.render(TEMPLATE, **kwargs)) for kwargs in inputs]
    results = {}
    errors = []
    start = threading.Barrier(4)

    def work(worker):
        try:
            start.wait()
            for round_ in range(5):
                for i, kwargs in enumerate(inputs):
                    results[(worker, round_, i)] = zeroforge.dumps(zeroforge.render(TEMPLATE, **kwargs))
        except Exception as error:  # reported below, with the thread's traceback lost
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(results) == 4 * 5 * len(inputs)
    for (worker, round_, i), text in results.items():
        assert text == expected[i]
