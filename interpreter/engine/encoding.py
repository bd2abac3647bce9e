"""Action ids: every option of every decision and every chance outcome as a short sequence of
integers from one fixed vocabulary per (rulebook, player count) — what the research adapters
(OpenSpiel, PettingZoo) and any tool that wants numbers instead of labels use.

The vocabulary is derived from the rulebook's types (docs/design/research.md): `pass`, `end`
(the end of a list, bag or map), `none`, `false`/`true`, one id per seat, one per member of each
enum (in declaration order), one per integer of `bounds { options LO..HI }`, one per any-time
action, and the words of a deal's steps. An option's sequence is its value written out by its
type: an atom is one id, a record its fields in order, a list its items then `end`, a map its
keys in order each followed by its value then `end`, an optional value `none` or the value; a
pass is `pass`; an any-time action its id then its arguments. Written out by one type the
sequences of a decision are prefix-free, so a sequence names one option, and the same id means
the same thing in every state.

A decision is taken one id at a time (`legal_ids`, `take`; on a `menu`, its `legal`, `take`):
the ids legal next are the distinct next ids of the options that start with what was taken so
far; where all of them agree on the next id it is taken without asking (but a decision is
always asked at least once). Chance is the same with probabilities: each next id with the
weight of the outcomes that start with it. No option label is ever formatted.
"""
from __future__ import annotations

import hashlib
import marshal
from operator import itemgetter
from typing import Any, Iterator, Optional, Union

import attrs

from mercator.dsl import ast as A
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.types import Type, strip_opt
from mercator.interpreter.engine.id_writers import IdWriters
from mercator.interpreter.engine.menu import (NO_LONG, NO_NAV, NO_SPLIT, Menu, Nav, legal_after,
                                              named, outcomes_after, settled, take_in)
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.dsl.errors import MercatorError

Node = Union[Decision, Chance, Terminal]

# the words of a deal's steps (interpreter/engine/deals.py DealSpec.options), and how many
# offers a table may hold before an offer has no id (when the rulebook's bounds say nothing)
DEAL_WORDS = ("post", "accept", "replace", "withdraw", "to", "about", "add", "done", "cancel",
              "close")
DEFAULT_OFFER_SLOTS = 32
_OFFER_WORDS = frozenset(("accept", "replace", "withdraw"))   # followed by an offer's place
PLAYER = Type("player")    # a deal's seat ("to"): one Type, whose writer is kept by its id
MENUS_KEPT = 4096          # menus remembered per codec (then forgotten)


