"""Pictures of many games for `simulate --plot` and `compare --plot`: win rate by seat with 95%
intervals, score distributions by seat, game length, and the rulebook's declared stats; one
sample (simulate) or two side by side (compare: A and B). Written as a PNG, or as an HTML
report with each figure embedded and the numbers in a table.

matplotlib is an optional extra (`pip install 'mercator[plot]'`); it is imported only here and
only when a plot is asked for, and drawn with the Agg backend (no display needed)."""
from __future__ import annotations

import base64
import html
import io
from typing import Any, Callable, Optional, Sequence

import attrs

from mercator.interpreter.tools.designer import GameRecord, summarize, wilson_interval, win_share
from mercator.dsl.errors import MercatorError

KINDS = {".png": "png", ".html": "html", ".htm": "html"}
INSTALL_HINT = ("install the plotting extra: pip install 'mercator[plot]' "
                "(or pip install matplotlib)")
COLOURS = ("#1f77b4", "#ff7f0e")       # A (or the one sample), B


class PlotUnavailable(MercatorError):
    """matplotlib is not installed."""


def plot_kind(path: str) -> Optional[str]:
    """'png' or 'html' from the file name's ending (any case); None for any other."""
    low = path.lower()
    for ext, kind in KINDS.items():
        if low.endswith(ext) and len(low) > len(ext):
            return kind
    return None


def require_matplotlib() -> None:
    """PlotUnavailable unless matplotlib (and its Agg backend) can be imported."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
    except ImportError as exc:
        raise PlotUnavailable(f"plots need matplotlib, which is not installed ({exc})") from None


@attrs.frozen
class Sample:
    """The games of one rulebook: per seat its wins (a shared win split 1/k) and its score in
    each game; per game its length in decisions and each declared stat."""

    label: str
    players: int
    wins: tuple[float, ...]
    scores: tuple[tuple[int, ...], ...]              # [seat][game]
    decisions: tuple[int, ...]
    stats: tuple[tuple[str, tuple[int, ...]], ...]   # (name, value in each game)

    @property
    def games(self) -> int:
        """How many games the sample holds."""
        return len(self.decisions)


def sample_from_records(label: str, records: Sequence[GameRecord], players: int,
                        stat_names: Sequence[str], zeros: Sequence[str] = ()) -> Sample:
    """A Sample of `run_games` records (the games compare plays); `zeros` are stats this
    rulebook cannot count (their event is not declared: designer.never_counted), 0 in every
    game, as compare's table counts them."""
    return Sample(label, players,
                  tuple(sum(win_share(r, p) for r in records) for p in range(players)),
                  tuple(tuple(r.scores[p] for r in records) for p in range(players)),
                  tuple(r.decisions for r in records),
                  tuple((n, tuple(r.stats[k] for r in records)) for k, n in enumerate(stat_names))
                  + tuple((n, (0,) * len(records)) for n in zeros))


# ------------------------------------------------------------------ panels
Panel = Callable[[Any, Sequence[Sample]], None]


def _offsets(n: int, width: float) -> list[float]:
    """Where each of n side-by-side series sits around a group's centre."""
    return [(i - (n - 1) / 2) * width for i in range(n)]


def win_rate_panel(ax: Any, samples: Sequence[Sample]) -> None:
    """Win rate by seat, one bar series per sample, 95% Wilson intervals as error bars, and the
    rate of a fair seat (1/players) as a dashed line."""
    players = samples[0].players
    width = 0.8 / len(samples)
    for k, (s, dx) in enumerate(zip(samples, _offsets(len(samples), width))):
        rates = [w / s.games for w in s.wins]
        cis = [wilson_interval(w, s.games) for w in s.wins]
        low = [r - lo for r, (lo, _) in zip(rates, cis)]
        high = [hi - r for r, (_, hi) in zip(rates, cis)]
        ax.bar([p + 1 + dx for p in range(players)], [100 * r for r in rates], width,
               yerr=[[100 * x for x in low], [100 * x for x in high]], capsize=4,
               color=COLOURS[k % 2], label=s.label)
    ax.axhline(100 / players, color="grey", linestyle="--", linewidth=1,
               label=f"fair share ({100 / players:.0f}%)")
    ax.set_xticks(range(1, players + 1), [f"P{p}" for p in range(1, players + 1)])
    ax.set_ylabel("win rate (%)")
    ax.set_title("win rate by seat (95% interval)")
    top = max(100 * wilson_interval(w, s.games)[1] for s in samples for w in s.wins)
    ax.set_ylim(0, max(top, 100 / players) * 1.3)         # room for the legend above the bars
    ax.legend(fontsize="small", loc="upper right", ncols=len(samples) + 1)


