# SPDX-License-Identifier: MIT
# Type stubs of the zeroforge package (PEP 561: py.typed beside them). Kept by hand next to
# __init__.py; tests/python/test_stubs.py checks that they name the same functions with the
# same parameters.
import os
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Union

from ._errors import ArgumentTypeError as ArgumentTypeError
from ._errors import ArgumentValueError as ArgumentValueError
from ._errors import Error as Error
from ._errors import FileError as FileError
from ._errors import PluginError as PluginError
from ._errors import RefusedError as RefusedError
from ._errors import TemplateError as TemplateError
from ._errors import UsageError as UsageError
from ._errors import ValuesError as ValuesError
from ._results import Diagnostic as Diagnostic
from ._results import ExplainedValue as ExplainedValue
from ._results import Explanation as Explanation
from ._results import Finding as Finding
from ._results import GenerateResult as GenerateResult
from ._results import Migration as Migration
from ._results import MigrationNote as MigrationNote
from ._results import Preset as Preset
from ._results import Refusal as Refusal
from ._results import Tier as Tier

__version__: str

class ConfigWarning(UserWarning): ...

_Path = Union[str, os.PathLike[str]]
_Values = Union[None, _Path, Mapping[str, Any], Sequence[Union[_Path, Mapping[str, Any]]]]
_Assignments = Union[None, str, Mapping[str, Any], Iterable[str]]
_Validation = Literal["contract", "deepspeed", "none"]

def dumps(value: Any) -> str: ...
def render(template: str, *, tier: Optional[_Path] = ..., values: _Values = ...,
           set: _Assignments = ..., template_dirs: Iterable[_Path] = ...,
           plugins: Iterable[str] = ..., plugin_dirs: Iterable[_Path] = ...,
           plugin_options: _Assignments = ..., validation: _Validation = ...,
           trim_blocks: bool = ..., lstrip_blocks: bool = ...) -> Dict[str, Any]: ...
def render_text(template: str, *, tier: Optional[_Path] = ..., values: _Values = ...,
                set: _Assignments = ..., template_dirs: Iterable[_Path] = ...,
                plugins: Iterable[str] = ..., plugin_dirs: Iterable[_Path] = ...,
                plugin_options: _Assignments = ..., validation: _Validation = ...,
                trim_blocks: bool = ..., lstrip_blocks: bool = ...) -> str: ...
def explain(subject: _Path, *, config: Optional[str] = ..., tier: Optional[_Path] = ...,
            values: _Values = ..., set: _Assignments = ...,
            template_dirs: Iterable[_Path] = ..., plugins: Iterable[str] = ...,
            plugin_dirs: Iterable[_Path] = ..., plugin_options: _Assignments = ...,
            trim_blocks: bool = ..., lstrip_blocks: bool = ...) -> Explanation: ...
def generate(family: _Path, output_dir: _Path, *, values: _Values = ...,
             set: _Assignments = ..., jobs: Optional[int] = ..., check: bool = ...,
             companions: Union[None, str, Iterable[str]] = ...,
             tiers: Union[None, str, Iterable[str]] = ...,
             template_dirs: Iterable[_Path] = ..., plugins: Iterable[str] = ...,
             plugin_dirs: Iterable[_Path] = ..., plugin_options: _Assignments = ...,
             validation: _Validation = ..., trim_blocks: bool = ...,
             lstrip_blocks: bool = ...) -> GenerateResult: ...
def validate(config: Union[Mapping[str, Any], _Path], *, world_size: Optional[int] = ...,
             against_args: Union[None, str, Sequence[str]] = ..., hf: bool = ...,
             strict: bool = ..., deepspeed_version: Optional[str] = ...,
             accelerate_version: Optional[str] = ...,
             name: Optional[str] = ...) -> List[Finding]: ...
def migrate(input: Union[Mapping[str, Any], _Path], *, to: str, from_: Optional[str] = ...,
            drop_unknown: bool = ..., world_size: Optional[int] = ..., hf: bool = ...,
            output: Optional[_Path] = ..., name: Optional[str] = ...) -> Migration: ...
def estimate(model: Optional[_Path] = ..., *, stage: Optional[int] = ...,
             offload_optimizer: Optional[Literal["none", "cpu", "nvme"]] = ...,
             offload_param: Optional[Literal["none", "cpu", "nvme"]] = ...,
             precision: Optional[Literal["bf16", "fp16", "fp32"]] = ...,
             micro_batch_size: Optional[int] = ..., sequence_length: Optional[int] = ...,
             gpu_memory_gib: Optional[float] = ..., all_stages: bool = ...,
             plugin_dirs: Iterable[_Path] = ..., plugin_options: _Assignments = ...,
             **options: Any) -> Dict[str, Any]: ...
def list_templates(template_dirs: Iterable[_Path] = ..., *, all: bool = ...) -> List[str]: ...
def list_presets() -> List[Preset]: ...
def list_tiers(family: Optional[_Path] = ...) -> List[Tier]: ...
def list_plugins(plugin_dirs: Iterable[_Path] = ...) -> List[Dict[str, Any]]: ...
