# SPDX-License-Identifier: MIT
# The zeroforge package: the engine in process (docs/python.md). Each function wraps one of the
# compiled extension's (_zeroforge, python/src/) with Python arguments and docstrings; the
# answers are the CLI's, as Python objects.
"""zeroforge: DeepSpeed configs from templates, tiers and families, in process.

The same engine as the ``zeroforge`` command, returning Python objects::

    import zeroforge
    config = zeroforge.render("deepspeed/config.json.j2", tier="medium")   # a dict
    findings = zeroforge.validate(config, world_size=8)                    # [Finding, ...]
    result = zeroforge.generate("example", "configs", check=True)          # GenerateResult

Errors raise zeroforge.Error subclasses (ValuesError, TemplateError, UsageError, FileError,
PluginError) whose str() is what the CLI prints; an argument no call could take is an
ArgumentTypeError (also a TypeError) or ArgumentValueError (also a ValueError), both
UsageErrors, naming it. Findings, plugin refusals and drift are data.
See docs/python.md.
"""

import json
import os
import shlex
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _arguments, _zeroforge
from ._errors import (ArgumentTypeError, ArgumentValueError, Error, FileError, PluginError,
                      RefusedError, TemplateError, UsageError, ValuesError, usage_text)
from ._results import (Diagnostic, ExplainedValue, Explanation, Finding, GenerateResult,
                       Migration, MigrationNote, Preset, Refusal, Tier)

__version__: str = _zeroforge.__version__

__all__ = [
    "__version__", "render", "render_text", "explain", "generate", "validate", "migrate",
    "estimate",
    "list_templates", "list_presets", "list_tiers", "list_plugins", "dumps",
    "Error", "ValuesError", "TemplateError", "UsageError", "ArgumentTypeError",
    "ArgumentValueError", "FileError", "PluginError", "RefusedError", "ConfigWarning",
    "Diagnostic", "Finding", "Refusal", "GenerateResult", "Preset", "Tier", "Explanation",
    "ExplainedValue", "Migration", "MigrationNote",
]

# What a path argument takes: a str or an os.PathLike (pathlib.Path); the stubs say which.
PathLike = Union[str, os.PathLike]


# --- where the shipped templates, presets and plugins are -------------------------------------

def _package_relative(relative: str) -> str:
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), relative))


def _data_dir() -> str:
    """ZEROFORGE_DATA_DIR (as the CLI reads it, on every call), else the package's share/zeroforge."""
    from . import _layout
    env = os.environ.get("ZEROFORGE_DATA_DIR")
    if env:
        if not os.path.isdir(env):
            message = (f"ZEROFORGE_DATA_DIR='{env}' is not a directory: it replaces "
                       "<exe>/../share/zeroforge as the home of the built-in templates and "
                       "presets (unset it to use those)")
            raise UsageError(usage_text(message), kind="usage", message=message)
        return env
    return _package_relative(_layout.DATA_DIR)


def _plugin_dir() -> str:
    from . import _layout
    return _package_relative(_layout.PLUGIN_DIR)


# --- arguments as the CLI's options --------------------------------------------------------------

def _values(function: str, values: Any) -> List[Any]:
    """values=: a file, a mapping, or a sequence of them, as --values layers in order."""
    if values is None:
        return []
    if isinstance(values, (str, bytes, os.PathLike)):
        return [_arguments.path(function, "values", values)]
    if isinstance(values, Mapping):
        return [("values", dict(values))]
    expected = "a file path, a mapping, or a sequence of them"
    if not isinstance(values, Iterable):
        raise _arguments.type_error(function, "values", expected, values)
    out: List[Any] = []
    for i, item in enumerate(values):
        if isinstance(item, (str, bytes, os.PathLike)):
            out.append(_arguments.path(function, f"values[{i}]", item))
        elif isinstance(item, Mapping):
            out.append((f"values[{i}]", dict(item)))
        else:
            raise _arguments.type_error(function, f"values[{i}]", "a file path or a mapping",
                                        item)
    return out


