# SPDX-License-Identifier: MIT
# The results zeroforge's functions return: plain dataclasses, each with to_dict() giving the
# JSON the CLI prints for the same thing (--format json).
"""Result types of zeroforge: Finding, Refusal, GenerateResult, Preset, Tier, Explanation."""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass(frozen=True)
class Finding:
    """One validator finding about one config (docs/validate.md lists the rules).

    ``str(finding)`` is the line ``zeroforge validate`` prints:
    ``FILE: /pointer: error [rule-id]: message``.
    """

    file: str
    pointer: str
    severity: str  # "error", "warning" or "note"
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.pointer or '/'}: {self.severity} [{self.rule}]: {self.message}"

    def to_dict(self) -> Dict[str, str]:
        """The finding as ``validate --format json`` prints it."""
        return {"file": self.file, "pointer": self.pointer, "severity": self.severity,
                "rule": self.rule, "message": self.message}


@dataclass(frozen=True)
class Refusal:
    """A config a values plugin refused to make as asked (the memory plugin's "does not fit"):
    the pointer into the values it blames, and where that value was written (``file`` and
    ``file_pointer``; empty when unknown)."""

    plugin: str
    pointer: str
    message: str
    file: str
    file_pointer: str

    def to_dict(self) -> Dict[str, str]:
        return {"plugin": self.plugin, "pointer": self.pointer, "message": self.message,
                "file": self.file, "file_pointer": self.file_pointer}


@dataclass(frozen=True)
class GenerateResult:
    """What a ``generate`` did. ``exit_code`` is the CLI's: 0 written (or, with check, up to
    date); 1 the validator or a plugin refused configs, or (check) the directory differs.
    Nothing was written unless it is 0. File lists hold paths relative to ``output_dir``;
    ``written``/``unchanged``/``removed`` are filled by a generate, ``missing``/``changed``/
    ``extra`` by a check."""

    family: str
    output_dir: str
    manifest: str
    check: bool
    exit_code: int
    configs: int
    companions: int
    written: List[str] = field(default_factory=list)
    unchanged: List[str] = field(default_factory=list)
    removed: List[str] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    changed: List[str] = field(default_factory=list)
    extra: List[str] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)
    refusals: List[Refusal] = field(default_factory=list)
    messages: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when exit_code is 0."""
        return self.exit_code == 0

    @property
    def drift(self) -> List[str]:
        """For a check: every file that differs, as ``PATH: missing|changed|extra``."""
        return ([f"{p}: missing" for p in self.missing] + [f"{p}: changed" for p in self.changed]
                + [f"{p}: extra" for p in self.extra])

    def to_dict(self) -> Dict[str, Any]:
        """The summary ``zeroforge generate --format json`` prints for the same run."""
        out: Dict[str, Any] = {
            "family": self.family, "output_dir": self.output_dir, "manifest": self.manifest,
            "check": self.check, "exit_code": self.exit_code, "configs": self.configs,
            "companions": self.companions}
        if self.check:
            out.update(missing=list(self.missing), changed=list(self.changed),
                       extra=list(self.extra))
        else:
            out.update(written=list(self.written), unchanged=list(self.unchanged),
                       removed=list(self.removed))
        out["findings"] = [f.to_dict() for f in self.findings]
        out["refusals"] = [r.to_dict() for r in self.refusals]
        out["errors"] = []
        return out

    @classmethod
    def _from_summary(cls, summary: Dict[str, Any], messages: List[str]) -> "GenerateResult":
        files = {key: summary.get(key, []) for key in
                 ("written", "unchanged", "removed", "missing", "changed", "extra")}
        return cls(family=summary["family"], output_dir=summary["output_dir"],
                   manifest=summary["manifest"], check=summary["check"],
                   exit_code=summary["exit_code"], configs=summary["configs"],
                   companions=summary["companions"], **files,
                   findings=[Finding(**f) for f in summary["findings"]],
                   refusals=[Refusal(**r) for r in summary["refusals"]], messages=messages)


@dataclass(frozen=True)
class Preset:
    """A shipped family (presets/families): its name, template, tier names and description."""

    name: str
    template: str
    tiers: List[str]
    description: str
    file: str


@dataclass(frozen=True)
class Tier:
    """A tier file on the tier search path. ``origin`` is "beside the family",
    "ZEROFORGE_TIER_PATH", "built-in" or "named by the family"; a name found earlier on the
    path shadows this one (``shadowed_by``, and ``values`` is then None)."""

    name: str
    file: str
    origin: str
    values: Optional[Dict[str, Any]]
    shadowed_by: Optional[str]
