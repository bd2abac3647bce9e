"""What a designer asks of a variant: which rules changed (diff), and what that does to play
(compare two rulebooks on the same seeds, with a significance test for every difference)."""
from __future__ import annotations

import math
import statistics
from typing import Any, Callable, Mapping, Optional, Sequence

import attrs

from mercator.dsl import ast as A
from mercator.dsl.fmt import format_decl
from mercator.dsl.parser import Comment, comments
from mercator.dsl.variants import KIND_WORDS, decl_key
from mercator.interpreter.engine.program import Program


# ------------------------------------------------------------------ diff
def named_rules(items: Sequence[Any]) -> dict[tuple[str, str], Any]:
    """Every declaration a variant can name, keyed by (kind, name); phases and fields included."""
    out: dict[tuple[str, str], Any] = {}
    for it in items:
        key = decl_key(it)
        if key is not None:
            out[key] = it
        if isinstance(it, A.RoundDecl):
            out[("round", it.name)] = attrs.evolve(it, phases=())
            for ph in it.phases:
                out[("phase", ph.name)] = ph
        if isinstance(it, (A.PlayerState, A.TableState)):
            who = "player" if isinstance(it, A.PlayerState) else "table"
            for f in it.fields:
                out[(f"{who} field", f.name)] = attrs.evolve(it, fields=(f,))
        if isinstance(it, A.GameDecl):
            out[("game", "game")] = it
        if isinstance(it, A.TiebreakDecl):
            n = sum(1 for k in out if k[0] == "tiebreak")
            out[("tiebreak", str(n + 1))] = it
    return out


@attrs.frozen
class Change:
    """One rule-level difference: added, removed or changed, with the old and new text."""

    what: str          # added | removed | changed
    kind: str
    name: str
    old: Optional[str]
    new: Optional[str]


def rule_diff(base_items: Sequence[Any], variant_items: Sequence[Any],
              sources: Optional[Mapping[str, str]] = None) -> list[Change]:
    """The named rules that differ between two rulebooks, in the variant's order; with the
    texts of their files (path -> text), each rule's text shows its comments too."""
    a, b = named_rules(base_items), named_rules(variant_items)
    found: dict[str, tuple[Comment, ...]] = {}

    def text(d: Any) -> str:
        path = d.span.path
        if sources is None or path not in sources:
            return format_decl(d)
        if path not in found:
            found[path] = comments(sources[path])
        return format_decl(d, found[path])

    out = []
    for key in list(b) + [k for k in a if k not in b]:
        kind = KIND_WORDS.get(key[0], key[0])
        if key not in a:
            out.append(Change("added", kind, key[1], None, text(b[key])))
        elif key not in b:
            out.append(Change("removed", kind, key[1], text(a[key]), None))
        elif a[key] != b[key]:
            out.append(Change("changed", kind, key[1], text(a[key]), text(b[key])))
    return out


# ------------------------------------------------------------------ running many games
@attrs.frozen
class GameRecord:
    """What one finished game contributes to the statistics."""

    seed: int
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    decisions: int
    rounds: int
    stats: tuple[int, ...]


# ------------------------------------------------------------------ statistics
Z95 = 1.959963984540054      # the standard normal quantile of a two-sided 95% interval


