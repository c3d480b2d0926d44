# SPDX-License-Identifier: MIT
# list_templates, list_presets, list_tiers and list_plugins against `zeroforge list ...`, and
# __version__ against `zeroforge --version`.
import json

import zeroforge


def test_version_is_the_clis(cli):
    assert cli("--version").stdout == f"zeroforge {zeroforge.__version__}\n"


def test_templates_are_the_clis(cli, in_tmp):
    assert zeroforge.list_templates() == cli("list", "templates").stdout.splitlines()
    assert zeroforge.list_templates(all=True) == cli("list", "templates", "--all").stdout.splitlines()
    (in_tmp / "mine" / "team").mkdir(parents=True)
    (in_tmp / "mine" / "team" / "x.json.j2").write_text("{}")
    listed = zeroforge.list_templates(["mine"])
    assert "team/x.json.j2" in listed
    assert listed == cli("list", "templates", "--template-dir", "mine", cwd=in_tmp).stdout.splitlines()


def test_presets_are_the_clis(cli):
    lines = cli("list", "presets").stdout.splitlines()
    heads = [line for line in lines if not line.startswith("    ")]
    presets = zeroforge.list_presets()
    assert len(presets) == len(heads)
    for preset, head in zip(presets, heads):
        tiers = max(len(preset.tiers), 1)
        assert head == f"{preset.name}  ({preset.template}, {tiers} tier{'s' if tiers != 1 else ''})"
    assert "example" in [p.name for p in presets]


def test_tiers_are_the_clis(cli, in_tmp):
    import re
    tiers = zeroforge.list_tiers()
    text = cli("list", "tiers").stdout
    assert [t.name for t in tiers] == ["large", "medium", "small"]
    for tier in tiers:
        assert tier.origin == "built-in" and tier.shadowed_by is None
        assert tier.values == json.loads(open(tier.file).read())
        facts = (f"{tier.values['nodes']} node(s) x {tier.values['gpus_per_node']} GPU(s) of "
                 f"{json.dumps(tier.values['gpu_memory_gib'])} GiB")
        assert re.search(rf"^  {tier.name} +{re.escape(facts)}", text, re.M), (facts, text)


def test_a_family_tier_shadows_a_shipped_one(cli, in_tmp):
    (in_tmp / "tiers").mkdir()
    (in_tmp / "tiers" / "small.json").write_text('{"gpus_per_node": 2, "nodes": 1}')
    (in_tmp / "fam.json").write_text(json.dumps({"name": "f", "template": "deepspeed/config.json.j2",
                                                 "tiers": ["small"]}))
    tiers = zeroforge.list_tiers("fam.json")
    first, *rest = [t for t in tiers if t.name == "small"]
    assert first.origin == "beside the family" and first.values == {"gpus_per_node": 2, "nodes": 1}
    assert rest and rest[0].shadowed_by == first.file and rest[0].values is None
    assert f"shadowed by {first.file}" in cli("list", "tiers", "--family", "fam.json", cwd=in_tmp).stdout


def test_plugins_are_the_clis(cli):
    listed = json.loads(cli("list", "plugins", "--format", "json").stdout)
    assert zeroforge.list_plugins() == listed["plugins"]
    assert "memory" in [p["name"] for p in zeroforge.list_plugins()]


def test_dumps_is_zeroforges_json_text():
    assert zeroforge.dumps({"a": [1, 2.0, 3e-5], "b": {}, "c": None}) == (
        '{\n  "a": [\n    1,\n    2.0,\n    3e-5\n  ],\n  "b": {},\n  "c": null\n}\n')


def test_zeroforge_data_dir_is_read_as_the_cli_reads_it(cli, in_tmp, monkeypatch, source_dir):
    monkeypatch.setenv("ZEROFORGE_DATA_DIR", str(in_tmp / "no-such-dir"))
    with __import__("pytest").raises(zeroforge.UsageError) as caught:
        zeroforge.list_templates()
    assert str(caught.value) + "\n" == cli("list", "templates").stderr
    # A data directory of one's own: its templates are the shipped ones.
    (in_tmp / "data" / "templates" / "team").mkdir(parents=True)
    (in_tmp / "data" / "templates" / "team" / "only.json.j2").write_text("{}")
    monkeypatch.setenv("ZEROFORGE_DATA_DIR", str(in_tmp / "data"))
    assert zeroforge.list_templates() == ["team/only.json.j2"]
    assert cli("list", "templates").stdout.splitlines() == ["team/only.json.j2"]
