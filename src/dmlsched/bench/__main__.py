"""``python -m dmlsched.bench bench|report ...``."""

import sys

from .cli import main

sys.exit(main())
