# SPDX-License-Identifier: MIT
# The public functions' arguments, checked before they reach the extension: one that no call
# could take raises ArgumentTypeError or ArgumentValueError naming it and what it takes, never
# pybind11's "incompatible function arguments".
"""Argument checks of zeroforge's public functions (docs/python.md, "Errors and findings")."""

import math
import os
from collections.abc import Iterable, Mapping
from typing import Any, Collection, List, Optional

from ._errors import ArgumentTypeError, ArgumentValueError, usage_text

PATH = "a str or os.PathLike"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def type_error(function: str, argument: str, expected: str, value: Any) -> ArgumentTypeError:
    message = f"{function}: {argument} must be {expected}, got {type(value).__name__}"
    return ArgumentTypeError(usage_text(message), kind="usage", message=message,
                             argument=argument)


def value_error(function: str, argument: str, problem: str,
                text: Optional[str] = None) -> ArgumentValueError:
    message = f"{function}: {argument} {problem}"
    return ArgumentValueError(text or usage_text(message), kind="usage",
                              message=message, argument=argument)


def _no_nul(function: str, argument: str, value: Any, shown: Any) -> None:
    if ("\0" if isinstance(value, str) else b"\0") in value:
        raise value_error(function, argument, "holds a NUL character, which no path or "
                          f"command-line argument can: {_shown(shown)}")


def text(function: str, argument: str, value: Any) -> str:
    """A str that is UTF-8 text: no lone surrogate, no NUL."""
    if not isinstance(value, str):
        raise type_error(function, argument, "a str", value)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise value_error(function, argument, "must be valid Unicode: it holds the lone "
                          f"surrogate {value[error.start]!r}: {_shown(value)}") from None
    _no_nul(function, argument, value, value)
    return value


def optional_text(function: str, argument: str, value: Any) -> Optional[str]:
    return None if value is None else text(function, argument, value)


def path(function: str, argument: str, value: Any, expected: str = PATH) -> bytes:
    """A file name, as the file system takes it: a str (with the surrogates Python decodes
    undecodable bytes to), bytes or an os.PathLike; never a NUL."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise type_error(function, argument, expected, value)
    try:
        name = os.fsencode(value)
    except UnicodeEncodeError as error:
        raise value_error(function, argument, "cannot name a file: it holds the lone surrogate "
                          f"{error.object[error.start]!r}: {_shown(value)}") from None
    except TypeError:  # an os.PathLike whose __fspath__ returns something else
        raise type_error(function, argument, expected, value) from None
    _no_nul(function, argument, name, value)
    return name


def optional_path(function: str, argument: str, value: Any) -> Optional[bytes]:
    return None if value is None else path(function, argument, value)


def _items(function: str, argument: str, value: Any, expected: str) -> List[Any]:
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise type_error(function, argument, expected, value)
    return list(value)


def paths(function: str, argument: str, value: Any) -> List[bytes]:
    """None, one path, or an iterable of them (item N named argument[N])."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, os.PathLike)):
        return [path(function, argument, value)]
    items = _items(function, argument, value, f"{PATH} or an iterable of them")
    return [path(function, f"{argument}[{i}]", item) for i, item in enumerate(items)]


def directories(function: str, argument: str, option: str, value: Any) -> List[bytes]:
    """paths() that must be directories, refused as the CLI refuses `option DIR`."""
    out = paths(function, argument, value)
    single = isinstance(value, (str, bytes, os.PathLike))
    for i, name in enumerate(out):
        if not os.path.isdir(name):
            shown = os.fsdecode(name)
            item = argument if single else f"{argument}[{i}]"
            raise value_error(function, item, f"'{shown}' is not a directory",
                              text=usage_text(f"{option} '{shown}' is not a directory"))
    return out


def names(function: str, argument: str, value: Any) -> List[bytes]:
    """Plugins: names or paths, one or an iterable of them."""
    return paths(function, argument, value) if value is not None else []


def texts(function: str, argument: str, value: Any) -> List[str]:
    """None, one str, or an iterable of str."""
    if value is None:
        return []
    if isinstance(value, str):
        return [text(function, argument, value)]
    items = _items(function, argument, value, "a str or an iterable of str")
    return [text(function, f"{argument}[{i}]", item) for i, item in enumerate(items)]


def flag(function: str, argument: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise type_error(function, argument, "a bool", value)
    return value


def whole(function: str, argument: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise type_error(function, argument, "an int", value)
    if not low <= value <= high:
        raise value_error(function, argument, f"must be a whole number from {low} to {high}, "
                          f"got {value}")
    return value


def number(function: str, argument: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise type_error(function, argument, "an int or a float", value)
    if isinstance(value, float) and not math.isfinite(value):
        raise value_error(function, argument, f"must be a finite number, got {value}")
    return value


def choice(function: str, argument: str, value: Any, choices: Collection[str]) -> str:
    value = text(function, argument, value)
    if value not in choices:
        listed = ", ".join(list(choices)[:-1]) + " or " + list(choices)[-1]
        raise value_error(function, argument, f"must be {listed}, got '{value}'")
    return value
