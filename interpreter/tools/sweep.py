"""`mercator sweep`: a rulebook played with its constants set to each of several values — one
constant, or a grid of several — to see which setting makes the game fair (docs/balance.md).

What is here: the `--set NAME=VALUES` arguments read against the rulebook's declarations (Axis),
the settings of a grid, the measures of one setting's games (`setting_measures`), the
recommendation (the fair setting nearest today's rulebook), the adaptive design's choice of
where to play more, and the report's figures (one swept constant: every measure against its
values with 95% bands; two: heat maps of the largest advantage) as a PNG or an HTML page.
Each setting's program is built in memory (tools/overrides.py).
"""
from __future__ import annotations

import base64
import html
import itertools
import math
import re
from typing import Any, Optional, Sequence

import attrs

from mercator.dsl import ast as A
from mercator.dsl.diagnostics import did_you_mean
from mercator.dsl.errors import MercatorError
from mercator.dsl.types import Type
from mercator.interpreter.engine.program import Program
from mercator.interpreter.tools.balance import Measure, detail_measures
from mercator.interpreter.tools.designer import summarize, win_share, wilson_interval
from mercator.interpreter.tools.overrides import Key, Override, const_decl, literal_key
from mercator.interpreter.tools.parallel import Outcome


class SweepError(MercatorError):
    """A `--set` the rulebook cannot take: the message (with the rulebook's location where
    there is one) and a hint."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint


MAX_SETTINGS = 10_000          # a grid larger than this is surely a mistake


# ------------------------------------------------------------------ --set NAME=VALUES
_SET = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[\s*([^\]]*?)\s*\])?\s*=(.*)$", re.S)
_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?$")
_INT = re.compile(r"^-?\d+$")


def parse_set(text: str) -> tuple[str, Optional[str], str]:
    """`NAME=VALUES` or `NAME[KEY]=VALUES` as (name, key text or None, values text)."""
    m = _SET.match(text)
    if m is None:
        raise SweepError(f"--set {text!r}: not NAME=VALUES",
                         "e.g. --set start_money=4000,4500,5000 or --set rounds_for[3]=8..12")
    return m.group(1), m.group(2), m.group(3).strip()


def parse_values(text: str, label: str = "NAME") -> list[Any]:
    """The values of VALUES: `a..b` or `a..b:step` (whole numbers, both ends included), or a
    comma-separated list (whole numbers as int, anything else as its text)."""
    if not text:
        raise SweepError(f"--set {label}=: no values", f"e.g. --set {label}=20..40:5 or "
                         f"--set {label}=25,30,35")
    m = _RANGE.match(text)
    if m is not None:
        lo, hi = int(m.group(1)), int(m.group(2))
        step = int(m.group(3)) if m.group(3) is not None else 1
        if step <= 0:
            raise SweepError(f"--set {label}={text}: the step must be at least 1, not {step}",
                             f"e.g. --set {label}={lo}..{hi}:1")
        if hi < lo:
            raise SweepError(f"--set {label}={text}: an empty range ({hi} is below {lo})",
                             f"write the smaller end first: --set {label}={hi}..{lo}")
        return list(range(lo, hi + 1, step))
    if ".." in text:
        raise SweepError(f"--set {label}={text}: a range is two whole numbers, LOW..HIGH, with an "
                         "optional :STEP", f"e.g. --set {label}=20..40:5")
    parts = [p.strip() for p in text.split(",")]
    if any(not p for p in parts):
        raise SweepError(f"--set {label}={text}: an empty value in the list",
                         f"separate the values by single commas, e.g. --set {label}=25,30,35")
    values = [int(p) if _INT.match(p) else p for p in parts]
    seen: list[Any] = []
    for v in values:
        if v in seen:
            raise SweepError(f"--set {label}={text}: {v} is given twice", "give each value once")
        seen.append(v)
    return values


@attrs.frozen
class Axis:
    """One swept constant (or element of a table): its values and today's."""

    name: str
    key: Key
    kind: str                  # int | bool | enum | str
    values: tuple[Any, ...]
    today: Any                 # the value the rulebook gives it (None if not a plain literal)
    where: str = ""            # file:line of its declaration

    @property
    def label(self) -> str:
        """`start_money`, `rounds_for[3]`."""
        return self.name if self.key is None else f"{self.name}[{_text(self.key)}]"

    def numeric(self) -> bool:
        """Are its values whole numbers (so that distances and lines make sense)?"""
        return self.kind == "int"


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def value_text(kind: str, v: Any) -> str:
    """A value as the command line writes it."""
    return f'"{v}"' if kind == "str" else _text(v)


