"""The front end's one error: a message at a place of the Python file (docs/python.md)."""

from __future__ import annotations

import ast


class FrontendError(Exception):
    """`path:line:col: error: message`, with the column 1-based as ttlplan prints locations."""

    def __init__(self, path: str, line: int, col: int, message: str):
        super().__init__(message)
        self.path = path
        self.line = line
        self.col = col
        self.message = message

    @classmethod
    def at(cls, path: str, node: ast.AST | None, message: str) -> "FrontendError":
        line = getattr(node, "lineno", 1) if node is not None else 1
        col = getattr(node, "col_offset", 0) + 1 if node is not None else 1
        # A node of a file the kernel imports (imports.py) names that file.
        return cls(getattr(node, "source_path", path), line, col, message)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: error: {self.message}"
