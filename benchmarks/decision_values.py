"""What a searcher's decisions are worth, one at a time: positions of games played by the game's
anchors, the searcher and the anchor each asked at the tested seat's decisions, and each option
either chose valued by how the game ends when the anchors play it on from there — the tested
seat's final margin (its score less the best other's), averaged over `--rollouts` endings, the
same dice for each option (common random numbers). A game's result mixes every decision and the
dice; a decision's value against the anchor's, position by position, is a far less noisy way to
ask which kind of decision a searcher gets wrong (docs/agents.md, "Decision by decision").

    .venv/bin/python benchmarks/decision_values.py rulebooks/manila.rules \\
        --agent ismcts:1000:cores=1 --seeds 0-10 --every 3 --rollouts 60 --out manila.jsonl

The games are the anchors' (3 players; the tested seat is seat 1, the chance draws come from the
seed), so every agent is asked at the same positions; a decision offering a single option (any-time
actions aside) is not asked. A line of JSON a position: the seed, the tested seat's decision
number, the prompt, each chooser's option, and each chosen option's mean margin and its 95%
half-interval. `--report FILE` prints, for each agent and each kind of decision (its prompt up to
the first parenthesis), the positions, how often it chose otherwise than the anchor, and the
mean of its option's value less the anchor's, with a 95% interval. The values are the anchors'
way of playing on, not the searcher's: a move whose worth needs a plan the anchors do not follow
is undervalued.

`--estimate-after K` asks the rulebook's `estimate` (what a searcher judges its cut-offs by) the
same question: each valued option, then the anchors play on (the first ending's dice) to the first
decision of the K-th new step of the rulebook's top level, where a searcher's rollout is cut by
default (`--cut decision`: K decisions), and
the tested seat's estimate less the best other seat's there. The report then says at how many
positions whose two options' endings differ beyond their interval the estimate prefers the same
option — where it does not, the estimate misjudges that decision at that depth. With
`--all-options` every option of a position is valued, and the report counts the pairs of options
whose endings differ in which the estimate prefers the better, and how much less than the best
the option it ranks first is worth (what a player choosing by the estimate K steps on would
lose): a sample the searcher's own choice (made by that estimate) does not bias.
`--rejudge FILE` replays a file's positions (give the
`--prompt` texts it was written with) and asks them again of a rulebook's estimate alone, without
search or endings: a copy of the rulebook that changes only its estimate plays the same anchors'
games, so an estimate's change is judged in seconds before a game is played.
`--estimate-rollouts N` averages the estimate's lead over N draws of dice of its own (not the
endings': a search does not know the dice to come), as a search that cuts its rollouts there
sees an option after N of them.

`--reask FILE` asks a file's positions again of searchers (`--agent`; the rulebook given may be
a copy that changes its estimate, or the spec a setting): each answer is valued by the file's
endings where the file has them (in a file written with `--all-options`, every option: then a
searcher's change is judged at the file's positions in the time its searches take) and by
endings played now, with the same dice, where not. It prints each searcher's option less the
anchor's, less the best option, and position by position less each searcher already in the
file; `--out` keeps the answers (`--name` names them) for the next comparison. With
`--rollouts-by anchor` the searchers' rollouts are played by the game's anchor at every seat
(as `anchor_answers.py --rollouts anchor`): with `depth=end` the searcher then plays on by the
very policy the endings play by, which asks whether what it lacks is in its rollouts.

`--by prefer` has the rulebook's own `prefer` player (its preferences, docs/language.md
§2.19c) play at every seat instead of the anchor — the games to the positions, the endings and
the estimate's look-ahead — so that a rulebook's estimate is judged against endings that cost
milliseconds, in any game with preferences and no anchor; the file records it (`by`), and
`--rejudge` and `--reask` replay its games with the same players.

`--vary P` lets the anchors' games to the positions take a random option now and then (chance P
at each decision but the asked ones): deterministic anchors play nearly the same game whatever
the seed (Die Händler's), so without it more seeds give few new positions. The file records P,
and `--rejudge` and `--reask` replay the same games.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))

from anchor_answers import AnchorPolicy  # noqa: E402
from bench_agents import _program, heuristic_for  # noqa: E402

from mercator.interpreter.agents.base import PreferAgent, agent_seed  # noqa: E402
from mercator.interpreter.agents.search import MCTSAgent, top_step  # noqa: E402
from mercator.interpreter.agents.spec import for_rulebook, make_agent, parse_spec  # noqa: E402
from mercator.interpreter.engine.chance import weighted_index  # noqa: E402
from mercator.interpreter.engine.nodes import Chance, Terminal  # noqa: E402

PLAYERS = 3
SEAT = 1


def players(prog: Any, by: str) -> type:
    """Who plays the games to the positions, the endings and the estimate's look-ahead: the
    game's anchor, or (`--by prefer`) the rulebook's own `prefer` player at every seat, whose
    games cost a few milliseconds (ties and decisions no preference covers at random, from
    each seat's seed)."""
    return PreferAgent if by == "prefer" else heuristic_for(prog)


def file_by(lines: list[dict]) -> str:
    """Who played a file's games (its lines' `by`; the anchor where they do not say)."""
    return next((d["by"] for d in lines if "by" in d), "anchor")


def margin(scores: list, seat: int) -> float:
    return scores[seat] - max(x for q, x in enumerate(scores) if q != seat)


def play_on(prog: Any, s: Any, anchor: type, seed: int, rng: random.Random) -> float:
    """The anchors play s to its end (fresh anchors, chance from rng): the tested seat's margin."""
    seats = [anchor(agent_seed(seed, p)) for p in range(PLAYERS)]
    while s.pending.__class__ is not Terminal:
        p = s.pending
        if p.__class__ is Chance:
            prog.apply(s, weighted_index(p.weights, rng.randrange(sum(p.weights))))
        else:
            prog.apply(s, seats[p.player].choose(prog, s))
    return margin(s.pending.scores, SEAT)


def estimate_after(prog: Any, s: Any, i: int, anchor: type, seed: int, k: int,
                   cut: str = "step", rollouts: int = 1) -> float:
    """Option i at s, then the anchors play on for k decisions, or with cut="step" up to the
    first decision of the k-th new step of the rulebook's top level (where a searcher's rollout
    is cut by default: `search.top_step`): the tested seat's estimate less the best other seat's
    there, in the score's direction. With the dice of the first ending (an int); with
    rollouts = n > 1, the mean over n draws of dice of their own, not the endings' (what a
    search that cuts its rollouts there would see of the option after n of them: it does not
    know the dice the endings will throw), rounded to 0.01; the r-th draw the same for every
    option."""
    if rollouts > 1:
        return round(statistics.fmean(_estimate_after(prog, s, i, anchor, seed, k, cut, f"e{r}")
                                      for r in range(rollouts)), 2)
    return _estimate_after(prog, s, i, anchor, seed, k, cut, "0")


def _estimate_after(prog: Any, s: Any, i: int, anchor: type, seed: int, k: int, cut: str,
                    dice: str) -> int:
    c = s.clone()
    prog.apply(c, i)
    seats = [anchor(agent_seed(seed, p)) for p in range(PLAYERS)]
    rng = random.Random(f"{seed}:{len(s.history)}:{dice}")
    made = stepped = 0
    last = None
    while c.pending.__class__ is not Terminal and k > 0:
        p = c.pending
        if p.__class__ is Chance:
            prog.apply(c, weighted_index(p.weights, rng.randrange(sum(p.weights))))
            continue
        if cut == "step":
            g = top_step(c)
            if g != last:
                if last is not None:
                    stepped += 1
                    if stepped >= k:
                        break
                last = g
        elif made >= k:
            break
        prog.apply(c, seats[p.player].choose(prog, c))
        made += 1
    sign = prog.key_signs[0] if prog.key_signs else 1
    values = [sign * x for x in prog.estimates(c)]     # larger is better for every seat
    return values[SEAT] - max(x for q, x in enumerate(values) if q != SEAT)


def endings(prog: Any, s: Any, i: int, anchor: type, seed: int, rollouts: int) -> list[float]:
    """Option i at s: the tested seat's margins in `rollouts` endings (the r-th ending's dice
    the same for every option)."""
    out = []
    for r in range(rollouts):
        c = s.clone()
        prog.apply(c, i)
        out.append(play_on(prog, c, anchor, seed, random.Random(f"{seed}:{len(s.history)}:{r}")))
    return out


def mean_half(xs: list[float]) -> list[float]:
    """The mean and its 95% half-interval (normal), rounded."""
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return [round(statistics.fmean(xs), 2), round(half, 2)]


def on(d: dict) -> str:
    """How far on a position's estimate was asked: "4 steps", "1 step", "4 decisions" (files
    written before `--cut` count decisions)."""
    k, cut = d["estimate_depth"], d.get("estimate_cut", "decision")
    n = d.get("estimate_rollouts", 1)
    draws = f" (the mean of {n} draws of dice)" if n > 1 else ""
    return f"{k} {cut}{'' if k == 1 else 's'}{draws}"


def kind(prompt: str) -> str:
    """A kind of decision: its prompt up to the first parenthesis or colon."""
    for mark in ("(", ":"):
        if mark in prompt:
            prompt = prompt[:prompt.index(mark)]
    return prompt.strip()


def anchor_positions(prog: Any, anchor: type, seed: int, prompts: list[str],
                     vary: float = 0.0) -> Iterator[tuple]:
    """The anchors' game of `seed`: at each decision of the tested seat with a choice whose prompt
    contains every text of `prompts`, (its number among those, the state, the anchor's option);
    the caller leaves the state as it is (the game goes on from it with the anchor's option).
    With `vary` > 0, each seat's decision in the game is, with that chance, a regular option
    drawn at random instead of the anchor's (a generator of its own, from the seed): the
    anchors' games from different seeds then differ, where deterministic anchors would play
    nearly the same game whatever the seed (Die Händler's). The options asked about are the
    anchor's own; only the way to the positions varies."""
    seats = [anchor(agent_seed(seed, p)) for p in range(PLAYERS)]
    s = prog.new_game(PLAYERS, seed, narrate=True, explicit_chance=True)
    rng = random.Random(seed)
    other = random.Random(f"vary:{seed}")
    asked = 0
    while s.pending.__class__ is not Terminal:
        p = s.pending
        if p.__class__ is Chance:
            prog.apply(s, weighted_index(p.weights, rng.randrange(sum(p.weights))))
            continue
        i = seats[p.player].choose(prog, s)
        m = p.count - len(p.actions)
        if p.player == SEAT and m > 1 and all(t in p.prompt for t in prompts):
            asked += 1
            yield asked, s, i
        elif vary > 0 and m > 1 and other.random() < vary:
            i = other.randrange(m)
        prog.apply(s, i)


def positions(a: argparse.Namespace) -> int:
    prog = _program(a.rulebook)
    anchor = players(prog, a.by)
    lo, hi = (int(x) for x in a.seeds.split("-"))
    for seed in range(lo, hi):
        for asked, s, i in anchor_positions(prog, anchor, seed, a.prompt, a.vary):
            p = s.pending
            if asked % a.every == 0:
                t0 = time.time()
                chosen = {"anchor": i}
                for spec in a.agent:
                    bot = make_agent(for_rulebook(parse_spec(spec), prog.bot_settings),
                                     agent_seed(seed, SEAT) + asked)
                    chosen[spec] = bot.choose(prog, s.clone())
                # every regular option, and any any-time action a chooser took
                valued = sorted(set(chosen.values()) | set(
                    range(p.count - len(p.actions)) if a.all_options else ()))
                ends = {j: endings(prog, s, j, anchor, seed, a.rollouts) for j in valued}
                line = {"seed": seed, "decision": asked, "prompt": p.prompt,
                        "chosen": {who: p.option(j).label for who, j in chosen.items()},
                        "values": {p.option(j).label: mean_half(e) for j, e in ends.items()},
                        # each agent's option less the anchor's, ending by ending
                        "against_anchor": {
                            who: mean_half([x - y for x, y in zip(ends[j], ends[i])])
                            for who, j in chosen.items() if who != "anchor"},
                        "rollouts": a.rollouts, "seconds": round(time.time() - t0, 1)}
                if a.vary:
                    line["vary"] = a.vary
                if a.by != "anchor":
                    line["by"] = a.by
                if a.estimate_after is not None:
                    line["estimate_after"] = {
                        p.option(j).label: estimate_after(prog, s, j, anchor, seed,
                                                          a.estimate_after, a.cut,
                                                          a.estimate_rollouts)
                        for j in ends}
                    line["estimate_depth"] = a.estimate_after
                    line["estimate_cut"] = a.cut
                    line["estimate_rollouts"] = a.estimate_rollouts
                if a.all_options:
                    line["all_options"] = True
                print(json.dumps(line), flush=True)
                with open(a.out, "a", encoding="utf-8") as f:
                    f.write(json.dumps(line) + "\n")
    return 0


def file_positions(prog: Any, anchor: type, path: str, lines: list[dict],
                   prompts: list[str]) -> Iterator[tuple[dict, Any]]:
    """The anchors' games replayed to a file's positions: (its line, the state there), in the
    file's order of seeds; exits with a message where a position is not the file's (another
    --prompt filter, or a rulebook whose game differs)."""
    wanted: dict[int, dict[int, dict]] = {}
    vary: dict[int, float] = {}
    for d in lines:
        wanted.setdefault(d["seed"], {})[d["decision"]] = d
        vary[d["seed"]] = d.get("vary", 0.0)
    for seed, at in sorted(wanted.items()):
        for asked, s, _ in anchor_positions(prog, anchor, seed, prompts, vary[seed]):
            d = at.get(asked)
            if d is None:
                continue
            p = s.pending
            labels = [p.option(j).label for j in range(p.count)]
            if p.prompt != d["prompt"] or not set(d["values"]) <= set(labels):
                sys.exit(f"{path}: seed {seed}, decision {asked}: the position is not the "
                         f"file's ({p.prompt!r}); give the --prompt texts the file was written "
                         "with, and a rulebook whose game is the same")
            yield d, s
            del at[asked]
            if not at:
                break
        if at:
            sys.exit(f"{path}: seed {seed}: no position {min(at)} in the anchors' game")


def rejudge(a: argparse.Namespace) -> int:
    """The positions of a file asked again of a rulebook's estimate only (no search, no endings):
    each valued option's estimate lead `--estimate-after` decisions on, and where it prefers the
    option the file's endings prefer. The rulebook may be a copy that changes the estimate alone
    (the anchors' games are then the same); `--prompt` as when the file was written."""
    prog = _program(a.rulebook)
    lines = [json.loads(x) for x in open(a.rejudge, encoding="utf-8") if x.strip()]
    anchor = players(prog, file_by(lines))
    file_depth = next((on(d) for d in lines if "estimate_depth" in d), None)
    for d, s in file_positions(prog, anchor, a.rejudge, lines, a.prompt):
        p = s.pending
        labels = [p.option(j).label for j in range(p.count)]
        if d.get("all_options") and "estimate_after" in d:
            d["file_regret"] = regret(d)        # the file's own estimate, for the pairing
        d["estimate_after"] = {x: estimate_after(prog, s, labels.index(x), anchor, d["seed"],
                                                 a.estimate_after, a.cut, a.estimate_rollouts)
                              for x in d["values"]}
        d["estimate_depth"] = a.estimate_after
        d["estimate_cut"] = a.cut
        d["estimate_rollouts"] = a.estimate_rollouts
    agents = sorted({w for d in lines for w in d["chosen"] if w != "anchor"})
    for spec in agents:
        clear = [x for x in (judge(d, spec) for d in lines if spec in d["chosen"])
                 if x is not None]
        print(f"{spec}: the estimate of {a.rulebook} {on(lines[0])} on prefers the "
              f"option the endings prefer at {sum(clear)} of {len(clear)} positions where "
              "they differ beyond their interval")
    for x in every_option_lines(lines, f"the estimate of {a.rulebook}"):
        print(x)
    if a.out:                                   # the positions with this estimate's values
        with open(a.out, "w", encoding="utf-8") as f:
            f.writelines(json.dumps({k: v for k, v in d.items() if k != "file_regret"}) + "\n"
                         for d in lines)
    paired = [regret(d) - d["file_regret"] for d in lines if "file_regret" in d]
    if len(paired) > 1:
        half = 1.96 * statistics.stdev(paired) / math.sqrt(len(paired))
        print(f"  less the file's own estimate's ({file_depth} on), position by "
              f"position: {statistics.fmean(paired):+.2f} ± {half:.2f}")
    return 0


def reask(a: argparse.Namespace) -> int:
    """The positions of a file asked again of searchers (`--agent`, with the rulebook given, which
    may be a copy that changes only its estimate): each agent's option valued by the file's
    endings where the file has them (every option, in a file written with --all-options), else
    by endings played now with the same dice; its option less the anchor's, less the best option
    (where every option was valued), and position by position against each agent already in the
    file. `--name` names the agent's answers in the file (default its spec)."""
    prog = _program(a.rulebook)
    lines = [json.loads(x) for x in open(a.reask, encoding="utf-8") if x.strip()]
    anchor = players(prog, file_by(lines))
    keys = [a.name] if a.name else list(a.agent)
    before = sorted({w for d in lines for w in d["chosen"] if w != "anchor"} - set(keys))
    played = 0
    for d, s in file_positions(prog, anchor, a.reask, lines, a.prompt):
        p = s.pending
        labels = [p.option(j).label for j in range(p.count)]
        theirs = d["chosen"]["anchor"]
        for key, spec in zip(keys, a.agent):
            seed = agent_seed(d["seed"], SEAT) + d["decision"]
            bot = make_agent(for_rulebook(parse_spec(spec), prog.bot_settings), seed)
            if a.rollouts_by == "anchor":         # the anchors play its rollouts
                if not isinstance(bot, MCTSAgent):
                    sys.exit(f"--rollouts-by anchor needs a searcher on one core (cores=1), "
                             f"not {spec!r}")
                bot.policy = AnchorPolicy(anchor, seed)
            mine = labels[bot.choose(prog, s.clone())]
            if mine not in d["values"]:
                d["values"][mine] = mean_half(endings(prog, s, labels.index(mine), anchor,
                                                      d["seed"], d["rollouts"]))
                played += 1
            d["chosen"][key] = mine
            # the difference of the two means; its interval (not ending by ending: a file keeps
            # only the means) the wider of the two options' own
            d["against_anchor"][key] = [
                round(d["values"][mine][0] - d["values"][theirs][0], 2),
                0.0 if mine == theirs else max(d["values"][mine][1], d["values"][theirs][1])]
    print(f"{len(lines)} positions of {a.reask} asked again ({played} options valued anew)")
    full = [d for d in lines if d.get("all_options")]
    if full:
        print("the anchor: its option less the best "
              + _mean_half_text([d["values"][d["chosen"]["anchor"]][0]
                                 - max(v[0] for v in d["values"].values()) for d in full]))
    for key in keys:
        for line in reask_lines(lines, key, before):
            print(line)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(d) + "\n" for d in lines)
    return 0


