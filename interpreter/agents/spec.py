"""Agent specs: the text that names a seat's player on the command line.

A spec is `kind[:budget][:name=value...]`: `random`, `prefer` (the option the rulebook's
`prefer` declarations rank first, ties and undeclared decisions at random), `human`, `mcts`,
`ismcts`, with a budget
of iterations (`ismcts:500`) or of time per decision (`ismcts:2s`, `mcts:300ms`), and a
searcher's settings: `depth=D` cuts each rollout after D steps of the rulebook's top level
(`cut=step`, the default: a phase, or a pass of a loop written in a phase — a turn, a placement
round — so a rollout is never judged in the middle of an auction or a trade) or D decisions
(`cut=decision`; `cut=phase` counts only phases; `cut=chance` counts draws of dice or cards,
from the decision being searched, in the tree as in the rollouts) and judges the position there, `prior=K`
starts each option of a decision with K visits valued by the rulebook's estimate one step on, `c=X` is the exploration constant, `deals=random` lets the rollouts negotiate at random
in a deal window (`deals=none`: their seats pass, Program.playout's deals=False; the default,
`deals=judge`: a draft is posted as it stands and an offer accepted where it raises the taker's
estimate),
`reward=win|margin|rank|blend|mean|own` what a rollout is worth to each seat (the win; the
score margin over the best other seat, squashed; the share of seats outscored; half the win,
half the margin; the margin over the others' mean; the seat's own score, squashed alike), `rollout=random|mast|greedy|auto`
the rollout policy (the native uniform playout; move-average sampling; MAST with a menu of at
most 12 options answered, 4 times in 5, by the option whose estimate one step on leads most; the
default, MAST where rollouts are cut off, the native playout where they run to the end), `pw=X` progressive widening (a
node searches X·sqrt(visits) of its options, admitted best first by their move averages),
`rave=K` RAVE (an option's mean blended with its all-moves-as-first average at the node,
weight sqrt(K / (3n + K)); 0: none), `reuse=yes|no` (ismcts only) whether a decision starts from the tree the seat's last decision
searched, followed through the steps since, `group=pass|bins|amounts|none` whether the tree weighs a pass against a decision's values taken as
one before it picks a value (bins: whole-number values in bins by their distance from the
smallest, then a value; amounts: only where the values are whole numbers), `anytime=root|all|none`
whether the tree searches any-time actions at the root only, at every node or nowhere (the seat
takes one only where the rules force it),
`root=uct|halving` how the options of the decision being answered share the budget (UCT, or
sequential halving), `pair=yes|no` whether the options of a halving sweep are tried on one
world and the same dice, `nst=yes|no` whether MAST's rollouts also keep averages for pairs of a
seat's consecutive moves (NST: a move's average then the mean of its own and its pair's with the
seat's move before it), `plan=N` (ismcts only) whether a run of the seat's own decisions with
nothing between (an offer's goods, a purchase's barrels) is answered from the first one's tree
where that tree holds N visits at the next decision (0: each searched), `kernel=W` whether
sequential halving ranks a menu of whole-number amounts (a bid, a fee) by each amount's mean
pooled with its neighbours' within about W steps of the menu (0: each alone), `thrift=S`
whether MAST's rollouts weigh a menu of whole-number amounts toward its smallest (an amount S
steps above it e times less likely; 0: as MAST alone), `model=K` (ismcts
only) whether MAST's rollouts and the tree draw another seat's move weighted by the share of its
choices at that place that the seat saw were that move, to the power K (a model of the other
players from their play so far; 0: none), `prefer=X` the share of a rollout's moves that are
the option the rulebook prefers most where it declares a preference (`prefer`, docs/language.md;
the rest MAST's; 0: none), `trust=D` whether the answer is the option the rulebook prefers
most unless another beat its mean reward in the search by more than D (0: the search's answer),
`sure=Z` by more than Z standard errors of the two means' difference besides (0: D alone),
`reply=K` whether
a small decision below the root (at most three options: a yes or no) starts each option with K
visits valued by the rulebook's estimate one step on (0: none), `sealed=tree|shared` how the tree searches a simultaneous decision
(each chooser below the sealed choices made before it, or each later chooser's statistics
shared whatever they were), `hidden=uniform|mast` (ismcts only) how a drawn world makes
another seat's hidden choice (any option alike, or as the search's rollouts would choose), `clock=wall|cpu` what a time budget counts (seconds of the wall clock, the default; or of
the searching process's CPU, the same budget however loaded the machine), `eval=estimate|score` how a cut-off position is judged (the rulebook's `estimate`, or its score
where it declares none; or always the score), `value=FILE` a learned evaluation judges the
cut-offs instead (a model file of `mercator learn`, agents/learned.py; the file's name keeps its
case; in a rulebook without an estimate it also cuts the rollouts off after
DEFAULT_SETTINGS' estimate_depth steps), `cores=N` the processes that search a decision
at once (root-parallel; default every core for a time budget, 1 for iterations), and (ismcts
only) `worlds=W` the worlds drawn per decision (`ismcts:500:depth=60:worlds=12`). A list of
seats is one spec for every seat, or one per seat, comma-separated
(`human,ismcts:500,random`).
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Optional

import attrs

from mercator.interpreter.agents.base import PreferAgent, RandomAgent
from mercator.interpreter.agents.root_parallel import RootParallelAgent, available_cores
from mercator.interpreter.agents.search import (ANYTIME, CLOCKS, HIDDENS, SEALED, CUTS, DEFAULT_ITERATIONS, EVALS, GROUPS,
                                                REWARDS, ROLLOUTS, ROOTS, UCT_C, WORLDS,
                                                ISMCTSAgent, MCTSAgent)
from mercator.dsl.errors import MercatorError

KINDS = ("random", "human", "mcts", "ismcts", "bot", "prefer")
# what a searcher's spec means where it names no setting (issue 36, measured against the
# heuristic anchors in docs/agents.md): rewards by score margin, progressive widening by the
# move averages, and rollouts cut after `estimate_depth` steps of the top level (cut=step), played by MAST and judged by
# the rulebook's `estimate` where it declares one (where it does not, the native random playout
# to the end of the game: MAST's rollouts go through `apply`, several times slower a decision).
# Move groups in bins (group=bins): a pass weighed against the values as one, whole-number
# values then in bins by size (Die Händler's red-card auctions, docs/agents.md). Rollouts that
# judge offers in a deal window (deals=judge: Genoa's drafts, docs/agents.md). Any-time actions
# searched at the root only (anytime=root), and the root's options sharing the budget by
# sequential halving (root=halving; session 21, docs/agents.md). Where the rulebook declares
# preferences (`prefer`, docs/language.md §2.19c), nine rollout moves in ten are the most
# preferred option, and the answer is the most preferred unless the search found another
# better by more than 0.1 in mean reward (prefer=0.9, trust=0.1; session 38, docs/agents.md);
# a rulebook without preferences is searched as before.
# The searcher before them is `ismcts:200:depth=end:reward=win:rollout=random:pw=0:group=none`.
DEFAULT_SETTINGS: dict[str, Any] = {"reward": "margin", "rollout": "auto", "pw": 1.0,
                                    "estimate_depth": 4, "cut": "step", "prior": 0.0,
                                    "group": "bins", "reuse": False, "deals": "judge",
                                    "rave": 0.0, "anytime": "root", "root": "halving",
                                    "pair": False, "sealed": "tree", "hidden": "uniform",
                                    "nst": False, "plan": 0, "kernel": 0.0,
                                    "reply": 0.0, "thrift": 0.0, "model": 0.0,
                                    "prefer": 0.9, "trust": 0.1, "sure": 0.0}
BEFORE_36 = ("depth=end:deals=none:reward=win:rollout=random:pw=0:group=none:anytime=all"
             ":root=uct:prefer=0:trust=0")
# the levels a person picks (`bot:easy`), as budgets of the default searcher, ismcts: a time per
# decision, so a person's wait is bounded; easy searches on one core, medium and hard on every
# core (as any time budget does unless its spec says cores=N)
LEVELS = {"easy": 0.2, "medium": 1.0, "hard": 3.0}
ONE_CORE_LEVELS = ("easy",)
# a level that plays on its own judgment: it does not take the rulebook's trust in its
# preferences (`bots { trust ... }`, nor `sure` and `anytime`, which go with it), so where a
# rulebook's bots answer by their preferences at once (Manila, Genoa, Die Händler) the easy bot
# still searches its 0.2 s, with the preferences only in its rollouts — measured weaker there
# than medium (docs/agents.md, "Levels that differ", session 43)
OWN_JUDGMENT_LEVELS = ("easy",)
TRUST_SETTINGS = ("trust", "sure", "anytime")
DEFAULT_LEVEL = "medium"
SEARCHERS = ("mcts", "ismcts")
MAX_ITERATIONS = 10 ** 7
MAX_SECONDS = 3600.0
_BUDGET = re.compile(r"(?:(\d{1,9})|(\d{1,6}(?:\.\d{1,3})?)(s|ms))")


class SpecError(MercatorError, ValueError):
    """A seat spec that names no agent; the message says what is accepted, `hint` (where there
    is one) what to do."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint


