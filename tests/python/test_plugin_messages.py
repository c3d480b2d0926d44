# SPDX-License-Identifier: MIT
# What plugins say reaches Python as it reaches the CLI: a command's logged warnings and errors
# as zeroforge.Diagnostic (code plugin.message, the CLI's line), shown as ConfigWarning; a
# plugin file list_plugins skips as the CLI's plugin.skipped entry.
import json
import shutil

import pytest

import zeroforge
from zeroforge import _zeroforge


@pytest.fixture
def fixtures(build_dir):
    return build_dir / "tests" / "plugins" / "fixtures" / "out"


# The binding itself, whichever stand-in a test puts in its place.
_RUN_PLUGIN_COMMAND = _zeroforge.run_plugin_command


def run_echo(fixtures, args):
    return _RUN_PLUGIN_COMMAND("c_plugin", "c-echo", args, [str(fixtures)], [],
                               zeroforge._data_dir(), zeroforge._plugin_dir())


@pytest.mark.parametrize("args, expected", [
    ([], []),
    (["--warn"], [("warning", "zeroforge: warning: plugin 'c_plugin': c-echo was asked to warn")]),
    (["--log-error", "--warn"],
     [("warning", "zeroforge: warning: plugin 'c_plugin': c-echo was asked to warn"),
      ("error", "zeroforge: error: plugin 'c_plugin': c-echo was asked to log an error")]),
])
def test_a_commands_log_is_diagnostics(fixtures, args, expected):
    code, output, message, logged = run_echo(fixtures, args)
    assert (code, message) == (3, "")
    assert json.loads(output) == args
    got = [zeroforge.Diagnostic(**d) for d in logged]
    # str(d) is the CLI's line, which ends with the code; the message is the text before it.
    assert [(d.code, d.kind, d.severity, str(d)) for d in got] == \
        [("plugin.message", "plugin", severity, line + " [plugin.message]")
         for severity, line in expected]
    assert [d.message for d in got] == [line.split(": ", 2)[2] for _, line in expected]


def test_estimate_shows_what_the_plugin_logged(fixtures, monkeypatch):
    # The memory plugin logs nothing today: its command is stood in for by c-echo, which does.
    def echo_instead(plugin, command, args, *rest):
        code, _, message, logged = run_echo(fixtures, ["--warn"])
        return 0, '{"fits": true}', message, logged
    monkeypatch.setattr(_zeroforge, "run_plugin_command", echo_instead)
    with pytest.warns(zeroforge.ConfigWarning) as caught:
        assert zeroforge.estimate("llama-2-7b", stage=3) == {"fits": True}
    assert [str(w.message) for w in caught] == \
        ["zeroforge: warning: plugin 'c_plugin': c-echo was asked to warn [plugin.message]"]


def test_a_skipped_plugin_file_is_the_clis_entry(cli, fixtures, tmp_path):
    plugins = tmp_path / "platform-team-plugins-under-review" / "deepspeed-site-extensions"
    plugins.mkdir(parents=True)
    shutil.copy(fixtures / "wrong_abi.so", plugins / "wrong_abi.so")
    done = cli("list", "plugins", "--plugin-dir", plugins, "--format", "json")
    assert done.returncode == 0, done.stderr
    errors = json.loads(done.stdout)["errors"]
    assert [(e["path"], e["code"], e["kind"], e["severity"]) for e in errors] == \
        [(str(plugins / "wrong_abi.so"), "plugin.skipped", "plugin", "warning")]
    assert _zeroforge.list_plugins([str(plugins)], zeroforge._data_dir(),
                                   zeroforge._plugin_dir())["errors"] == errors
    with pytest.raises(zeroforge.PluginError) as caught:
        zeroforge.list_plugins([plugins])
    assert caught.value.code == "plugin.failed"
    assert str(caught.value) == errors[0]["message"]
