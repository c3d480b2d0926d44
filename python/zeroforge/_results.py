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
    #: The tiers made, in family order (every tier without ``tiers=``).
    tiers: List[str] = field(default_factory=list)
    #: With ``tiers=``: configs of the other tiers whose manifest entries (and files) were kept.
    kept: int = 0
    written: List[str] = field(default_factory=list)
    unchanged: List[str] = field(default_factory=list)
    removed: List[str] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    changed: List[str] = field(default_factory=list)
    extra: List[str] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)
    refusals: List[Refusal] = field(default_factory=list)
    messages: List[str] = field(default_factory=list)
    #: The same notes and warnings as ``generate --format json`` writes them (its ``messages``:
    #: code, kind, severity, message, file, pointer), e.g. ``values.plugin-replaced``.
    diagnostics: List[Dict[str, Any]] = field(default_factory=list)

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
            "companions": self.companions, "tiers": list(self.tiers), "kept": self.kept}
        if self.check:
            out.update(missing=list(self.missing), changed=list(self.changed),
                       extra=list(self.extra))
        else:
            out.update(written=list(self.written), unchanged=list(self.unchanged),
                       removed=list(self.removed))
        out["findings"] = [f.to_dict() for f in self.findings]
        out["refusals"] = [r.to_dict() for r in self.refusals]
        out["errors"] = []
        out["messages"] = list(self.diagnostics)
        return out

    @classmethod
    def _from_summary(cls, summary: Dict[str, Any], messages: List[str]) -> "GenerateResult":
        files = {key: summary.get(key, []) for key in
                 ("written", "unchanged", "removed", "missing", "changed", "extra")}
        return cls(family=summary["family"], output_dir=summary["output_dir"],
                   manifest=summary["manifest"], check=summary["check"],
                   exit_code=summary["exit_code"], configs=summary["configs"],
                   companions=summary["companions"], tiers=summary["tiers"],
                   kept=summary["kept"], **files,
                   findings=[Finding(**f) for f in summary["findings"]],
                   refusals=[Refusal(**r) for r in summary["refusals"]], messages=messages,
                   diagnostics=summary["messages"])


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
    "working directory" (``./tiers``), "ZEROFORGE_TIER_PATH", "built-in" or "named by the
    family"; a name found earlier on the
    path shadows this one (``shadowed_by``, and ``values`` is then None)."""

    name: str
    file: str
    origin: str
    values: Optional[Dict[str, Any]]
    shadowed_by: Optional[str]


@dataclass(frozen=True)
class Diagnostic:
    """Something the engine has to say about its input (zeroforge/diagnostic.hpp): a stable
    ``code`` (``values.contract``, ``plugin.refused``, ``values.unread``; docs/cli.md lists
    them), ``severity``, ``kind``, the message, and where: ``file`` (or a layer's label such as
    ``--set stage=5``), ``line``/``column`` or ``pointer``. ``reporter`` is the plugin that
    said it ("" for the engine); ``notes`` are further lines. ``str()`` is the CLI's line."""

    code: str
    severity: str
    kind: str
    message: str
    file: str
    line: Optional[int]
    column: Optional[int]
    pointer: str
    source_line: str
    reporter: str
    notes: List[str]
    text: str = field(default="", repr=False, compare=False)

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> Dict[str, Any]:
        """The diagnostic as ``--format json`` writes it (location fields only when set)."""
        out: Dict[str, Any] = {"code": self.code, "kind": self.kind,
                               "severity": self.severity, "message": self.message}
        for key, value in (("file", self.file), ("line", self.line), ("column", self.column),
                           ("pointer", self.pointer), ("reporter", self.reporter),
                           ("notes", self.notes)):
            if value:
                out[key] = value
        return out


@dataclass(frozen=True)
class ExplainedValue:
    """One value and the layer that set it: ``name`` dotted (``zero.reduce_bucket_size``),
    ``layer`` the layer's kind ("template default", "tier", "family", "variant",
    "values file", "--set", "plugin") and ``source`` its label (a file, ``--set stage=3``)."""

    name: str
    value: Any
    layer: str
    source: str

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "value": self.value, "layer": self.layer,
                "source": self.source}


