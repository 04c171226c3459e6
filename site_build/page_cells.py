"""The code of a MyST page as the checks outside Sphinx run it.

Every ```python block and ``{code-cell} python`` cell, in page order, in one namespace,
honouring Sybil's skip comments; doctest-style blocks compare the shown output. The
test session, the sabotage tests and the benchmark's floor read pages this way.
"""

from __future__ import annotations

from sybil import Sybil
from sybil.parsers.myst import PythonCodeBlockParser, SkipParser

PAGE_CELLS = Sybil(parsers=[PythonCodeBlockParser(), SkipParser()])
