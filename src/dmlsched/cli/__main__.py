"""``python -m dmlsched.cli ...``: the ``dmlsched`` command."""

import sys

from . import main

sys.exit(main())
