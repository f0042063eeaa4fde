"""Kept so existing instructions still work: the settings reference moved from the
README to docs/settings.md. Same arguments as scripts/gen_docs_settings.py.

    python scripts/gen_readme_settings.py          # rewrite docs/settings.md
    python scripts/gen_readme_settings.py --check  # exit 1 when it has drifted
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.argv[0] = str(Path(__file__).with_name("gen_docs_settings.py"))
    runpy.run_path(sys.argv[0], run_name="__main__")