FEW_SCORES = 8       # at most this many distinct scores: shares of games, not a box plot


def score_values(samples: Sequence[Sample]) -> list[int]:
    """Every final score any seat reached in any game, sorted."""
    return sorted({v for s in samples for seat in s.scores for v in seat})


def score_panel(ax: Any, samples: Sequence[Sample]) -> None:
    """Each seat's final scores: a box plot (median, quartiles, 1.5 IQR whiskers), one box per
    seat and sample; where the games end with only a few distinct scores, the share of games
    ending on each score instead, as a stacked bar per seat and sample."""
    if len(score_values(samples)) <= FEW_SCORES:
        score_shares_panel(ax, samples)
        return
    players = samples[0].players
    width = 0.7 / len(samples)
    for k, (s, dx) in enumerate(zip(samples, _offsets(len(samples), width))):
        ax.boxplot([list(v) for v in s.scores], positions=[p + 1 + dx for p in range(players)],
                   widths=width * 0.9, patch_artist=True, manage_ticks=False,
                   boxprops={"facecolor": COLOURS[k % 2], "alpha": 0.6},
                   medianprops={"color": "black"}, flierprops={"markersize": 3})
    ax.set_xticks(range(1, players + 1), [f"P{p}" for p in range(1, players + 1)])
    ax.set_xlim(0.4, players + 0.6)
    ax.set_ylabel("final score")
    ax.set_title("score by seat")
    if len(samples) > 1:
        from matplotlib.patches import Patch
        ax.legend(handles=[Patch(facecolor=COLOURS[k % 2], alpha=0.6, label=s.label)
                           for k, s in enumerate(samples)], fontsize="small")


