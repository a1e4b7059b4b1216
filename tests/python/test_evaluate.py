"""The operation-scope evaluator of the Python front end (python/ttlplan/frontend/evaluate.py).

Expected values are Python's own results for the same expressions (computed here with eval on
plain ints), and knob expressions are checked by evaluating the TTL text they produce with the
same grammar's meaning (ceildiv, exact /, %) for several knob values.
"""

import ast
import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from ttlplan.frontend.errors import FrontendError  # noqa: E402
from ttlplan.frontend.evaluate import MATH, Evaluator, TensorArg  # noqa: E402
from ttlplan.frontend.values import Sym  # noqa: E402


def evaluate(text, env=None):
    ev = Evaluator("k.py", dict(env or {}, math=MATH))
    return ev.eval(ast.parse(text, mode="eval").body)


def ttl_value(text, knobs):
    """A TTL knob expression's value: TTL's grammar maps onto Python's once `/` is exact."""

    class Exact(int):
        pass

    def exact(a, b):
        if a % b:
            raise AssertionError(f"inexact division {a} / {b} in {text}")
        return a // b

    expr = text
    for name, v in knobs.items():
        expr = expr.replace(f"@{name}", str(v))
    tree = ast.parse(expr, mode="eval")

    def walk(n):
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.BinOp):
            a, b = walk(n.left), walk(n.right)
            return {
                ast.Add: lambda: a + b,
                ast.Sub: lambda: a - b,
                ast.Mult: lambda: a * b,
                ast.Div: lambda: exact(a, b),
                ast.Mod: lambda: a % b,
            }[type(n.op)]()
        if isinstance(n, ast.Call):
            args = [walk(a) for a in n.args]
            return {"ceildiv": lambda a, b: -(-a // b), "min": min, "max": max}[n.func.id](*args)
        raise AssertionError(f"unexpected {ast.dump(n)} in {text}")

    return walk(tree.body)


class Concrete(unittest.TestCase):
    def test_arithmetic_matches_python(self):
        env = {"rows": 37, "G": 4, "TILE": 32}
        for text in [
            "rows // G",
            "rows % G",
            "-(-rows // G)",
            "(rows + G - 1) // G * G",
            "min(rows, G * 8)",
            "max(1, rows // 100)",
            "rows * TILE - 3",
            "-rows",
        ]:
            with self.subTest(text=text):
                self.assertEqual(evaluate(text, env), eval(text, {}, env))

    def test_tensor_shapes_and_containers(self):
        a = TensorArg("a", (2048, 1024), "bf16")
        env = {"a": a, "TILE_SIZE": 32}
        self.assertEqual(evaluate("a.shape[0] // TILE_SIZE", env), 64)
        self.assertEqual(evaluate("a.shape[-1] // TILE_SIZE", env), 32)
        self.assertEqual(evaluate("a.dtype", env), "bf16")
        self.assertEqual(evaluate("(1, 2) + (3,)", env), (1, 2, 3))
        self.assertEqual(evaluate("len(a.shape)", env), 2)
        self.assertEqual(evaluate("math.ceil(a.shape[0] / 3)", env), math.ceil(2048 / 3))
        self.assertEqual(evaluate("1 if a.shape[0] > 10 else 2", env), 1)

    def test_conditions(self):
        env = {"x": 5}
        self.assertTrue(evaluate("0 < x <= 5 and not x == 4", env))
        self.assertFalse(evaluate("x > 5 or x < 0", env))


class Knobs(unittest.TestCase):
    def test_knob_expressions_evaluate_like_python(self):
        env = {"G": Sym("@G"), "rows": 40}
        for text in ["rows // G", "-(-rows // G)", "rows % G", "G * 2 + 1", "min(G, 3)",
                     "math.ceil(rows / G)", "rows - G"]:
            v = evaluate(text, env)
            self.assertIsInstance(v, Sym, text)
            for g in [1, 2, 3, 4, 7, 8]:
                with self.subTest(text=text, G=g):
                    self.assertEqual(ttl_value(v.text, {"G": g}),
                                     eval(text.replace("math.ceil(rows / G)", "-(-rows // G)"),
                                          {"min": min}, {"rows": 40, "G": g}))

    def test_ceiling_idiom_is_ceildiv(self):
        self.assertEqual(str(evaluate("-(-rows // G)", {"G": Sym("@G"), "rows": 40})),
                         "ceildiv(40, @G)")

    def test_conditions_on_knobs_are_refused(self):
        with self.assertRaises(FrontendError) as e:
            evaluate("1 if G > 2 else 0", {"G": Sym("@G")})
        self.assertIn("depends on a knob (@G)", str(e.exception))


class Comprehensions(unittest.TestCase):
    def test_two_generators_nest_left_to_right(self):
        # (i, j) for i in 0..1, j in i..2: (0,0) (0,1) (0,2) (1,1) (1,2), worked by hand.
        self.assertEqual(evaluate("[(i, j) for i in range(2) for j in range(i, 3)]"),
                         [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2)])

    def test_over_a_known_list_with_tuple_targets_and_a_filter(self):
        self.assertEqual(evaluate("[a * b for a, b in P if a > 1]", {"P": [(1, 5), (2, 3), (4, 4)]}),
                         [6, 16])

    def test_the_variables_do_not_leak(self):
        ev = Evaluator("k.py", {"i": 7})
        ev.eval(ast.parse("[i for i in range(3)]", mode="eval").body)
        self.assertEqual(ev.env["i"], 7)


class Errors(unittest.TestCase):
    def check(self, text, message, env=None, col=None):
        with self.assertRaises(FrontendError) as e:
            evaluate(text, env)
        self.assertIn(message, e.exception.message)
        self.assertTrue(str(e.exception).startswith("k.py:1:"), str(e.exception))
        if col is not None:
            self.assertEqual(e.exception.col, col)

    def test_unknown_names_and_unsupported_constructs_are_located(self):
        self.check("rows + 1", "name 'rows' is not defined", col=1)
        self.check("1 + [x for x in y]", "name 'y' is not defined", col=17)
        self.check("[x for x in 3]", "a comprehension runs over range(...) or a known list or "
                                     "tuple here, not the integer 3", col=13)
        self.check("[x for (x, y) in [(1, 2), 3]]", "cannot unpack the integer 3 into 2 names")
        self.check("(lambda: 3)()", "a lambda is not supported")
        self.check("8 / 2", "'/' gives a float")
        self.check("f'{1}'", "an f-string is not supported")

    def test_no_user_code_runs(self):
        self.check("print(3)", "name 'print' is not defined")
        self.check("open('x')", "name 'open' is not defined")
        self.check("m()", "calling the integer 3 is not supported", env={"m": 3})

    def test_bad_values(self):
        self.check("4 // 0", "division by zero")
        self.check("(1, 2)[5]", "index 5 is out of range for 2 entries")
        self.check("t.size", "a tensor argument has .shape and .dtype here, not .size",
                   env={"t": TensorArg("t", (32, 32), "bf16")})


if __name__ == "__main__":
    unittest.main()
