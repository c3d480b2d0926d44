# SPDX-License-Identifier: MIT
# The exceptions zeroforge raises. The extension raises them with what the CLI prints for the
# same error as str(e), and the location as attributes.
"""zeroforge's exceptions: zeroforge.Error and one subclass per kind of failure."""

from typing import Any, Optional, Sequence

from ._results import Diagnostic, Finding


def usage_text(message: str) -> str:
    """The line the CLI prints for a usage error without a location, ending with its code as
    every diagnostic line does: ``zeroforge: error: MESSAGE [usage.invalid]``."""
    return f"zeroforge: error: {message} [usage.invalid]"


class Error(Exception):
    """A zeroforge error: what `zeroforge` would print on stderr and exit 2 for.

    ``str(e)`` is exactly what the CLI prints for it (without the final newline): one line
    such as ``t.json.j2:3:9: error: undefined variable 'stage' [template.undefined]``, ending
    with its code, then, for an error in a template, the source line and a caret under the
    column.

    Attributes:
        code: the stable diagnostic code (``values.contract``, ``tier.unknown-key``,
            ``output.shared-path``; docs/cli.md, "Diagnostic codes").
        message: the message alone, without location or ``error:``.
        kind: ``"syntax"``, ``"undefined"``, ``"render"``, ``"template"``, ``"json"``,
            ``"values"``, ``"io"``, ``"plugin"`` or ``"usage"``.
        file: the file (or ``--set`` assignment, or ``values[N]``) the error is in, or None.
        line, column: 1-based position in ``file``, or None.
        pointer: the JSON pointer of the value in ``file`` (``/axes/stage/2``), or None.
        source_line: the template line the error points into, or None.
        variant: for ``generate``, the variant being made (``medium/zero3-bf16``), or None.
        findings, diagnostics: for ``render``, ``render_text`` and ``explain``, the
            validator's findings (Finding) and the messages (Diagnostic) of the failed or
            refused config; empty otherwise.
    """

    # Set by render(), render_text() and explain() on what they raise; declared here for type
    # checkers (the stubs import this module) and as empty defaults for every other error.
    findings: Sequence[Finding] = ()
    diagnostics: Sequence[Diagnostic] = ()

    def __init__(self, text: str, *, code: str = "usage.invalid", kind: str = "usage",
                 message: Optional[str] = None,
                 file: Optional[str] = None, line: Optional[int] = None,
                 column: Optional[int] = None, pointer: Optional[str] = None,
                 source_line: Optional[str] = None, variant: Optional[str] = None,
                 **extra: Any) -> None:
        super().__init__(text)
        self.text = text
        self.code = code
        self.kind = kind
        self.message = text if message is None else message
        self.file = file
        self.line = line
        self.column = column
        self.pointer = pointer
        self.source_line = source_line
        self.variant = variant
        for name, value in extra.items():
            setattr(self, name, value)

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> Any:
        # Picklable with its attributes (multiprocessing, Ray and Airflow ship exceptions
        # between processes).
        return (self.__class__, (self.text,), dict(self.__dict__))


class TemplateError(Error):
    """A template that cannot be found, does not parse, or fails to render (an undefined
    variable, a type error), or whose output is not valid JSON. ``file``, ``line``,
    ``column`` and ``source_line`` say where."""


class ValuesError(Error):
    """Malformed or invalid values: a values file or dict, a ``set`` entry, a tier or a
    family that the values contract refuses. ``file`` and ``pointer`` say where the value
    was written (``--set stage=7`` and ``/stage`` for ``set={"stage": 7}``). A file read
    (values, family, tier, config) that is not JSON is one too: code ``json.syntax``, with
    ``line`` and ``column``."""


class UsageError(Error):
    """A call that does not make sense: an unknown family, tier or template name, an
    argument out of range, an unknown DeepSpeed version. An argument that no call could take
    is one of its two subclasses, which are also Python's own classes for them:
    ArgumentTypeError (a TypeError) and ArgumentValueError (a ValueError)."""


class ArgumentTypeError(UsageError, TypeError):
    """An argument of a type the function does not take (``jobs="4"``, ``template_dirs=3``).
    ``argument`` names it (``template_dirs[1]`` for an item); ``str(e)`` names it too, with
    the type expected and the type given. Also a TypeError."""

    argument: str = ""


class ArgumentValueError(UsageError, ValueError):
    """An argument of the right type whose value no call can take: out of range
    (``world_size=2**70``), not one of the choices, a str holding a NUL character (no path or
    command-line argument can) or a lone surrogate (no UTF-8 text can; a path may hold the
    ones Python decodes undecodable bytes of a file name to), a ``plugin_dirs`` entry that is
    not a directory. ``argument`` names it. Also a ValueError."""

    argument: str = ""


class FileError(Error, OSError):
    """A file that cannot be read or written (also an OSError)."""


class PluginError(Error):
    """A plugin that cannot be loaded or whose hook failed."""


class RefusedError(Error):
    """A config that was made but refused, where the CLI exits 1 and writes nothing: the
    validator found errors in it (``findings``, a list of Finding) or a plugin's values hook
    refused it (``refusals``, a list of Refusal, e.g. the memory plugin's "does not fit").
    ``render(..., validation="none")`` returns a config the validator would refuse."""
