"""Red team 31 (web, second round): reuse the web tests' site fixtures."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "web"))

from tests.web.conftest import make_site  # noqa: E402,F401