def _p_normal(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def wilson_interval(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score 95% interval of a win rate: `wins` of `games` (wins may be fractional: a
    win shared by k players counts 1/k). A per-game share in [0, 1] with mean p has a variance
    of at most p(1-p), the binomial one, so with fractional wins the interval is conservative."""
    if games <= 0:
        return 0.0, 1.0
    p = min(max(wins / games, 0.0), 1.0)
    z2n = z * z / games
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / games + z2n / (4 * games)) / (1 + z2n)
    return max(0.0, centre - half), min(1.0, centre + half)


@attrs.frozen
class Summary:
    """Mean, standard deviation and a 95% interval of the mean (normal approximation) of a
    per-game measure."""

    mean: float
    sd: float
    low: float
    high: float


def summarize(xs: Sequence[float]) -> Summary:
    """The Summary of a non-empty sample."""
    m = statistics.fmean(xs)
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    half = Z95 * sd / math.sqrt(len(xs))
    return Summary(m, sd, m - half, m + half)


@attrs.frozen
class Row:
    """One measure compared: A's value, B's, the difference with a 95% interval, and p. A
    statistic only one rulebook declares has `missing` 'A' or 'B', None on that side and no
    difference."""

    measure: str
    a: Optional[float]
    b: Optional[float]
    diff: Optional[float]
    low: Optional[float]
    high: Optional[float]
    p: Optional[float]
    test: str
    missing: str = ""
    zero: str = ""            # 'A' or 'B': a stat whose event that side does not declare (0 there)

    @property
    def significant(self) -> bool:
        """p < 0.05."""
        return self.p is not None and self.p < 0.05


def compare_proportions(measure: str, ka: float, na: int, kb: float, nb: int) -> Row:
    """Two-proportion z-test (pooled) and a Wald 95% interval for the difference."""
    pa, pb = ka / na, kb / nb
    pooled = (ka + kb) / (na + nb)
    se0 = math.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb))
    p = 1.0 if se0 == 0 else _p_normal((pb - pa) / se0)
    se = math.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb)
    d = pb - pa
    return Row(measure, pa, pb, d, d - Z95 * se, d + Z95 * se, p, "two-proportion z")


def compare_means(measure: str, xs: Sequence[float], ys: Sequence[float]) -> Row:
    """Welch's test (normal approximation, fine for the hundreds of games compare plays) and a 95%
    interval for the difference of means."""
    ma, mb = statistics.fmean(xs), statistics.fmean(ys)
    va = statistics.variance(xs) if len(xs) > 1 else 0.0
    vb = statistics.variance(ys) if len(ys) > 1 else 0.0
    se = math.sqrt(va / len(xs) + vb / len(ys))
    d = mb - ma
    p = (1.0 if d == 0 else 0.0) if se == 0 else _p_normal(d / se)
    return Row(measure, ma, mb, d, d - Z95 * se, d + Z95 * se, p, "Welch")


def one_sided(measure: str, xs: Sequence[float], missing: str) -> Row:
    """A statistic declared by one rulebook only: its mean on that side, nothing on the other."""
    m = statistics.fmean(xs)
    a, b = (None, m) if missing == "A" else (m, None)
    return Row(measure, a, b, None, None, None, None, f"not declared in {missing}", missing)


def win_share(r: GameRecord, seat: int) -> float:
    """The seat's share of the game's win: 1 alone, 1/k of a win shared by k, else 0."""
    return 1 / len(r.winners) if seat in r.winners else 0.0


def never_counted(pa: Program, pb: Program) -> tuple[list[str], list[str]]:
    """The stats of B that count 0 in every game of A, and those of A that count 0 in B: a stat
    declared on one side only whose event the other rulebook does not declare (it cannot
    happen there: the pirate variant's evictions in the base game)."""
    def zero(p: Program, q: Program) -> list[str]:
        return [n for n, e in zip(q.stat_names, q.stat_events)
                if n not in p.stat_names and e not in p.event_names]
    return zero(pa, pb), zero(pb, pa)


def compare_records(ra: Sequence[GameRecord], rb: Sequence[GameRecord], players: int,
                    stats_a: Sequence[str], stats_b: Sequence[str],
                    zero_in_a: Sequence[str] = (), zero_in_b: Sequence[str] = ()) -> list[Row]:
    """Every measure of A against B: win rate and score by seat, game length, and every declared
    stat. One declared on one side only is shown as missing on the other, unless it is named in
    zero_in_a / zero_in_b (see never_counted): it is then compared against 0 in every game."""
    rows = []
    for p in range(players):
        wa = sum(win_share(r, p) for r in ra)
        wb = sum(win_share(r, p) for r in rb)
        rows.append(compare_proportions(f"win rate seat {p + 1}", wa, len(ra), wb, len(rb)))
    for p in range(players):
        rows.append(compare_means(f"score seat {p + 1}", [r.scores[p] for r in ra],
                                  [r.scores[p] for r in rb]))
    rows.append(compare_means("decisions per game", [r.decisions for r in ra],
                              [r.decisions for r in rb]))
    rows.append(compare_means("rounds per game", [r.rounds for r in ra], [r.rounds for r in rb]))
    names_a, names_b = list(stats_a), list(stats_b)
    for name in names_a + [n for n in names_b if n not in names_a]:
        measure = f"stat {name} per game"
        if name not in names_b:
            ia = names_a.index(name)
            xs = [float(r.stats[ia]) for r in ra]
            rows.append(attrs.evolve(compare_means(measure, xs, [0.0] * len(rb)), zero="B")
                        if name in zero_in_b else one_sided(measure, xs, "B"))
        elif name not in names_a:
            ib = names_b.index(name)
            xs = [float(r.stats[ib]) for r in rb]
            rows.append(attrs.evolve(compare_means(measure, [0.0] * len(ra), xs), zero="A")
                        if name in zero_in_a else one_sided(measure, xs, "A"))
        else:
            ia, ib = names_a.index(name), names_b.index(name)
            rows.append(compare_means(measure, [r.stats[ia] for r in ra],
                                      [r.stats[ib] for r in rb]))
    return rows