@attrs.frozen
class AgentSpec:
    """One seat's player: its kind and its search budget (iterations or seconds)."""

    kind: str
    iterations: Optional[int] = None
    seconds: Optional[float] = None
    depth: Optional[int] = None        # rollouts cut after this many steps or decisions (None: by the
                                       # default, DEFAULT_SETTINGS; 0, written 'end': never)
    c: Optional[float] = None          # the exploration constant (None: UCT_C)
    worlds: Optional[int] = None       # worlds per decision, ismcts (None: WORLDS)
    deals: Optional[str] = None        # "random": rollouts negotiate (None, "none": they pass)
    reward: Optional[str] = None       # "win" (None), "margin", "rank", "blend", "mean", "own"
    rollout: Optional[str] = None      # "random" (None) or "mast"
    pw: Optional[float] = None         # progressive widening by MAST averages (None: off)
    eval: Optional[str] = None         # a cut-off judged by "estimate" (None) or "score"
    cut: Optional[str] = None          # the depth counts top-level "step"s (None) or "decision"s
    prior: Optional[float] = None      # the root's options start with this many visits of their
                                       # one-step estimate (None: DEFAULT_SETTINGS; 0: none)
    group: Optional[str] = None        # "pass": a pass searched against the values as one,
                                       # "bins": and the values in bins, "none": every option
                                       # alike (None: DEFAULT_SETTINGS)
    rave: Optional[float] = None       # RAVE's equivalence parameter (None: DEFAULT_SETTINGS;
                                       # 0: no RAVE)
    reuse: Optional[str] = None        # "yes": start from the last decision's tree where the
                                       # game goes on from it, ismcts (None: DEFAULT_SETTINGS)
    root: Optional[str] = None         # "uct": the root's options share the budget by UCT,
                                       # "halving": by sequential halving (None: DEFAULT_SETTINGS)
    anytime: Optional[str] = None      # "root": any-time actions searched at the root only,
                                       # "all": at every node (None: DEFAULT_SETTINGS)
    nst: Optional[str] = None          # "yes": MAST's averages for pairs of a seat's moves
                                       # too (None: DEFAULT_SETTINGS)
    kernel: Optional[float] = None     # halving ranks a menu of amounts by their means pooled
                                       # with neighbours this many steps away (None:
                                       # DEFAULT_SETTINGS; 0: each amount alone)
    thrift: Optional[float] = None     # MAST's rollouts draw a menu of amounts with weights
                                       # falling by e every this many steps above its smallest
                                       # (None: DEFAULT_SETTINGS; 0: as MAST alone)
    reply: Optional[float] = None      # a small decision below the root starts each option
                                       # with this many visits of its one-step estimate (None:
                                       # DEFAULT_SETTINGS; 0: none)
    prefer: Optional[float] = None     # this share of a rollout's moves, where the rulebook
                                       # declares a preference, its most preferred option (None:
                                       # DEFAULT_SETTINGS; 0: none)
    trust: Optional[float] = None      # the answer is the most preferred option unless another's
                                       # mean reward beats its by more than this (None:
                                       # DEFAULT_SETTINGS; 0: the search's answer)
    sure: Optional[float] = None       # trust: and by more than this many standard errors of
                                       # the difference (None: DEFAULT_SETTINGS; 0: trust alone)
    model: Optional[float] = None      # ismcts: the other seats drawn by what they were seen to
                                       # choose, this strongly (None: DEFAULT_SETTINGS; 0: no)
    plan: Optional[int] = None         # ismcts: a run of the seat's own decisions answered from
                                       # the first one's tree where it holds this many visits
                                       # (None: DEFAULT_SETTINGS; 0: every decision searched)
    pair: Optional[str] = None         # "yes": a halving sweep's options on one world and
                                       # its dice (None: DEFAULT_SETTINGS)
    clock: Optional[str] = None        # "cpu": a time budget counts the process's CPU time
    hidden: Optional[str] = None       # "mast": a world draws another seat's hidden choice as
                                       # MAST would choose it (None: DEFAULT_SETTINGS)
    sealed: Optional[str] = None       # "shared": a simultaneous decision's later choosers
                                       # searched apart from the earlier choices (None:
                                       # DEFAULT_SETTINGS)
                                       # (None: the wall clock)
    cores: Optional[int] = None        # processes searching at once (None: every core for a
                                       # time budget, 1 for iterations; see make_agent)
    value: Optional[str] = None        # a learned evaluation's model file, as written (its case
                                       # kept): it judges the cut-offs (agents/learned.py)
    level: Optional[str] = None        # written as bot:LEVEL (an ismcts of LEVELS' budget)

    def __str__(self) -> str:
        text = self.kind
        if self.level is not None:
            text = f"bot:{self.level}"
        elif self.iterations is not None:
            text += f":{self.iterations}"
        elif self.seconds is not None:
            text += f":{self.seconds:g}s"
        for name in SETTINGS:
            v = getattr(self, name)
            if v is not None:
                shown = f"{v:.6f}".rstrip("0").rstrip(".") if isinstance(v, float) else str(v)
                if name == "depth" and v == 0:
                    shown = "end"
                text += f":{name}={shown}"
        return text

    @property
    def honest(self) -> bool:
        """Does this player see only what its seat may see?"""
        return self.kind != "mcts"

    @property
    def needs_record(self) -> bool:
        """Must the game keep what each seat saw, with chance as steps (ismcts resamples)?"""
        return self.kind == "ismcts"