def _assignment(option: str, key: str, value: Any) -> str:
    """KEY=VALUE as --set takes it: a str that is not JSON as written, anything else as JSON."""
    if isinstance(value, str):
        try:
            json.loads(value)
        except ValueError:
            return f"{key}={value}"
    try:
        return f"{key}={json.dumps(value, allow_nan=False)}"
    except (TypeError, ValueError) as error:
        raise ValuesError(f"{option} {key}: error: {error}", kind="values", message=str(error),
                          file=f"{option} {key}") from None


def _assignments(function: str, argument: str, option: str,
                 items: Union[None, str, Mapping[str, Any], Iterable[str]]) -> List[str]:
    """set= / plugin_options=: a mapping of dotted keys to values, or KEY=VALUE strings."""
    if items is None:
        return []
    if isinstance(items, Mapping):
        out = []
        for key, value in items.items():
            if not isinstance(key, str):
                raise _arguments.type_error(function, f"{argument} key {key!r}", "a str", key)
            name = f"{argument}[{key!r}]"
            out.append(_arguments.text(function, name, _assignment(option, key, value)))
        return out
    expected = "a mapping, a 'KEY=VALUE' str or an iterable of them"
    if not isinstance(items, (str, Iterable)):
        raise _arguments.type_error(function, argument, expected, items)
    return _arguments.texts(function, argument, items)


def _jobs(function: str, jobs: Optional[int]) -> int:
    return 0 if jobs is None else _arguments.whole(function, "jobs", jobs, 1, 256)


def _companions(function: str, companions: Union[None, str, Iterable[str]]) -> Optional[List[str]]:
    if companions is None:
        return None
    if isinstance(companions, str):
        companions = _arguments.text(function, "companions", companions)
        return [] if companions == "none" else [kind for kind in companions.split(",")]
    return _arguments.texts(function, "companions", companions)


def _validation(function: str, validation: Any) -> str:
    return _arguments.choice(function, "validation", validation, ("contract", "deepspeed", "none"))


def _inputs(function: str, values: Any, set: Any, template_dirs: Any, plugins: Any,
            plugin_dirs: Any, plugin_options: Any) -> Tuple[Any, ...]:
    """The layers and search paths render, explain and generate share, checked."""
    return (_arguments.directories(function, "template_dirs", "--template-dir", template_dirs),
            _values(function, values), _assignments(function, "set", "--set", set),
            _arguments.names(function, "plugins", plugins),
            _arguments.directories(function, "plugin_dirs", "--plugin-dir", plugin_dirs),
            _assignments(function, "plugin_options", "--plugin-opt", plugin_options))


class ConfigWarning(UserWarning):
    """A warning the CLI prints on stderr while rendering or explaining (a value set but never
    read, a plugin's logged warning); ``str()`` is the CLI's line."""


def _diagnostics(raw: List[Dict[str, Any]]) -> List[Diagnostic]:
    return [Diagnostic(**d) for d in raw]


