# SPDX-License-Identifier: MIT
# zeroforge.migrate against `zeroforge migrate --format json` for the same input and options: the
# same releases and notes (to_dict() of each is the CLI's JSON), the same migrated text; a refusal
# raises with the CLI's lines and writes nothing; a family is migrated too.
import json

import pytest

import zeroforge

OLD = {"train_batch_size": 8, "bf16": {"enabled": True, "loss_scale": 0},
       "zero_optimization": {"stage": 3, "cpu_offload": True,
                             "stage3_prefetch_bucket_size": 4718592.5},
       "aio": {"thread_count": 2}}
CURRENT = '{ "train_batch_size": 8,\n  "gradient_clipping": 1.0 }\n'
AUTOTP = {"train_batch_size": 8, "gradient_clipping": 1.0, "tensor_parallel": {"autotp_size": 2}}


@pytest.mark.parametrize("to", ["0.12.0", "0.16.2", "0.19.6"])
@pytest.mark.parametrize("kwargs, flags", [({}, []), ({"drop_unknown": True}, ["--drop-unknown"]),
                                           ({"from_": "0.14.5"}, ["--from", "0.14.5"])])
def test_notes_and_text_are_the_clis(cli, in_tmp, to, kwargs, flags):
    path = in_tmp / "old.json"
    path.write_text(json.dumps(OLD, indent=2))
    got = zeroforge.migrate(path, to=to, output=in_tmp / "py.json", **kwargs)
    run = cli("migrate", path, "--to", to, "-o", in_tmp / "cli", "--format", "json", *flags)
    assert run.returncode == 0, run.stderr
    want = json.loads(run.stdout)["migrations"][0]
    assert got.kind == "config"
    assert (got.from_, got.from_inferred, got.to, got.changed) == (
        want["from"], want["from_inferred"], want["to"], want["changed"])
    assert [note.to_dict() for note in got.notes] == want["notes"]
    assert (in_tmp / "py.json").read_bytes() == (in_tmp / "cli" / "old.json").read_bytes()
    assert got.text == (in_tmp / "py.json").read_text()
    assert got.result == json.loads(got.text)


def test_a_config_that_needs_nothing_comes_back_byte_for_byte(in_tmp):
    path = in_tmp / "current.json"
    path.write_text(CURRENT)
    got = zeroforge.migrate(str(path), to="0.19.6")
    assert not got.changed and got.notes == []
    assert got.text == CURRENT
    assert got.from_ == "0.19.6" and got.from_inferred


def test_a_dict_migrates_and_validates_at_the_target():
    got = zeroforge.migrate(OLD, to="0.19.6")
    assert got.file == "config"
    assert got.from_ == "0.14.5"
    assert got.result["aio"] == {"intra_op_parallelism": 2}
    assert got.result["zero_optimization"]["stage3_prefetch_bucket_size"] == 4718592
    assert [f for f in zeroforge.validate(got.result, deepspeed_version="0.19.6")
            if f.severity == "error"] == []


def test_a_refusal_raises_with_the_clis_lines_and_writes_nothing(cli, in_tmp):
    path = in_tmp / "autotp.json"
    path.write_text(json.dumps(AUTOTP))
    with pytest.raises(zeroforge.ValuesError) as raised:
        zeroforge.migrate(path, to="0.16.2", output=in_tmp / "out.json")
    run = cli("migrate", path, "--to", "0.16.2", "--check")
    assert run.returncode == 2
    assert str(raised.value) + "\n" == run.stderr
    assert raised.value.code == "migrate.unknown-key"
    assert not (in_tmp / "out.json").exists()
    got = zeroforge.migrate(path, to="0.16.2", drop_unknown=True)
    assert [note.code for note in got.notes] == ["migrate.dropped"]
    assert "tensor_parallel" not in got.result


def test_a_family(in_tmp):
    family = {"name": "f", "template": "deepspeed/config.json.j2", "output": "z3.json",
              "values": {"deepspeed_version": "0.14.5", "stage": 3,
                         "extra": {"aio": {"thread_count": 2}}}}
    path = in_tmp / "fam.json"
    path.write_text(json.dumps(family))
    got = zeroforge.migrate(path, to="0.19.6", output=in_tmp / "new.json")
    assert got.kind == "family"
    assert [note.code for note in got.notes] == ["migrate.version", "migrate.renamed"]
    written = json.loads((in_tmp / "new.json").read_text())
    assert written["values"]["deepspeed_version"] == "0.19.6"
    assert written["values"]["extra"] == {"aio": {"intra_op_parallelism": 2}}
    assert json.loads(path.read_text()) == family


@pytest.mark.parametrize("kwargs, error", [
    ({"to": "0.16"}, zeroforge.UsageError),
    ({"to": "0.19.6", "from_": "0.11.0"}, zeroforge.UsageError),
    ({"to": 19}, zeroforge.ArgumentTypeError),
    ({"to": "0.19.6", "world_size": 0}, zeroforge.ArgumentValueError),
])
def test_bad_arguments(kwargs, error):
    with pytest.raises(error):
        zeroforge.migrate({"train_batch_size": 8}, **kwargs)


def test_a_file_that_is_not_json(in_tmp):
    path = in_tmp / "bad.json"
    path.write_text('{"a": }')
    with pytest.raises(zeroforge.ValuesError) as raised:
        zeroforge.migrate(path, to="0.19.6")
    assert str(raised.value).startswith(f"{path}:1:7: error: expected a JSON value, found '}}'")
