"""Every broken-rulebook fixture reports the diagnostic its first line states, where it states it.

A fixture in ``tests/fixtures/broken/`` starts with a header of comment lines:

    # expect: E103 at 9:26                  (code, line and column of the span start; required)
    # message: unknown field 'pesoss'       (optional: a piece of the message)
    # hint: did you mean 'pesos'?           (optional: a piece of the hint)

Fixtures whose diagnostic the checker does not give yet are listed in ``KNOWN_WRONG`` (strict
xfail: when the checker is fixed the test passes, fails as XPASS, and the entry must go).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

import attrs
import pytest

from mercator.dsl.diagnostics import Diagnostic, render
from mercator.dsl.loader import LoadResult, load

ROOT = Path(__file__).resolve().parent.parent
BROKEN = ROOT / "tests" / "fixtures" / "broken"
FIXTURES = sorted(BROKEN.glob("*.rules"))
HEADER = re.compile(r"# expect: ([EWI]\d{3}) at (\d+):(\d+)\s*$")

# file name -> why the expected diagnostic is not (yet) what the checker reports
KNOWN_WRONG: dict[str, str] = {}
# file name -> why the message or hint differs from the header's
KNOWN_WRONG_WORDING: dict[str, str] = {}


@attrs.frozen
class Expectation:
    """What a fixture's header says."""

    code: str
    line: int
    col: int
    message: Optional[str]
    hint: Optional[str]


def expectation(path: Path) -> Expectation:
    """Read the header of a fixture (bytes first: one fixture is deliberately not UTF-8)."""
    lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    m = HEADER.match(lines[0]) if lines else None
    assert m is not None, f"{path.name}: the first line must be '# expect: CODE at LINE:COL'"
    found: dict[str, str] = {}
    for line in lines[1:]:
        if not line.startswith("#"):
            break
        k = re.match(r"# (message|hint): (.*)$", line)
        if k:
            found[k.group(1)] = k.group(2).strip()
    return Expectation(m.group(1), int(m.group(2)), int(m.group(3)), found.get("message"),
                       found.get("hint"))


def _param(path: Path, known: dict[str, str]) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=known[path.name])] if path.name in known else []
    return pytest.param(path, id=path.stem, marks=marks)


def _describe(res: LoadResult) -> str:
    return "\n".join(render(d, res.sources.get(d.span.path)) for d in res.diagnostics) or "(none)"


def _at(res: LoadResult, exp: Expectation) -> list[Diagnostic]:
    return [d for d in res.diagnostics
            if d.code == exp.code and (d.span.line, d.span.col) == (exp.line, exp.col)]


def test_there_are_enough_fixtures() -> None:
    assert len(FIXTURES) >= 25


@pytest.mark.parametrize("path", [_param(p, KNOWN_WRONG) for p in FIXTURES])
def test_fixture_reports_its_diagnostic(path: Path) -> None:
    exp = expectation(path)
    res = load(str(path))
    assert _at(res, exp), (f"expected {exp.code} at {exp.line}:{exp.col}; got:\n"
                           + _describe(res))
    if exp.code.startswith("E"):
        assert not res.ok and res.rulebook is None
    else:
        assert not any(d.is_error for d in res.diagnostics), _describe(res)


WORDED = [p for p in FIXTURES if expectation(p).message or expectation(p).hint]


@pytest.mark.parametrize("path", [_param(p, KNOWN_WRONG_WORDING) for p in WORDED])
def test_fixture_wording(path: Path) -> None:
    exp = expectation(path)
    res = load(str(path))
    found = _at(res, exp)
    assert found, f"expected {exp.code} at {exp.line}:{exp.col}; got:\n" + _describe(res)
    d = found[0]
    if exp.message is not None:
        assert exp.message in d.message, _describe(res)
    if exp.hint is not None:
        assert d.hint is not None and exp.hint in d.hint, _describe(res)


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in FIXTURES])
def test_every_diagnostic_is_located_and_renders(path: Path) -> None:
    res = load(str(path))
    for d in res.diagnostics:
        assert d.severity in ("error", "warning", "info")
        assert re.fullmatch(r"[EWI]\d{3}", d.code)
        assert d.message
        assert d.span.line >= 1 and d.span.col >= 1, d
        src = res.sources.get(d.span.path)
        if src is not None:
            assert d.span.line <= max(len(src.splitlines()), 1), d
        for text in (render(d, src), render(d, src, color=True), render(d, None)):
            assert isinstance(text, str)
        plain = render(d, src)
        assert plain.startswith(f"{d.span.path}:{d.span.line}:{d.span.col}: {d.severity}[{d.code}]: ")
        if src is not None:
            assert f" {d.span.line} | " in plain       # the line is quoted under the message


def _codes_in_sources() -> set[str]:
    codes: set[str] = set()
    for name in [p.name for p in (ROOT / "dsl").glob("*.py")]:
        codes |= set(re.findall(r'"([EWI]\d{3})"', (ROOT / "dsl" / name).read_text("utf-8")))
    return codes


def test_every_diagnostic_code_has_a_fixture() -> None:
    covered = {expectation(p).code for p in FIXTURES}
    missing = _codes_in_sources() - covered
    assert not missing, f"codes with no broken-rulebook fixture: {sorted(missing)}"


def test_every_diagnostic_code_is_documented() -> None:
    docs = (ROOT / "docs" / "diagnostics.md").read_text("utf-8")
    headed = set(re.findall(r"^## ([EWI]\d{3}) — ", docs, flags=re.M))
    missing = _codes_in_sources() - headed
    assert not missing, f"codes with no section in docs/diagnostics.md: {sorted(missing)}"


def test_a_missing_file_is_e000(tmp_path: Path) -> None:
    res = load(str(tmp_path / "nowhere.rules"))
    assert [(d.code, d.span.line, d.span.col) for d in res.diagnostics] == [("E000", 1, 1)]
    assert "cannot read rulebook" in res.diagnostics[0].message
    render(res.diagnostics[0], None)


def test_a_directory_is_e000(tmp_path: Path) -> None:
    res = load(str(tmp_path))
    assert [d.code for d in res.diagnostics] == ["E000"]
    assert "directory" in res.diagnostics[0].message
