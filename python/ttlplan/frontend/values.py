"""Values of a tt-lang operation's straight-line Python, as the front end evaluates them.

An integer is a Python int when every input to it is known, or a ``Sym``: a TTL knob expression
(docs/language.md, "Knob expressions") when it depends on a knob (``--knob NAME=DOMAIN`` turns a
module constant such as ``GRANULARITY`` into ``@GRANULARITY``). Arithmetic on a ``Sym`` builds the
expression TTL reads back, so a block shape computed from a knob becomes a shape expression the
planner and the tuner evaluate per binding. Python's floor division and remainder are spelled with
TTL's exact ``/`` and ``%`` (``a // b`` is ``(a - a % b) / b``), and ``-(-a // b)``, the ceiling
idiom tt-lang's tutorials use, is ``ceildiv(a, b)``. Only non-negative operands are meant: TTL's
expressions are over sizes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union


@dataclass(frozen=True)
class Sym:
    """A knob expression in TTL's syntax, fully parenthesised where it is not a single term."""

    text: str
    # The expression -(-a // b) before its outer negation: kept so that the negation can become
    # ceildiv(a, b) (None for every other expression).
    negated_floor: tuple | None = field(default=None, compare=False)
    # The expression as a tree, for code that computes it at run time (a thread's loop bound):
    # ("knob", NAME) or (OP, a, b) with OP one of + - * // % ceildiv min max and a, b Ints.
    tree: tuple | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.text


Int = Union[int, Sym]


def term(v: Int) -> str:
    """`v` as an operand of a larger expression."""
    if isinstance(v, int):
        return str(v) if v >= 0 else f"(0 - {-v})"
    return v.text


def _sym(text: str, tree: tuple) -> Sym:
    return Sym(f"({text})", tree=tree)


def knob(name: str) -> Sym:
    """The knob @name."""
    return Sym(f"@{name}", tree=("knob", name))


def add(a: Int, b: Int) -> Int:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return _sym(f"{term(a)} + {term(b)}", ("+", a, b))


def sub(a: Int, b: Int) -> Int:
    if isinstance(a, int) and isinstance(b, int):
        return a - b
    return _sym(f"{term(a)} - {term(b)}", ("-", a, b))


def mul(a: Int, b: Int) -> Int:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    return _sym(f"{term(a)} * {term(b)}", ("*", a, b))


def mod(a: Int, b: Int) -> Int:
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            raise ZeroDivisionError("modulo by zero")
        return a % b
    return _sym(f"{term(a)} % {term(b)}", ("%", a, b))


def floordiv(a: Int, b: Int) -> Int:
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            raise ZeroDivisionError("division by zero")
        return a // b
    # (a - a % b) / b: TTL's `/` is exact, and a - a % b is a multiple of b.
    return _sym(f"({term(a)} - {term(a)} % {term(b)}) / {term(b)}", ("//", a, b))


def neg(a: Int) -> Int:
    if isinstance(a, int):
        return -a
    if a.negated_floor is not None:
        x, y = a.negated_floor
        return ceildiv(x, y)
    return _sym(f"0 - {term(a)}", ("-", 0, a))


def floordiv_of_negation(x: Int, y: Int) -> Int:
    """(-x) // y, recorded so that a negation of it is ceildiv(x, y)."""
    if isinstance(x, int) and isinstance(y, int):
        if y == 0:
            raise ZeroDivisionError("division by zero")
        return (-x) // y
    return Sym(f"(0 - ceildiv({term(x)}, {term(y)}))", negated_floor=(x, y),
               tree=("-", 0, ceildiv(x, y)))


def ceildiv(x: Int, y: Int) -> Int:
    """x / y rounded up."""
    if isinstance(x, int) and isinstance(y, int):
        if y == 0:
            raise ZeroDivisionError("division by zero")
        return -(-x // y)
    return Sym(f"ceildiv({term(x)}, {term(y)})", tree=("ceildiv", x, y))


def minimum(a: Int, b: Int) -> Int:
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return Sym(f"min({term(a)}, {term(b)})", tree=("min", a, b))


def maximum(a: Int, b: Int) -> Int:
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    return Sym(f"max({term(a)}, {term(b)})", tree=("max", a, b))
