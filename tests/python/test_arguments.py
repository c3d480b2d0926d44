# SPDX-License-Identifier: MIT
# Every public function's arguments: one that no call could take raises
# zeroforge.ArgumentTypeError (also a TypeError) or ArgumentValueError (also a ValueError),
# both zeroforge.UsageError, naming the argument and what it takes; never pybind11's
# "incompatible function arguments". A path may hold the surrogates Python decodes a file
# name's undecodable bytes to; a NUL is refused everywhere.
import inspect
import os

import pytest

import zeroforge

T = zeroforge.ArgumentTypeError
V = zeroforge.ArgumentValueError
TEMPLATE = "deepspeed/config.json.j2"
MISSING_DIR = "no-such-dir"

# How each function is called: its required arguments, then the one under test.
CALLS = {
    "render": lambda **kw: zeroforge.render(kw.pop("template", TEMPLATE), **kw),
    "render_text": lambda **kw: zeroforge.render_text(kw.pop("template", TEMPLATE), **kw),
    "explain": lambda **kw: zeroforge.explain(kw.pop("subject", TEMPLATE), **kw),
    "generate": lambda **kw: zeroforge.generate(kw.pop("family", "example"),
                                                kw.pop("output_dir", "out"), **kw),
    "validate": lambda **kw: zeroforge.validate(kw.pop("config", {}), **kw),
    "migrate": lambda **kw: zeroforge.migrate(kw.pop("input", {"train_batch_size": 8}),
                                              to=kw.pop("to", "0.19.6"), **kw),
    "estimate": lambda **kw: zeroforge.estimate(kw.pop("model", "llama-2-7b"),
                                                **kw.pop("options", {}), **kw),
    "list_templates": lambda **kw: zeroforge.list_templates(**kw),
    "list_tiers": lambda **kw: zeroforge.list_tiers(**kw),
    "list_plugins": lambda **kw: zeroforge.list_plugins(**kw),
    "dumps": lambda **kw: zeroforge.dumps(**kw),
}

# The arguments render, explain and generate share.
SHARED = [
    ("values", 3, T, "values"),
    ("values", [{}, 3], T, "values[1]"),
    ("values", "v\0.json", V, "values"),
    ("set", 3, T, "set"),
    ("set", {1: 2}, T, "set key 1"),
    ("set", {"st\0age": 3}, V, "set['st\\x00age']"),
    ("set", ["stage=3", "stage=\udcff"], V, "set[1]"),
    ("set", ["stage=\0"], V, "set[0]"),
    ("set", [3], T, "set[0]"),
    ("template_dirs", 3, T, "template_dirs"),
    ("template_dirs", [".", 3], T, "template_dirs[1]"),
    ("template_dirs", [MISSING_DIR], V, "template_dirs[0]"),
    ("template_dirs", ["\0"], V, "template_dirs[0]"),
    ("template_dirs", {"a": 1}, T, "template_dirs"),
    ("plugins", 3, T, "plugins"),
    ("plugins", ["memory\0"], V, "plugins[0]"),
    ("plugin_dirs", 3, T, "plugin_dirs"),
    ("plugin_dirs", MISSING_DIR, V, "plugin_dirs"),
    ("plugin_options", 3, T, "plugin_options"),
    ("plugin_options", ["memory.x=\0"], V, "plugin_options[0]"),
    ("trim_blocks", "no", T, "trim_blocks"),
    ("lstrip_blocks", None, T, "lstrip_blocks"),
]