def _kind_of(t: Type) -> Optional[str]:
    if t.kind in ("int", "bool", "str", "enum"):
        return t.kind
    return None


def _const_names(items: Sequence[Any]) -> list[str]:
    return [d.name for d in items if isinstance(d, A.ConstDecl)]


def _typed(raw: Any, t: Type, label: str, where: str) -> Any:
    """A value of VALUES as the constant's type takes it; SweepError if it cannot."""
    kind = t.kind
    if kind == "int":
        if isinstance(raw, int):
            return raw
        raise SweepError(f"--set {label}: {raw!r} is not a whole number, and {label} is an int "
                         f"({where})", f"e.g. --set {label}=1,2,3 or --set {label}=1..5")
    if kind == "bool":
        if raw in ("true", "false"):
            return raw == "true"
        raise SweepError(f"--set {label}: {raw!r} is not true or false, and {label} is a bool "
                         f"({where})", f"--set {label}=true,false")
    if kind == "enum":
        if isinstance(raw, str) and raw in t.members:
            return raw
        hint = did_you_mean(str(raw), t.members) or f"its members: {', '.join(t.members)}"
        raise SweepError(f"--set {label}: {raw!r} is not a member of {t.name} ({where})", hint)
    if isinstance(raw, str) and len(raw) >= 2 and raw[0] == raw[-1] == '"':
        return raw[1:-1]
    return str(raw)


def _key_value(text: str, t: Type, label: str, where: str, name: str) -> Key:
    """The KEY of NAME[KEY] as the table's key type (a list's: a 0-based index) takes it."""
    if t.kind == "list":
        if not _INT.match(text):
            raise SweepError(f"--set {label}: {name} is a list, indexed by whole numbers from 0, "
                             f"not {text!r} ({where})", f"e.g. --set {name}[0]=...")
        return int(text)
    kt = t.elem
    if kt.kind == "int":
        if not _INT.match(text):
            raise SweepError(f"--set {label}: the keys of {name} are whole numbers, not "
                             f"{text!r} ({where})", f"e.g. --set {name}[3]=...")
        return int(text)
    if kt.kind == "bool" and text in ("true", "false"):
        return text == "true"
    if kt.kind == "str" and len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return text


def axes_for(items: Sequence[Any], const_types: dict[str, Type], prog: Program,
             sets: Sequence[str]) -> list[Axis]:
    """The axes of the `--set` arguments, read against the rulebook's declarations (`items`,
    checked types `const_types`) and its compiled constants (today's values)."""
    axes: list[Axis] = []
    for text in sets:
        name, key_text, values_text = parse_set(text)
        label = name if key_text is None else f"{name}[{key_text}]"
        decl = const_decl(items, name)
        if decl is None:
            names = _const_names(items)
            hint = did_you_mean(name, names) or (
                f"its constants and tables: {', '.join(names[:20])}"
                + (" ..." if len(names) > 20 else "") if names else
                "this rulebook declares no const or table")
            raise SweepError(f"--set {label}: the rulebook has no const or table '{name}'", hint)
        where = f"{decl.span.path}:{decl.span.line}"
        t = const_types[name]
        raw = parse_values(values_text, label)
        key: Key = None
        today: Any = None
        if key_text is None:
            vt = t
            if _kind_of(vt) is None:
                extra = (f"; sweep one of its elements, e.g. --set {name}[KEY]=..."
                         if vt.kind in ("map", "list") else "")
                raise SweepError(f"--set {label}: {name} is a {vt} ({where}); a sweep sets "
                                 f"whole numbers, true/false, enum members or strings{extra}",
                                 "sweep the constant it is computed from, if any")
            today = literal_key(decl.value)
            if today is None and t.kind in ("int", "bool"):
                today = prog.consts.get(name)
        else:
            if t.kind not in ("map", "list"):
                raise SweepError(f"--set {label}: {name} is a {t}, not a list or map ({where})",
                                 f"--set {name}=...")
            if not isinstance(decl.value, (A.MapLit, A.ListLit)):
                raise SweepError(f"--set {label}: {name} is computed, not written out as a "
                                 f"list or map literal ({where})",
                                 "sweep the constants it is computed from")
            key = _key_value(key_text, t, label, where, name)
            if isinstance(decl.value, A.MapLit):
                found = [en for en in decl.value.entries if literal_key(en.key) == key
                         and type(literal_key(en.key)) is type(key)]
                if not found:
                    keys = [_text(literal_key(en.key)) for en in decl.value.entries]
                    raise SweepError(f"--set {label}: {name} has no key {key_text} ({where})",
                                     f"its keys: {', '.join(keys)}")
                today = literal_key(found[0].value)
            else:
                n = len(decl.value.items)
                if not isinstance(key, int) or not 0 <= key < n:
                    raise SweepError(f"--set {label}: {name} has {n} elements, indexed 0 to "
                                     f"{n - 1}, not {key_text} ({where})",
                                     f"e.g. --set {name}[{max(n - 1, 0)}]=...")
                today = literal_key(decl.value.items[key])
            vt = t.value if t.kind == "map" else t.elem
            if _kind_of(vt) is None:
                raise SweepError(f"--set {label}: the elements of {name} are {vt} ({where}); "
                                 "a sweep sets whole numbers, true/false, enum members or "
                                 "strings", "")
        kind = _kind_of(vt)
        assert kind is not None
        values = tuple(_typed(v, vt, label, where) for v in raw)
        if any(a.name == name and a.key == key for a in axes):
            raise SweepError(f"--set {label}: set twice", "give each constant one --set")
        axes.append(Axis(name, key, kind, values, today, where))
    n = math.prod(len(a.values) for a in axes)
    if n > MAX_SETTINGS:
        raise SweepError(f"--set: {n:,} settings in the grid, more than {MAX_SETTINGS:,}",
                         "sweep fewer values (a range with a step: 20..40:5)")
    return axes


