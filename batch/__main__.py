"""``python -m batch CONFIG.yaml --out DIR [--scheduler tcp://HOST:PORT] [--workers N]``."""

import sys

from batch.cli import main

if __name__ == "__main__":
    sys.exit(main())