def parse_spec(text: str) -> AgentSpec:
    """One spec, e.g. 'random', 'ismcts:500', 'mcts:2s', 'ismcts:200:depth=40'; SpecError if it
    is none."""
    t = text.strip().lower()
    head, *rest = t.split(":")
    if rest and "=" not in rest[0]:
        budget_text, settings = rest[0], rest[1:]
        t = f"{head}:{budget_text}"
    else:
        settings, t = rest, head
    spec = _parse_budget(text, t)
    if not settings:
        return spec
    if spec.kind not in SEARCHERS:
        raise SpecError(f"'{text.strip()}': only a searcher ({', '.join(SEARCHERS)}, bot) takes "
                        f"settings; write just '{spec.kind}'")
    given: dict[str, Any] = {}
    # the settings as written: a model file's name keeps its case (the rest is lower case)
    written = text.strip().split(":")[len(text.strip().split(":")) - len(settings):]
    for item, raw in zip(settings, written):
        name, eq, value = item.partition("=")
        name = name.strip()
        if name == "value" and eq:
            value = raw.partition("=")[2]
        if not eq:
            raise SpecError(f"'{text.strip()}': '{item}' is not a setting: after the budget "
                            f"come settings name=value ({', '.join(SETTINGS)}), e.g. "
                            f"{spec.kind}:200:depth=40")
        if name not in SETTINGS or (name in ISMCTS_ONLY and spec.kind != "ismcts"):
            known = [n for n in SETTINGS if n not in ISMCTS_ONLY or spec.kind == "ismcts"]
            raise SpecError(f"'{text.strip()}': {spec.kind} has no setting '{name}' (it has "
                            f"{', '.join(known)})")
        if name in given:
            raise SpecError(f"'{text.strip()}': '{name}' is given twice")
        given[name] = _setting(text, name, value.strip())
    if "value" in given and (given.get("eval") == "score" or given.get("depth") == 0):
        what = "eval=score judges them by the score" if given.get("eval") == "score" else \
            "depth=end cuts none"
        raise SpecError(f"'{text.strip()}': value= judges the rollouts' cut-offs, and {what}",
                        "leave out one of the two")
    return attrs.evolve(spec, **given)