Setting = tuple[Any, ...]          # one value per axis


def grid(axes: Sequence[Axis]) -> list[Setting]:
    """Every combination of the axes' values (the first axis varies slowest)."""
    return [tuple(s) for s in itertools.product(*(a.values for a in axes))]


def overrides(axes: Sequence[Axis], setting: Setting) -> tuple[Override, ...]:
    """A setting as the overrides tools/overrides.py applies."""
    return tuple((a.name, a.key, a.kind, v) for a, v in zip(axes, setting))


def setting_text(axes: Sequence[Axis], setting: Setting) -> str:
    """`start_money=4000, rounds_for[3]=9`."""
    return ", ".join(f"{a.label}={value_text(a.kind, v)}" for a, v in zip(axes, setting))


def is_today(axes: Sequence[Axis], setting: Setting) -> bool:
    """Is this the rulebook as it is?"""
    return all(a.today is not None and v == a.today and type(v) is type(a.today)
               for a, v in zip(axes, setting))


# ------------------------------------------------------------------ measures
def setting_measures(outcomes: Sequence[Outcome], players: int,
                     stat_names: Sequence[str], rules: Sequence[str] = ()) -> list[Measure]:
    """The measures of one setting's finished games (failed ones left out): each seat's win
    rate with its 95% Wilson interval (a shared win counts 1/k) and its advantage (win rate −
    1/N, the same interval shifted), each seat's mean score, the game's length in decisions
    and in rounds, every declared stat per game (means with a 95% interval), and, of games
    played with their detail, the balance measures only the detail gives (decisiveness, lead
    changes, comebacks, each of `rules`' runs, dominant options: tools/balance.py)."""
    done = [o for o in outcomes if o.failure is None]
    n = len(done)
    rows: list[Measure] = []
    if n == 0:
        return rows
    fair = 1 / players
    for p in range(players):
        wins = sum(win_share(o.record, p) for o in done)
        lo, hi = wilson_interval(wins, n)
        rows.append(Measure(f"win rate P{p + 1}", wins / n, lo, hi))
    for p in range(players):
        w = rows[p]
        assert w.low is not None and w.high is not None
        rows.append(Measure(f"advantage P{p + 1}", w.value - fair, w.low - fair, w.high - fair))
    for p in range(players):
        rows.append(_mean(f"score P{p + 1}", [float(o.scores[p]) for o in done
                                             if p < len(o.scores)]))
    rows.append(_mean("decisions", [float(o.decisions) for o in done]))
    rows.append(_mean("rounds", [float(o.rounds) for o in done]))
    for k, name in enumerate(stat_names):
        rows.append(_mean(f"stat {name} per game", [float(o.stats[k]) for o in done
                                                    if k < len(o.stats)]))
    detailed = [o for o in done if o.detail is not None]
    if detailed:
        rows += detail_measures(detailed, rules)
    return rows


