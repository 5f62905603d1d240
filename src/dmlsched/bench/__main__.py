"""``python -m dmlsched.bench bench|report ...``."""

import sys

from ..cli.bench import main

sys.exit(main())
