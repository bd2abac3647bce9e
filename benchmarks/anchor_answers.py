"""Which of a searcher's decisions cost it most? Play it against two of the game's anchors, with
one kind of its decisions (those whose prompt contains one of the given texts) answered by the
anchor in its place, and write each game's margin; compared seed by seed with the searcher
alone (`--anchor-answers none`), the difference says what the searcher loses at that kind of
decision (docs/agents.md, "Asking the searcher's decisions kind by kind").

    .venv/bin/python benchmarks/anchor_answers.py rulebooks/manila.rules \\
        --agent ismcts:300:cores=1 --anchor-answers "place an accomplice" --seeds 0-12 \\
        --out manila_place.jsonl

With `--rollouts anchor` the searcher's rollouts are played by the game's anchor at every seat
(`MCTSAgent.policy`), to ask whether a better model of the players in the rollouts would make
it play better (docs/agents.md, "Rollouts played by the anchors"); with `--rollouts others` by
the anchor at the other seats only, the searcher's own seat by MAST (the other players modelled,
its own play not); with `--rollouts self` the other way round.

The tested seat is seat g mod 3 in game g (3 players), the others the anchor; a line of JSON a
game: seed, seat, the prompts handed over, scores, margin (the seat's score less the best
other's), won, how many decisions each side answered, and the decisions made (the history, to
replay the game).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_agents import _program, heuristic_for  # noqa: E402

from mercator.interpreter.agents.base import agent_seed, play_out  # noqa: E402
from mercator.interpreter.agents.search import MCTSAgent  # noqa: E402
from mercator.interpreter.agents.spec import for_rulebook, make_agent, parse_spec  # noqa: E402

PLAYERS = 3


def asked(prompt: str, texts: list[str]) -> bool:
    """Is a decision of this prompt one the anchor answers: does the prompt contain one of the
    texts, or, for a text written with a leading '^', begin with the rest of it ("^bid" is
    Die Händler's open auction and not its "sealed bid")?"""
    return any(prompt.startswith(t[1:]) if t.startswith("^") else t in prompt for t in texts)


class Handing:
    """The searcher, with the decisions whose prompt contains one of `texts` answered by the
    anchor instead; counts who answered how many."""

    def __init__(self, spec: str, anchor: type, texts: list[str], seed: int, prog: Any):
        self.searcher = make_agent(for_rulebook(parse_spec(spec), prog.bot_settings), seed)
        self.anchor = anchor(seed)
        self.texts = texts
        self.answered = [0, 0]            # by the searcher, by the anchor

    def choose(self, program, state) -> int:
        if asked(state.pending.prompt, self.texts):
            self.answered[1] += 1
            return self.anchor.choose(program, state)
        self.answered[0] += 1
        return self.searcher.choose(program, state)


class AnchorPolicy:
    """The searcher's rollouts played by the game's anchor (`--rollouts anchor`): an anchor for
    each seat, asked at each decision of a rollout in the world the search drew."""

    def __init__(self, anchor: type, seed: int, skip: int = -1, only: int = -1):
        self.anchor, self.seed, self.skip, self.only = anchor, seed, skip, only
        self.seats: dict[int, object] = {}

    def __call__(self, program, state) -> int:
        seat = state.pending.player
        if seat == self.skip or 0 <= self.only != seat:    # --rollouts others / own: the
            return -1                                        # seats left to MAST
        a = self.seats.get(seat)
        if a is None:
            a = self.seats[seat] = self.anchor(agent_seed(self.seed, seat))
        return a.choose(program, state)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rulebook")
    ap.add_argument("--agent", default="ismcts:300:cores=1", help="the searcher's spec")
    ap.add_argument("--anchor-answers", default="none",
                    help="comma-separated texts of the prompts the anchor answers: a prompt "
                         "containing one, or beginning with one written with a leading '^' "
                         "('none')")
    ap.add_argument("--rollouts", choices=("own", "anchor", "others", "self"), default="own",
                    help="who plays the searcher's rollouts: its own policy (MAST), the game's "
                         "anchor at every seat (MCTSAgent.policy; a step in ten its own), "
                         "the anchor at the other seats and MAST at the searcher's (others), or "
                         "the anchor at the searcher's seat and MAST at the others' (self)")
    ap.add_argument("--seeds", default="0-12", help="A-B: the games' seeds, B excluded")
    ap.add_argument("--out", required=True, help="a JSON-lines file the games are added to")
    a = ap.parse_args(argv)
    texts = [] if a.anchor_answers == "none" else [t for t in a.anchor_answers.split(",") if t]
    lo, hi = (int(x) for x in a.seeds.split("-"))
    prog = _program(a.rulebook)
    anchor = heuristic_for(prog)
    for seed in range(lo, hi):
        me = seed % PLAYERS
        seats = [anchor(agent_seed(seed, p)) for p in range(PLAYERS)]
        seats[me] = tested = Handing(a.agent, anchor, texts, agent_seed(seed, me), prog)
        if a.rollouts != "own":
            if not isinstance(tested.searcher, MCTSAgent):
                ap.error(f"--rollouts {a.rollouts} needs a searcher on one core (cores=1), "
                         f"not {a.agent!r}")
            tested.searcher.policy = AnchorPolicy(anchor, seed,
                                                  me if a.rollouts == "others" else -1,
                                                  me if a.rollouts == "self" else -1)
        state = prog.new_game(PLAYERS, seed, narrate=True, explicit_chance=True)
        t0 = time.time()
        play_out(prog, state, seats, max_decisions=20000)
        scores = list(state.pending.scores)
        line = {"seed": seed, "seat": me, "anchor_answers": texts, "agent": a.agent,
                **({"rollouts": a.rollouts} if a.rollouts != "own" else {}),
                "scores": scores, "margin": scores[me] - max(x for i, x in enumerate(scores)
                                                             if i != me),
                "won": me in state.pending.winners, "answered": tested.answered,
                **({"planned": tested.searcher.planned}
                   if getattr(tested.searcher, "planned", 0) else {}),
                "seconds": round(time.time() - t0), "history": list(state.history)}
        print(json.dumps(line), flush=True)
        with open(a.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