def _mean_half_text(xs: list[float]) -> str:
    mean, half = mean_half(xs)
    return f"{mean:+.2f} ± {half:.2f}"


def reask_lines(lines: list[dict], key: str, others: list[str]) -> list[str]:
    """What --reask says of one agent's answers at a file's positions."""
    worth = [d["values"][d["chosen"][key]][0] for d in lines]
    anchor = [d["values"][d["chosen"]["anchor"]][0] for d in lines]
    same = sum(d["chosen"][key] == d["chosen"]["anchor"] for d in lines)
    out = [f"{key}: chose as the anchor at {same}"
           f" of {len(lines)}; its option less the anchor's "
           f"{_mean_half_text([x - y for x, y in zip(worth, anchor)])}"]
    full = [d for d in lines if d.get("all_options")]
    if full:
        out.append(f"  less the best option ({len(full)} positions, every option valued): "
                   + _mean_half_text([d["values"][d["chosen"][key]][0]
                                      - max(v[0] for v in d["values"].values()) for d in full]))
    for other in others:
        both = [d for d in lines if other in d["chosen"]]
        if both:
            out.append(f"  less {other}'s option, position by position ({len(both)}): "
                       + _mean_half_text([d["values"][d["chosen"][key]][0]
                                          - d["values"][d["chosen"][other]][0] for d in both]))
    return out


