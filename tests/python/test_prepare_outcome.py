# SPDX-License-Identifier: MIT
# The Python functions prepare a config as every entry point does (engine/src/prepare): a
# plugin's refusal with a values problem is a ValuesError (the CLI's exit 2) carrying both,
# and generate judges a family's configs by the DeepSpeed release it pins.
import json
import warnings

import pytest

import zeroforge

TEMPLATE = "deepspeed/config.json.j2"
AUTO_FIT = {"model": "llama-2-70b"}
BOTH_FAMILY = {"name": "both", "template": TEMPLATE, "tiers": ["small"], "plugins": ["memory"],
               "output": "{{ tier }}.json",
               "values": {"auto_fit": AUTO_FIT, "micro_bach_size": 4}}


def test_a_refusal_and_a_problem_are_a_values_error_everywhere(in_tmp):
    (in_tmp / "both.json").write_text(json.dumps(BOTH_FAMILY))
    calls = [
        lambda: zeroforge.render(TEMPLATE, tier="small", plugins=["memory"],
                                 set={"auto_fit": AUTO_FIT, "micro_bach_size": 4}),
        lambda: zeroforge.generate("both.json", "out"),
    ]
    for call in calls:
        with pytest.raises(zeroforge.ValuesError) as caught, warnings.catch_warnings():
            warnings.simplefilter("ignore", zeroforge.ConfigWarning)  # micro_bach_size unread
            call()
        assert "micro_bach_size" in str(caught.value)
        assert not isinstance(caught.value, zeroforge.RefusedError)
    assert not (in_tmp / "out" / "small.json").exists()


def test_generate_judges_by_the_pinned_release(in_tmp):
    family = {"name": "f145", "template": TEMPLATE, "output": "z3.json",
              "values": {"deepspeed_version": "0.14.5", "stage": 3,
                         "extra": {"zero_optimization":
                                   {"stage3_module_granularity_threshold": 0}}}}
    (in_tmp / "f145.json").write_text(json.dumps(family))
    result = zeroforge.generate("f145.json", "out")
    assert result.exit_code == 1
    [finding] = [f for f in result.findings if f.severity == "error"]
    assert finding.pointer == "/zero_optimization/stage3_module_granularity_threshold"
    assert finding.rule == "unknown-key"
    assert "DeepSpeed 0.14.5" in finding.message
    assert not (in_tmp / "out" / "z3.json").exists()
