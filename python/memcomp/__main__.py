"""``python -m memcomp`` and the ``memcomp`` command: the command line."""

import sys


def run() -> int:
    """Loads the command line and runs it (a Ctrl-C while the libraries load: one line and 130,
    as during a run; ``import memcomp`` loads nothing heavy, see __init__)."""
    try:
        from .cli import main
    except KeyboardInterrupt:
        print("memcomp: interrupted", file=sys.stderr)
        return 130
    return main()


if __name__ == "__main__":
    sys.exit(run())
