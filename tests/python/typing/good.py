# SPDX-License-Identifier: MIT
# A typed user program of the zeroforge module: mypy --strict must accept it (check_types.py).
# It touches every public function and result class the stubs declare.
from pathlib import Path
from typing import Any, Dict, List, Optional

import zeroforge
from zeroforge import (ConfigWarning, Diagnostic, ExplainedValue, Explanation, Finding,
                       GenerateResult, Migration, MigrationNote, Preset, Refusal, Tier)


def batch_size(tier: str) -> int:
    config: Dict[str, Any] = zeroforge.render("deepspeed/config.json.j2", tier=tier,
                                              set={"stage": 3}, values=[{"gpus": 8}])
    size: int = config["train_batch_size"]
    return size


def text(template: str) -> str:
    return zeroforge.render_text(template, tier=Path("tiers/medium.json"),
                                 validation="none", trim_blocks=True)


def layers(family: Path) -> List[str]:
    explanation: Explanation = zeroforge.explain(family, config="medium/zero3-bf16")
    values: List[ExplainedValue] = explanation.values
    problems: List[Diagnostic] = explanation.problems
    derived: Optional[Dict[str, Any]] = explanation.derived
    return [f"{v.name}={v.value} ({v.layer})" for v in values] + [str(p) for p in problems] + (
        sorted(derived) if derived else [])


def regenerate(family: str, out: Path) -> List[str]:
    result: GenerateResult = zeroforge.generate(family, out, check=True, jobs=2,
                                                companions=["deepspeed"])
    refusals: List[Refusal] = result.refusals
    findings: List[Finding] = result.findings
    counts: int = result.configs + result.companions
    return result.drift + [r.message for r in refusals] + [f.rule for f in findings] + [
        str(counts)] if not result.ok else []


def errors_of(config: Dict[str, Any]) -> List[str]:
    findings = zeroforge.validate(config, world_size=8, hf=True, deepspeed_version="0.14.5",
                                  against_args=["--deepspeed", "ds.json"])
    return [f"{f.pointer}: {f.message}" for f in findings if f.severity == "error"]


def migrated(path: Path) -> Dict[str, Any]:
    migration: Migration = zeroforge.migrate(path, to="0.19.6", from_="0.14.5", hf=True)
    notes: List[MigrationNote] = migration.notes
    return migration.result if migration.changed and notes else {}


def estimate_gib(model: str) -> float:
    record: Dict[str, Any] = zeroforge.estimate(model, stage=3, offload_optimizer="cpu",
                                                precision="bf16", gpu_memory_gib=80.0,
                                                gpus_per_node=8)
    total: float = record["per_gpu"]["total_gib"]
    return total


def listings() -> List[str]:
    presets: List[Preset] = zeroforge.list_presets()
    tiers: List[Tier] = zeroforge.list_tiers()
    plugins: List[Dict[str, Any]] = zeroforge.list_plugins(plugin_dirs=[Path("plugins")])
    templates: List[str] = zeroforge.list_templates(all=True)
    shadowed: List[Optional[str]] = [t.shadowed_by for t in tiers]
    return ([p.name for p in presets] + [t.origin for t in tiers] + [str(p["name"]) for p in plugins]
            + templates + [s for s in shadowed if s is not None])


def why(template: str) -> str:
    try:
        zeroforge.render(template)
    except zeroforge.RefusedError as error:
        return "; ".join([f.rule for f in error.findings] + [d.code for d in error.diagnostics])
    except zeroforge.ArgumentTypeError as error:
        return error.argument
    except zeroforge.Error as error:
        line: Optional[int] = error.line
        return f"{error.code} {error.kind} {error.file}:{line}"
    return zeroforge.dumps({"ok": True}) + zeroforge.__version__


def warning_text(warning: ConfigWarning) -> str:
    return str(warning)
