"""nox's own interpreter imports site_build.config: it must need nothing installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bare_python import bare_python

import site_build.config

MODULES = sorted(
    path.stem
    for path in Path(site_build.config.__file__).parent.glob("*.py")
    if path.stem != "__init__"
)


@pytest.mark.parametrize("module", MODULES)
def test_a_config_module_imports_only_the_standard_library(module: str) -> None:
    result = bare_python(
        f"import json; import site_build.config.{module}; "
        "print(json.dumps(sorted(name for name in sys.modules "
        "if name != '__main__' and name.split('.')[0] not in sys.stdlib_module_names "
        "and name.split('.')[0] != 'site_build')))"
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [], f"site_build.config.{module} imports these"