SETTINGS = ("depth", "c", "deals", "reward", "rollout", "pw", "eval", "cut", "prior", "group",
            "anytime", "root", "cores", "worlds", "reuse", "rave", "pair", "clock", "sealed",
            "hidden", "nst", "plan", "kernel", "reply", "thrift", "model", "prefer", "trust",
            "sure", "value")
ISMCTS_ONLY = ("worlds", "reuse", "hidden", "plan", "model")   # settings of the information-set search
REUSE = ("yes", "no")
MAX_CORES = 1024
DEALS = ("none", "random", "judge", "prefer")
MAX_DEPTH = 10 ** 6
MAX_WORLDS = 10 ** 4


_WHOLE, _DECIMAL = r"\d{1,6}", r"\d{1,3}(\.\d{1,6})?"
# the settings that are numbers: (the value's form, lowest, highest, its type, what the setting
# is and takes — the error's text)
_NUMBERS: dict[str, tuple[str, float, float, type, str]] = {
    "prior": (_WHOLE, 0, 10000, float,
              "prior is how many visits each option of a decision starts with, valued by the "
              "rulebook's estimate one step on (0: none), a whole number from 0 to 10000"),
    "pw": (_DECIMAL, 0, 100, float,
           "pw is the progressive widening factor (a node searches its best pw·sqrt(visits) "
           "options; 0: every option), a number from 0 to 100"),
    "cores": (_WHOLE, 1, MAX_CORES, int,
              "cores is the number of processes that search a decision at once (default: every "
              f"core for a time budget, 1 for iterations), 1 to {MAX_CORES}"),
    "reply": (_WHOLE, 0, 10000, float,
              "reply is how many visits each option of a small decision below the root (a yes "
              "or no) starts with, valued by the rulebook's estimate one step on (0: none; "
              f"default {DEFAULT_SETTINGS['reply']:g}), a whole number from 0 to 10000"),
    "kernel": (_DECIMAL, 0, 100, float,
               "kernel is the width, in steps of the menu, over which sequential halving pools "
               "the mean rewards of a menu of amounts (a bid, a fee) with their neighbours' (0: "
               f"each amount alone; default {DEFAULT_SETTINGS['kernel']:g}), a number from 0 to "
               "100"),
    "thrift": (_DECIMAL, 0, 100, float,
               "thrift is how many steps of a menu of amounts (a bid, a fee) above its smallest "
               "make a rollout's player e times less likely to choose an amount (0: as MAST alone; "
               f"default {DEFAULT_SETTINGS['thrift']:g}), a number from 0 to 100"),
    "model": (_DECIMAL, 0, 100, float,
              "model is how strongly a rollout (and the tree) draws another seat's move by the "
              "share of its choices at that place that this seat saw were that move (0: MAST "
              f"alone; default {DEFAULT_SETTINGS['model']:g}), a number from 0 to 100"),
    "prefer": (_DECIMAL, 0, 1, float,
               "prefer is the share of a rollout's moves that are the rulebook's most preferred "
               "option where it declares a preference ('prefer', docs/language.md; 0: none; "
               f"default {DEFAULT_SETTINGS['prefer']:g}), a number from 0 to 1"),
    "trust": (_DECIMAL, 0, 1, float,
              "trust is how much better in mean reward another option must have done in the "
              "search for the answer not to be the rulebook's most preferred option (0: the "
              f"search's answer; default {DEFAULT_SETTINGS['trust']:g}), a number from 0 to 1"),
    "sure": (_DECIMAL, 0, 10, float,
             "sure is how many standard errors of the difference of their mean rewards another "
             "option must beat the rulebook's most preferred option by, besides trust, for the "
             f"answer not to be the preferred one (0: trust alone; default "
             f"{DEFAULT_SETTINGS['sure']:g}), a number from 0 to 10"),
    "plan": (_WHOLE, 0, 100000, int,
             "plan is the visits the last decision's tree must hold at the seat's next "
             "decision, with nothing but its own moves between, for that decision to be "
             "answered from it without a new search (0: every decision searched; default "
             f"{DEFAULT_SETTINGS['plan']}), a whole number from 0 to 100000"),
    "rave": (_WHOLE, 0, 100000, float,
             "rave is RAVE's equivalence parameter, the visits at which an option's "
             "all-moves-as-first average weighs a third beside its own mean (0: no RAVE; "
             f"default {DEFAULT_SETTINGS['rave']:g}), a whole number from 0 to 100000"),
}


