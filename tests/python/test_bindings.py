"""`import ttlplan` (python/ttlplan/__init__.py over the _ttlplan extension, issue 29 item 5), run
by pytest from ctest with the source's python/ folder and the build's on PYTHONPATH. Every result
is checked against what the ttlplan command prints for the same request (an independent path:
the CLI's --json), or against facts of the kernel worked out by hand."""

import json
import os
import subprocess
import sys

import pytest

import ttlplan

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TTLPLAN = os.environ["TTLPLAN_EXECUTABLE"]
EXAMPLE = os.path.join(ROOT, "examples", "eltwise_add.ttl")
PY_EXAMPLE = os.path.join(ROOT, "examples", "python", "eltwise_single_tile.py")


def cli_json(*args):
    done = subprocess.run([TTLPLAN, *args, "--json", "-"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def placements(plan):
    return [[(cb["name"], cb["address"], cb["bytes"]) for cb in k["cbs"]] for k in plan["kernels"]]


def test_plan_matches_the_command_line():
    mine = ttlplan.plan(EXAMPLE)
    theirs = cli_json("plan", EXAMPLE)
    assert mine["schema_version"] == theirs["schema_version"]
    assert placements(mine) == placements(theirs)
    assert [k["name"] for k in mine["kernels"]] == ["@eltwise_add"]


def test_plan_of_a_python_kernel_and_of_text():
    planned = ttlplan.plan(PY_EXAMPLE)  # shapes from its .ttlplan.toml
    (kernel,) = planned["kernels"]
    assert kernel["name"] == "@eltwise_single_tile"
    # Three DFBs of one bf16 tile (2048 B) with block_count 2 each.
    assert [cb["bytes"] for cb in kernel["cbs"]] == [4096, 4096, 4096]
    with open(EXAMPLE) as f:
        assert placements(ttlplan.plan(text=f.read())) == placements(ttlplan.plan(EXAMPLE))


def test_args_override_the_sidecar():
    planned = ttlplan.plan(PY_EXAMPLE, args={"a": ((64, 64), "bf16"), "b": "64x64",
                                             "out": (64, 64)})
    assert planned["kernels"][0]["name"] == "@eltwise_single_tile"


def test_cost_matches_the_command_line():
    mine = ttlplan.cost(EXAMPLE)
    theirs = cli_json("cost", EXAMPLE)
    assert mine["kernels"][0]["cycles"] == theirs["kernels"][0]["cycles"]


def test_tune_a_python_kernel_with_knobs():
    example = os.path.join(ROOT, "examples", "python", "eltwise_multitile.py")
    mine = ttlplan.tune(example, knobs={"GRANULARITY": [1, 2, 4]}, buffer_factor="auto",
                        threads=1)
    theirs = cli_json("tune", example, "--knob", "GRANULARITY=1,2,4", "--buffer-factor", "auto",
                      "--threads", "1")
    assert mine["best"]["binding"] == theirs["best"]["binding"]
    assert mine["best"]["block_counts"] == theirs["best"]["block_counts"]
    assert mine["best"]["binding"]["GRANULARITY"] == 4


def test_errors_are_structured():
    with pytest.raises(ttlplan.Error) as e:
        ttlplan.plan(text="ttl.kernel @k() attributes {grid = [1, 1]} {\n  %x = ttl.bogus\n}\n")
    assert e.value.kind == "input"
    (d,) = [d for d in e.value.diagnostics if d["severity"] == "error"][:1]
    assert d["line"] == 2 and "bogus" in d["message"]
    with pytest.raises(ttlplan.Error) as e:
        ttlplan.plan(PY_EXAMPLE, args={"a": "100x96", "b": "100x96", "out": "100x96"})
    assert e.value.kind == "input"
    assert e.value.diagnostics[0]["file"] == PY_EXAMPLE
    assert "does not divide by 32" in e.value.diagnostics[0]["message"]
    with pytest.raises(ttlplan.Error) as e:
        ttlplan.plan(PY_EXAMPLE, args={"a": "bad"})
    assert e.value.kind == "usage"


def test_infeasible_carries_the_planner_reason():
    big = os.path.join(ROOT, "examples", "python", "eltwise_multitile.py")
    with pytest.raises(ttlplan.Error) as e:
        ttlplan.plan(big, knobs={"GRANULARITY": "16"}, bind={"GRANULARITY": 16},
                     args={n: "1024x1024" for n in "abcy"})
    assert e.value.kind in ("infeasible", "input")
    assert "L1" in e.value.text


def test_compile_and_run(tmp_path):
    compiled = ttlplan.compile(PY_EXAMPLE, tmp_path)
    paths = {f["path"] for f in compiled["files"]}
    assert "eltwise_single_tile/host.cpp" in paths and "CMakeLists.txt" in paths
    ran = ttlplan.run(PY_EXAMPLE)
    assert ran["passed"] is True
    assert [a["name"] for a in ran["arguments"]] == ["a", "b", "out"]


def test_print_ttl_is_the_translation():
    text = ttlplan.print_ttl(PY_EXAMPLE)
    assert "ttl.kernel @eltwise_single_tile" in text and "ttl.cb_reserve" in text


def test_python_dash_m_is_the_command_line():
    done = subprocess.run([sys.executable, "-m", "ttlplan", "plan", EXAMPLE, "--json", "-"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert placements(json.loads(done.stdout)) == placements(cli_json("plan", EXAMPLE))
