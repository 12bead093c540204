"""`python -m bench`: the same as `bench/run`."""

import sys

from .cli import main

sys.exit(main())
