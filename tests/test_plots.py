"""`simulate --plot` and `compare --plot` (interpreter/tools/plots.py): the figures hold the right
panels and series with the numbers simulate reports, PNG and HTML are written, and a bad file
name or a missing matplotlib is a usage error with a hint, found before any game is played."""
from __future__ import annotations

import base64
import builtins
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")     # the test extra installs it (mercator[plot])

from mercator.interpreter.cli.main import main
from mercator.interpreter.tools.designer import GameRecord, wilson_interval
from mercator.interpreter.tools.plots import (Sample, html_report, panel_figures, plot_kind, report_figure,
                                     sample_from_records)

ROOT = Path(__file__).resolve().parent.parent
TINY = str(ROOT / "tests" / "fixtures" / "tiny.rules")
MANILA = str(ROOT / "rulebooks" / "manila.rules")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

SAMPLE = Sample("S", 3, (2.0, 1.5, 0.5), ((10, 20, 30, 40), (5, 5, 6, 7), (0, 1, 2, 3)),
                (12, 15, 15, 20), (("boardings", (1, 0, 2, 1)), ("wrecks", (3, 3, 4, 2))))


def _bars(ax: Any) -> list[Any]:
    from matplotlib.container import BarContainer
    return [c for c in ax.containers if isinstance(c, BarContainer)]


def _errorbars(ax: Any) -> list[Any]:
    from matplotlib.container import ErrorbarContainer
    return [c for c in ax.containers if isinstance(c, ErrorbarContainer)]


def _axes(fig: Any) -> dict[str, Any]:
    return {ax.get_title(): ax for ax in fig.axes}


def test_one_sample_has_four_panels_with_one_series_each():
    fig = report_figure([SAMPLE], "t")
    axes = _axes(fig)
    assert set(axes) == {"win rate by seat (95% interval)", "score by seat", "game length",
                         "declared stats"}
    win = axes["win rate by seat (95% interval)"]
    bar_sets, err_sets = _bars(win), _errorbars(win)
    assert len(bar_sets) == 1 and len(err_sets) == 1      # one series, with its intervals
    assert [round(b.get_height(), 6) for b in bar_sets[0]] == [50.0, 37.5, 12.5]  # wins / 4
    # the error bar of P2 spans its Wilson interval
    lo, hi = wilson_interval(1.5, 4)
    segs = err_sets[0].lines[2][0].get_segments()
    assert segs[1][0][1] == pytest.approx(100 * lo) and segs[1][1][1] == pytest.approx(100 * hi)
    assert any(line.get_linestyle() == "--" and line.get_ydata()[0] == pytest.approx(100 / 3)
               for line in win.get_lines())     # a fair seat's rate
    score = axes["score by seat"]
    assert len(score.patches) == 3             # one box per seat
    length = axes["game length"]
    assert len(length.patches) == 1            # one histogram
    stats = axes["declared stats"]
    assert [t.get_text() for t in stats.get_yticklabels()] == ["boardings", "wrecks"]
    assert [b.get_width() for b in _bars(stats)[0]] == [1.0, 3.0]      # means per game


def test_without_declared_stats_there_are_three_panels():
    bare = Sample("S", 2, (1.0, 1.0), ((1, 2), (2, 1)), (5, 6), ())
    fig = report_figure([bare], "t")
    assert len(fig.axes) == 3 and "declared stats" not in _axes(fig)
    assert len(panel_figures([bare])) == 3


def test_few_distinct_scores_are_shown_as_shares_of_games():
    """Scores that take a handful of values (Die Händler's random games end on 0 or 1) make a
    box plot of lines: each seat's bar is split by score instead, one series per score."""
    few = Sample("S", 2, (3.0, 1.0), ((0, 0, 1, 2), (1, 1, 1, 0)), (5, 6, 7, 8), ())
    ax = _axes(report_figure([few], "t"))["score by seat"]
    series = _bars(ax)
    assert [c.get_label() for c in series] == ["score 0", "score 1", "score 2"]
    assert [[b.get_width() for b in c] for c in series] == [[50.0, 25.0], [25.0, 75.0],
                                                           [25.0, 0.0]]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["P1", "P2"]
    assert not ax.patches[0].__class__.__name__ == "PathPatch"        # no boxes


def _records(offset: int, stats: int = 1) -> list[GameRecord]:
    return [GameRecord(i, (i % 2,), (10 + i + offset, 20 - i), 30 + i, 3, (i,) * stats)
            for i in range(6)]


