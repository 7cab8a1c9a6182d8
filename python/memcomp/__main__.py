"""``python -m memcomp`` and the ``memcomp`` command: the command line."""

import sys


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is a Ctrl-C, or an error raised because of one: NumPy turns a
    KeyboardInterrupt inside its C extension's initialisation into a long ImportError chained to it."""
    seen = set()
    link: "BaseException | None" = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return False


def run() -> int:
    """Loads the command line and runs it (a Ctrl-C while the libraries load: one line and 130,
    as during a run; ``import memcomp`` loads nothing heavy, see __init__)."""
    try:
        from .cli import main
    except BaseException as e:
        if not _interrupted(e):
            raise
        print("memcomp: interrupted", file=sys.stderr)
        return 130
    return main()


if __name__ == "__main__":
    sys.exit(run())
