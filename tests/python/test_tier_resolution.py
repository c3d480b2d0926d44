# SPDX-License-Identifier: MIT
# One tier resolution (docs/tiers.md): render, explain (a template and a family's member),
# generate and estimate find a team's tier named like a shipped one as the CLI does, use it,
# and warn that it shadows the shipped one, naming both files; a unique name gives no warning.
import json
import os
import warnings

import pytest

import zeroforge

# The team's small: 8 GPUs, micro batch 2 (the shipped small: 1 GPU, micro batch 1).
TEAM_SMALL = {"gpus_per_node": 8, "nodes": 1, "gpu_memory_gib": 79.15, "cpu_memory_gib": 1007.5,
              "micro_batch_size": 2}


def family(tier):
    return {"name": "team", "template": "deepspeed/config.json.j2", "tiers": [tier],
            "output": "{{ tier }}.json"}


def team_config(config):
    return (config["train_micro_batch_size_per_gpu"], config["train_batch_size"]) == (2, 16)


# Each entry point: how it is called with a tier name, and whether what it returned shows
# the team's tier was read; `family` says the name comes from fam.json.
ENTRY_POINTS = [
    ("render", False,
     lambda tier: zeroforge.render("deepspeed/config.json.j2", tier=tier),
     lambda out, tier, file: team_config(out)),
    ("explain a template", False,
     lambda tier: zeroforge.explain("deepspeed/config.json.j2", tier=tier),
     lambda out, tier, file: out.tier == {"name": tier, "file": file}
     and any(v.name == "micro_batch_size" and v.value == 2 and v.source == file
             for v in out.values)),
    ("explain a family's member", True,
     lambda tier: zeroforge.explain("fam.json"),
     lambda out, tier, file: out.tier == {"name": tier, "file": file}),
    ("generate", True,
     lambda tier: zeroforge.generate("fam.json", "out"),
     lambda out, tier, file: out.exit_code == 0
     and team_config(json.loads(open(os.path.join("out", tier + ".json")).read()))),
    ("estimate", False,
     lambda tier: zeroforge.estimate("gpt2", tier=tier),
     lambda out, tier, file: out["tier"]["file"] == file and out["inputs"]["gpus_per_node"] == 8),
]


def shadow_warning(where, tier, file, origin, later):
    return (f"{where or 'zeroforge'}: warning: tier '{tier}' is {file} ({origin}), which shadows "
            f"{later} later on the tier search path; rename one of them, or give the tier's path "
            "to choose a file ('zeroforge list tiers' shows the search path) [tier.shadowed]")


def call(entry, tier):
    """What the entry point returned, and the warnings it gave (generate's are messages)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = entry(tier)
    said = [str(w.message) for w in caught]
    if isinstance(out, zeroforge.GenerateResult):
        said += [m for m in out.messages if ": warning: " in m]
    return out, said


@pytest.fixture
def shipped(source_dir, monkeypatch):
    """The shipped data from the source tree, so that the shipped tiers' files are known."""
    monkeypatch.setenv("ZEROFORGE_DATA_DIR", str(source_dir))
    monkeypatch.delenv("ZEROFORGE_TIER_PATH", raising=False)
    return lambda name: str(source_dir / "presets" / "tiers" / f"{name}.json")


@pytest.mark.parametrize("name, from_family, entry, uses_team", ENTRY_POINTS,
                         ids=[e[0] for e in ENTRY_POINTS])
def test_a_team_tier_in_tiers_shadows_the_shipped_one(name, from_family, entry, uses_team,
                                                      in_tmp, shipped):
    (in_tmp / "tiers").mkdir()
    (in_tmp / "tiers" / "small.json").write_text(json.dumps(TEAM_SMALL))
    (in_tmp / "fam.json").write_text(json.dumps(family("small")))
    out, said = call(entry, "small")
    assert uses_team(out, "small", "tiers/small.json"), out
    # fam.json is in the working directory: its tiers/ is ./tiers, found as the family's.
    expected = (shadow_warning("fam.json: /tiers/0", "small", "tiers/small.json",
                               "beside the family", shipped("small")) if from_family else
                shadow_warning("", "small", "tiers/small.json", "working directory",
                               shipped("small")))
    assert said == [expected]


@pytest.mark.parametrize("name, from_family, entry, uses_team", ENTRY_POINTS,
                         ids=[e[0] for e in ENTRY_POINTS])
def test_a_tier_on_zeroforge_tier_path_shadows_the_shipped_one(name, from_family, entry,
                                                               uses_team, in_tmp, shipped,
                                                               monkeypatch):
    (in_tmp / "site").mkdir()
    (in_tmp / "site" / "small.json").write_text(json.dumps(TEAM_SMALL))
    (in_tmp / "fam.json").write_text(json.dumps(family("small")))
    monkeypatch.setenv("ZEROFORGE_TIER_PATH", "site")
    out, said = call(entry, "small")
    assert uses_team(out, "small", "site/small.json"), out
    where = "fam.json: /tiers/0" if from_family else ""
    assert said == [shadow_warning(where, "small", "site/small.json", "ZEROFORGE_TIER_PATH",
                                   shipped("small"))]


@pytest.mark.parametrize("name, from_family, entry, uses_team", ENTRY_POINTS,
                         ids=[e[0] for e in ENTRY_POINTS])
def test_a_unique_name_gives_no_warning(name, from_family, entry, uses_team, in_tmp, shipped):
    (in_tmp / "tiers").mkdir()
    (in_tmp / "tiers" / "a100x8.json").write_text(json.dumps(TEAM_SMALL))
    (in_tmp / "fam.json").write_text(json.dumps(family("a100x8")))
    out, said = call(entry, "a100x8")
    assert uses_team(out, "a100x8", "tiers/a100x8.json"), out
    assert said == []


def test_the_warnings_are_the_clis(cli, in_tmp, shipped):
    (in_tmp / "tiers").mkdir()
    (in_tmp / "tiers" / "small.json").write_text(json.dumps(TEAM_SMALL))
    _, said = call(ENTRY_POINTS[0][2], "small")
    done = cli("render", "deepspeed/config.json.j2", "--tier", "small", cwd=in_tmp,
               env={"ZEROFORGE_DATA_DIR": os.environ["ZEROFORGE_DATA_DIR"]})
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines()] == said


def test_list_tiers_lists_the_working_directorys_tiers(in_tmp, shipped):
    (in_tmp / "tiers").mkdir()
    (in_tmp / "tiers" / "small.json").write_text(json.dumps(TEAM_SMALL))
    small = [t for t in zeroforge.list_tiers() if t.name == "small"]
    assert [(t.origin, t.file, t.shadowed_by) for t in small] == [
        ("working directory", "tiers/small.json", None),
        ("built-in", shipped("small"), "tiers/small.json")]