def _mean(name: str, xs: Sequence[float]) -> Measure:
    if not xs:
        return Measure(name, math.nan)
    if len(xs) < 2:
        return Measure(name, xs[0])
    m = summarize(xs)
    return Measure(name, m.mean, m.low, m.high)


def by_name(rows: Sequence[Measure]) -> dict[str, Measure]:
    """The measures of a setting by name."""
    return {r.name: r for r in rows}


def is_fair(rows: Sequence[Measure], players: int) -> bool:
    """Does every seat's 95% win-rate interval hold the fair share 1/N?"""
    m = by_name(rows)
    fair = 1 / players
    wins = [m.get(f"win rate P{p + 1}") for p in range(players)]
    return all(w is not None and w.low is not None and w.high is not None
               and w.low <= fair <= w.high for w in wins)


def largest_advantage(rows: Sequence[Measure], players: int) -> float:
    """The largest |win rate − 1/N| over the seats (nan without games)."""
    m = by_name(rows)
    adv = [abs(m[f"advantage P{p + 1}"].value) for p in range(players)
           if f"advantage P{p + 1}" in m]
    return max(adv) if adv else math.nan


def widest(rows: Sequence[Measure], players: int) -> float:
    """The widest win-rate interval over the seats (1 without games)."""
    m = by_name(rows)
    ws = [(w.high - w.low) for p in range(players)
          if (w := m.get(f"win rate P{p + 1}")) is not None
          and w.low is not None and w.high is not None]
    return max(ws) if ws else 1.0


# ------------------------------------------------------------------ recommendation
def distance(axes: Sequence[Axis], setting: Setting) -> float:
    """How far a setting is from today's rulebook: per swept constant the difference in value
    over the swept range (0 to 1; a value that is not a number: 0 if today's, else 1), the
    dimensions combined as a Euclidean distance. A constant whose today's value is unknown
    counts every value as 0.5 away."""
    total = 0.0
    for a, v in zip(axes, setting):
        if a.today is None:
            d = 0.5
        elif a.numeric() and isinstance(a.today, int) and not isinstance(a.today, bool):
            span = max(a.values) - min(a.values)
            span = max(span, abs(max(a.values) - a.today), abs(min(a.values) - a.today))
            d = abs(v - a.today) / span if span else 0.0
        else:
            d = 0.0 if v == a.today else 1.0
        total += d * d
    return math.sqrt(total)


@attrs.frozen
class Recommendation:
    """The setting a sweep recommends: the fair one nearest today's, or (no setting fair) the
    one with the smallest largest advantage."""

    setting: Optional[Setting]
    fair: bool
    text: str


def recommend(axes: Sequence[Axis], settings: Sequence[Setting],
              measures: Sequence[Sequence[Measure]], players: int) -> Recommendation:
    """Among the settings where every seat's win-rate interval holds 1/N, the nearest to today's
    (ties: the smaller largest advantage, then the earlier); else the setting whose largest
    |advantage| is smallest, said to be no fair one."""
    played = [(s, m) for s, m in zip(settings, measures) if m]
    if not played:
        return Recommendation(None, False, "no setting has a finished game")
    fair = [(s, m) for s, m in played if is_fair(m, players)]
    if fair:
        s, m = min(fair, key=lambda sm: (round(distance(axes, sm[0]), 12),
                                         largest_advantage(sm[1], players)))
        now = " (today's rulebook)" if is_today(axes, s) else ""
        return Recommendation(s, True, f"recommended: {setting_text(axes, s)}{now} — every "
                              f"seat's 95% interval holds the fair share 1/{players}; the "
                              "nearest such setting to today's "
                              f"({plural_settings(len(fair))} of {len(played)} fair)")
    s, m = min(played, key=lambda sm: (largest_advantage(sm[1], players),
                                       distance(axes, sm[0])))
    return Recommendation(s, False, f"no setting is fair: in each, some seat's 95% interval "
                          f"misses 1/{players}; the closest is {setting_text(axes, s)} "
                          f"(largest advantage {100 * largest_advantage(m, players):+.1f} "
                          "points)")


def plural_settings(n: int) -> str:
    return f"{n} setting" + ("" if n == 1 else "s")