def report(path: str) -> int:
    lines = [json.loads(x) for x in open(path, encoding="utf-8") if x.strip()]
    agents = sorted({w for d in lines for w in d["chosen"] if w != "anchor"})
    for spec in agents:
        by: dict[str, list[float]] = {}
        other: dict[str, int] = {}
        for d in lines:
            if spec not in d["chosen"]:
                continue
            k = kind(d["prompt"])
            mine, theirs = d["chosen"][spec], d["chosen"]["anchor"]
            by.setdefault(k, []).append(d["against_anchor"][spec][0])
            other[k] = other.get(k, 0) + (mine != theirs)
        print(f"{spec}: its option's value less the anchor's (the tested seat's final margin)")
        every = [x for v in by.values() for x in v]
        judged = [judge(d, spec) for d in lines if spec in d["chosen"] and "estimate_after" in d]
        clear = [x for x in judged if x is not None]
        for k, v in sorted(by.items(), key=lambda kv: -len(kv[1])) + [("all", every)]:
            n = len(v)
            half = 1.96 * statistics.stdev(v) / math.sqrt(n) if n > 1 else float("nan")
            moved = sum(other.values()) if k == "all" else other[k]
            print(f"  {k[:44]:44} {n:4} positions  {moved:4} otherwise  "
                  f"{statistics.fmean(v):+7.2f} ± {half:.2f}")
        full = [d for d in lines if spec in d["chosen"] and d.get("all_options")]
        if full:                    # every option valued: its option against the best
            lost = [max(v[0] for v in d["values"].values()) - d["values"][d["chosen"][spec]][0]
                    for d in full]
            half = 1.96 * statistics.stdev(lost) / math.sqrt(len(lost)) if len(lost) > 1 \
                else float("nan")
            print(f"  its option is worth {statistics.fmean(lost):.2f} ± {half:.2f} less than "
                  f"the best by the endings ({len(full)} positions, every option valued)")
        if judged:
            depth = next(on(d) for d in lines if "estimate_depth" in d)
            print(f"  the estimate {depth} on prefers the option the endings prefer at "
                  f"{sum(clear)} of {len(clear)} positions where they differ beyond their interval")
    for x in every_option_lines(lines, "the estimate"):
        print(x)
    return 0