def _setting(text: str, name: str, value: str) -> Any:
    """The value of one setting, checked."""
    if name in _NUMBERS:
        form, lo, hi, kind, what = _NUMBERS[name]
        if not re.fullmatch(form, value) or not lo <= float(value) <= hi:
            raise SpecError(f"'{text.strip()}': {what}, not '{value}'")
        return kind(value)
    if name == "depth" and value == "end":
        return 0
    if name == "value":
        return _model_file(text, value)
    if name == "c":
        try:
            c = float(value)
        except ValueError:
            c = -1.0
        if not 0 < c <= 100 or not re.fullmatch(_DECIMAL, value):
            raise SpecError(f"'{text.strip()}': c is the exploration constant, a number above 0 "
                            f"and at most 100 (default {UCT_C:g}), not '{value}'")
        return c
    choices = {
        "deals": (DEALS, "deals says how the rollouts play a deal window: none (they pass and "
                         "cancel a draft), random (they negotiate at random) or judge (a draft "
                         "is posted as it stands, a standing offer accepted where it raises "
                         "the taker's estimate) or prefer (judge, and every step of an offer "
                         "being drafted is the rulebook's casual trader's, where a preference "
                         "covers the deal's offers; default "
                         f"{DEFAULT_SETTINGS['deals']})"),
        "eval": (EVALS, "eval says how a rollout cut off by depth judges the position: "
                        "estimate (the rulebook's 'estimate', or its score where it declares "
                        "none; the default) or score"),
        "group": (GROUPS, "group says how the tree searches a decision with a pass beside "
                          "several values: pass (the pass against the values as one, then a "
                          "value), bins (the same, whole-number values then in bins by their "
                          "distance from the smallest), amounts (as bins, but only where the "
                          "values beside the pass are whole numbers: a bid, an amount) or none "
                          "(every option alike; default "
                          f"{DEFAULT_SETTINGS['group']})"),
        "root": (ROOTS, "root says how the options of the decision being answered share the "
                        "budget: uct or halving (sequential halving: rounds of equal visits, the "
                        "worse half dropped after each; the default)"),
        "anytime": (ANYTIME, "anytime says where the tree searches the any-time actions "
                             "(a mortgage, a sale, a repayment): root (at the decision being "
                             "answered only; the default), all (at every node below it "
                             "too) or none (nowhere: the seat takes one only where the rules "
                             "force it)"),
        "pair": (REUSE, "pair says whether the options of a sequential-halving sweep are "
                        "tried on one world and the same dice (common random numbers): yes or "
                        f"no (default {'yes' if DEFAULT_SETTINGS['pair'] else 'no'})"),
        "nst": (REUSE, "nst says whether MAST's rollouts also keep averages for pairs of a "
                       "seat's consecutive moves (NST): yes or no (default "
                       f"{'yes' if DEFAULT_SETTINGS['nst'] else 'no'})"),
        "sealed": (SEALED, "sealed says how the tree searches a simultaneous decision (sealed "
                           "bids): tree (each chooser below the choices made before it, as if "
                           "it saw them) or shared (each later chooser's statistics shared "
                           "whatever the earlier ones chose; default "
                           f"{DEFAULT_SETTINGS['sealed']})"),
        "hidden": (HIDDENS, "hidden says how a world the search draws makes another seat's "
                            "hidden choice (a sealed bid not yet revealed): uniform (any of its "
                            "options alike) or mast (as the search's own rollouts would choose "
                            f"it); default {DEFAULT_SETTINGS['hidden']}"),
        "clock": (CLOCKS, "clock says what a time budget counts: wall (seconds of the wall "
                          "clock; the default) or cpu (seconds of the searching process's CPU: "
                          "the same search however loaded the machine, for benchmarks)"),
        "reuse": (REUSE, "reuse says whether a decision starts from the tree the seat's last "
                         "decision searched, where the game goes on from it by steps the seat "
                         "saw: yes or no (default "
                         f"{'yes' if DEFAULT_SETTINGS['reuse'] else 'no'})"),
        "cut": (CUTS, "cut says what a rollout's depth counts: step (steps of the rulebook's "
                      "top level, a phase or a pass of a loop in one, so a rollout is never "
                      "judged in the middle of an auction or a turn; the default), phase (a "
                      "phase begins), decision, or chance (the search looks no further "
                      "than the depth-th draw of dice or cards, in the tree as in the "
                      "rollout, and judges the position before it by the estimate)"),
    }
    if name in choices:
        allowed, what = choices[name]
        if value not in allowed:
            raise SpecError(f"'{text.strip()}': {what}, not '{value}'")
        return value
    if name in ("reward", "rollout"):
        allowed = REWARDS if name == "reward" else ROLLOUTS
        if value not in allowed:
            what = "what a rollout is worth to a seat" if name == "reward" else \
                "how a rollout chooses its moves"
            raise SpecError(f"'{text.strip()}': {name} says {what}: "
                            f"{' or '.join(allowed)} (default {DEFAULT_SETTINGS[name]}), "
                            f"not '{value}'")
        return value
    top = MAX_DEPTH if name == "depth" else MAX_WORLDS
    if not re.fullmatch(r"\d{1,7}", value) or not 1 <= int(value) <= top:
        what = "steps (or with cut=decision, decisions) a rollout plays before it is judged" if name == "depth" else \
            f"worlds drawn per decision (default {WORLDS})"
        also = " (or end: to the end of the game)" if name == "depth" else ""
        raise SpecError(f"'{text.strip()}': {name} is the number of {what}: 1 to {top:,}{also}, "
                        f"not '{value}'")
    return int(value)