# ------------------------------------------------------------------ adaptive design
def next_batch(settings: Sequence[Setting], measures: Sequence[Sequence[Measure]],
               players: int, left: int, batch: int) -> list[int]:
    """The settings (their indices) to give `batch` more games each, within `left` games:
    those still in question — every seat's interval holds 1/N so far, which more games may
    confirm or refute — the widest intervals first, half of them (at least one) a round.
    A setting shown unfair (some seat's interval misses 1/N) gets no more: more games would
    only narrow an interval already clear of the fair share."""
    open_ = [k for k, m in enumerate(measures) if m and is_fair(m, players)]
    if not open_ or batch < 1 or left < batch:
        return []
    open_.sort(key=lambda k: -widest(measures[k], players))
    take = max(1, (len(open_) + 1) // 2)
    return open_[:min(take, left // batch)]


# ------------------------------------------------------------------ the report
def measure_names(measures: Sequence[Sequence[Measure]]) -> list[str]:
    """Every measure of the sweep, in the order of the first setting that has games."""
    for m in measures:
        if m:
            return [r.name for r in m]
    return []


def _groups(names: Sequence[str], players: int) -> list[tuple[str, list[str]]]:
    """The panels: (title, the measures drawn in it)."""
    out = [("win rate by seat (95% interval; dashed: the fair share)",
            [f"win rate P{p + 1}" for p in range(players)]),
           ("advantage by seat (win rate − 1/N)", [f"advantage P{p + 1}" for p in range(players)]),
           ("mean score by seat", [f"score P{p + 1}" for p in range(players)]),
           ("game length (decisions)", ["decisions"]), ("game length (rounds)", ["rounds"]),
           ("decisiveness (the share of the game before the winner leads for good)",
            ["decisiveness"]),
           ("lead changes per game", ["lead changes"]),
           ("comebacks (games won by the seat last at the midpoint)", ["comebacks"])]
    out += [(n, [n]) for n in names if n.startswith("stat ")]
    return [(t, [n for n in ns if n in names]) for t, ns in out if any(n in names for n in ns)]


def sweep_figures(axes: Sequence[Axis], settings: Sequence[Setting],
                  measures: Sequence[Sequence[Measure]], players: int,
                  title: str = "") -> list[tuple[str, Any]]:
    """(caption, figure) for the report: with one swept constant, each panel of measures
    against its values (a line per seat, its 95% band); with two, heat maps of the largest
    |advantage| and of the game length over the grid; with more, the largest |advantage| by
    setting."""
    from mercator.interpreter.tools.plots import _new_figure, require_matplotlib
    require_matplotlib()
    figs: list[tuple[str, Any]] = []
    names = measure_names(measures)
    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
    if len(axes) == 1:
        a = axes[0]
        xs = list(range(len(settings))) if not a.numeric() else [s[0] for s in settings]
        ticks = [value_text(a.kind, s[0]) for s in settings]
        for caption, group in _groups(names, players):
            fig = _new_figure(8, 4.5)
            ax = fig.add_subplot()
            for j, name in enumerate(group):
                pts: list[tuple[Any, Measure]] = []
                for x, m in zip(xs, measures):
                    r = by_name(m).get(name)
                    if r is not None and not math.isnan(r.value):
                        pts.append((x, r))
                if not pts:
                    continue
                c = colours[j % len(colours)]
                ax.plot([x for x, _ in pts], [r.value for _, r in pts], marker="o", color=c,
                        label=name.removeprefix("win rate ").removeprefix("advantage ")
                        .removeprefix("score "))
                band = [(x, r.low, r.high) for x, r in pts
                        if r.low is not None and r.high is not None]
                if band:
                    ax.fill_between([b[0] for b in band], [b[1] for b in band],
                                    [b[2] for b in band], color=c, alpha=0.15)
            if group and group[0].startswith("win rate"):
                ax.axhline(1 / players, color="grey", linestyle="--", linewidth=1)
            if group and group[0].startswith("advantage"):
                ax.axhline(0, color="grey", linestyle="--", linewidth=1)
            if a.today is not None and a.numeric() and isinstance(a.today, int):
                ax.axvline(a.today, color="black", linestyle=":", linewidth=1,
                           label="today's value")
            if not a.numeric():
                ax.set_xticks(xs, ticks)
            ax.set_xlabel(a.label)
            ax.set_title(caption)
            if len(group) > 1 or a.today is not None:
                ax.legend(fontsize="small")
            figs.append((caption, fig))
    elif len(axes) == 2:
        a, b = axes
        for caption, value in (
                ("largest |advantage| of a seat (points); * fair", lambda m: 100 *
                 largest_advantage(m, players)),
                ("mean game length (decisions)", lambda m: by_name(m)["decisions"].value)):
            grid_ = [[math.nan] * len(b.values) for _ in a.values]
            marks = [[False] * len(b.values) for _ in a.values]
            for s, m in zip(settings, measures):
                if m:
                    i, j = a.values.index(s[0]), b.values.index(s[1])
                    grid_[i][j] = value(m)
                    marks[i][j] = is_fair(m, players)
            fig = _new_figure(8, 5)
            ax = fig.add_subplot()
            im = ax.imshow(grid_, cmap="viridis_r" if "advantage" in caption else "viridis",
                           aspect="auto", origin="lower")
            fig.colorbar(im, ax=ax)
            ax.set_xticks(range(len(b.values)), [value_text(b.kind, v) for v in b.values])
            ax.set_yticks(range(len(a.values)), [value_text(a.kind, v) for v in a.values])
            ax.set_xlabel(b.label)
            ax.set_ylabel(a.label)
            for i in range(len(a.values)):
                for j in range(len(b.values)):
                    if not math.isnan(grid_[i][j]):
                        ax.text(j, i, f"{grid_[i][j]:.1f}" + (" *" if marks[i][j] and
                                                               "advantage" in caption else ""),
                                ha="center", va="center", color="black", fontsize="small",
                                bbox={"facecolor": "white", "alpha": 0.7, "edgecolor": "none"})
            ax.set_title(caption)
            figs.append((caption, fig))
    else:
        fig = _new_figure(10, 4.5)
        ax = fig.add_subplot()
        vals = [100 * largest_advantage(m, players) if m else math.nan for m in measures]
        ax.bar(range(len(settings)), vals)
        ax.set_xticks(range(len(settings)), [setting_text(axes, s) for s in settings],
                      rotation=90, fontsize="x-small")
        ax.set_title("largest |advantage| of a seat (points), by setting")
        figs.append(("largest |advantage| by setting", fig))
    return figs


def _png(fig: Any) -> bytes:
    import io
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def report_png(figs: Sequence[tuple[str, Any]], title: str) -> bytes:
    """One picture of every panel (two columns): the PNG report."""
    from matplotlib.image import imread
    import io
    from mercator.interpreter.tools.plots import _new_figure
    rows = (len(figs) + 1) // 2
    big = _new_figure(16, 4.6 * rows)
    axes = big.subplots(rows, 2, squeeze=False).flatten()
    for ax, (_, fig) in zip(axes, figs):
        ax.imshow(imread(io.BytesIO(_png(fig)), format="png"))
        ax.set_axis_off()
    for ax in axes[len(figs):]:
        big.delaxes(ax)
    big.suptitle(title, fontsize="x-large")
    return _png(big)


def report_html(figs: Sequence[tuple[str, Any]], title: str, table: Sequence[Sequence[str]],
                recommendation: str) -> str:
    """A self-contained HTML page: the title, the recommendation, the table (table[0] is the
    header) and every figure as an embedded PNG."""
    esc = html.escape
    head = "".join(f"<th>{esc(c)}</th>" for c in table[0]) if table else ""
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>"
                   for row in table[1:])
    imgs = "".join(f'<figure><img alt="{esc(cap)}" src="data:image/png;base64,'
                   f'{base64.b64encode(_png(fig)).decode()}"><figcaption>{esc(cap)}'
                   "</figcaption></figure>" for cap, fig in figs)
    style = ("body{font-family:sans-serif;max-width:70em;margin:2em auto}"
             "table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #ccc;"
             "text-align:right}td:first-child,th:first-child{text-align:left}"
             "img{max-width:100%}#recommendation{font-weight:bold}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{esc(title)}</title><style>{style}</style></head><body>"
            f"<h1>{esc(title)}</h1><p id=\"recommendation\">{esc(recommendation)}</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{imgs}"
            "</body></html>\n")


def write_report(path: str, figs: Sequence[tuple[str, Any]], title: str,
                 table: Sequence[Sequence[str]], recommendation: str) -> None:
    """Write the PNG or HTML report `path` names (tools/plots.plot_kind); OSError if it
    cannot."""
    from mercator.interpreter.tools.plots import plot_kind
    if plot_kind(path) == "png":
        data = report_png(figs, title)
        with open(path, "wb") as f:
            f.write(data)
    else:
        text = report_html(figs, title, table, recommendation)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