def pairs_judged(d: dict) -> list[bool]:
    """A position whose every option was valued: for each pair of options whose endings differ
    beyond the larger of their two 95% half-intervals, does the estimate prefer the one the
    endings prefer? (Not ending by ending: a pair's values from the same dice, so this is
    stricter than their difference needs.)"""
    est, vals = d["estimate_after"], d["values"]
    out = []
    labels = sorted(vals)
    for x in labels:
        for y in labels:
            if x < y and abs(vals[x][0] - vals[y][0]) > max(vals[x][1], vals[y][1]):
                e = est[x] - est[y]
                out.append(e != 0 and (e > 0) == (vals[x][0] > vals[y][0]))
    return out


def regret(d: dict) -> float:
    """A position whose every option was valued: how much less the option the estimate ranks
    first is worth by the endings than the best option (several ranked first alike: their mean)."""
    est, vals = d["estimate_after"], d["values"]
    top = max(est.values())
    firsts = [vals[x][0] for x in vals if est[x] == top]
    return max(v[0] for v in vals.values()) - statistics.fmean(firsts)


def every_option_lines(lines: list[dict], whose: str) -> list[str]:
    """What the report says of the positions whose every option was valued."""
    full = [d for d in lines if d.get("all_options") and "estimate_after" in d]
    if not full:
        return []
    pairs = [x for d in full for x in pairs_judged(d)]
    lost = [regret(d) for d in full]
    half = 1.96 * statistics.stdev(lost) / math.sqrt(len(lost)) if len(lost) > 1 else float("nan")
    return [f"every option valued ({len(full)} positions): {whose} prefers what the endings prefer "
            f"in {sum(pairs)} of {len(pairs)} pairs of options that differ beyond their "
            "intervals;",
            f"  the option it ranks first is worth {statistics.fmean(lost):.2f} ± {half:.2f} less "
            "than the best by the endings"]