def _model_file(text: str, path: str) -> str:
    """value=FILE: a model file mercator learn wrote, read now so that a missing file, a file
    that is no such model or numpy missing is said at once (a model of another rulebook or
    player count is refused where the game is known: check_values)."""
    from mercator.interpreter.agents.learned import ModelError, load_model
    try:
        load_model(path)
    except ModelError as exc:
        raise SpecError(f"'{text.strip()}': {exc}", exc.hint) from None
    return path


def check_values(specs: list[AgentSpec], prog: Any, players: int) -> None:
    """SpecError unless every learned evaluation a seat names (value=FILE) is a model of this
    rulebook, as its files read now, and of this player count."""
    from mercator.interpreter.agents.learned import ModelError, load_model
    for sp in specs:
        if sp.value is None:
            continue
        try:
            load_model(sp.value).check(prog, players)
        except ModelError as exc:
            raise SpecError(f"'{sp}': {exc}", exc.hint) from None


def _parse_budget(text: str, t: str) -> AgentSpec:
    """The kind and budget part of a spec (t: 'kind' or 'kind:budget', lower case)."""
    kind, _, budget = t.partition(":")
    if kind == "bot":
        level = budget or DEFAULT_LEVEL
        if level not in LEVELS:
            raise SpecError(f"'{text.strip()}': a bot's level is one of "
                            f"{', '.join(f'bot:{k}' for k in LEVELS)} (a searcher thinking "
                            f"{', '.join(f'{v:g} s' for v in LEVELS.values())} a move), "
                            f"not '{budget}'")
        return AgentSpec("ismcts", seconds=LEVELS[level], level=level)
    if kind not in KINDS:
        raise SpecError(f"unknown player '{text.strip()}': a seat is one of "
                        f"{', '.join(KINDS)} (a searcher with a budget, e.g. ismcts:500 or "
                        "mcts:2s)")
    if not budget:
        if _ == ":":
            raise SpecError(f"'{text.strip()}' has an empty budget: write e.g. {kind}:200 "
                            f"(iterations) or {kind}:2s (time per decision)")
        return AgentSpec(kind, DEFAULT_ITERATIONS if kind in SEARCHERS else None)
    if kind not in SEARCHERS:
        raise SpecError(f"'{text.strip()}': only a searcher ({', '.join(SEARCHERS)}) takes a "
                        f"budget; write just '{kind}'")
    m = _BUDGET.fullmatch(budget)
    if m is None:
        raise SpecError(f"'{text.strip()}': the budget is a number of iterations (e.g. "
                        f"{kind}:500) or a time per decision (e.g. {kind}:2s, {kind}:250ms)")
    if m.group(1) is not None:
        n = int(m.group(1))
        if not 1 <= n <= MAX_ITERATIONS:
            raise SpecError(f"'{text.strip()}': iterations must be 1 to {MAX_ITERATIONS:,}")
        return AgentSpec(kind, iterations=n)
    secs = float(m.group(2)) / (1000.0 if m.group(3) == "ms" else 1.0)
    if not 0 < secs <= MAX_SECONDS:
        raise SpecError(f"'{text.strip()}': the time per decision must be above 0 and at "
                        f"most {MAX_SECONDS:g}s")
    return AgentSpec(kind, seconds=secs)


