"""Make the build helpers in conf/_ext importable by their module names, as conf.py does."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "conf" / "_ext"))
