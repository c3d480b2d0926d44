# SPDX-License-Identifier: MIT
# Writes deepspeed_grid.json: DeepSpeed's ZeRO-2/3 model-state estimates over a grid, computed
# with Python's own int/float arithmetic from the formulas of deepspeed/runtime/zero/
# stage_1_and_2.py and stage3.py (re-typed from their definitions, v0.14.3 and later).
# Run: python3 deepspeed_oracle.py > deepspeed_grid.json
import json


def zero2(p, gpn, nodes, off, abf):
    gpus = nodes * gpn
    if off:
        return int(p * max(4 * gpus, 16) * abf), 2 * p
    return int(p * 4 * gpn * abf), 2 * p + int(18 * p / gpus)


def zero3(p, big, gpn, nodes, off, offp, zi, abf):
    gpus = nodes * gpn
    f = 1 / nodes
    big_mem = 4 * big
    if off:
        if offp:
            gpu = big_mem
            cpu = p * 18 * f * abf if zi else p * max(4 * gpn, 18 * f) * abf
        else:
            gpu = big_mem + int(2 * p / gpus)
            cpu = p * 16 * f * abf if zi else p * max(4 * gpn, 16 * f) * abf
    else:
        gpu = big_mem + int(18 * p / gpus)
        cpu = big * 4 * gpn * abf if zi else p * 4 * gpn * abf
    return int(cpu), int(gpu)


rows = []
models = [(125_000_000, 38_597_376), (1_300_000_000, 80_411_200), (6_738_415_616, 131_072_000),
          (13_015_864_320, 163_840_000), (68_976_648_192, 262_144_000),
          (175_000_000_000, 617_000_000)]
for p, big in models:
    for gpn in (1, 2, 4, 8):
        for nodes in (1, 2, 4, 8):
            for abf in ((1.5, 1.0, 2.0) if gpn in (1, 8) and nodes in (1, 8) else (1.5,)):
                for off in (True, False):
                    cpu, gpu = zero2(p, gpn, nodes, off, abf)
                    rows.append([p, big, gpn, nodes, 2, off, False, True, abf, cpu, gpu])
                for off, offp in ((True, True), (True, False), (False, False)):
                    for zi in (True, False):
                        cpu, gpu = zero3(p, big, gpn, nodes, off, offp, zi, abf)
                        rows.append([p, big, gpn, nodes, 3, off, offp, zi, abf, cpu, gpu])
print("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]")
