#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/engine/check_layering.py over trees made here: a three-row table (core < low < high) and
# one include that goes up the table per form the preprocessor reads, each of which must fail;
# a tree whose includes all go down, in the same forms, must pass. Then the build's module list
# (engine/cmake/layers.cmake) against the table and the includes.
import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.getcwd()
SCRIPT = os.path.join(SOURCE, "tests", "engine", "check_layering.py")

README = textwrap.dedent("""\
    # engine/src

    ## Layers, bottom-up

    | module | owns | public headers | includes going up (to remove) |
    |---|---|---|---|
    | `core` | the base | `base.hpp` | |
    | `low` | a lower stage | `low.hpp` | |
    | `high` | a higher stage | `high.hpp` | |

    ## After the table
    """)

# The build's module list for that tree: what its includes use.
LAYERS = textwrap.dedent("""    # the modules
    zeroforge_module(core)
    zeroforge_module(low USES core)
    zeroforge_module(high USES core low)
    """)

# Each includes something of `high` from `low`: all go up the table.
UPWARD = {
    "quoted": '#include "high/stage.hpp"\n',
    "angle": "#include <high/stage.hpp>\n",
    "indented": '    #include "high/stage.hpp"\n',
    "tab_indented_angle": "\t#include <high/stage.hpp>\n",
    "spaced_directive": '#  include "high/stage.hpp"\n',
    "spaced_directive_angle": "# \tinclude<high/stage.hpp>\n",
    "inside_if": '#if defined(ZF_SOMETHING)\n#  include "high/stage.hpp"\n#endif\n',
    "inside_if0_else": "#if 0\n#else\n  #include <high/stage.hpp>\n#endif\n",
    "public_quoted": '#include "zeroforge/high.hpp"\n',
    "public_angle": "#include <zeroforge/high.hpp>\n",
    "public_angle_indented": "  #  include <zeroforge/high.hpp>\n",
}

# Every form again, going down the table (or staying in the module, or to the outside world).
DOWNWARD = textwrap.dedent("""\
    #include "low/stage.hpp"
    #include <low/stage.hpp>
      #include "core_text.hpp"
    #  include <core_text.hpp>
    #if defined(ZF_SOMETHING)
    #  include <zeroforge/low.hpp>
    #endif
    \t#\tinclude "zeroforge/base.hpp"
    #include "beside.hpp"
    #include <high/beside.hpp>
    #include <vector>
    #include <nlohmann/json.hpp>
    #include <zeroforge/plugin.h>
    """)


def make_tree(root):
    """A source tree the script accepts: the table, one header per module and public header."""
    files = {
        "engine/src/README.md": README,
        "engine/cmake/layers.cmake": LAYERS,
        "engine/src/core_text.hpp": "// core\n#pragma once\n",
        "engine/src/low/stage.hpp": '#pragma once\n#include "core_text.hpp"\n',
        "engine/src/high/stage.hpp": '#pragma once\n#include "low/stage.hpp"\n#include "core_text.hpp"\n',
        "engine/src/high/beside.hpp": "#pragma once\n",
        "engine/include/zeroforge/base.hpp": "#pragma once\n",
        "engine/include/zeroforge/low.hpp": "#pragma once\n#include <zeroforge/base.hpp>\n",
        "engine/include/zeroforge/high.hpp": '#pragma once\n#include "zeroforge/low.hpp"\n',
        "plugins/sdk/include/zeroforge/plugin.h": "#pragma once\n",
    }
    for name, text in files.items():
        path = pathlib.Path(root, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def check(root):
    return subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)


class CheckLayeringTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = self.tmp.name
        make_tree(self.root)

    def write(self, name, text):
        pathlib.Path(self.root, name).write_text(text, encoding="utf-8")

    def test_a_tree_whose_includes_go_down_passes(self):
        self.write("engine/src/high/all_forms.cpp", DOWNWARD)
        result = check(self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        # The includes counted: those across modules, each form of the file's included.
        self.assertIn("ok: 12 includes across modules follow the 3 layers", result.stdout)

    def test_each_form_of_an_upward_include_fails(self):
        for form, text in UPWARD.items():
            for where in ("engine/src/low/stage.cpp", "engine/include/zeroforge/low.hpp"):
                with self.subTest(form=form, file=where):
                    make_tree(self.root)
                    self.write(where, "// a file of low\n" + text)
                    result = check(self.root)
                    self.assertEqual(result.returncode, 1, result.stdout)
                    self.assertIn(f"{where} includes ", result.stdout)
                    self.assertIn("low may not include high, which is above it", result.stdout)
                    pathlib.Path(self.root, where).unlink()

    def test_an_include_of_a_macro_fails(self):
        self.write("engine/src/low/stage.cpp", "#define HEADER \"high/stage.hpp\"\n#include HEADER\n")
        result = check(self.root)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("engine/src/low/stage.cpp:2: an include of a macro cannot be checked", result.stdout)

    def test_a_listed_exception_passes_and_an_unused_one_fails(self):
        readme = README.replace("| `low` | a lower stage | `low.hpp` | |",
                                "| `low` | a lower stage | `low.hpp` | `high/stage.hpp` |")
        self.write("engine/src/README.md", readme)
        result = check(self.root)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("low's exception high/stage.hpp is no longer used", result.stdout)
        self.write("engine/src/low/stage.cpp", "  #  include <high/stage.hpp>\n")
        result = check(self.root)
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_the_module_list_must_follow_the_table_and_the_includes(self):
        cases = {
            "zeroforge_module(core)\nzeroforge_module(high USES core low)\nzeroforge_module(low USES core)\n":
                "engine/cmake/layers.cmake declares the modules core high low; the table of "
                "engine/src/README.md has core low high",
            "zeroforge_module(core)\nzeroforge_module(low USES core)\n":
                "declares the modules core low;",
            "zeroforge_module(core)\nzeroforge_module(low USES core high)\nzeroforge_module(high USES core low)\n":
                "low USES high, which is not below it in the table",
            "zeroforge_module(core)\nzeroforge_module(low USES core)\nzeroforge_module(high USES low)\n":
                "high includes headers of core but does not list it in USES",
            "zeroforge_module(core)\nzeroforge_module(low)\nzeroforge_module(high USES core low)\n":
                "low includes headers of core but does not list it in USES",
        }
        for text, problem in cases.items():
            with self.subTest(layers=text):
                self.write("engine/cmake/layers.cmake", text)
                result = check(self.root)
                self.assertEqual(result.returncode, 1, result.stdout)
                self.assertIn(problem, result.stdout)
        # A use with no include behind it: high stops including core.
        self.write("engine/cmake/layers.cmake", LAYERS)
        self.write("engine/src/high/stage.hpp", '#pragma once\n#include "low/stage.hpp"\n')
        result = check(self.root)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("high USES core but includes none of its headers", result.stdout)
        pathlib.Path(self.root, "engine/cmake/layers.cmake").unlink()
        result = check(self.root)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("engine/cmake/layers.cmake is missing", result.stdout)


if __name__ == "__main__":
    unittest.main()