@dataclass(frozen=True)
class Explanation:
    """Where each value of a config came from: what ``zeroforge explain`` prints.

    ``values`` are those the template reads, ``for_plugins`` the tier facts and auto_fit
    that plugins read, ``for_validator`` what only the validator reads (accelerate_version),
    ``unused`` those set but read by none of them (often a typo), ``undefined``
    the names the template reads that no layer sets, ``derived`` the DeepSpeed contract's
    facts (world size, batch arithmetic) when it holds. ``problems`` (values the contract
    refuses, the CLI's exit 2) and ``refusals`` (plugins', exit 1) are diagnostics."""

    subject: str
    template: str
    values: List[ExplainedValue]
    unused: List[ExplainedValue]
    for_plugins: List[ExplainedValue]
    undefined: List[str]
    derived: Optional[Dict[str, Any]]
    problems: List[Diagnostic] = field(default_factory=list)
    refusals: List[Diagnostic] = field(default_factory=list)
    #: The config's tier, ``{"name": "small", "file": "tiers/small.json"}`` (the file its
    #: name resolved to on the tier search path), or None without one.
    tier: Optional[Dict[str, str]] = None
    for_validator: List[ExplainedValue] = field(default_factory=list)
    #: ``launch``: what the launch companions read (no config template reads it).
    for_companions: List[ExplainedValue] = field(default_factory=list)
    #: ``values.plugin-replaced`` notes: a family member's value a plugin's values replaced.
    notes: List[Diagnostic] = field(default_factory=list)
    #: The rendered config's fields plugins' output hooks changed, as ``explain --format json``
    #: lists them: ``{"name", "value" (absent when removed), "removed", "layer": "output hook",
    #: "source": "plugin NAME", "rendered" (what the template wrote there; absent: nothing)}``.
    output_hooks: List[Dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        """What ``zeroforge explain --format json`` prints for the same config."""
        out: Dict[str, Any] = {
            "subject": self.subject, "template": self.template, "tier": self.tier,
            "values": [v.to_dict() for v in self.values],
            "output_hooks": [dict(change) for change in self.output_hooks],
            "unused": [v.to_dict() for v in self.unused],
            "for_plugins": [v.to_dict() for v in self.for_plugins],
            "for_validator": [v.to_dict() for v in self.for_validator],
            "for_companions": [v.to_dict() for v in self.for_companions],
            "undefined": list(self.undefined)}
        if self.derived is not None:
            out["derived"] = self.derived
        out["diagnostics"] = [d.to_dict() for d in self.problems + self.refusals + self.notes]
        return out


@dataclass(frozen=True)
class MigrationNote:
    """One rewrite ``migrate`` made (docs/migrate.md): its ``code`` (``migrate.renamed``,
    ``migrate.integer``, ...), the ``pointer`` into the input, the key and value before and
    after (``old``/``new``: ``{"pointer", "value"}``, None where the key was absent or is
    removed) and the release change that needs it."""

    file: str
    code: str
    pointer: str
    old: Optional[Dict[str, Any]]
    new: Optional[Dict[str, Any]]
    reason: str

    def to_dict(self) -> Dict[str, Any]:
        return {"file": self.file, "code": self.code, "pointer": self.pointer, "old": self.old,
                "new": self.new, "reason": self.reason}


@dataclass(frozen=True)
class Migration:
    """What a ``migrate`` made of one config or family: the release it was taken from
    (``from_``, and whether it was inferred), the target, the rewrites, the migrated document
    (``result``: the config or the family, a dict) and its ``text``, which is the input's own
    bytes when nothing changed (``changed`` False)."""

    kind: str
    file: str
    from_: str
    from_inferred: bool
    to: str
    changed: bool
    notes: List[MigrationNote]
    result: Dict[str, Any]
    text: str

