"""The run time of a `deal`: the window of negotiation over an open table of offers.

The table is a list of offer records in a table field; the window's own position (whose turn,
how many quiet passes, the offer being built) is a list in a local slot of the frame, so a state
in mid-negotiation is a value like any other (clone, JSON, equality). The compiler
(interpreter/compiler/deals.py) makes a `DealSpec` per deal statement and the ops that run it.

The window, as bots, search and replays see it: the seats of the order (the `among` list, then
the dealer if he is not in it) take turns; in a turn a seat passes, posts a new offer, replaces
or withdraws one of its own, or accepts an offer made to it that is binding now. An offer is
built one step at a time: to whom (when there is a choice), about what (when the offers have a
subject), then each bundle of the terms (give, get, promise) one item or one unit at a time,
'done' ending each bundle; 'cancel' gives up. So no decision lists every bundle. A full pass
with no change counts as quiet; after `quiet` such passes in a row, or `limit` turns, the window
closes without a deal. Before every turn the offers that can no longer be carried out (their
maker or taker lacks what they name, `valid` fails, or their promise is no longer among the
proceeds) leave the table.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from mercator.interpreter.engine.bundles import Part, covers, gained, minus, move, only
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.limits import DEAL_PASSES
from mercator.interpreter.engine.seen import ALL, record, render
from mercator.interpreter.engine.values import deep_copy, fmt

Fn = Callable[[Any, list], Any]

# the window, kept in a local slot: [order, turn, quiet passes, changed this pass, turns, draft,
# accepted, forced, closed with, quiet, limit, dealer, owed, last answers] (quiet, limit and
# dealer as read when the window opened; a window saved by an older engine lacks the later
# entries and reads them again, or goes without); a draft: [replacing id or -1, stage, taker,
# subject, give, get, promise]; forced: the window would have closed, but the dealer must accept
# one of the offers `must` names; closed with: the value of `close` its closer chose (quiet
# passes are then -1); owed: the seats that have not had a turn since the table last changed;
# last answers: None, or (once the window has reached its end) the seats of `owed` still to be
# asked, one by one, to accept an offer made to them or let it lapse; made: the offers accepted
# in this window so far; accepts: how many may be (the setting, read when the window opened)
ORDER, TURN, QUIET, CHANGED, TURNS, DRAFT, ACCEPTED, FORCED, CLOSED_WITH, QUIET_N, LIMIT_N, \
    DEALER_N, OWED, LAST, MADE, ACCEPTS_N = range(16)
D_REPLACE, D_STAGE, D_TAKER, D_SUBJECT = range(4)
D_BUNDLE = 4                    # give, get, promise at 4, 5, 6
TERMS = ("give", "get", "promise")
# the casual trader (DealSpec.casual): an option it takes only where nothing else is open, and
# the most steps one draft of its climbs (a safety bound: each step must raise its liking)
NEVER = -(1 << 60)
CLIMB_CAP = 500


class DealSpec:
    """What the compiler made of one deal statement."""

    def __init__(self, name: str, table: int, parts: list[Part], fields: list[str],
                 terms: tuple[str, ...], among: Fn, dealer: Optional[Fn], about: Optional[Fn],
                 subject_type: Any, quiet: Fn, limit: Optional[Fn],
                 rules: dict[str, tuple[int, Fn]], wslot: int, accept_slot: Optional[int],
                 closer: Optional[Fn] = None, close: Optional[Fn] = None,
                 close_type: Any = None, accepts: Optional[Fn] = None):
        self.name = name
        self.table = table
        self.parts = parts
        self.fields = fields          # the offer record's field names, in order
        self.at = {n: i for i, n in enumerate(fields)}
        self.terms = terms
        self.among, self.dealer, self.about = among, dealer, about
        self.subject_type = subject_type
        self.quiet, self.limit = quiet, limit
        self.rules = rules            # kind -> (slot of its variable, compiled expression)
        self.wslot = wslot
        self.accept_slot = accept_slot
        self.closer = closer          # the seat who may close the window in his turn
        self.close, self.close_type = close, close_type   # what he closes it with
        self.accepts = accepts        # how many offers one window may see accepted (None: 1)
        # what options() last found of a draft at a bundle step: (the draft, the step, why it
        # may not be posted or ""), read once by draft_later
        self._seen: Optional[tuple[list, int, str]] = None

    # -- offers
    def bundle_text(self, b: list) -> str:
        """A bundle as text: '5 coins + pepper' ('nothing' when empty)."""
        bits = [t for p, v in zip(self.parts, b) for t in p.text(v)]
        return " + ".join(bits) if bits else "nothing"

    def offer_text(self, o: list) -> str:
        """An offer as text: '#2 P1 to P3 about x: gives 5 coins; gets pepper'."""
        at = self.at
        head = f"#{o[at['id']]} P{o[at['maker']] + 1} to P{o[at['taker']] + 1}"
        if "subject" in at:
            head += f" about {fmt(o[at['subject']], self.subject_type)}"
        verbs = {"give": "gives", "get": "gets", "promise": "promises"}
        body = "; ".join(f"{verbs[t]} {self.bundle_text(o[at[t]])}" for t in self.terms)
        return f"{head}: {body}"

    def draft_later(self, st: Any, L: list, who: int, d: list) -> Callable[[], str]:
        """The offer `who` is building, as far as it goes, for his eyes only ('your offer so
        far: to P2 about harbour: gives 5 ducats'), and at the last step why it cannot be
        posted as it stands, if it cannot: a function of no arguments that writes that text
        when called (a node's draft: most are never read). What depends on the state is
        worked out now, the words later from a copy of the draft, so it says the same whenever
        it is called, whatever happens to the state (or a clone sharing the node) after."""
        k = d[D_STAGE] - 2
        seen, self._seen = self._seen, None
        if seen is not None and seen[0] is d and seen[1] == k:
            why = seen[2]                     # (options() has just worked it out)
        else:
            why = self._unpostable(st, L, who, d) if 0 <= k < len(self.terms) and \
                self.last_stage(st, L, who, d, k) else ""
        d = deep_copy(d)
        return lambda: self._draft_words(d) + (
            f" · it cannot be posted as it stands: {why}" if why else "")

    def _unpostable(self, st: Any, L: list, who: int, d: list) -> str:
        """Why the finished draft d of `who` may not be posted ("" when it may: postable)."""
        o = self.make_offer(st, who, d, False)
        if not self.rule("valid", st, L, o, True):
            return "the rules' 'valid' does not hold"
        if not self.promise_covered(st, L, o):
            return "it promises more than the proceeds"
        return ""

    def _draft_words(self, d: list) -> str:
        """'your offer so far: ...' of draft d (draft_later)."""
        at = self.at
        bits = []
        if d[D_TAKER] is not None and d[D_TAKER] >= 0:
            bits.append(f"to P{d[D_TAKER] + 1}")
        if "subject" in at and d[D_SUBJECT] is not None:
            bits.append(f"about {fmt(d[D_SUBJECT], self.subject_type)}")
        head = " ".join(bits) or "nothing chosen yet"
        stage = d[D_STAGE]
        verbs = {"give": "gives", "get": "gets", "promise": "promises"}
        body = "; ".join(f"{verbs[t]} {self.bundle_text(d[D_BUNDLE + TERMS.index(t)])}"
                         for k, t in enumerate(self.terms) if k <= stage - 2)
        return f"your offer so far: {head}" + (f": {body}" if body else "")

    def rule(self, kind: str, st: Any, L: list, o: list, default: Any) -> Any:
        """A clause's value for offer o (`default` when the deal has no such clause)."""
        r = self.rules.get(kind)
        if r is None:
            return default
        slot, f = r
        L[slot] = o
        try:
            return f(st, L)
        finally:
            L[slot] = None

    def affordable(self, st: Any, o: list) -> bool:
        """Can the maker hand over what he gives, and the taker what he is asked?"""
        at, P = self.at, st.players
        for term, who in (("give", "maker"), ("get", "taker")):
            have = P[o[at[who]]]
            if not all(covers(p, have[p.field], v) for p, v in zip(self.parts, o[at[term]])
                       if term == "give" or not p.openly):
                return False
        return True

    def asks_hidden(self, o: list) -> bool:
        """Does offer o ask the taker for some of a hidden (`openly`) part? (Only he knows
        whether he holds it: the offer stands whatever he holds, and only he is offered to
        accept it, when he holds it.)"""
        return any(p.openly and p.text(v) for p, v in zip(self.parts, o[self.at["get"]])) \
            if "get" in self.at else False

    def taker_holds(self, st: Any, o: list) -> bool:
        """Does the taker of o hold what it asks of his hidden parts? (For his eyes only.)"""
        have = st.players[o[self.at["taker"]]]
        return all(covers(p, have[p.field], v) for p, v in zip(self.parts, o[self.at["get"]])
                   if p.openly)

    def standing(self, st: Any, L: list, o: list) -> bool:
        """May offer o stay on the table? (Both sides still hold what they name, `valid(o)`
        holds, and what it promises is still among what `proceeds(o)` says the subject yields.)"""
        return self.affordable(st, o) and bool(self.rule("valid", st, L, o, True)) \
            and self.promise_covered(st, L, o)

    def postable(self, st: Any, L: list, o: list) -> bool:
        """May the finished draft o be posted? (`valid(o)` holds and its promise is within its
        proceeds: an offer that would leave the table at once is not made.)"""
        return bool(self.rule("valid", st, L, o, True)) and self.promise_covered(st, L, o)

    def promise_covered(self, st: Any, L: list, o: list) -> bool:
        """Is the promise of offer o still within its proceeds?"""
        if "promise" not in self.terms or "proceeds" not in self.rules:
            return True
        promised = o[self.at["promise"]]
        if not any(p.text(v) for p, v in zip(self.parts, promised)):
            return True
        pool = list(self.rule("proceeds", st, L, o, [p.empty() for p in self.parts]))
        return all(covers(p, have, want) for p, have, want in zip(self.parts, pool, promised))

    def drop_void(self, st: Any, L: list) -> bool:
        """Take the offers that can no longer be carried out off the table; True if any."""
        table = st.table[self.table]
        keep = [o for o in table if self.standing(st, L, o)]
        if len(keep) == len(table):
            return False
        for o in table:
            if o not in keep:
                self.log(st, f"offer {self.offer_text(o)} is void and leaves the table")
        st.table[self.table] = keep
        return True

    def log(self, st: Any, text: str) -> None:
        """A public line of narration."""
        if st.narrate:
            entry = ["log", None, [[text, None]]]
            record(st, entry)
            st.messages.append(render(entry, ALL) or text)

    def make_offer(self, st: Any, maker: int, d: list, copy: bool = True) -> list:
        """The offer record a finished draft describes (its id: one more than any standing).
        With copy False it shares the draft's values: only for a rule to read."""
        new_id = 1 + max((o[self.at["id"]] for o in st.table[self.table]), default=0)
        vals = {"id": new_id, "maker": maker, "taker": d[D_TAKER], "subject": d[D_SUBJECT],
                "give": d[D_BUNDLE], "get": d[D_BUNDLE + 1], "promise": d[D_BUNDLE + 2]}
        if not copy:
            return [vals[n] for n in self.fields]
        return [deep_copy(vals[n]) for n in self.fields]

    # -- the window
    def start(self, st: Any, L: list) -> list:
        """A new window: the order of turns, and its `quiet` and `limit` (read once, as the
        window opens)."""
        order = [p for p in self.among(st, L)]
        d = None
        if self.dealer is not None:
            d = self.dealer(st, L)
            if d is None:
                raise RuleError("a deal with no dealer (none)")
            if d not in order:
                order.append(d)
        if not order:
            raise RuleError("a deal among no players")
        limit = DEAL_PASSES * len(order) if self.limit is None else self.limit(st, L)
        accepts = 1 if self.accepts is None else self.accepts(st, L)
        if accepts < 1:
            raise RuleError(f"a deal that accepts {accepts} offers (at least 1)")
        return [order, 0, 0, False, 0, None, None, False, None, self.quiet(st, L), limit, d,
                [], None, 0, accepts]

    def _dealer(self, st: Any, L: list, W: Optional[list]) -> Any:
        """The dealer as the window read him when it opened (an older window: read now)."""
        if W is not None and len(W) > DEALER_N:
            return W[DEALER_N]
        assert self.dealer is not None      # (asked only of a deal with a dealer)
        return self.dealer(st, L)

    def takers(self, st: Any, L: list, W: list, who: int) -> list[int]:
        """The seats `who` may make an offer to."""
        if self.dealer is not None:
            if len(W) > DEALER_N:       # the order is among, then the dealer if not in it
                d = W[DEALER_N]
                return [d] if who != d else [p for p in W[ORDER] if p != d]
            d = self.dealer(st, L)
            if who != d:
                return [d]
            return [p for p in self.among(st, L) if p != d]
        return [p for p in W[ORDER] if p != who]

    def options(self, st: Any, L: list, W: list) -> tuple[int, list, Callable[[Any], str], str]:
        """(who decides, values, their labeller, prompt) of the window's next decision; pass
        (None) is always the first option at a turn's start. A label is made from its value
        when asked for (a rollout never asks), except an acceptance's, which shows the offer
        as it stands now."""
        who = self.seat(W)
        d = W[DRAFT]
        at = self.at
        accepts: dict[int, str] = {}
        if self.answering(W):
            offers = self.acceptable(st, L, who)
            accepts = {o[at["id"]]: f"accept {self.offer_text(o)}" for o in offers}
            return who, [("accept", o[at["id"]]) for o in offers], \
                self._labeller(accepts, False), \
                f"{self.name}: the window is closing: accept an offer made to you, or pass " \
                "(the offers lapse)"
        if self.forced(W):
            dealer = self._dealer(st, L, W) if self.dealer is not None else who
            offers = self.must_offers(st, L, W)
            accepts = {o[at["id"]]: f"accept {self.offer_text(o)}" for o in offers}
            return dealer, [("accept", o[at["id"]]) for o in offers], \
                self._labeller(accepts, False), \
                f"{self.name}: you must accept one of these offers"
        if d is None:
            vals: list = []
            if self.takers(st, L, W, who):
                vals.append(("post",))
            takes = [o[at["id"]] for o in self.acceptable(st, L, who)]
            for o in st.table[self.table]:
                i = o[at["id"]]
                if i in takes:
                    vals.append(("accept", i))
                    accepts[i] = f"accept {self.offer_text(o)}"
                if o[at["maker"]] == who:
                    vals += [("replace", i), ("withdraw", i)]
            if self.closer is not None and self.closer(st, L) == who \
                    and not self.must_offers(st, L, W):
                if self.close is None:
                    vals.append(("close",))
                else:
                    vals += [("close", deep_copy(x)) for x in self.close(st, L)]
            return who, vals, self._labeller(accepts, False), \
                f"{self.name}: your turn to deal (or pass)"
        stage = d[D_STAGE]
        if stage == 0:
            return who, [("to", p) for p in self.takers(st, L, W, who)], \
                self._labeller(accepts, False), f"{self.name}: make the offer to"
        if stage == 1:
            xs = self.about(st, L) if self.about is not None else []
            return who, [("about", deep_copy(x)) for x in xs] + [("cancel",)], \
                self._labeller(accepts, False), f"{self.name}: the offer is about"
        k = stage - 2
        term = self.terms[k]
        vals = self.adds(st, L, who, d, k)
        last = self.last_stage(st, L, who, d, k)
        why = self._unpostable(st, L, who, d) if last else ""
        self._seen = (d, k, why)        # (for draft_later, which the window's decision calls next)
        if not why:
            vals.append(("done",))
        vals.append(("cancel",))
        verb = {"give": "what you give", "get": "what you ask for",
                "promise": "what you promise of the proceeds"}[term]
        return who, vals, self._labeller(accepts, last), f"{self.name}: {verb}"

    # -- the casual trader: a rulebook's preference over the offers (docs/language.md §2.19c)
    def casual(self, st: Any, L: list, W: list, like: Callable[[list], int]) -> list:
        """How the casual trader of the rulebook's preference over this table's offers values
        each option of the window's decision now (the pass first, 0, where there is one);
        like(o): how much the seat deciding likes offer o (a standing one, or a draft as it
        would be posted). At a turn's start: accepting an offer is worth its liking; posting,
        the liking of the draft it would build (below); replacing one of its offers, what the
        new draft is liked above it (never a draft that changes nothing); withdrawing one, minus
        its liking; closing the window, never. A draft is built by climbing: at each step the
        item or unit whose addition it likes most, as long as that raises its liking ('done'
        otherwise, which posts it where he likes it above 0, else 'cancel'); the taker and the
        subject, the ones whose finished drafts it likes most. The steps of a draft under way
        are that climb's: the step it takes, 0, every other step NEVER."""
        who, vals, _, _ = self.options(st, L, W)
        d = W[DRAFT]
        if d is not None:
            pick = self._climb_step(st, L, W, who, d, vals, like)
            return [0 if k == pick else NEVER for k in range(len(vals))]
        at = self.at
        out: list = [0] if not self.forced(W) else []
        byid = {o[at["id"]]: o for o in st.table[self.table]}
        mine = [o for o in byid.values() if o[at["maker"]] == who]
        for v in vals:
            kind = v[0]
            if kind == "accept":
                out.append(like(byid[v[1]]))
            elif kind in ("post", "replace"):
                old = byid[v[1]] if kind == "replace" else None
                o = self._finish(st, L, W, who, self._fresh(-1 if old is None else v[1], st, L,
                                                            W, who), like)
                if o is None or old is not None and self._same_offer(o, old) or \
                        any(self._same_place(o, x) for x in mine if x is not old):
                    out.append(NEVER)
                else:
                    out.append(like(o) - (like(old) if old is not None else 0))
            elif kind == "withdraw":
                out.append(-like(byid[v[1]]))
            else:                           # closing the window
                out.append(NEVER)
        return out

    def _fresh(self, replace: int, st: Any, L: list, W: list, who: int) -> list:
        """A new draft, its steps with one answer (or none) skipped, as commit() makes it."""
        d = [replace, 0, -1, None, [p.empty() for p in self.parts],
             [p.empty() for p in self.parts], [p.empty() for p in self.parts]]
        self._skip(st, L, W, who, d)
        return d

    def _skip(self, st: Any, L: list, W: list, who: int, d: list) -> None:
        """Skip the steps of who's draft d that have one answer (the dealer as taker) or none
        (no `about`)."""
        if d[D_STAGE] == 0:
            ts = self.takers(st, L, W, who)
            if len(ts) == 1:
                d[D_TAKER] = ts[0]
                d[D_STAGE] = 1
        if d[D_STAGE] == 1 and self.about is None:
            d[D_STAGE] = 2

    def _same_place(self, a: list, b: list) -> bool:
        """Do offers a and b go to the same taker about the same subject?"""
        at = self.at
        return a[at["taker"]] == b[at["taker"]] and \
            ("subject" not in at or a[at["subject"]] == b[at["subject"]])

    def _same_offer(self, a: list, b: list) -> bool:
        """... and name the same bundles?"""
        at = self.at
        return self._same_place(a, b) and all(a[at[t]] == b[at[t]] for t in self.terms)

    def _branches(self, st: Any, L: list, W: list, who: int, d: list) -> list:
        """The drafts after each answer of the taker or subject step of draft d."""
        out = []
        if d[D_STAGE] == 0:
            for t in self.takers(st, L, W, who):
                d2 = deep_copy(d)
                d2[D_TAKER], d2[D_STAGE] = t, 1
                self._skip(st, L, W, who, d2)
                out.append(d2)
        else:
            for x in (self.about(st, L) if self.about is not None else []):
                d2 = deep_copy(d)
                d2[D_SUBJECT], d2[D_STAGE] = deep_copy(x), 2
                out.append(d2)
        return out

    def _best_branch(self, st: Any, L: list, W: list, who: int, d: list,
                     like: Callable[[list], int]) -> tuple[int, Optional[list]]:
        """At the taker or subject step: the answer (its index) whose finished draft is liked
        most (the first of equals), and that offer; (-1, None) where every one is cancelled."""
        best, best_v, best_o = -1, NEVER, None
        for k, d2 in enumerate(self._branches(st, L, W, who, d)):
            o = self._finish(st, L, W, who, d2, like)
            if o is not None and (v := like(o)) > best_v:
                best, best_v, best_o = k, v, o
        return best, best_o

    def _add(self, d: list, k: int, v: tuple, sign: int) -> None:
        """Add (sign 1) or take back (-1) the step v to the k-th bundle of draft d."""
        cur = d[D_BUNDLE + TERMS.index(self.terms[k])]
        p = self.parts[v[1]]
        if p.kind == "amount":
            cur[v[1]] += sign * v[2]
        elif p.is_bag:
            n = cur[v[1]].get(v[2], 0) + sign
            if n:
                cur[v[1]][v[2]] = n
            else:
                del cur[v[1]][v[2]]
        elif sign > 0:
            cur[v[1]].append(v[2])
        else:
            cur[v[1]].pop()

    def _next_bundle(self, st: Any, L: list, who: int, d: list) -> None:
        """'done' before the last bundle: on to the next one with something to add."""
        d[D_STAGE] += 1
        while not self.can_add(st, L, who, d, d[D_STAGE] - 2):
            d[D_STAGE] += 1

    def _rise(self, st: Any, L: list, who: int, d: list, like: Callable[[list], int]
              ) -> tuple[Optional[tuple], bool]:
        """At a bundle step of draft d: the add that raises the liking most (None where none
        does), and whether the draft as it stands may be posted and is liked above 0."""
        k = d[D_STAGE] - 2
        base = like(self.make_offer(st, who, d, False))
        best, top = None, base
        for v in self.adds(st, L, who, d, k):
            self._add(d, k, v, 1)
            try:
                x = like(self.make_offer(st, who, d, False))
            finally:
                self._add(d, k, v, -1)
            if x > top:
                best, top = v, x
        return best, base > 0 and self.postable(st, L, self.make_offer(st, who, d, False))

    def _finish(self, st: Any, L: list, W: list, who: int, d: list,
                like: Callable[[list], int]) -> Optional[list]:
        """The offer the climb from draft d (changed in place) posts, or None if it cancels."""
        if d[D_STAGE] < 2:
            return self._best_branch(st, L, W, who, d, like)[1]
        for _ in range(CLIMB_CAP):
            k = d[D_STAGE] - 2
            v, good = self._rise(st, L, who, d, like)
            if v is not None:
                self._add(d, k, deep_copy(v), 1)
                continue
            if not self.last_stage(st, L, who, d, k):
                self._next_bundle(st, L, who, d)
                continue
            return self.make_offer(st, who, d) if good else None
        return self.make_offer(st, who, d) if self.postable(
            st, L, self.make_offer(st, who, d, False)) else None

    def _climb_step(self, st: Any, L: list, W: list, who: int, d: list, vals: list,
                    like: Callable[[list], int]) -> int:
        """The index in vals of the climb's step from draft d under way."""
        if d[D_STAGE] < 2:
            k, _ = self._best_branch(st, L, W, who, d, like)
            if k >= 0:
                return k
            return vals.index(("cancel",)) if ("cancel",) in vals else 0
        d = deep_copy(d)
        v, good = self._rise(st, L, who, d, like)
        if v is not None:
            return vals.index(v)
        k = d[D_STAGE] - 2
        if (not self.last_stage(st, L, who, d, k) or good) and ("done",) in vals:
            return vals.index(("done",))
        return vals.index(("cancel",))

    def seat(self, W: list) -> int:
        """The seat whose decision the window is waiting for (the dealer's, when forced, is
        worked out by options())."""
        if self.answering(W):
            return W[LAST][0]
        return W[ORDER][W[TURN]]

    @staticmethod
    def answering(W: list) -> bool:
        """Is the window, at its end, asking the seats owed an answer for their last one?"""
        return len(W) > LAST and bool(W[LAST])

    def binding_to(self, st: Any, L: list, who: int) -> list:
        """The standing offers made to `who` that bind now (whether he may accept them is a
        public fact: acceptable() may narrow them by what only he can see)."""
        at = self.at
        return [o for o in st.table[self.table]
                if o[at["taker"]] == who and self.rule("binding", st, L, o, True)]

    def acceptable(self, st: Any, L: list, who: int) -> list:
        """The standing offers `who` may accept now: those that bind, and of those that ask
        for some of his hidden holding, those he holds it for (his options are his alone)."""
        return [o for o in self.binding_to(st, L, who)
                if not self.asks_hidden(o) or self.taker_holds(st, o)]

    def owe_all(self, W: list, but: Optional[int] = None) -> None:
        """The table changed (by `but`, or by the rules): every other seat of the order is
        owed a turn in which to answer it."""
        if len(W) > OWED:
            W[OWED] = [p for p in dict.fromkeys(W[ORDER]) if p != but]

    @staticmethod
    def private_steps(W: list, labeller: Callable[[Any], str]) -> Optional[Callable[[Any], bool]]:
        """Which steps of the window's decision now only the drafter may see: while an offer
        is being built, every step but the last (`post`) and `cancel` — the offer names what
        the maker holds, perhaps owner-only (`openly` parts), and only the posted offer is
        shown. None at a turn's start (pass, post, accept, withdraw, close are public)."""
        if W[DRAFT] is None:
            return None

        def private(v: Any) -> bool:
            kind = v[0]
            return kind != "cancel" and not (kind == "done" and labeller(v) == "post")
        return private

    def _labeller(self, accepts: dict[int, str], last: bool) -> Callable[[Any], str]:
        """The label of a step of the window from its value: `accepts` holds the acceptances'
        (by offer id), `last` says whether 'done' posts the offer."""
        parts = self.parts

        def label(v: Any) -> str:
            kind = v[0]
            if kind == "accept":
                return accepts[v[1]]
            if kind == "add":
                p = parts[v[1]]
                return f"add {p.unit} {p.name}" if p.kind == "amount" else \
                    f"add {p.item_label(v[2])}"
            if kind == "done":
                return "post" if last else "done"
            if kind == "post":
                return "post an offer"
            if kind in ("replace", "withdraw"):
                return f"{kind} #{v[1]}"
            if kind == "close":
                return "close the window (no deal)" if len(v) == 1 else \
                    f"close: {fmt(v[1], self.close_type)}"
            if kind == "to":
                return f"to P{v[1] + 1}"
            if kind == "about":
                return f"about {fmt(v[1], self.subject_type)}"
            return "cancel"
        return label

    def _left(self, st: Any, L: list, who: int, d: list, k: int) -> list:
        """Per part, what may still be added to the k-th bundle of the terms for draft d of
        who: `give` offers what the maker holds, `get` what the taker holds (never a part kept
        owner-only: the maker cannot see it), `promise` what `proceeds` says."""
        term = self.terms[k]
        cur = d[D_BUNDLE + TERMS.index(term)]
        if term == "give":
            pool = [st.players[who][p.field] for p in self.parts]
        elif term == "get":
            # a hidden (`openly`) part of the taker's is asked for within what `asks(o)`
            # says (public), never within what he holds (the maker cannot see it)
            asks = [p.empty() for p in self.parts]
            if "asks" in self.rules and any(p.openly for p in self.parts):
                asks = list(self.rule("asks", st, L, self.make_offer(st, who, d, False), asks))
            pool = [a if p.openly else st.players[d[D_TAKER]][p.field]
                    for p, a in zip(self.parts, asks)]
        else:
            o = self.make_offer(st, who, d, False)
            pool = list(self.rule("proceeds", st, L, o, [p.empty() for p in self.parts]))
        return [have if not taken else minus(p, have, taken) if covers(p, have, taken)
                else p.empty() for p, have, taken in zip(self.parts, pool, cur)]

    def adds(self, st: Any, L: list, who: int, d: list, k: int) -> list:
        """The 'add' steps of the k-th bundle of the terms for draft d of who: a unit of an
        amount, or one of each distinct item (see _left)."""
        vals: list = []
        for i, (p, left) in enumerate(zip(self.parts, self._left(st, L, who, d, k))):
            if p.kind == "amount":
                if left >= p.unit:
                    vals.append(("add", i, p.unit))
                continue
            if p.is_bag:                    # (a bag's items are distinct keys)
                xs = sorted(left)
            elif p.scalar_items:
                xs = list(dict.fromkeys(left))
            else:
                seen: list = []
                for x in left:
                    if x not in seen:
                        seen.append(x)
                vals += [("add", i, deep_copy(x)) for x in seen]
                continue
            vals += [("add", i, x) for x in xs] if p.scalar_items else \
                [("add", i, deep_copy(x)) for x in xs]
        return vals

    def can_add(self, st: Any, L: list, who: int, d: list, k: int) -> bool:
        """Has the k-th bundle any 'add' step (adds() not empty)?"""
        return any(left >= p.unit if p.kind == "amount" else len(left) > 0
                   for p, left in zip(self.parts, self._left(st, L, who, d, k)))

    def last_stage(self, st: Any, L: list, who: int, d: list, k: int) -> bool:
        """Is bundle k the last one to ask for? (A later bundle with nothing to add is
        skipped: its 'done' would be the only step.)"""
        return not any(self.can_add(st, L, who, d, j) for j in range(k + 1, len(self.terms)))

    def must_offers(self, st: Any, L: list, W: Optional[list] = None) -> list:
        """The standing offers to the dealer that `must` says he must accept one of, if the
        window would close without a deal."""
        if "must" not in self.rules or self.dealer is None:
            return []
        d = self._dealer(st, L, W)
        at = self.at
        return [o for o in st.table[self.table] if o[at["taker"]] == d and not
                self.asks_hidden(o) and self.rule("binding", st, L, o, True)
                and self.rule("must", st, L, o, False)]

    @staticmethod
    def forced(W: list) -> bool:
        """Must the dealer accept an offer now (the window's closing was held up)?"""
        return len(W) > FORCED and bool(W[FORCED])

    def commit(self, st: Any, L: list, W: list, v: Any) -> None:
        """Carry out the chosen step v (None: pass)."""
        who = self.seat(W)
        d = W[DRAFT]
        table = st.table[self.table]
        at = self.at
        if self.answering(W):           # a last answer: accept, or let the offers lapse
            W[LAST].pop(0)
            if v is not None:
                W[ACCEPTED] = deep_copy(next(o for o in table if o[at["id"]] == v[1]))
            else:
                self.log(st, f"P{who + 1} lets the offers made to him lapse")
            return
        if v is None or v[0] == "cancel":
            W[DRAFT] = None
            self.end_turn(st, L, W)
        elif v[0] in ("post", "replace"):
            W[DRAFT] = [-1 if v[0] == "post" else v[1], 0, -1, None,
                        [p.empty() for p in self.parts], [p.empty() for p in self.parts],
                        [p.empty() for p in self.parts]]
            self.skip_stages(st, L, W)
        elif v[0] == "close":
            self.log(st, f"P{who + 1} closes the window")
            W[QUIET] = -1
            if len(v) > 1:
                W[CLOSED_WITH] = [deep_copy(v[1])]
        elif v[0] == "withdraw":
            st.table[self.table] = [o for o in table if o[at["id"]] != v[1]]
            self.log(st, f"P{who + 1} withdraws offer #{v[1]}")
            W[CHANGED] = True
            self.owe_all(W, who)
            self.end_turn(st, L, W)
        elif v[0] == "accept":
            o = next(o for o in table if o[at["id"]] == v[1])
            W[ACCEPTED] = deep_copy(o)
        elif v[0] == "to":
            d[D_TAKER] = v[1]
            d[D_STAGE] += 1
            self.skip_stages(st, L, W)
        elif v[0] == "about":
            d[D_SUBJECT] = deep_copy(v[1])
            d[D_STAGE] += 1
        elif v[0] == "add":
            self._add(d, d[D_STAGE] - 2, deep_copy(v), 1)
        elif v[0] == "done":
            k = d[D_STAGE] - 2
            if not self.last_stage(st, L, who, d, k):
                self._next_bundle(st, L, who, d)
                return
            if d[D_REPLACE] >= 0:
                st.table[self.table] = [o for o in table if o[at["id"]] != d[D_REPLACE]]
            o = self.make_offer(st, who, d)
            st.table[self.table].append(o)
            what = "offers" if d[D_REPLACE] < 0 else f"replaces #{d[D_REPLACE]} by"
            self.log(st, f"P{who + 1} {what} {self.offer_text(o)}")
            W[DRAFT] = None
            W[CHANGED] = True
            self.owe_all(W, who)
            self.end_turn(st, L, W)

    def skip_stages(self, st: Any, L: list, W: list) -> None:
        """Skip the steps of a draft that have one answer (the dealer as taker) or none."""
        self._skip(st, L, W, W[ORDER][W[TURN]], W[DRAFT])

    def end_turn(self, st: Any, L: list, W: list) -> None:
        """The next seat's turn; count quiet passes."""
        if len(W) > OWED and W[ORDER][W[TURN]] in W[OWED]:
            W[OWED].remove(W[ORDER][W[TURN]])
        W[TURN] += 1
        W[TURNS] += 1
        if W[TURN] == len(W[ORDER]):
            W[TURN] = 0
            W[QUIET] = 0 if W[CHANGED] else W[QUIET] + 1
            W[CHANGED] = False

    def closed(self, st: Any, L: list, W: list) -> bool:
        """Has the window closed without a deal?"""
        if W[DRAFT] is not None or self.forced(W) or self.answering(W):
            return False
        if W[QUIET] == -1:
            return True                 # closed by its closer
        if len(W) > LIMIT_N:
            limit = W[LIMIT_N]
            done = W[QUIET] >= W[QUIET_N] or (limit is not None and W[TURNS] >= limit)
        else:                           # (a window opened by an older engine, in a save)
            done = W[QUIET] >= self.quiet(st, L) or \
                (self.limit is not None and W[TURNS] >= self.limit(st, L))
        if done and len(W) > LAST:
            # the safety bound, or the stated rule, has been reached: each seat that has not
            # had a turn since the table last changed, and to whom an offer binds, gets one
            # last answer before the window closes (an offer is never left unanswerable)
            if W[LAST] is None:
                W[LAST] = list(W[OWED])
            while W[LAST] and not self.binding_to(st, L, W[LAST][0]):
                W[LAST].pop(0)
            if W[LAST]:
                return False
        if done and self.must_offers(st, L, W):
            W[FORCED] = True
            return False
        return done

    # -- an accepted offer
    def goes_on(self, st: Any, L: list, W: list) -> bool:
        """After an accepted offer is settled: does the window go on (fewer offers accepted
        than `accepts` allows)? If so, the acceptance counts as a change of the table, and the
        turn (or the last answers) goes on to the next seat."""
        if len(W) <= ACCEPTS_N:
            return False
        W[MADE] += 1
        W[ACCEPTED] = None
        if W[MADE] >= W[ACCEPTS_N] or self.forced(W):
            return False
        if not self.answering(W):
            who = W[ORDER][W[TURN]]
            W[CHANGED] = True
            self.owe_all(W, who)
            self.end_turn(st, L, W)
        return True

    def carry_out(self, st: Any, L: list, o: list) -> list:
        """Hand over both sides of the accepted offer o (taking it off the table); what the
        maker holds afterwards of each promised part (to measure the proceeds against)."""
        at = self.at
        st.table[self.table] = [x for x in st.table[self.table] if x[at["id"]] != o[at["id"]]]
        maker, taker = st.players[o[at["maker"]]], st.players[o[at["taker"]]]
        for p, v in zip(self.parts, o[at["give"]]):
            move(p, maker, taker, v)
        for p, v in zip(self.parts, o[at["get"]]):
            move(p, taker, maker, v)
        self.log(st, f"P{o[at['taker']] + 1} accepts {self.offer_text(o)}")
        return [deep_copy(maker[p.field]) for p in self.parts]

    def settle(self, st: Any, o: list, before: list) -> None:
        """Pay what offer o promised out of what its maker received since it was accepted."""
        if "promise" not in self.terms:
            return
        at = self.at
        mk, tk = o[at["maker"]], o[at["taker"]]
        maker, taker = st.players[mk], st.players[tk]
        promised = o[at["promise"]]
        for p, v, was in zip(self.parts, promised, before):
            now = maker[p.field]
            got = max(now - was, 0) if p.kind == "amount" else gained(p, now, was)
            if not covers(p, got, v):
                raise RuleError(f"P{mk + 1} promised {self.bundle_text(only(self.parts, p, v))} "
                                f"of the proceeds to P{tk + 1} but received "
                                f"{self.bundle_text(only(self.parts, p, got))}")
            move(p, maker, taker, v)
        if any(p.text(v) for p, v in zip(self.parts, promised)):
            self.log(st, f"P{mk + 1} pays P{tk + 1} the promised {self.bundle_text(promised)}")
