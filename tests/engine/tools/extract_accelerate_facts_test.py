#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# engine/tools/extract_accelerate_facts.py over a made-up accelerate history (a git repository
# built here, three tags whose DeepSpeedPlugin differs the way accelerate's did): the fact sets
# it reads, the releases it starts a new set at, `check` against data that is and is not what
# the releases give, and `write` touching only the "accelerate" block. Then the block in the
# shipped schema data is well formed: what the validator reads from it.
import json
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.getcwd()
TOOL = os.path.join(SOURCE, "engine", "tools", "extract_accelerate_facts.py")

PLUGIN = '''
import os

class Other:
    pass

class DeepSpeedPlugin:
    def __post_init__(self):
        if self.gradient_accumulation_steps is None:
            {gas}
        if self.zero_stage is None:
            self.zero_stage = int(os.environ.get("ACCELERATE_DEEPSPEED_ZERO_STAGE", 2))
        if self.offload_param_device is None:
            self.offload_param_device = os.environ.get("ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE", "none")
        if self.offload_param_nvme_path is None:
            self.offload_param_nvme_path = os.environ.get("ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_NVME_PATH", "none")
        if self.zero3_save_16bit_model is None:
            self.zero3_save_16bit_model = (
                os.environ.get("ACCELERATE_DEEPSPEED_ZERO3_SAVE_16BIT_MODEL", "false").lower() == "true"
            )
        if self.hf_ds_config is not None:
            if "gradient_accumulation_steps" not in self.hf_ds_config.config:
                self.hf_ds_config.config["gradient_accumulation_steps"] = 1
            if "zero_optimization" not in self.hf_ds_config.config:
                raise ValueError("Please specify the ZeRO optimization config in the DeepSpeed config.")
            plugin_to_config_mapping = {{
                "gradient_accumulation_steps": "gradient_accumulation_steps",
                "zero_stage": "zero_optimization.stage",
                "offload_param_device": "zero_optimization.offload_param.device",
{nvme}                "zero3_save_16bit_model": "zero_optimization.stage3_gather_16bit_weights_on_model_save",
            }}

    def fill_match(self, ds_key_long, mismatches=None, must_match=True, **kwargs):
        raise ValueError(f"`{{ds_key_long}}` not found in kwargs. ")
'''

ACCELERATOR = '''
class Accelerator:
    def _prepare_deepspeed(self, *args):
        deepspeed_plugin = self.deepspeed_plugin
{tp}{swap}        return args
'''
SWAP = ('        if self.deepspeed_config["zero_optimization"].get("offload_optimizer", {}).get(\n'
        '            "device", "none"\n'
        '        ) != "none":\n'
        '            optimizer = DeepSpeedCPUAdam(optimizer.param_groups)\n')
TP_CHECK = ('        tp_size = deepspeed_plugin.deepspeed_config.get("tensor_parallel", {}).get("autotp_size", 0)\n'
            '        if tp_size > 1:\n'
            '            if not compare_versions("deepspeed", ">=", "0.16.4"):\n'
            '                raise ImportError("Deepspeed TP requires deepspeed >= 0.16.4")\n')

OLD_GAS = 'self.gradient_accumulation_steps = int(os.environ.get("ACCELERATE_GRADIENT_ACCUMULATION_STEPS", 1))'
NEW_GAS = ('gas = os.environ.get("ACCELERATE_GRADIENT_ACCUMULATION_STEPS", "auto")\n'
           '            self.gradient_accumulation_steps = int(gas) if gas.isdigit() else gas')
NVME = '                "offload_param_nvme_path": "zero_optimization.offload_param.nvme_path",\n'


def run(*args, check=True):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, check=check)


class ExtractAccelerateFactsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        work = os.path.join(cls.tmp.name, "work")
        os.makedirs(os.path.join(work, "src", "accelerate", "utils"))
        git = ["git", "-C", work, "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", work], check=True)
        for tag, gas, nvme, tp, swap in [("v0.17.0", OLD_GAS, "", "", ""), ("v0.18.0", OLD_GAS, "", "", ""),
                                         ("v0.20.0", OLD_GAS, NVME, "", SWAP), ("v0.21.0", OLD_GAS, NVME, "", SWAP),
                                         ("v0.23.0", NEW_GAS, NVME, "", SWAP),
                                         ("v0.24.0", NEW_GAS, NVME, TP_CHECK, SWAP),
                                         ("v1.0.0rc1", NEW_GAS, NVME, TP_CHECK, SWAP)]:
            with open(os.path.join(work, "src", "accelerate", "utils", "dataclasses.py"), "w") as f:
                f.write(PLUGIN.format(gas=gas, nvme=nvme))
            with open(os.path.join(work, "src", "accelerate", "accelerator.py"), "w") as f:
                f.write(ACCELERATOR.format(tp=tp, swap=swap))
            subprocess.run(git + ["add", "-A"], check=True)
            subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", tag], check=True)
            subprocess.run(git + ["tag", tag], check=True)
        cls.repo = os.path.join(work, ".git")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def facts(self):
        return json.loads(run("--repo", self.repo, "facts").stdout)

    def test_one_fact_set_per_change_from_the_oldest(self):
        block = self.facts()
        self.assertEqual(block["known"], ["0.18.0", "0.20.0", "0.21.0", "0.23.0", "0.24.0"])  # no rc, no 0.17
        self.assertEqual(block["newest"], "0.24.0")
        self.assertEqual([r["from"] for r in block["releases"]], ["0.18.0", "0.20.0", "0.23.0", "0.24.0"])
        # The DeepSpeed release accelerate wants for automatic tensor parallelism, from 0.24.0 on.
        self.assertEqual([r["autotp_needs_deepspeed"] for r in block["releases"]], [None, None, None, "0.16.4"])
        # The key whose value makes it swap the Trainer's optimizer for DeepSpeedCPUAdam, from 0.20.0.
        self.assertEqual([r["swaps_optimizer_when"] for r in block["releases"]],
                         [None] + ["/zero_optimization/offload_optimizer/device"] * 3)
        fills = {r["from"]: {f["pointer"]: f["value"] for f in r["fills"]} for r in block["releases"]}
        self.assertEqual(fills["0.18.0"], {
            "/gradient_accumulation_steps": 1,
            "/zero_optimization/offload_param/device": "none",
            "/zero_optimization/stage": 2,
            "/zero_optimization/stage3_gather_16bit_weights_on_model_save": False})
        self.assertEqual(fills["0.20.0"]["/zero_optimization/offload_param/nvme_path"], "none")
        # "auto" by default fills nothing.
        self.assertNotIn("/gradient_accumulation_steps", fills["0.23.0"])
        for r in block["releases"]:
            self.assertEqual(r["requires"], ["/zero_optimization"])
            self.assertEqual(r["inserts"], [{"pointer": "/gradient_accumulation_steps", "value": 1}])
            self.assertRegex(r["commit"], "^[0-9a-f]{40}$")

    def test_check_and_write(self):
        with tempfile.TemporaryDirectory() as tmp:
            schema = os.path.join(tmp, "schema.json")
            before = '{\n  "hf_trainer": {"fills": []},\n  "native_auto": {"prefixes": []}\n}\n'
            with open(schema, "w") as f:
                f.write(before)
            stale = run("--repo", self.repo, "check", schema, check=False)
            self.assertEqual(stale.returncode, 1, stale.stdout + stale.stderr)
            self.assertIn("differs from the releases' facts", stale.stderr)
            run("--repo", self.repo, "write", schema)
            with open(schema) as f:
                text = f.read()
            written = json.loads(text)
            self.assertEqual(list(written), ["hf_trainer", "accelerate", "native_auto"])
            self.assertEqual(written["accelerate"], self.facts())
            self.assertTrue(text.startswith('{\n  "hf_trainer": {"fills": []},\n  "accelerate": {'))
            self.assertTrue(text.endswith('  "native_auto": {"prefixes": []}\n}\n'))
            self.assertEqual(run("--repo", self.repo, "check", schema).returncode, 0)
            run("--repo", self.repo, "write", schema)  # a second write changes nothing
            with open(schema) as f:
                self.assertEqual(f.read(), text)

    def one_release(self, tmp, plugin, accelerator):
        work = os.path.join(tmp, "w")
        os.makedirs(os.path.join(work, "src", "accelerate", "utils"))
        with open(os.path.join(work, "src", "accelerate", "utils", "dataclasses.py"), "w") as f:
            f.write(plugin)
        with open(os.path.join(work, "src", "accelerate", "accelerator.py"), "w") as f:
            f.write(accelerator)
        git = ["git", "-C", work, "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", work], check=True)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-q", "-m", "x"], check=True)
        subprocess.run(git + ["tag", "v0.18.0"], check=True)
        return run("--repo", os.path.join(work, ".git"), "facts", check=False)

    def test_a_plugin_without_the_raise_is_not_read_silently(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = self.one_release(tmp, PLUGIN.format(gas=OLD_GAS, nvme="").replace("not found in kwargs", "missing"),
                                      ACCELERATOR.format(tp="", swap=""))
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("fill_match no longer raises", result.stdout + result.stderr)

    def test_a_tensor_parallel_read_without_its_version_check_is_not_read_silently(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = self.one_release(tmp, PLUGIN.format(gas=OLD_GAS, nvme=""),
                                      ACCELERATOR.format(tp=TP_CHECK.replace(">=", ">"), swap=""))
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("no DeepSpeed version check", result.stdout + result.stderr)

    def test_an_optimizer_swap_on_another_key_is_not_read_silently(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = self.one_release(tmp, PLUGIN.format(gas=OLD_GAS, nvme=""),
                                      ACCELERATOR.format(tp="", swap=SWAP.replace('"none"', "None")))
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("the key it reads was not found", result.stdout + result.stderr)


class ShippedBlockTest(unittest.TestCase):
    def test_the_shipped_block_is_well_formed(self):
        with open(os.path.join(SOURCE, "engine", "src", "deepspeed", "deepspeed_schema.json")) as f:
            block = json.load(f)["accelerate"]
        key = lambda v: tuple(int(p) for p in v.split("."))
        self.assertEqual(block["known"], sorted(block["known"], key=key))
        self.assertEqual(block["newest"], block["known"][-1])
        starts = [r["from"] for r in block["releases"]]
        self.assertEqual(starts[0], block["known"][0])
        self.assertTrue(all(s in block["known"] for s in starts))
        self.assertEqual(starts, sorted(starts, key=key))


if __name__ == "__main__":
    unittest.main()