def test_compare_draws_a_and_b_side_by_side():
    a = sample_from_records("A: a.rules", _records(0), 2, ["rolls"])
    b = sample_from_records("B: b.rules", _records(5, 2), 2, ["rolls", "extra"])
    assert a.wins == (3.0, 3.0) and a.scores[0] == (10, 11, 12, 13, 14, 15)
    fig = report_figure([a, b], "A vs B")
    axes = _axes(fig)
    win = axes["win rate by seat (95% interval)"]
    bar_sets = _bars(win)
    assert len(bar_sets) == 2 and all(len(c) == 2 for c in bar_sets)     # A and B, 2 seats
    labels = [t.get_text() for t in win.get_legend().get_texts()]
    assert "A: a.rules" in labels and "B: b.rules" in labels
    assert len(axes["score by seat"].patches) == 4                        # 2 seats × A, B
    assert len(axes["game length"].patches) == 2
    stats = axes["declared stats"]
    assert [t.get_text() for t in stats.get_yticklabels()] == ["rolls", "extra"]
    widths = [[bar.get_width() for bar in c] for c in _bars(stats)]
    assert widths == [[2.5], [2.5, 2.5]]       # 'extra' only in B: A draws no bar for it
    assert any("not in A" in t.get_text() for t in stats.texts)


def test_a_stat_the_other_rulebook_cannot_count_is_drawn_at_zero():
    """compare counts a stat whose event A does not declare as 0 in A: the figure draws A's
    bar at 0 (and says no 'not in A'), as the table compares it."""
    a = sample_from_records("A: a.rules", _records(0), 2, ["rolls"], zeros=["extra"])
    b = sample_from_records("B: b.rules", _records(5, 2), 2, ["rolls", "extra"])
    assert dict(a.stats)["extra"] == (0,) * 6
    stats = _axes(report_figure([a, b], "A vs B"))["declared stats"]
    assert [[bar.get_width() for bar in c] for c in _bars(stats)] == [[2.5, 0.0], [2.5, 2.5]]
    assert not any("not in" in t.get_text() for t in stats.texts)


def test_html_report_embeds_each_panel_and_the_numbers():
    text = html_report([SAMPLE], "Tiny <&> report", [["measure", "value"], ["win rate P1", "50%"]])
    assert text.startswith("<!DOCTYPE html>") and "Tiny &lt;&amp;&gt; report" in text
    imgs = re.findall(r'src="data:image/png;base64,([^"]+)"', text)
    assert len(imgs) == 4 and all(base64.b64decode(i).startswith(PNG_MAGIC) for i in imgs)
    assert "<td>win rate P1</td><td>50%</td>" in text


def test_plot_kind_by_the_file_name():
    assert plot_kind("a.png") == "png" and plot_kind("A.PNG") == "png"
    assert plot_kind("r.html") == "html" and plot_kind("r.htm") == "html"
    assert plot_kind("r.pdf") is None and plot_kind(".png") is None and plot_kind("png") is None


# ------------------------------------------------------------------ through the CLI
def test_simulate_writes_a_png_and_an_html_report(tmp_path: Path, capsys: pytest.CaptureFixture):
    png, page = tmp_path / "sim.png", tmp_path / "sim.html"
    argv = ["simulate", MANILA, "--players", "3", "--games", "12", "--seed", "3"]
    assert main(argv + ["--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(argv + ["--json", "--plot", str(png)]) == 0
    cap = capsys.readouterr()
    with_plot = json.loads(cap.out)
    for doc in (plain, with_plot):
        doc.pop("seconds"), doc.pop("games_per_second")
    assert with_plot == plain                 # stdout does not change with --plot
    assert f"plot written to {png}" in cap.err
    assert png.read_bytes().startswith(PNG_MAGIC)
    assert main(argv + ["--plot", str(page)]) == 0
    text = page.read_text()
    assert len(re.findall(r"data:image/png;base64,", text)) == 4          # Manila declares stats
    assert "stat wrecks per game" in text and "win rate P3" in text


def test_compare_writes_a_plot(tmp_path: Path, capsys: pytest.CaptureFixture):
    png = tmp_path / "cmp.png"
    assert main(["compare", TINY, TINY, "--players", "2", "--games", "4", "--plot",
                 str(png)]) == 0
    assert png.read_bytes().startswith(PNG_MAGIC)
    assert "plot written to" in capsys.readouterr().err


@pytest.mark.parametrize("cmd", [["simulate", TINY, "--games", "3"],
                                 ["compare", TINY, TINY, "--games", "3"]])
def test_a_bad_plot_file_name_is_a_usage_error_before_any_game(cmd: list[str], tmp_path: Path,
                                                              capsys: pytest.CaptureFixture):
    assert main(cmd + ["--plot", str(tmp_path / "out.pdf")]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert f"mercator {cmd[0]}: error: --plot {tmp_path / 'out.pdf'}: a plot is written as PNG " \
           "or HTML" in cap.err
    assert "hint: end it in .png" in cap.err
    assert main(cmd + ["--plot", str(tmp_path / "missing" / "x.png")]) == 2
    assert "its folder does not exist" in capsys.readouterr().err


def test_missing_matplotlib_is_a_usage_error_with_the_install_hint(
        tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch):
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kw: Any) -> Any:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named '{name}'")
        return real_import(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    assert main(["simulate", TINY, "--games", "3", "--plot", str(tmp_path / "x.png")]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and "Traceback" not in cap.err
    assert "plots need matplotlib, which is not installed" in cap.err
    assert "pip install 'mercator[plot]'" in cap.err
    assert not (tmp_path / "x.png").exists()
