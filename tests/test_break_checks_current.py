"""Every deliberate break in tests/break_checks.py still applies to today's code.

A break whose text no longer occurs exactly once in its file cannot be applied, and the
break runner stops there; this catches it in the ordinary suite, when the code moves.
"""

from __future__ import annotations

import pytest

from tests.break_checks import BREAKS, ROOT


@pytest.mark.parametrize("brk", BREAKS, ids=[b.name for b in BREAKS])
def test_break_text_occurs_once_and_names_existing_tests(brk) -> None:
    text = (ROOT / brk.path).read_text(encoding="utf-8")
    assert text.count(brk.old) == 1, f"{brk.name}: its text occurs {text.count(brk.old)} times"
    for test in brk.tests:
        path, _, rest = test.partition("::")
        assert (ROOT / path).is_file(), f"{brk.name}: {path} does not exist"
        function = rest.split("[")[0].split("::")[-1]
        if function:
            source = (ROOT / path).read_text(encoding="utf-8")
            assert f"def {function}(" in source, f"{brk.name}: {test} does not exist"