def judge(d: dict, spec: str) -> bool | None:
    """Does the estimate after the options prefer the option the endings prefer (None: the
    options are alike, or their endings do not differ beyond the 95% interval)?"""
    mine, theirs = d["chosen"][spec], d["chosen"]["anchor"]
    diff, half = d["against_anchor"][spec]
    if mine == theirs or abs(diff) <= half:
        return None
    est = d["estimate_after"][mine] - d["estimate_after"][theirs]
    return est != 0 and (est > 0) == (diff > 0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rulebook", nargs="?")
    ap.add_argument("--agent", action="append", default=[], help="a searcher's spec (repeatable)")
    ap.add_argument("--seeds", default="0-4", help="A-B: the games' seeds, B excluded")
    ap.add_argument("--every", type=int, default=1, help="ask at every k-th decision of the seat")
    ap.add_argument("--prompt", action="append", default=[],
                    help="only decisions whose prompt contains this (repeatable: all of them)")
    ap.add_argument("--rollouts", type=int, default=40, help="endings played for each option")
    ap.add_argument("--out", help="a JSON-lines file the positions are added to")
    ap.add_argument("--all-options", action="store_true",
                    help="value every option of a position, not only those chosen (for "
                         "--estimate-after: the estimate judged against every option)")
    ap.add_argument("--cut", choices=("step", "decision"), default="step",
                    help="what --estimate-after counts: steps of the rulebook's top level (as a "
                         "searcher's rollout is cut by default) or decisions")
    ap.add_argument("--estimate-after", type=int, metavar="K",
                    help="also the tested seat's estimate lead K steps (or decisions: --cut) "
                         "after each option")
    ap.add_argument("--estimate-rollouts", type=int, default=1, metavar="N",
                    help="--estimate-after's lead averaged over N draws of dice of their "
                         "own (default 1: the first ending's dice)")
    ap.add_argument("--vary", type=float, default=0.0, metavar="P",
                    help="the anchors' games to the positions take, at each decision but the "
                         "tested seat's asked ones, a random option with chance P (default 0): "
                         "positions that differ from seed to seed")
    ap.add_argument("--by", choices=("anchor", "prefer"), default="anchor",
                    help="who plays the games to the positions, the endings and the estimate's "
                         "look-ahead at every seat: the game's anchor (default) or the "
                         "rulebook's prefer player (a rulebook's estimate judged in seconds "
                         "against endings of its own casual players); --rejudge and --reask "
                         "replay a file with the players it was written with")
    ap.add_argument("--report", metavar="FILE", help="summarise a file instead")
    ap.add_argument("--reask", metavar="FILE",
                    help="ask a file's positions again of the --agent searchers (with the "
                         "rulebook given and the file's --prompt texts), their options valued "
                         "by the file's endings where it has them; --out: write the file with "
                         "their answers")
    ap.add_argument("--rollouts-by", choices=("own", "anchor"), default="own",
                    help="with --reask: who plays the searchers' rollouts: their own policy "
                         "(default), or the game's anchor at every seat (MCTSAgent.policy; a "
                         "step in ten their own), as benchmarks/anchor_answers.py --rollouts "
                         "anchor")
    ap.add_argument("--name", help="with --reask and one --agent: the name its answers go by "
                                   "(default its spec)")
    ap.add_argument("--rejudge", metavar="FILE",
                    help="ask a file's positions again of the rulebook's estimate only "
                         "(with --estimate-after and the file's --prompt texts; --out: write "
                         "them with the new estimates)")
    a = ap.parse_args(argv)
    if a.report:
        return report(a.report)
    if a.estimate_rollouts < 1:
        ap.error("--estimate-rollouts must be at least 1")
    if a.reask:
        if not a.rulebook or not a.agent:
            ap.error("--reask needs a rulebook and at least one --agent")
        if a.name and len(a.agent) != 1:
            ap.error("--name names the answers of one --agent")
        if a.rollouts_by == "anchor" and any(not x.startswith(("mcts", "ismcts"))
                                             for x in a.agent):
            ap.error("--rollouts-by anchor plays a searcher's rollouts: give mcts or ismcts "
                     "agents on one core (cores=1)")
        return reask(a)
    if a.rejudge:
        if not a.rulebook or a.estimate_after is None:
            ap.error("--rejudge needs a rulebook and --estimate-after")
        return rejudge(a)
    if not a.rulebook or not a.agent or not a.out:
        ap.error("give a rulebook, at least one --agent and --out (or --report FILE)")
    if a.every < 1 or a.rollouts < 2:
        ap.error("--every must be at least 1 and --rollouts at least 2")
    if not 0 <= a.vary <= 1:
        ap.error("--vary must be a chance, from 0 to 1")
    if a.estimate_after is not None and a.estimate_after < 0:
        ap.error("--estimate-after must be 0 or more")
    return positions(a)


if __name__ == "__main__":
    sys.exit(main())