def parse_seats(text: str, players: int) -> list[AgentSpec]:
    """One spec for all `players` seats, or one per seat (comma-separated)."""
    parts = [p for p in text.split(",")]
    if any(not p.strip() for p in parts):
        raise SpecError(f"'{text}' has an empty seat: give one player per seat, "
                        "comma-separated (e.g. human,ismcts:500,random)")
    specs = [parse_spec(p) for p in parts]
    if len(specs) == 1:
        return specs * players
    if len(specs) != players:
        raise SpecError(f"{len(specs)} seats given for a game of {players} players: give one "
                        "player for all seats or one per seat")
    return specs


# the settings a rulebook may declare in `bots { ... }` (dsl/checker_bots.py checks them)
RULEBOOK_SETTINGS = ("depth", "prefer", "trust", "sure", "deals", "anytime")


def for_rulebook(spec: AgentSpec, bots: Mapping[str, Any]) -> AgentSpec:
    """The spec as it plays a rulebook that declares `bots { ... }` (Program.bot_settings): each
    declared setting the spec leaves unnamed takes the rulebook's value; the spec's own settings
    win (docs/language.md §2.19d), and a level of OWN_JUDGMENT_LEVELS (`bot:easy`) takes no
    trust. Only a searcher has settings."""
    if spec.kind not in SEARCHERS or not bots:
        return spec
    taken = [k for k in RULEBOOK_SETTINGS
             if not (spec.level in OWN_JUDGMENT_LEVELS and k in TRUST_SETTINGS)]
    given = {k: v for k, v in bots.items() if k in taken and getattr(spec, k) is None}
    return attrs.evolve(spec, **given) if given else spec


