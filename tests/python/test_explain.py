# SPDX-License-Identifier: MIT
# zeroforge.explain against `zeroforge explain --format json`: the same provenance per value
# for a template and for a family's member; problems are data; no member is an error.
import json

import pytest

import zeroforge


def test_a_template_is_explained_as_the_cli_does(cli, in_tmp):
    (in_tmp / "v.json").write_text('{"gradient_clipping": 0.5, "typo_value": 1}')
    explanation = zeroforge.explain("deepspeed/config.json.j2", tier="medium", values="v.json",
                                    set={"stage": 3})
    done = cli("explain", "deepspeed/config.json.j2", "--tier", "medium", "--values", "v.json",
               "--set", "stage=3", "--format", "json", cwd=in_tmp)
    assert done.returncode == 0, done.stderr
    assert zeroforge.dumps(explanation.to_dict()) == done.stdout
    stage = next(v for v in explanation.values if v.name == "stage")
    assert (stage.value, stage.layer, stage.source) == (3, "--set", "--set stage=3")
    assert [v.name for v in explanation.unused] == ["typo_value"]
    assert explanation.derived is not None


def test_the_output_hooks_layer_is_explained_as_the_cli_does(cli, in_tmp):
    profile = '{"steps_per_print": 7, "fields": {"wall_clock_breakdown": null}}'
    explanation = zeroforge.explain("deepspeed/config.json.j2", plugins=["site_fields"],
                                    plugin_options={"site_fields.profile": json.loads(profile)})
    done = cli("explain", "deepspeed/config.json.j2", "--plugin", "site_fields", "--plugin-opt",
               "site_fields.profile=" + profile, "--format", "json", cwd=in_tmp)
    assert done.returncode == 0, done.stderr
    assert zeroforge.dumps(explanation.to_dict()) == done.stdout
    assert [(c["name"], c.get("value"), c["removed"], c["source"], c["rendered"])
            for c in explanation.output_hooks] == [
        ("steps_per_print", 7, False, "plugin site_fields", 100),
        ("wall_clock_breakdown", None, True, "plugin site_fields", False)]


def test_a_family_member_is_explained_as_the_cli_does(cli, in_tmp):
    explanation = zeroforge.explain("example", config="large/zero3-fp16.json")
    done = cli("explain", "example", "--config", "large/zero3-fp16.json", "--format", "json",
               cwd=in_tmp)
    assert done.returncode == 0, done.stderr
    assert zeroforge.dumps(explanation.to_dict()) == done.stdout
    layers = {v.name: v.layer for v in explanation.values}
    assert layers["stage"] == "variant" and layers["gpus_per_node"] == "tier"


def test_values_the_contract_refuses_are_problems_not_exceptions(cli, in_tmp):
    explanation = zeroforge.explain("deepspeed/config.json.j2", set={"stage": 7})
    assert [p.code for p in explanation.problems] == ["values.contract"]
    problem = explanation.problems[0]
    assert (problem.file, problem.pointer) == ("--set stage=7", "/stage")
    done = cli("explain", "deepspeed/config.json.j2", "--set", "stage=7", cwd=in_tmp)
    assert done.returncode == 2
    assert str(problem) in done.stderr
    as_json = cli("explain", "deepspeed/config.json.j2", "--set", "stage=7", "--format", "json",
                  cwd=in_tmp)
    assert zeroforge.dumps(explanation.to_dict()) == as_json.stdout


def test_a_family_without_config_names_its_members(cli, in_tmp):
    with pytest.raises(zeroforge.Error) as caught:
        zeroforge.explain("example")
    done = cli("explain", "example", cwd=in_tmp)
    assert done.returncode == 2
    assert str(caught.value) + "\n" == done.stderr
    assert "large/zero3-fp16.json" in str(caught.value)
