"""``python3 -m ttlplan ARGS``: the ttlplan command line (the same program as ``ttlplan ARGS``).

The executable is $TTLPLAN_EXECUTABLE, else the one installed with this package
(PREFIX/bin/ttlplan for PREFIX/lib/python3/dist-packages/ttlplan), else the build tree's (beside
the _ttlplan extension in BUILD/python: BUILD/tools/ttlplan), else ttlplan on PATH.
"""

from __future__ import annotations

import os
import shutil
import sys


def _runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def executable() -> str | None:
    explicit = os.environ.get("TTLPLAN_EXECUTABLE")
    if explicit:
        return explicit
    here = os.path.dirname(os.path.abspath(__file__))
    installed = os.path.normpath(os.path.join(here, "..", "..", "..", "..", "bin", "ttlplan"))
    if _runnable(installed):
        return installed
    try:  # a build tree: the extension sits in BUILD/python, the executable in BUILD/tools
        import _ttlplan

        built = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(_ttlplan.__file__)),
                                              "..", "tools", "ttlplan"))
        if _runnable(built):
            return built
    except ImportError:
        pass
    return shutil.which("ttlplan")


def main() -> int:
    exe = executable()
    if exe is None:
        print("ttlplan: error: the ttlplan executable was not found (set TTLPLAN_EXECUTABLE, or "
              "install ttlplan with cmake --install)", file=sys.stderr)
        return 2
    os.execv(exe, [exe, *sys.argv[1:]])
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