CASES = [
    *[("render", *case) for case in SHARED],
    ("render", "template", 3, T, "template"),
    ("render", "template", "x\0.json.j2", V, "template"),
    ("render", "template", "\ud800.json.j2", V, "template"),
    ("render", "tier", 3, T, "tier"),
    ("render", "tier", "medium\0", V, "tier"),
    ("render", "validation", 3, T, "validation"),
    ("render", "validation", "sometimes", V, "validation"),
    ("render", "validation", "\udcff", V, "validation"),
    ("render_text", "template", [TEMPLATE], T, "template"),
    ("render_text", "tier", 1.5, T, "tier"),
    ("render_text", "values", object(), T, "values"),
    ("render_text", "set", ["a=\0"], V, "set[0]"),
    ("render_text", "template_dirs", 3, T, "template_dirs"),
    ("render_text", "plugins", [None], T, "plugins[0]"),
    ("render_text", "plugin_dirs", [3], T, "plugin_dirs[0]"),
    ("render_text", "plugin_options", {3: 1}, T, "plugin_options key 3"),
    ("render_text", "validation", None, T, "validation"),
    ("render_text", "trim_blocks", 1, T, "trim_blocks"),
    ("render_text", "lstrip_blocks", "yes", T, "lstrip_blocks"),
    *[("explain", *case) for case in SHARED],
    ("explain", "subject", 3, T, "subject"),
    ("explain", "subject", "ex\0ample", V, "subject"),
    ("explain", "config", 3, T, "config"),
    ("explain", "config", "\udcff.json", V, "config"),
    ("explain", "tier", b"x\0", V, "tier"),
    *[("generate", *case) for case in SHARED],
    ("generate", "family", 3, T, "family"),
    ("generate", "family", "ex\0ample", V, "family"),
    ("generate", "output_dir", None, T, "output_dir"),
    ("generate", "output_dir", "out\0", V, "output_dir"),
    ("generate", "jobs", "4", T, "jobs"),
    ("generate", "jobs", True, T, "jobs"),
    ("generate", "jobs", 0, V, "jobs"),
    ("generate", "jobs", 2**70, V, "jobs"),
    ("generate", "check", "yes", T, "check"),
    ("generate", "companions", 3, T, "companions"),
    ("generate", "companions", ["deepspeed", "\udcff"], V, "companions[1]"),
    ("generate", "tiers", 3, T, "tiers"),
    ("generate", "tiers", ["medium", "\udcff"], V, "tiers[1]"),
    ("generate", "validation", "sometimes", V, "validation"),
    ("validate", "config", 3, T, "config"),
    ("validate", "config", "c\0.json", V, "config"),
    ("validate", "config", "\ud800.json", V, "config"),
    ("validate", "world_size", 2**70, V, "world_size"),
    ("validate", "world_size", -(2**70), V, "world_size"),
    ("validate", "world_size", 0, V, "world_size"),
    ("validate", "world_size", "8", T, "world_size"),
    ("validate", "world_size", 8.0, T, "world_size"),
    ("validate", "against_args", 3, T, "against_args"),
    ("validate", "against_args", ["deepspeed", 3], T, "against_args[1]"),
    ("validate", "against_args", "deepspeed \0", V, "against_args"),
    ("validate", "against_args", "deepspeed \udcff", V, "against_args"),
    ("validate", "hf", "yes", T, "hf"),
    ("validate", "strict", None, T, "strict"),
    ("validate", "deepspeed_version", 0.14, T, "deepspeed_version"),
    ("validate", "deepspeed_version", "0.14\0", V, "deepspeed_version"),
    ("validate", "accelerate_version", 1.0, T, "accelerate_version"),
    ("validate", "name", 3, T, "name"),
    ("validate", "name", "\udcff", V, "name"),
    ("migrate", "input", 3, T, "input"),
    ("migrate", "input", "c\0.json", V, "input"),
    ("migrate", "to", 19, T, "to"),
    ("migrate", "to", "0.19\0", V, "to"),
    ("migrate", "from_", 0.14, T, "from_"),
    ("migrate", "drop_unknown", "yes", T, "drop_unknown"),
    ("migrate", "world_size", 0, V, "world_size"),
    ("migrate", "world_size", "8", T, "world_size"),
    ("migrate", "hf", "yes", T, "hf"),
    ("migrate", "output", 3, T, "output"),
    ("migrate", "output", "o\0.json", V, "output"),
    ("migrate", "name", 3, T, "name"),
    ("estimate", "model", 3, T, "model"),
    ("estimate", "model", "llama\0", V, "model"),
    ("estimate", "stage", "3", T, "stage"),
    ("estimate", "stage", 3.0, T, "stage"),
    ("estimate", "offload_optimizer", 3, T, "offload_optimizer"),
    ("estimate", "offload_param", "cpu\0", V, "offload_param"),
    ("estimate", "precision", "\udcff", V, "precision"),
    ("estimate", "micro_batch_size", "4", T, "micro_batch_size"),
    ("estimate", "sequence_length", 1.5, T, "sequence_length"),
    ("estimate", "gpu_memory_gib", "80", T, "gpu_memory_gib"),
    ("estimate", "gpu_memory_gib", float("nan"), V, "gpu_memory_gib"),
    ("estimate", "all_stages", "yes", T, "all_stages"),
    ("estimate", "plugin_dirs", MISSING_DIR, V, "plugin_dirs"),
    ("estimate", "plugin_options", 3, T, "plugin_options"),
    ("estimate", "options", {"nodes": object()}, T, "nodes"),
    ("estimate", "options", {"tier": "small\0"}, V, "tier"),
    ("estimate", "options", {"cpu_memory_gib": float("inf")}, V, "cpu_memory_gib"),
    ("estimate", "options", {"stages": 4}, T, "stages"),
    ("list_templates", "template_dirs", 3, T, "template_dirs"),
    ("list_templates", "template_dirs", [MISSING_DIR], V, "template_dirs[0]"),
    ("list_templates", "all", "yes", T, "all"),
    ("list_tiers", "family", 3, T, "family"),
    ("list_tiers", "family", "example\0", V, "family"),
    ("list_plugins", "plugin_dirs", 3, T, "plugin_dirs"),
    ("list_plugins", "plugin_dirs", [MISSING_DIR], V, "plugin_dirs[0]"),
    ("list_plugins", "plugin_dirs", [b"\0"], V, "plugin_dirs[0]"),
    # dumps's argument is data: what JSON cannot hold is a ValuesError at its pointer.
    ("dumps", "value", object(), zeroforge.ValuesError, None),
]