class EncodeError(MercatorError):
    """A value that has no id: a type without a finite encoding (str, any), an integer outside
    `bounds { options ... }`, a list longer than `bounds { lists ... }`. `span` is where the
    rulebook should change (the bounds line, or the decision)."""

    def __init__(self, message: str, hint: str, span: Optional[A.Span] = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.span = span


@attrs.frozen
class GameSpec:
    """What a research adapter needs to know before a game starts, for one player count."""

    rulebook: str                      # the game's name
    rulebook_sha256: str               # of the rulebook's sources (the spec changes with them)
    players: int
    num_distinct_actions: int          # the vocabulary's size: every id is below it
    max_chance_outcomes: int           # chance outcomes use the same ids
    max_decisions: Optional[int]       # `bounds { decisions N }`
    max_steps_per_decision: Optional[int]   # ids one decision may take (None: a list unbounded)
    max_game_length: Optional[int]     # the most moves (ids taken) of the players in a game:
    #                                    `bounds { moves N }`, or decisions * steps without it
    score_bounds: Optional[tuple[int, int]]
    ids: tuple[str, ...]               # the name of each id, e.g. "pass", "Good.silk", "7"


def rulebook_sha256(rb: CheckedRulebook) -> str:
    """sha256 over the texts of a rulebook and the files it uses (in a fixed order, not by path:
    the same rulebook in another folder has the same hash)."""
    h = hashlib.sha256()
    for text in sorted(rb.sources.values()):
        h.update(text.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


class ActionCodec(IdWriters):
    """The vocabulary of one (program, player count) and the per-state calls on it."""

    def __init__(self, prog: Any, players: int):
        rb: CheckedRulebook = prog.rb
        self.prog = prog
        self.rb = rb
        self.players = players
        self.bounds = rb.bounds
        names: list[str] = ["pass", "end", "none", "false", "true"]
        self.PASS, self.END, self.NONE, self.FALSE, self.TRUE = range(5)
        self.player_base = len(names)
        names += [f"P{p + 1}" for p in range(players)]
        self.enum_base: dict[str, int] = {}
        for name, t in rb.enums.items():
            self.enum_base[name] = len(names)
            names += [f"{name}.{m}" for m in t.members]
        self.int_range = self.bounds.options if self.bounds is not None else None
        self.int_base = len(names)
        if self.int_range is not None:
            lo, hi = self.int_range
            names += [str(k) for k in range(lo, hi + 1)]
        self.action_base: dict[str, int] = {}
        # every id of a value (not a deal's step) is below every any-time action's id
        self.first_action = len(names)
        self.action_params: dict[int, tuple[Type, ...]] = {}     # body id -> argument types
        for b in rb.actions:
            self.action_base[b.name] = len(names)
            names.append(f"anytime {b.name}")
        for bid, bname in enumerate(prog.body_names):
            for b in rb.actions:
                if bname == f"action {b.name}":
                    self.action_params[bid] = tuple(b.param_types[1:])
        self.deal_base = len(names)
        self.has_deals = any(isinstance(x, A.Deal) for x in _nodes(rb))
        if self.has_deals:
            names += [f"deal {w}" for w in DEAL_WORDS]
        self.part_base = len(names)
        nparts = max((len(d.parts) for d in rb.items if isinstance(d, A.BundleDecl)), default=0)
        names += [f"part {k + 1}" for k in range(nparts)]
        self.slot_base = len(names)
        self.slots = self.bounds.lists if self.bounds is not None and \
            self.bounds.lists is not None else DEFAULT_OFFER_SLOTS
        names += [f"offer {k + 1}" for k in range(self.slots)] if nparts else []
        if not nparts:
            self.slots = 0
        self.names = tuple(names)
        self.max_list = self.bounds.lists if self.bounds is not None else None
        # menus by (type, pass?, values, actions); the ids of the actions by their marshal bytes
        self._menus: dict[tuple, Menu] = {}
        self._actions: dict[bytes, list[tuple[int, ...]]] = {}
        # per value type (by id): (the type, its one-id writer or None, its offset or None)
        self._kinds: dict[int, tuple[Any, Any, Optional[tuple[int, int, int]]]] = {}
        # a decision's menu in parts (`menu`): its values' ids by (type, pass?, values), its
        # any-time actions' by their marshal bytes
        self._parts: dict[tuple, tuple[Any, ...]] = {}
        self._tails: dict[bytes, tuple[tuple[int, ...], dict[int, Nav], list[int],
                                       list[tuple[int, ...]]]] = {}

    # ------------------------------------------------------------------ the vocabulary
    @property
    def size(self) -> int:
        """The number of distinct ids."""
        return len(self.names)

    def spec(self) -> GameSpec:
        """The static spec of this player count."""
        steps = self.max_steps()
        dec = self.bounds.decisions if self.bounds is not None else None
        longest = dec * steps if dec is not None and steps is not None else None
        moves = self.bounds.moves if self.bounds is not None else None
        if moves is not None and steps is not None:     # `moves N`, where it is the tighter
            longest = moves if longest is None else min(moves, longest)
        return GameSpec(self.rb.game.name, rulebook_sha256(self.rb), self.players, self.size,
                        self.size, dec, steps, longest,
                        self.bounds.score if self.bounds is not None else None, self.names)

    # ------------------------------------------------------------------ values as ids
    def write(self, v: Any, t: Any, out: list[int], s: Any = None) -> None:
        """Append the ids of value v of type t (a dsl Type, or ("deal", spec)) to out."""
        if isinstance(t, tuple):
            self._write_deal(v, t[1], out, s)
            return
        if t is None:
            raise EncodeError("a value of no known type has no action id",
                              "this decision was made by a construct the encoding does not know")
        k = t.kind
        if k == "opt":
            if v is None:
                out.append(self.NONE)
                return
            t = t.args[0]
            k = t.kind
        if k == "none" or (v is None and k not in ("list", "bag", "map")):
            out.append(self.NONE)
        elif k == "bool":
            out.append(self.TRUE if v else self.FALSE)
        elif k == "player":
            if not 0 <= v < self.players:
                raise EncodeError(f"seat {v} is not in this game", "report this as a bug")
            out.append(self.player_base + v)
        elif k == "enum":
            out.append(self.enum_base[t.name] + v)
        elif k == "int":
            out.append(self._int(v))
        elif k == "record":
            for x, ft in zip(v, t.field_types):
                self.write(x, ft, out, s)
        elif k in ("list", "bag"):
            items = v if k == "list" else sorted(x for x, n in v.items() for _ in range(n)) \
                if isinstance(v, dict) else sorted(v)
            self._length(len(items))
            for x in items:
                self.write(x, t.elem, out, s)
            out.append(self.END)
        elif k == "map":
            self._length(len(v))
            for key in sorted(v):
                self.write(key, t.elem, out, s)
                self.write(v[key], t.value, out, s)
            out.append(self.END)
        else:
            raise EncodeError(f"a value of type {t} has no action id",
                              "offer enums, players, integers, records or collections of them "
                              "(a 'str' or untyped value cannot be numbered)")

    def _int(self, v: int) -> int:
        r = self.int_range
        if r is None:
            raise EncodeError(f"the integer {v} has no action id: the rulebook declares no range "
                              "for its integer options",
                              "declare one: bounds { options LO..HI }")
        if not r[0] <= v <= r[1]:
            raise EncodeError(f"the integer {v} is outside bounds {{ options {r[0]}..{r[1]} }}",
                              "widen the range in the rulebook's bounds",
                              self.bounds.spans.get("options") if self.bounds else None)
        return self.int_base + v - r[0]

    def _length(self, n: int) -> None:
        if self.max_list is not None and n > self.max_list:
            raise EncodeError(f"a collection of {n} items is longer than bounds "
                              f"{{ lists {self.max_list} }}", "raise the bound in the rulebook",
                              self.bounds.spans.get("lists") if self.bounds else None)

    def _write_deal(self, v: tuple, spec: Any, out: list[int], s: Any) -> None:
        word = v[0]
        out.append(self.deal_base + DEAL_WORDS.index(word))
        if word in _OFFER_WORDS:
            # an offer by its place on the table (ids of offers grow through a game)
            ids = [o[spec.at["id"]] for o in s.table[spec.table]]
            k = ids.index(v[1])
            if k >= self.slots:
                raise EncodeError(f"the table holds {len(ids)} offers, more than the {self.slots} "
                                  "that have ids", "raise bounds { lists N }")
            out.append(self.slot_base + k)
        elif word == "to":
            self.write(v[1], PLAYER, out, s)
        elif word == "about":
            self.write(v[1], spec.subject_type, out, s)
        elif word == "close" and len(v) > 1:
            self.write(v[1], spec.close_type, out, s)
        elif word == "add":
            part = spec.parts[v[1]]
            out.append(self.part_base + v[1])
            if part.kind != "amount":
                self.write(v[2], part.elem, out, s)

    def menu(self, s: Any, node: Union[Decision, Chance]) -> Menu:
        """The options of a decision (in its option order: pass, values, any-time actions), or
        the outcomes of a chance node, as ids (engine/menu.py: one-id options as plain ints,
        their first ids sorted once). A menu is remembered by its type and values (their
        marshal bytes): the same menu again (a bid from 1 to the same cash, a place among the
        same free spaces, the start positions of the boats, a deal's step offering the same
        words) is the same Menu, written once. A deal's step that names offers on the table
        (accept, replace, withdraw: an offer's id is its place on the table) is remembered
        with the ids of the offers there. Callers read it, never change it.

        A player's decision among values of a type (not a deal's step) is written in two
        parts, each remembered on its own: its values' ids (with pass) by the values, its
        any-time actions' ids by the actions (`_part`, `_tail`). The same values come back
        beside other actions far more often than the whole menu does (Manila 4p, 20 random
        games: 589 different sets of free places among 1,043 different menus of them, 4
        loadings of the boats among 54), and joining two parts costs a few concatenations."""
        t = node.vtype
        if type(node) is Decision and t is not None and type(t) is not tuple:
            acts = node.actions
            try:
                ak = marshal.dumps([(bid, args) for _, bid, args in acts], 2) if acts else b""
                dkey = (id(t), node.allow_pass, marshal.dumps(node.values, 2), ak)
            except ValueError:                # a value marshal cannot write: no memory
                return self._menu(s, node, None)
            hit = self._menus.get(dkey)
            if hit is not None:
                return hit
            pkey = dkey[:3]
            part = self._parts.get(pkey)
            if part is None:
                part = self._parts[pkey] = self._part(s, node, t)
            return self._kept(dkey, self._joined(part, node, ak, s))
        key: Any = None
        if t is not None:
            try:
                key = (id(t) if not isinstance(t, tuple) else self._deal_key(node, t[1], s),
                       isinstance(node, Decision) and node.allow_pass,
                       marshal.dumps(node.values, 2),
                       (marshal.dumps([(bid, args) for _, bid, args in node.actions], 2)
                        if node.actions else b"") if isinstance(node, Decision) else None)
            except ValueError:                # a value marshal cannot write: no memory
                key = None
            hit = self._menus.get(key) if key is not None else None
            if hit is not None:
                return hit
        out = self._menu(s, node, key[3] if key is not None else None)
        return self._kept(key, out) if key is not None else out

    def _kept(self, key: tuple, out: Menu) -> Menu:
        """`out`, remembered by `key` (all forgotten when MENUS_KEPT are kept)."""
        if len(self._menus) >= MENUS_KEPT:
            self._menus.clear()
            self._parts.clear()
            self._actions.clear()
            self._tails.clear()
        self._menus[key] = out
        out.remembered = True
        return out

    def _kind(self, t: Any) -> tuple[Any, Any, Optional[tuple[int, int, int]]]:
        """(t, its one-id writer or None, its offset or None), kept by t's id (t kept alive
        by it, so that the id stays its own)."""
        kind = self._kinds[id(t)] = (t, self._atom(t), self._offset(t))
        return kind

    def _part(self, s: Any, dec: Decision, t: Any) -> tuple[Any, ...]:
        """The values' part of a decision's menu, pass first if allowed: (each option's id
        as a tuple, -1 where it is longer; their distinct first ids in increasing order; the
        navigation of their longer options; their sequences, or None for values of one id
        each). Every value's id is below every any-time action's (the vocabulary's order),
        so a menu's first ids are these, then its actions' own."""
        kind = self._kinds.get(id(t)) or self._kind(t)
        head = [self.PASS] if dec.allow_pass else []
        values = dec.values
        if kind[1] is None:                   # values of more than one id: their sequences
            seqs = self._sequences(s, dec, b"", values_only=True)
            long = {k: q for k, q in enumerate(seqs) if len(q) != 1}
            return (tuple(q[0] if len(q) == 1 else -1 for q in seqs),
                    sorted({q[0] for q in seqs}), Nav(long) if long else NO_NAV, seqs)
        written = self._by_offset(values, kind[2]) if kind[2] is not None and values else None
        if written is not None:
            mine, ones = written
        else:                                 # one id a value, with write's checks
            one = kind[1]
            mine = [one(v) for v in values]
            ones = sorted(set(mine))
        return tuple(head + mine), head + ones if head else ones, NO_NAV, None

    def _joined(self, part: tuple[Any, ...], dec: Decision, ak: bytes, s: Any) -> Menu:
        """The menu of a decision: its values' part (`_part`) and its any-time actions'
        (`_tail`, kept by `ak`, their marshal bytes). Menus of the same part share its
        navigation, menus of the same actions at the same index theirs."""
        ids, first, nav, seqs = part
        if not dec.actions:
            return Menu.made(ids, first, (NO_SPLIT, nav, NO_NAV), seqs)
        tail = self._tails.get(ak)
        if tail is None:
            tail = self._tails[ak] = self._tail(self._written_actions(dec, s, ak))
        acted, navs, after, written = tail
        high = NO_NAV
        if navs:                              # by option index: the actions start at k
            k = len(ids)
            at = navs.get(k)
            if at is None:
                at = navs[k] = Nav({k + j: q for j, q in navs[0].long.items()})
            high = at
        return Menu.made(ids + acted, first + after, (self.first_action, nav, high),
                         seqs + written if seqs is not None else None)

    def _by_offset(self, values: Any, base: tuple[int, int, int]
                   ) -> Optional[tuple[list[int], list[int]]]:
        """The ids of values whose id is base + value (whole numbers in the options' range,
        enum members, seats), and their distinct ids in increasing order. A run of whole
        numbers (Manila's bids from 1 to a player's cash, half of its menus of numbers) has
        its ids made by `range`, with no step per value and nothing to sort. None when a
        value has no id by arithmetic (None, or outside the range: then they are written one
        at a time, and write says why one has no id)."""
        b, lo, hi = base
        n = len(values)
        v0 = values[0]
        if type(v0) is int and values[-1] == v0 + n - 1 and lo <= v0 and v0 + n - 1 <= hi \
                and values == list(range(v0, v0 + n)):
            mine = list(range(b + v0, b + v0 + n))     # a run: n ids from b + v0
            return mine, mine
        try:                                  # (None has no id by arithmetic: TypeError)
            mine = [b + v for v in values]
            ones = sorted(set(mine))
            if ones[0] < b + lo or ones[-1] > b + hi:
                return None                   # outside the options' range: write says so
        except TypeError:
            return None
        return mine, ones

    @staticmethod
    def _tail(written: list[tuple[int, ...]]
              ) -> tuple[tuple[int, ...], dict[int, Nav], list[int], list[tuple[int, ...]]]:
        """The any-time actions' part of a menu: each option's id (-1 where it is longer);
        the navigation of the longer ones when the actions start at option index k, by k
        (menus of the same length share one; at 0, by their place among the actions; empty
        when every action is one id); their distinct first ids in increasing order; their
        sequences."""
        ones = tuple(q[0] if len(q) == 1 else -1 for q in written)
        at0 = {j: q for j, q in enumerate(written) if len(q) != 1}
        return ones, {0: Nav(at0)} if at0 else {}, sorted({q[0] for q in written}), written

    @staticmethod
    def _deal_key(node: Union[Decision, Chance], spec: Any, s: Any) -> tuple:
        """What a deal step's ids depend on beside its values: the deal (its spec itself, kept
        alive by the key), and the ids of the offers on the table when an option names one
        (`_write_deal`)."""
        if not _OFFER_WORDS.isdisjoint(map(itemgetter(0), node.values)):
            return spec, marshal.dumps([o[spec.at["id"]] for o in s.table[spec.table]], 2)
        return spec, b""

    def sequences(self, s: Any, node: Union[Decision, Chance]) -> list[tuple[int, ...]]:
        """The ids of each option of a decision (in its option order: pass, values, any-time
        actions), or of each outcome of a chance node: the sequences of `menu` (a menu seen
        before gives the very list it gave then). Callers read the list, never change it."""
        return self.menu(s, node).seqs

    def _menu(self, s: Any, node: Union[Decision, Chance], acts: Optional[bytes]) -> Menu:
        """A new menu of node, whole (a chance node, a deal's step, values marshal cannot
        write); `acts`, the marshal bytes of its any-time actions, finds their ids written
        before (the same mortgages offered beside other bids)."""
        t = node.vtype
        kind = None
        if t is not None and not isinstance(t, tuple):
            kind = self._kinds.get(id(t)) or self._kind(t)
        one = kind[1] if kind is not None else None
        if one is None:                       # values of more than one id: their sequences
            return Menu.of(self._sequences(s, node, acts))
        dec = node if isinstance(node, Decision) else None
        ids = [self.PASS] if dec is not None and dec.allow_pass else []
        values = node.values
        written = self._by_offset(values, kind[2]) \
            if kind is not None and kind[2] is not None and values else None
        ids += written[0] if written is not None else [one(v) for v in values]
        long: Any = NO_LONG
        if dec is not None and dec.actions:
            for q in self._written_actions(dec, s, acts):
                if len(q) == 1:
                    ids.append(q[0])
                else:
                    long = {} if long is NO_LONG else long
                    long[len(ids)] = q
                    ids.append(-1)
        return Menu(ids, long)

    def _sequences(self, s: Any, node: Union[Decision, Chance],
                   acts: Optional[bytes] = None,
                   values_only: bool = False) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...]] = []
        if isinstance(node, Decision) and node.allow_pass:
            out.append((self.PASS,))
        t = node.vtype
        many = self._writer(t) if t is not None and not isinstance(t, tuple) else None
        if many is not None:
            out += [tuple(many(v)) for v in node.values]
        elif isinstance(t, tuple):
            out += self._deal_steps(node.values, t, s)
        else:
            for v in node.values:
                ids: list[int] = []
                self.write(v, t, ids, s)
                out.append(tuple(ids))
        if isinstance(node, Decision) and node.actions and not values_only:
            out += self._written_actions(node, s, acts)
        return out

    def _written_actions(self, dec: Decision, s: Any,
                         acts: Optional[bytes]) -> list[tuple[int, ...]]:
        """The ids of dec's any-time actions, kept by `acts`, their marshal bytes (None: not
        kept): the same mortgages are offered beside many menus."""
        written = self._actions.get(acts) if acts is not None else None
        if written is None:
            written = [self._action_ids(bid, args, s) for _, bid, args in dec.actions]
            if acts is not None:
                self._actions[acts] = written
        return written

    def _deal_steps(self, values: list, t: tuple, s: Any) -> list[tuple[int, ...]]:
        """The ids of a deal's steps, as `_write_deal` writes them one by one, with the ids
        of the offers on the table read once for all the steps (not once a step that names
        an offer), and a seat, subject or part's item by the writer of its type; a step
        these do not write (an offer past the ids, a value the writers refuse) goes through
        `write`, which writes it or says why not."""
        spec = t[1]
        base, words = self.deal_base, DEAL_WORDS
        offers: Optional[list] = None
        out: list[tuple[int, ...]] = []
        for v in values:
            word = v[0]
            w = base + words.index(word)
            if len(v) == 1:
                out.append((w,))
                continue
            if word in _OFFER_WORDS:
                if offers is None:
                    offers = [o[spec.at["id"]] for o in s.table[spec.table]]
                k = offers.index(v[1]) if v[1] in offers else self.slots
                if k < self.slots:
                    out.append((w, self.slot_base + k))
                    continue
            elif word == "add":               # a part, then its item (not an amount)
                part = spec.parts[v[1]]
                if part.kind == "amount":
                    out.append((w, self.part_base + v[1]))
                    continue
                writer = self._writer(part.elem)
                if writer is not None:
                    out.append((w, self.part_base + v[1], *writer(v[2])))
                    continue
            else:
                ft = PLAYER if word == "to" else spec.subject_type if word == "about" \
                    else spec.close_type if word == "close" else None
                writer = self._writer(ft) if ft is not None else None
                if writer is not None:
                    out.append((w, *writer(v[1])))
                    continue
            ids: list[int] = []
            self.write(v, t, ids, s)
            out.append(tuple(ids))
        return out

    def _action_ids(self, bid: int, args: Any, s: Any) -> tuple[int, ...]:
        """The ids of an any-time action's option: its id, then its arguments."""
        name = self.prog.body_names[bid].split(" ", 1)[1]
        ids = [self.action_base[name]]
        for a, at in zip(args, self.action_params.get(bid, ())):
            self.write(a, at, ids, s)
        return tuple(ids)

    def moves(self, seqs: list[tuple[int, ...]], index: int) -> int:
        """The ids a player takes one at a time to choose option `index` (the ids all the
        options left agree on are taken without asking, but a decision is asked at least
        once): what the option costs of a game's length in moves (`bounds { moves N }`)."""
        q = seqs[index]
        taken: tuple[int, ...] = ()
        n = 0
        while True:
            n += 1
            taken = settled(seqs, taken + (q[len(taken)],))
            if len(taken) >= len(q):
                return n

    def decode(self, seqs: list[tuple[int, ...]], taken: tuple[int, ...]) -> Optional[int]:
        """The option whose sequence is `taken`, or None while it names none yet."""
        return named(seqs, taken)

    # ------------------------------------------------------------------ one id at a time
    def take(self, seqs: list[tuple[int, ...]], taken: tuple[int, ...],
             a: int) -> tuple[tuple[int, ...], Optional[int]]:
        """Id `a` taken after `taken`: the ids taken now (settled: every id all the options
        that start with them agree on) and the option they name, or None while they name
        none yet. The same as settle then decode, in one pass when an option is one id
        (Menu.take does the same on a menu, without the sequences)."""
        return take_in(seqs, taken, a)

    def legal_ids(self, seqs: list[tuple[int, ...]], taken: tuple[int, ...]) -> list[int]:
        """The distinct ids that may come after `taken`, in increasing order (a new list)."""
        return legal_after(seqs, taken)

    def chance_outcomes(self, seqs: list[tuple[int, ...]], weights: list[int],
                        taken: tuple[int, ...]) -> list[tuple[int, float]]:
        """(id, probability) of each id that may come after `taken` at a chance node."""
        return outcomes_after(seqs, weights, taken)

    def settle(self, seqs: list[tuple[int, ...]], taken: tuple[int, ...]) -> tuple[int, ...]:
        """`taken` extended by every id all the options that start with it agree on (stops at
        a complete option)."""
        return settled(seqs, taken)

    # ------------------------------------------------------------------ static sizes
    def max_steps(self) -> Optional[int]:
        """The most ids one decision may take, from the types of every decision site, the
        any-time actions and the deals; None when some list has no bound."""
        best = 1
        for t in self.site_types():
            n = self.length(t)
            if n is None:
                return None
            best = max(best, n)
        for bid, params in self.action_params.items():
            n = 1
            for pt in params:
                k = self.length(pt)
                if k is None:
                    return None
                n += k
            best = max(best, n)
        if self.has_deals:
            # a deal's step: a word, then an offer, a seat, a subject or a part and its item
            more = 1
            for d in self.rb.items:
                if isinstance(d, A.BundleDecl):
                    for ft in self.rb.records[d.name].field_types:
                        if ft.kind in ("list", "bag"):
                            n = self.length(ft.elem)
                            if n is None:
                                return None
                            more = max(more, 1 + n)
            best = max(best, 1 + more)
        return best

    def length(self, t: Any) -> Optional[int]:
        """The most ids a value of type t is written as (None: unbounded)."""
        if isinstance(t, tuple):            # a deal step: a word, then at most two ids
            spec = t[1]
            item = max((self.length(p.elem) or 0 for p in spec.parts
                        if p.kind != "amount"), default=0)
            return 2 + max(1, item)
        k = t.kind
        if k == "opt":
            return self.length(t.args[0])
        if k in ("none", "bool", "player", "enum", "int"):
            return 1
        if k == "record":
            total = 0
            for ft in t.field_types:
                n = self.length(ft)
                if n is None:
                    return None
                total += n
            return total
        if k in ("list", "bag", "map"):
            if self.max_list is None:
                return None
            e = self.length(t.elem)
            v = self.length(t.value) if k == "map" else 0
            if e is None or v is None:
                return None
            return self.max_list * (e + v) + 1
        return None

    def site_types(self) -> Iterator[Type]:
        """The value type of every `choose` in the rulebook (a record's fields one by one)."""
        for c in _chooses(self.rb):
            yield from self._kind_types(c.kind)

    def _kind_types(self, kind: Any) -> Iterator[Type]:
        if isinstance(kind, A.ChoiceRecord):
            for f in kind.fields:
                yield from self._kind_types(f.kind)
            return
        ot = strip_opt(self.rb.types.get(id(kind.options), Type("any")))
        et = ot.elem if ot.kind in ("list", "bag", "map") else Type("any")
        yield Type("list", args=(et,)) if isinstance(kind, A.ChoiceSubset) else et


