# SPDX-License-Identifier: MIT
# No input crashes the interpreter: random and hostile arguments to every function raise a
# Python exception (zeroforge.Error for what the engine refuses, TypeError/ValueError for
# what Python cannot pass) or return. A crash would end this process and fail the suite.
import random
import warnings

import pytest

import zeroforge

ODD = [None, True, 0, -1, 2**63 - 1, 2**63, -2**63 - 1, 1e308, -0.0, float("inf"),
       float("nan"), "", "x" * 10000, "\x00", "\udcff", "\u202e", b"bytes", 3j, object(),
       [], {}, (), {1, 2}, lambda: 0]


def random_value(rng, depth=0):
    choice = rng.random()
    if depth > 4 or choice < 0.4:
        return rng.choice(ODD)
    if choice < 0.7:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["stage", "zero_optimization", "train_batch_size", "bf16", "x", "",
                        "a/b", "~0"]): random_value(rng, depth + 1)
            for _ in range(rng.randint(0, 4))}


ALLOWED = (zeroforge.Error, TypeError, ValueError, UnicodeError, OverflowError)


@pytest.mark.parametrize("seed", range(40))
def test_random_values_never_crash(in_tmp, seed):
    rng = random.Random(seed)
    value = random_value(rng)
    calls = [
        lambda: zeroforge.validate(value if isinstance(value, dict) else {"x": value}),
        lambda: zeroforge.render("deepspeed/config.json.j2", values=value),
        lambda: zeroforge.render("deepspeed/config.json.j2", set={"stage": value}),
        lambda: zeroforge.render_text(value),
        lambda: zeroforge.explain("deepspeed/config.json.j2", values={"v": value}),
        lambda: zeroforge.generate("example", "out", values={"stage": value}, jobs=1),
        lambda: zeroforge.estimate("llama-2-7b", stage=value),
        lambda: zeroforge.dumps(value),
        lambda: zeroforge.list_templates(value),
        lambda: zeroforge.list_tiers(value),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", zeroforge.ConfigWarning)
        for call in calls:
            try:
                call()
            except ALLOWED:
                pass


def test_a_lone_surrogate_is_a_values_error():
    with pytest.raises(zeroforge.ValuesError, match="valid Unicode"):
        zeroforge.validate({"x": "\udcff"})
    with pytest.raises(zeroforge.ValuesError, match="valid Unicode"):
        zeroforge.validate({"\ud800": 1})


def test_hostile_templates_are_errors_not_crashes(in_tmp):
    (in_tmp / "t").mkdir()
    cases = {
        "deep.json.j2": "{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}",
        "loop.json.j2": "{% for i in range(10**9) %}{% endfor %}",
        "big.json.j2": "{{ 'x' * 10**10 }}",
        "recursion.json.j2": "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}",
        "self.json.j2": '{% include "self.json.j2" %}',
        "bad-utf8.json.j2": None,
    }
    for name, text in cases.items():
        if text is None:
            (in_tmp / "t" / name).write_bytes(b'{"a": "\xff\xfe"}')
        else:
            (in_tmp / "t" / name).write_text(text)
        with pytest.raises(zeroforge.Error):
            zeroforge.render(name, template_dirs=["t"])


def test_results_and_errors_survive_pickling(in_tmp):
    # Pipelines (multiprocessing, Ray, Airflow) ship results and exceptions between processes.
    import pickle
    result = zeroforge.generate("example", "out")
    assert pickle.loads(pickle.dumps(result)) == result
    with pytest.raises(zeroforge.ValuesError) as caught:
        zeroforge.render("deepspeed/config.json.j2", set={"stage": 7})
    copy = pickle.loads(pickle.dumps(caught.value))
    assert type(copy) is zeroforge.ValuesError
    assert (str(copy), copy.file, copy.pointer, copy.kind) == (
        str(caught.value), "--set stage=7", "/stage", "values")
