"""``python -m memcomp`` runs the command line."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while the libraries load: as during a run, one line and 130
    print("memcomp: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