def _chooses(rb: CheckedRulebook) -> Iterator[A.Choose]:
    """Every `choose` node of the checked rulebook, once each."""
    return (x for x in _nodes(rb) if isinstance(x, A.Choose))


def _nodes(rb: CheckedRulebook) -> Iterator[Any]:
    """Every AST node of the checked rulebook, once each."""
    seen: set[int] = set()
    stack: list[Any] = [rb.items]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if not attrs.has(type(x)) or id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        for f in attrs.fields(type(x)):
            if f.name != "span" and not f.name.endswith("_span"):
                stack.append(getattr(x, f.name))


def out_of_bounds(codec: ActionCodec, s: Any, node: Node,
                  decisions: int) -> Optional[tuple[str, Optional[A.Span]]]:
    """(what, where) when the game at `node`, after `decisions` decisions, has left the
    rulebook's bounds (an option or outcome without an id, one decision too many); else None."""
    b = codec.bounds
    if b is None or isinstance(node, Terminal):
        return None
    if b.decisions is not None and decisions >= b.decisions and isinstance(node, Decision):
        return (f"a game takes more than bounds {{ decisions {b.decisions} }}",
                b.spans.get("decisions"))
    try:
        codec.sequences(s, node)
    except EncodeError as exc:
        return (f"{exc.message} (at {node.span})", exc.span or b.decl.span)
    return None


def moves_out_of_bounds(codec: ActionCodec, moves: int
                        ) -> Optional[tuple[str, Optional[A.Span]]]:
    """(what, where) when a game's players have taken more ids than bounds { moves N }."""
    b = codec.bounds
    if b is None or b.moves is None or moves <= b.moves:
        return None
    return (f"a game takes more than bounds {{ moves {b.moves} }} (action ids taken one at a "
            "time)", b.spans.get("moves"))


def score_out_of_bounds(codec: ActionCodec,
                        scores: tuple[int, ...]) -> Optional[tuple[str, Optional[A.Span]]]:
    """(what, where) when a final score is outside bounds { score LO..HI }; else None."""
    b = codec.bounds
    if b is None or b.score is None:
        return None
    lo, hi = b.score
    for p, sc in enumerate(scores):
        if not lo <= sc <= hi:
            return (f"P{p + 1} ends with a score of {sc}, outside bounds {{ score {lo}..{hi} }}",
                    b.spans.get("score"))
    return None