def _warn(diagnostics: List[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        warnings.warn(ConfigWarning(str(diagnostic)), stacklevel=3)


def _render(function: str, template: str, tier: Optional[PathLike], values: Any, set: Any,
            template_dirs: Iterable[PathLike], plugins: Iterable[str],
            plugin_dirs: Iterable[PathLike], plugin_options: Any, validation: str,
            trim_blocks: bool, lstrip_blocks: bool) -> Dict[str, Any]:
    template_name = _arguments.path(function, "template", template, "a str (a template name)")
    tier_arg = _arguments.optional_path(function, "tier", tier) or b""
    dirs, layers, sets, plugin_names, plugin_paths, options = _inputs(
        function, values, set, template_dirs, plugins, plugin_dirs, plugin_options)
    validation = _validation(function, validation)
    trim = _arguments.flag(function, "trim_blocks", trim_blocks)
    lstrip = _arguments.flag(function, "lstrip_blocks", lstrip_blocks)
    try:
        raw = _zeroforge.render(
            template_name, tier_arg, dirs, layers, sets, plugin_names, plugin_paths, options,
            validation, trim, lstrip, _data_dir(), _plugin_dir())
    except Error as error:
        # Data as data: the findings and diagnostics of a refused or failed config; what the
        # CLI prints besides the error (plugin messages, unread values) as warnings.
        error.findings = [Finding(**f) for f in getattr(error, "findings", [])]
        error.diagnostics = _diagnostics(getattr(error, "diagnostics", []))
        _warn([d for d in error.diagnostics if d.severity != "error"])
        raise
    _warn(_diagnostics(raw["diagnostics"]))
    for finding in raw["findings"]:
        warnings.warn(ConfigWarning(str(Finding(**finding))), stacklevel=3)
    return raw


# --- the API ------------------------------------------------------------------------------------

def dumps(value: Any) -> str:
    """JSON text the one way zeroforge writes it (2-space indent, keys in order, integers as
    integers, floats in shortest round-trip form, a final newline): ``dumps(render(...))`` is
    byte for byte what ``zeroforge render`` prints."""
    return _zeroforge.dumps(value)


def render(template: str, *,
           tier: Optional[PathLike] = None,
           values: Any = None,
           set: Union[None, Mapping[str, Any], Iterable[str]] = None,
           template_dirs: Iterable[PathLike] = (),
           plugins: Iterable[str] = (),
           plugin_dirs: Iterable[PathLike] = (),
           plugin_options: Union[None, Mapping[str, Any], Iterable[str]] = None,
           validation: str = "contract",
           trim_blocks: bool = False,
           lstrip_blocks: bool = False) -> Dict[str, Any]:
    """Renders a JSON template over layered values and returns the config as a dict, as
    ``zeroforge render TEMPLATE`` writes it (``dumps()`` of it is the CLI's output, byte for
    byte). The library's render pipeline runs with the GIL released; threads may render at once.

    Args:
        template: a name on the template search path, e.g. ``"deepspeed/config.json.j2"``.
        tier: a tier name (``"medium"``: ``./tiers``, ZEROFORGE_TIER_PATH, then the shipped
            tiers, warning of a name that shadows a later one) or a tier file (``--tier``).
        values: a values file, a mapping, or a sequence of them, in order (``--values``).
        set: ``{"stage": 3, "zero.reduce_bucket_size": 5e8}`` or ``["stage=3"]`` (``--set``).
        template_dirs: searched before the shipped templates (``--template-dir``).
        plugins, plugin_dirs, plugin_options: ``--plugin``, ``--plugin-dir``, ``--plugin-opt``.
        validation: which configs the DeepSpeed validator checks: "contract" (templates under
            the DeepSpeed values contract), "deepspeed" (any) or "none" (``--validate``).
        trim_blocks, lstrip_blocks: Jinja2's lexer options.

    Returns:
        The config (a dict, keys in the template's order). Warnings the CLI prints (a value
        set but never read) are issued as ConfigWarning.

    Raises:
        ValuesError, TemplateError, UsageError, FileError, PluginError: bad input (the
            CLI's exit 2); ``str(e)`` is what it prints. ArgumentTypeError (a TypeError) and
            ArgumentValueError (a ValueError), both UsageErrors: an argument of the wrong
            type, or a value no call takes (a NUL, ``validation="x"``), naming it.
        RefusedError: the validator found errors, or a plugin refused the values (exit 1);
            ``e.findings`` and ``e.diagnostics`` hold them.
    """
    raw = _render("render", template, tier, values, set, template_dirs, plugins, plugin_dirs,
                  plugin_options, validation, trim_blocks, lstrip_blocks)
    if not raw["json"]:
        message = (f"render: '{template}' is not a JSON template (its name does not end in "
                   ".json or .json.j2); render_text() renders it")
        raise UsageError(usage_text(message), kind="usage", message=message)
    return raw["config"]


def render_text(template: str, *,
                tier: Optional[PathLike] = None,
                values: Any = None,
                set: Union[None, Mapping[str, Any], Iterable[str]] = None,
                template_dirs: Iterable[PathLike] = (),
                plugins: Iterable[str] = (),
                plugin_dirs: Iterable[PathLike] = (),
                plugin_options: Union[None, Mapping[str, Any], Iterable[str]] = None,
                validation: str = "contract",
                trim_blocks: bool = False,
                lstrip_blocks: bool = False) -> str:
    """Renders any template (a launch script, a YAML file, or a JSON one) and returns the
    text ``zeroforge render`` writes: for a JSON template, the normalised JSON (``dumps`` of
    ``render``). Arguments, warnings and errors as for render()."""
    return _render("render_text", template, tier, values, set, template_dirs, plugins,
                   plugin_dirs, plugin_options, validation, trim_blocks, lstrip_blocks)["text"]


def explain(subject: PathLike, *,
            config: Optional[str] = None,
            tier: Optional[PathLike] = None,
            values: Any = None,
            set: Union[None, Mapping[str, Any], Iterable[str]] = None,
            template_dirs: Iterable[PathLike] = (),
            plugins: Iterable[str] = (),
            plugin_dirs: Iterable[PathLike] = (),
            plugin_options: Union[None, Mapping[str, Any], Iterable[str]] = None,
            trim_blocks: bool = False,
            lstrip_blocks: bool = False) -> Explanation:
    """Where each value of a config came from, as ``zeroforge explain`` shows it.

    Args:
        subject: a template (a name ending in ``.j2``; layers ``tier``, ``values``, ``set``)
            or a family (a file or a shipped name; ``config`` picks the member by its output
            path, its ``path`` in manifest.json).
        Other arguments as for render() and generate().

    Returns:
        An Explanation: ``values`` the template reads with the layer that set each,
        ``for_plugins``, ``for_validator``, ``unused``, ``undefined``, ``derived``; values the contract refuses
        are ``problems`` and plugin refusals ``refusals`` (data: explain is how you find out
        where a bad value came from); ``notes`` says which of the family's values a plugin
        replaced (``values.plugin-replaced``). ``to_dict()`` is ``explain --format json``.

    Raises:
        UsageError: no such member (the message lists the family's configs), or a
            family without ``config`` that has several; bad input as render() and generate().
    """
    subject_arg = _arguments.path("explain", "subject", subject)
    config_arg = _arguments.optional_text("explain", "config", config) or ""
    tier_arg = _arguments.optional_path("explain", "tier", tier) or b""
    dirs, layers, sets, plugin_names, plugin_paths, options = _inputs(
        "explain", values, set, template_dirs, plugins, plugin_dirs, plugin_options)
    raw = _zeroforge.explain(
        subject_arg, config_arg, tier_arg, dirs, layers, sets, plugin_names, plugin_paths,
        options, _arguments.flag("explain", "trim_blocks", trim_blocks),
        _arguments.flag("explain", "lstrip_blocks", lstrip_blocks), _data_dir(), _plugin_dir())
    _warn(_diagnostics(raw["messages"]))

    def rows(key: str) -> List[ExplainedValue]:
        return [ExplainedValue(**row) for row in raw[key]]

    return Explanation(subject=raw["subject"], template=raw["template"], values=rows("values"),
                       unused=rows("unused"), for_plugins=rows("for_plugins"),
                       for_validator=rows("for_validator"),
                       for_companions=rows("for_companions"),
                       undefined=raw["undefined"], derived=raw["derived"],
                       problems=_diagnostics(raw["problems"]),
                       refusals=_diagnostics(raw["refusals"]), tier=raw["tier"],
                       notes=_diagnostics(raw["notes"]), output_hooks=raw["output_hooks"])


def generate(family: PathLike, output_dir: PathLike, *,
             values: Any = None,
             set: Union[None, Mapping[str, Any], Iterable[str]] = None,
             jobs: Optional[int] = None,
             check: bool = False,
             companions: Union[None, str, Iterable[str]] = None,
             tiers: Union[None, str, Iterable[str]] = None,
             template_dirs: Iterable[PathLike] = (),
             plugins: Iterable[str] = (),
             plugin_dirs: Iterable[PathLike] = (),
             plugin_options: Union[None, Mapping[str, Any], Iterable[str]] = None,
             validation: str = "contract",
             trim_blocks: bool = False,
             lstrip_blocks: bool = False) -> GenerateResult:
    """Writes every config of a family into output_dir with its manifest.json, as
    ``zeroforge generate FAMILY -o DIR`` does (the library's generate; the GIL is released
    while it runs).

    Args:
        family: a family file, or the name of a shipped one (``list_presets()``).
        output_dir: where the configs and manifest.json go (created when missing).
        values: a values file, a mapping, or a sequence of them, applied to every config in
            order (``--values``; a mapping is named ``values`` or ``values[N]`` in messages).
        set: ``{"zero.reduce_bucket_size": 5e8}`` or ``["stage=3"]`` (``--set``), last.
        jobs: threads (1-256); None is one per core (families with plugins use one).
        check: write nothing; report drift in ``missing``/``changed``/``extra`` (exit_code 1).
        companions: kinds to write beside each config (``"deepspeed,accelerate"``, a list, or
            ``"none"``/``[]``), replacing the family's list; None keeps the family's.
        tiers: a tier name or names (``--tier``): make only those tiers of the family; the
            other tiers' files and manifest entries stay as output_dir has them, and a check
            compares only those tiers' files. None makes every tier.
        template_dirs, plugins, plugin_dirs, plugin_options: as ``--template-dir``,
            ``--plugin``, ``--plugin-dir`` and ``--plugin-opt``.
        validation: "contract" (default), "deepspeed" or "none" (``--validate``).

    Returns:
        A GenerateResult: ``exit_code`` 0 (written, or up to date), or 1 when the validator or
        a plugin refused configs or a check found drift (``findings``, ``refusals``,
        ``missing``/``changed``/``extra``). ``to_dict()`` is the CLI's ``--format json``.

    Raises:
        ValuesError, TemplateError: the family's values or template are wrong (the CLI's
            exit 2); nothing was written. UsageError: an unknown family, a bad argument.
    """
    family_arg = _arguments.path("generate", "family", family)
    output_arg = _arguments.path("generate", "output_dir", output_dir)
    dirs, layers, sets, plugin_names, plugin_paths, options = _inputs(
        "generate", values, set, template_dirs, plugins, plugin_dirs, plugin_options)
    raw = _zeroforge.generate(
        family_arg, output_arg, dirs, layers, sets, plugin_names, plugin_paths, options,
        _arguments.flag("generate", "check", check), _jobs("generate", jobs),
        _companions("generate", companions), _arguments.texts("generate", "tiers", tiers),
        _validation("generate", validation),
        _arguments.flag("generate", "trim_blocks", trim_blocks),
        _arguments.flag("generate", "lstrip_blocks", lstrip_blocks), _data_dir(), _plugin_dir())
    return GenerateResult._from_summary(raw["summary"], raw["messages"])


def validate(config: Union[Mapping[str, Any], PathLike], *,
             world_size: Optional[int] = None,
             against_args: Union[None, str, Sequence[str]] = None,
             hf: bool = False,
             strict: bool = False,
             deepspeed_version: Optional[str] = None,
             accelerate_version: Optional[str] = None,
             name: Optional[str] = None) -> List[Finding]:
    """Checks a DeepSpeed config against DeepSpeed's schema and rules, as
    ``zeroforge validate`` does; returns the findings (an empty list: nothing to say).

    Args:
        config: the config as a dict, or the path of a JSON file (read as the CLI reads it:
            ``1e3`` stays a float).
        world_size: the data-parallel world size DeepSpeed will run with.
        against_args: the training command line (a str, or its words), e.g.
            ``"deepspeed --num_gpus 8 train.py --bf16"``; its launcher's hostfile,
            accelerate config or sbatch script is read too. Every disagreement is a finding.
        hf: the Hugging Face Trainer loads the config (it fills "auto").
        strict: warnings count as errors.
        deepspeed_version: judge by this release ("0.14.5"); None: the newest.
        accelerate_version: with ``hf``, the accelerate release the Trainer hands the config
            to ("0.23.0"); None: the newest.
        name: the file name findings carry (default: the path, or "config" for a dict).

    Returns:
        A list of Finding (``rule``, ``severity``, ``pointer``, ``message``, ``file``); the
        config has errors when any has severity "error".
    """
    if against_args is not None:
        against_args = (_arguments.text("validate", "against_args", against_args)
                        if isinstance(against_args, str)
                        else shlex.join(_arguments.texts("validate", "against_args", against_args)))
    name = _arguments.optional_text("validate", "name", name)
    if isinstance(config, Mapping):
        config = dict(config)
        label = name or "config"
    else:
        config = _arguments.path("validate", "config", config,
                                 "a mapping, or a str or os.PathLike (a file)")
        label = name or ""
    if world_size is not None:
        world_size = _arguments.whole("validate", "world_size", world_size, 1, 1000000000)
    raw = _zeroforge.validate(
        config, label, world_size, against_args, _arguments.flag("validate", "hf", hf),
        _arguments.flag("validate", "strict", strict),
        _arguments.optional_text("validate", "deepspeed_version", deepspeed_version) or "",
        _arguments.optional_text("validate", "accelerate_version", accelerate_version) or "")
    return [Finding(**finding) for finding in raw]


def migrate(input: Union[Mapping[str, Any], PathLike], *,
            to: str,
            from_: Optional[str] = None,
            drop_unknown: bool = False,
            world_size: Optional[int] = None,
            hf: bool = False,
            output: Optional[PathLike] = None,
            name: Optional[str] = None) -> Migration:
    """Rewrites a DeepSpeed config (or a family file) written for one DeepSpeed release into
    what release ``to`` reads, as ``zeroforge migrate`` does (docs/migrate.md).

    Args:
        input: the config as a dict, or the path of a config or family file (a family: a
            file with a ``template`` and no DeepSpeed key).
        to: the target release ("0.19.6").
        from_: the release the input was written for; None: a config's is the newest release
            that accepts it and reads all its keys, a family's its ``deepspeed_version``.
        drop_unknown: drop keys the target does not know instead of refusing them.
        world_size: judge the config at this data-parallel world size, as ``validate`` does.
        hf: judge the config as the HF Trainer loads it (one that says "auto" always is).
        output: write the result there (atomically); None: write nothing.
        name: the file name notes and errors carry (default: the path, or "config").

    Returns:
        A Migration: ``changed``, the ``notes`` (MigrationNote), the migrated ``result`` and its
        ``text`` (the input's own bytes when nothing changed).

    Raises:
        ValuesError: a refusal (a key with no equivalent, a config no release accepts, a result
            the target refuses): str() is what the CLI prints, ``refusals`` lists them all, and
            nothing is written. UsageError for an unknown release; FileError for a file that
            cannot be read.
    """
    to = _arguments.text("migrate", "to", to)
    from_ = _arguments.optional_text("migrate", "from_", from_) or ""
    name = _arguments.optional_text("migrate", "name", name) or ""
    if isinstance(input, Mapping):
        input = dict(input)
    else:
        input = _arguments.path("migrate", "input", input,
                                "a mapping, or a str or os.PathLike (a file)")
    if world_size is not None:
        world_size = _arguments.whole("migrate", "world_size", world_size, 1, 1000000000)
    output = _arguments.optional_path("migrate", "output", output)
    raw = _zeroforge.migrate(input, name, to, from_,
                             _arguments.flag("migrate", "drop_unknown", drop_unknown), world_size,
                             _arguments.flag("migrate", "hf", hf), output, _data_dir())
    raw["notes"] = [MigrationNote(**note) for note in raw["notes"]]
    return Migration(**raw)


_ESTIMATE_OPTIONS: Tuple[str, ...] = (
    "params", "largest_layer_params", "layers", "hidden", "heads", "vocab", "sequence_length",
    "kv_heads", "intermediate_size", "mlp", "tied_embeddings", "positions", "stage",
    "offload_optimizer", "offload_param", "precision", "optimizer", "micro_batch_size",
    "activation_checkpointing", "attention", "loss", "reduce_bucket_size",
    "allgather_bucket_size", "stage3_prefetch_bucket_size", "stage3_max_live_parameters", "tier",
    "nvme_path", "gpus_per_node", "nodes", "gpu_memory_gib", "cpu_memory_gib",
    "gpu_memory_margin", "headroom", "cuda_context_gib", "zero_init", "additional_buffer_factor",
    "gradient_accumulation_steps", "gpu", "gpu_tflops", "intra_node_gbs", "inter_node_gbs",
    "pcie_gbs", "cpu_cores", "nvme_gbs")


def estimate(model: Optional[PathLike] = None, *,
             stage: Optional[int] = None,
             offload_optimizer: Optional[str] = None,
             offload_param: Optional[str] = None,
             precision: Optional[str] = None,
             micro_batch_size: Optional[int] = None,
             sequence_length: Optional[int] = None,
             gpu_memory_gib: Optional[float] = None,
             all_stages: bool = False,
             plugin_dirs: Iterable[PathLike] = (),
             plugin_options: Union[None, Mapping[str, Any], Iterable[str]] = None,
             **options: Any) -> Dict[str, Any]:
    """Per-GPU and per-node memory of DeepSpeed ZeRO training: the record
    ``zeroforge estimate --format json`` prints, as a dict (docs/estimator.md). The memory
    plugin computes it, loaded through the plugin host as the CLI loads it.

    Args:
        model: a model preset (``"llama-2-7b"``, presets/models/) or a model file; or leave it
            out and give ``params=`` or the shape (``layers``, ``hidden``, ``heads``,
            ``vocab``, ``sequence_length``).
        stage, offload_optimizer, offload_param, precision, micro_batch_size,
        sequence_length, gpu_memory_gib: as ``--stage``, ``--offload-optimizer``, ...,
            ``--seq-len``, ``--gpu-memory-gib``.
        all_stages: every stage and offload option side by side (``--all-stages``).
        **options: any other option of ``zeroforge estimate --help``, with ``_`` for ``-``:
            ``tier="small"``, ``gpus_per_node=8``, ``nodes=2``, ``cpu_memory_gib=512``,
            ``activation_checkpointing="full"``, ``zero_init=False``, ...

    Returns:
        The estimate as a dict; with a capacity (``gpu_memory_gib`` or a tier), whether it
        fits is in it (the CLI's exit code 1 is not an error here).

    Raises:
        UsageError: an option the estimator refuses (its message is the CLI's).
    """
    given: Dict[str, Any] = dict(options)
    for key, value, check in (
            ("stage", stage, int), ("offload_optimizer", offload_optimizer, str),
            ("offload_param", offload_param, str), ("precision", precision, str),
            ("micro_batch_size", micro_batch_size, int),
            ("sequence_length", sequence_length, int),
            ("gpu_memory_gib", gpu_memory_gib, float)):
        if value is None:
            continue
        if check is str:
            _arguments.text("estimate", key, value)
        elif check is float:
            _arguments.number("estimate", key, value)
        elif isinstance(value, bool) or not isinstance(value, int):
            raise _arguments.type_error("estimate", key, "an int", value)
        given[key] = value
    args: List[Any] = []
    if model is not None:
        args += ["--model", _arguments.path("estimate", "model", model)]
    for key, value in given.items():
        if key not in _ESTIMATE_OPTIONS:
            raise ArgumentTypeError(
                f"zeroforge estimate: error: unknown option '{key}' (estimate takes "
                f"{', '.join(_ESTIMATE_OPTIONS)})", kind="usage",
                message=f"unknown option '{key}'", argument=key)
        if value is None:
            continue
        flag = "--seq-len" if key == "sequence_length" else "--" + key.replace("_", "-")
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, (int, float)):
            value = str(_arguments.number("estimate", key, value))
        elif isinstance(value, str):
            value = _arguments.text("estimate", key, value)
        else:
            raise _arguments.type_error("estimate", key, "a str, an int, a float or a bool",
                                        value)
        args += [flag, value]
    if _arguments.flag("estimate", "all_stages", all_stages):
        args.append("--all-stages")
    args += ["--format", "json"]
    code, output, message, logged = _zeroforge.run_plugin_command(
        "memory", "estimate", args,
        _arguments.directories("estimate", "plugin_dirs", "--plugin-dir", plugin_dirs),
        _assignments("estimate", "plugin_options", "--plugin-opt", plugin_options), _data_dir(),
        _plugin_dir())
    # What the plugin logged (plugin.message), as the CLI prints it on stderr.
    _warn(_diagnostics(logged))
    if message or code == 2:
        text = message or output.strip()
        raise UsageError(f"zeroforge estimate: error: {text} [usage.invalid]", kind="usage",
                         message=text)
    return json.loads(output)


def list_templates(template_dirs: Iterable[PathLike] = (), *, all: bool = False) -> List[str]:
    """The entry templates on the template search path (``template_dirs``, then the shipped
    ones), sorted: what ``zeroforge list templates`` prints. ``all=True`` adds the partials."""
    return _zeroforge.list_templates(
        _arguments.directories("list_templates", "template_dirs", "--template-dir", template_dirs),
        _arguments.flag("list_templates", "all", all), _data_dir())


def list_presets() -> List[Preset]:
    """The shipped families (presets/families): what ``zeroforge list presets`` prints."""
    return [Preset(**preset) for preset in _zeroforge.list_presets(_data_dir())]


def list_tiers(family: Optional[PathLike] = None) -> List[Tier]:
    """The tiers on the tier search path, in search order (``tiers/`` beside ``family`` when
    given, ``./tiers``, ZEROFORGE_TIER_PATH, the shipped tiers): what ``zeroforge list tiers`` prints.
    A tier whose name an earlier one has is listed with ``shadowed_by``."""
    family_arg = _arguments.optional_path("list_tiers", "family", family) or b""
    return [Tier(**tier) for tier in _zeroforge.list_tiers(family_arg, _data_dir())]


def list_plugins(plugin_dirs: Iterable[PathLike] = ()) -> List[Dict[str, Any]]:
    """The plugins on the plugin search path (``plugin_dirs``, ZEROFORGE_PLUGIN_PATH, the
    shipped ones): the ``plugins`` of ``zeroforge list plugins --format json``. A plugin file
    that fails to load raises PluginError; a ``plugin_dirs`` entry that is not a directory
    raises ArgumentValueError with the CLI's message (``list plugins --plugin-dir`` exits 2)."""
    found = _zeroforge.list_plugins(
        _arguments.directories("list_plugins", "plugin_dirs", "--plugin-dir", plugin_dirs),
        _data_dir(), _plugin_dir())
    if found["errors"]:
        first = found["errors"][0]
        raise PluginError(f"{first['path']}: error: {first['error']}", code="plugin.failed",
                          kind="plugin", message=first["error"], file=first["path"])
    return found["plugins"]