def _id(case):
    function, argument, value, _, _ = case
    return f"{function}-{argument}-{ascii(value)[:30]}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_a_bad_argument_names_itself(in_tmp, case):
    function, argument, value, error, named = case
    with pytest.raises(error) as caught:
        CALLS[function](**{argument: value})
    text = str(caught.value)
    assert "incompatible function arguments" not in text
    if error is zeroforge.ValuesError:
        assert "expected a JSON value" in text
        return
    assert isinstance(caught.value, zeroforge.UsageError)
    assert isinstance(caught.value, TypeError if error is T else ValueError)
    assert caught.value.argument == named
    assert f"{function}: {named} " in text or text.startswith("zeroforge: error: --") or \
        f"unknown option '{named}'" in text
    if error is T and "unknown option" not in text:  # a keyword estimate has not: as Python's
        # The type given: the argument's, or its offending item's (a key or value of a dict).
        given = [value, *(value if isinstance(value, list) else []),
                 *(list(value) + list(value.values()) if isinstance(value, dict) else [])]
        assert " must be " in text
        assert any(text.endswith(f", got {type(v).__name__} [usage.invalid]") for v in given), \
            text
    # The message is the exception's own, and it survives pickling (pipelines ship it).
    copy = __import__("pickle").loads(__import__("pickle").dumps(caught.value))
    assert (type(copy), str(copy), copy.argument) == (error, text, named)


def test_the_table_covers_every_argument_of_every_public_function():
    covered = {(function, argument) for function, argument, *_ in CASES}
    for function in CALLS:
        for parameter in inspect.signature(getattr(zeroforge, function)).parameters:
            assert (function, parameter) in covered, (function, parameter)
    public = {name for name in zeroforge.__all__ if inspect.isfunction(getattr(zeroforge, name))}
    assert public - set(CALLS) == {"list_presets"}  # it takes no arguments
    assert inspect.signature(zeroforge.list_presets).parameters == {}


def test_except_type_error_and_value_error_catch_them():
    with pytest.raises(TypeError):
        zeroforge.render(TEMPLATE, template_dirs=3)
    with pytest.raises(ValueError):
        zeroforge.validate({}, world_size=2**70)
    assert issubclass(zeroforge.ArgumentTypeError, zeroforge.UsageError)
    assert issubclass(zeroforge.ArgumentValueError, zeroforge.UsageError)
    assert not issubclass(zeroforge.ArgumentTypeError, ValueError)
    assert not issubclass(zeroforge.ArgumentValueError, TypeError)


def test_world_size_past_64_bits_is_out_of_range_not_a_type_error():
    # As the CLI words `--world-size 0`; Python's ints have no 64-bit limit to hit first.
    with pytest.raises(zeroforge.ArgumentValueError) as caught:
        zeroforge.validate({}, world_size=2**70)
    assert str(caught.value) == ("zeroforge: error: validate: world_size must be a whole number "
                                 "from 1 to 1000000000, got 1180591620717411303424 "
                                 "[usage.invalid]")


@pytest.mark.parametrize("dirs", [["no-such-dir"], "no-such-dir", ["a-file"]])
def test_a_bad_plugin_directory_is_the_clis_error(cli, in_tmp, dirs):
    (in_tmp / "a-file").write_text("")
    for call, cli_args in (
            (lambda: zeroforge.list_plugins(dirs), ["list", "plugins"]),
            (lambda: zeroforge.estimate("llama-2-7b", plugin_dirs=dirs),
             ["estimate", "--model", "llama-2-7b"]),
            (lambda: zeroforge.render(TEMPLATE, plugin_dirs=dirs), ["render", TEMPLATE])):
        with pytest.raises(zeroforge.ArgumentValueError) as caught:
            call()
        name = dirs if isinstance(dirs, str) else dirs[0]
        done = cli(*cli_args, "--plugin-dir", name, cwd=in_tmp)
        assert done.returncode == 2
        assert str(caught.value) + "\n" == done.stderr


def test_a_path_may_name_a_file_whose_name_is_not_utf8(in_tmp):
    # b"v\xff.json" is "v\udcff.json" to Python (surrogateescape): a file it can name.
    (in_tmp / os.fsdecode(b"v\xff.json")).write_text('{"stage": 2}')
    config = zeroforge.render(TEMPLATE, values=os.fsdecode(b"v\xff.json"))
    assert config["zero_optimization"]["stage"] == 2
    assert config == zeroforge.render(TEMPLATE, values=b"v\xff.json")


def test_one_plugin_name_is_one_plugin_not_its_letters(in_tmp):
    with pytest.raises(zeroforge.PluginError) as caught:
        zeroforge.render(TEMPLATE, plugins="no-such-plugin")
    assert "'no-such-plugin' not found" in str(caught.value)