def search_settings(spec: AgentSpec) -> dict[str, Any]:
    """What a searcher's spec means today: every setting of MCTSAgent / ISMCTSAgent with the
    value it takes (DEFAULT_SETTINGS where the spec names none). A results file stores it beside
    the spec's text, whose meaning changes when a default does."""
    if spec.kind not in SEARCHERS:
        raise SpecError(f"a '{spec.kind}' seat is not a searcher")
    d = DEFAULT_SETTINGS
    settings: dict[str, Any] = dict(
        iterations=spec.iterations, seconds=spec.seconds, c=UCT_C if spec.c is None else spec.c,
        depth=spec.depth or None, deals=spec.deals or d["deals"],
        reward=spec.reward or d["reward"], rollout=spec.rollout or d["rollout"],
        pw=d["pw"] if spec.pw is None else spec.pw, evaluate=spec.eval or "estimate",
        estimate_depth=d["estimate_depth"] if spec.depth is None else None,
        cut=spec.cut or d["cut"], prior=d["prior"] if spec.prior is None else spec.prior,
        group=spec.group or d["group"], rave=d["rave"] if spec.rave is None else spec.rave,
        anytime=spec.anytime or d["anytime"], root=spec.root or d["root"],
        pair=d["pair"] if spec.pair is None else spec.pair == "yes")
    if spec.clock == "cpu":         # (only where it is not the wall clock: results files
        settings["clock"] = "cpu"   # written before the setting keep their meaning)
    sealed = spec.sealed or d["sealed"]
    if sealed != "tree":            # (likewise)
        settings["sealed"] = sealed
    nst = d["nst"] if spec.nst is None else spec.nst == "yes"
    if nst:                         # (likewise)
        settings["nst"] = True
    kernel = d["kernel"] if spec.kernel is None else spec.kernel
    if kernel:                      # (likewise)
        settings["kernel"] = kernel
    reply = d["reply"] if spec.reply is None else spec.reply
    if reply:                       # (likewise)
        settings["reply"] = reply
    thrift = d["thrift"] if spec.thrift is None else spec.thrift
    if thrift:                      # (likewise)
        settings["thrift"] = thrift
    prefer = d["prefer"] if spec.prefer is None else spec.prefer
    if prefer:                      # (likewise)
        settings["prefer"] = prefer
    trust = d["trust"] if spec.trust is None else spec.trust
    if trust:                       # (likewise)
        settings["trust"] = trust
    sure = d["sure"] if spec.sure is None else spec.sure
    if sure:                        # (likewise)
        settings["sure"] = sure
    if spec.value is not None:      # (likewise)
        settings["value"] = spec.value
    if spec.kind == "ismcts":
        settings["worlds"] = WORLDS if spec.worlds is None else spec.worlds
        settings["reuse"] = d["reuse"] if spec.reuse is None else spec.reuse == "yes"
        hidden = spec.hidden or d["hidden"]
        if hidden != "uniform":     # (as clock)
            settings["hidden"] = hidden
        plan = d["plan"] if spec.plan is None else spec.plan
        if plan:                    # (as clock)
            settings["plan"] = plan
        model = d["model"] if spec.model is None else spec.model
        if model:                   # (as clock)
            settings["model"] = model
    return settings


def make_agent(spec: AgentSpec, seed: int, cores: Optional[int] = None) -> Any:
    """The bot of a spec, seeded (a human is made by the interface, not here). `cores`: the
    processes a searcher whose spec names none searches on (None: every core for a time
    budget, 1 for an iteration budget); more than one is a root-parallel search
    (agents/root_parallel.py)."""
    if spec.kind == "random":
        return RandomAgent(seed)
    if spec.kind == "prefer":
        return PreferAgent(seed)
    if spec.kind not in SEARCHERS:
        raise SpecError(f"a '{spec.kind}' seat is not a bot")
    settings = search_settings(spec)
    n = spec.cores if spec.cores is not None else cores if cores is not None else \
        1 if spec.iterations is not None or spec.level in ONE_CORE_LEVELS else available_cores()
    if n > 1:
        return RootParallelAgent(spec.kind, n, seed=seed, **settings)
    return (MCTSAgent if spec.kind == "mcts" else ISMCTSAgent)(seed=seed, **settings)