def score_shares_panel(ax: Any, samples: Sequence[Sample]) -> None:
    """A horizontal bar per seat (and sample) split by final score: the share of games that
    seat ended on each score. One bar series per score value."""
    values = score_values(samples)
    rows = [(s, p) for p in range(samples[0].players) for s in samples]
    left = [0.0] * len(rows)
    cmap = _colormap()
    for k, v in enumerate(values):
        shares = [100 * s.scores[p].count(v) / s.games for s, p in rows]
        ax.barh(range(len(rows)), shares, 0.7, left=left,
                color=cmap(k / max(1, len(values) - 1)), label=f"score {v}")
        left = [a + b for a, b in zip(left, shares)]
    tag = (lambda s: f" {s.label.split(':')[0]}") if len(samples) > 1 else (lambda s: "")
    ax.set_yticks(range(len(rows)), [f"P{p + 1}{tag(s)}" for s, p in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of games (%)")
    ax.set_title("score by seat")
    ax.legend(fontsize="small", ncols=min(len(values), 4), loc="lower center",
              bbox_to_anchor=(0.5, 1.06), frameon=False)


def _colormap() -> Any:
    from matplotlib import colormaps
    return colormaps["viridis"]


def length_panel(ax: Any, samples: Sequence[Sample]) -> None:
    """Game length in decisions: a histogram per sample, with its mean marked."""
    lo = min(min(s.decisions) for s in samples)
    hi = max(max(s.decisions) for s in samples)
    bins = max(1, min(30, hi - lo + 1))
    for k, s in enumerate(samples):
        mean = sum(s.decisions) / s.games
        outline = k > 0                   # B as an outline over A's filled histogram
        ax.hist(s.decisions, bins=bins, range=(lo - 0.5, hi + 0.5),
                histtype="step" if outline else "stepfilled", linewidth=2 if outline else 1,
                alpha=1.0 if outline else 0.6, color=COLOURS[k % 2],
                label=f"{s.label} (mean {mean:.1f})")
        ax.axvline(mean, color=COLOURS[k % 2], linestyle="--", linewidth=1)
    ax.set_xlabel("decisions per game")
    ax.set_ylabel("games")
    ax.set_title("game length")
    ax.legend(fontsize="small")


def stat_names(samples: Sequence[Sample]) -> list[str]:
    """Every declared stat of the samples, in the first one's order, then the others'."""
    names: list[str] = []
    for s in samples:
        names.extend(n for n, _ in s.stats if n not in names)
    return names


def stats_panel(ax: Any, samples: Sequence[Sample]) -> None:
    """Each declared stat's mean per game with its 95% interval, a horizontal bar per stat and
    sample (none where a sample's rulebook does not declare the stat)."""
    names = stat_names(samples)
    height = 0.8 / len(samples)
    for k, (s, dy) in enumerate(zip(samples, _offsets(len(samples), height))):
        own = dict(s.stats)
        ys, means, errs = [], [], []
        for i, n in enumerate(names):
            if n in own:
                sm = summarize(own[n])
                ys.append(i + dy)
                means.append(sm.mean)
                errs.append(sm.high - sm.mean)
            else:                       # compare: a stat only the other rulebook declares
                ax.text(0, i + dy, f" not in {s.label.split(':')[0]}", va="center",
                        fontsize="x-small", color="grey")
        ax.barh(ys, means, height, xerr=errs, capsize=3, color=COLOURS[k % 2], label=s.label)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("mean per game (95% interval)")
    ax.set_title("declared stats")
    if len(samples) > 1:
        ax.legend(fontsize="small")


def panels(samples: Sequence[Sample]) -> list[Panel]:
    """The panels to draw: win rate, score, length, and the stats when any is declared."""
    out: list[Panel] = [win_rate_panel, score_panel, length_panel]
    if stat_names(samples):
        out.append(stats_panel)
    return out


# ------------------------------------------------------------------ figures
def _new_figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def report_figure(samples: Sequence[Sample], title: str) -> Any:
    """One figure with every panel (two columns), titled; what a PNG holds."""
    require_matplotlib()
    ps = panels(samples)
    rows = (len(ps) + 1) // 2
    fig = _new_figure(13, 4.6 * rows)
    axes = fig.subplots(rows, 2, squeeze=False).flatten()
    for ax, panel in zip(axes, ps):
        panel(ax, samples)
    for ax in axes[len(ps):]:
        fig.delaxes(ax)
    fig.suptitle(title, fontsize="x-large")
    return fig


def panel_figures(samples: Sequence[Sample]) -> list[Any]:
    """One figure per panel (the HTML report shows them one under another)."""
    require_matplotlib()
    figs = []
    for panel in panels(samples):
        fig = _new_figure(8, 4.5)
        panel(fig.add_subplot(), samples)
        figs.append(fig)
    return figs


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def html_report(samples: Sequence[Sample], title: str, table: Sequence[Sequence[str]]) -> str:
    """A self-contained HTML page: the title, the numbers (table[0] is the header) and every
    panel as an embedded PNG."""
    esc = html.escape
    head = "".join(f"<th>{esc(c)}</th>" for c in table[0]) if table else ""
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>"
                   for row in table[1:])
    imgs = "".join(
        f'<figure><img alt="{esc(alt)}" src="data:image/png;base64,'
        f'{base64.b64encode(_png(fig)).decode()}"></figure>'
        for fig, alt in zip(panel_figures(samples), ("win rate by seat", "score by seat",
                                                     "game length", "declared stats")))
    style = ("body{font-family:sans-serif;max-width:60em;margin:2em auto}"
             "table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #ccc;"
             "text-align:right}td:first-child,th:first-child{text-align:left}"
             "img{max-width:100%}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{esc(title)}</title><style>{style}</style></head><body>"
            f"<h1>{esc(title)}</h1><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
            f"</table>{imgs}</body></html>\n")


def write_plot(path: str, samples: Sequence[Sample], title: str,
               table: Sequence[Sequence[str]]) -> None:
    """Write the PNG or the HTML report `path` names (see plot_kind); OSError if it cannot."""
    kind = plot_kind(path)
    if kind is None:
        raise ValueError(f"{path}: not a .png or .html file name")
    if kind == "png":
        data = _png(report_figure(samples, title))
        with open(path, "wb") as f:
            f.write(data)
    else:
        text = html_report(samples, title, table)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
