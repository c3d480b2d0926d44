# SPDX-License-Identifier: MIT
# A typed user program with mistakes a type checker must catch through the stubs: each line
# whose code ends in an "error:" comment must be reported by mypy (check_types.py), and no
# other line.
from pathlib import Path

import zeroforge


def mistakes() -> None:
    zeroforge.render(3)  # error: template is a str
    zeroforge.render("deepspeed/config.json.j2", "medium")  # error: tier is keyword-only
    zeroforge.render("deepspeed/config.json.j2", validation="strict")  # error: not a choice
    zeroforge.generate("example")  # error: output_dir is required
    zeroforge.generate("example", Path("out"), jobs="4")  # error: jobs is an int
    zeroforge.validate({}, world_size=8.0)  # error: world_size is an int
    zeroforge.estimate("gpt2", precision="int3")  # error: not a precision
    zeroforge.list_presets()[0].tier  # error: Preset has tiers, not tier
    zeroforge.generate("example", "out").drift.add("x")  # error: drift is a list
    zeroforge.render_text("t.j2").keys()  # error: render_text returns a str
    zeroforge.render_families("example")  # error: no such function
    zeroforge.migrate({}, "0.19.6")  # error: to is keyword-only
    findings: int = zeroforge.validate({})  # error: a list of Finding
    print(findings)
