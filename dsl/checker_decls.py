"""The declaration passes, before any body: enums and records, then the signatures of events,
procedures and functions and the state fields, then the constants (each after those it uses),
then the fields' defaults. Each claims its global name (E102 for a second use).
"""
from __future__ import annotations

from typing import Any, Iterable, Iterator

from mercator.dsl import ast as A
from mercator.dsl.checked import FieldInfo
from mercator.dsl.checker_base import GENERICS, PRIMITIVES, Scope
from mercator.dsl.checker_exprs import ExprChecker
from mercator.dsl.infoflow import is_owner_map
from mercator.dsl.types import Type


class DeclChecker(ExprChecker):
    """Fills the tables of declared names and types."""

    def declare_types(self, items: tuple[Any, ...]) -> None:
        """Enums and records (names first, so records can refer to each other's types)."""
        for it in items:
            if isinstance(it, (A.EnumDecl, A.RecordDecl)) and (it.name in PRIMITIVES or
                                                               it.name in GENERICS):
                what = "an enum" if isinstance(it, A.EnumDecl) else "a record"
                self.err("E102", f"'{it.name}' is a built-in type; {what} cannot be named so",
                         it.span, f"rename it, e.g. '{it.name.capitalize()}Kind'")
            elif isinstance(it, A.EnumDecl) and self.claim(it.name, it.span, "enum"):
                t = Type("enum", name=it.name, members=it.members)
                self.enums[it.name] = t
                for i, m in enumerate(it.members):
                    sp = it.member_spans[i] if i < len(it.member_spans) else it.span
                    if m in self.member_of:
                        self.err("E102", f"enum member '{m}' is already a member of "
                                 f"{self.member_of[m][0].name}", sp, "member names are global")
                    elif self.claim(m, sp, "enum member"):
                        self.member_of[m] = (t, i)
            elif isinstance(it, A.RecordDecl) and self.claim(it.name, it.span, "record"):
                self.records[it.name] = Type("record", name=it.name,
                                             members=tuple(f.name for f in it.fields))
                self.record_decls[it.name] = it
        self.declare_bundles(items)
        for name, rd in list(self.record_decls.items()):
            ftypes = tuple(self.resolve_type(f.type) for f in rd.fields)
            self._dup_fields(rd.fields)
            self.records[name] = Type("record", name=name, members=tuple(f.name for f in rd.fields),
                                      field_types=ftypes)
        # the enums/records are final: re-resolve record field types that name other records
        for name, rd in list(self.record_decls.items()):
            ftypes = tuple(self.resolve_type(f.type) for f in rd.fields)
            self.records[name] = Type("record", name=name, members=tuple(f.name for f in rd.fields),
                                      field_types=ftypes)

    def declare_signatures(self, items: tuple[Any, ...]) -> None:
        """Events, procedures and functions by name; the player and table fields."""
        for it in items:
            if isinstance(it, A.EventDecl) and self.claim(it.name, it.span, "event"):
                self.events[it.name] = tuple(self.resolve_type(p.type) for p in it.params)
                self.event_decls[it.name] = it
            elif isinstance(it, A.ProcDecl) and self.claim(it.name, it.span, "procedure"):
                self.proc_decls[it.name] = it
            elif isinstance(it, A.FnDecl) and self.claim(it.name, it.span, "function"):
                self.fn_decls[it.name] = it
            elif isinstance(it, A.PlayerState):
                self._state_fields(it.fields, self.player_fields, "player")
            elif isinstance(it, A.TableState):
                self._state_fields(it.fields, self.table_fields, "table")

    def check_constants(self, items: tuple[Any, ...]) -> None:
        """Each constant's value, after the constants it uses (so their order in the file is free)."""
        self.const_names = {it.name for it in items if isinstance(it, A.ConstDecl)}
        for it in self._const_order([i for i in items if isinstance(i, A.ConstDecl)]):
            if isinstance(it, A.ConstDecl):
                sc = Scope("const", state=False)
                want = self.resolve_type(it.type) if it.type is not None else None
                t = self.expr(it.value, sc, want)
                if want is not None:
                    self.expect(t, want, it.value.span, f"constant '{it.name}'")
                    t = want
                if self.claim(it.name, it.span, "constant"):
                    self.consts.append(it)
                    self.const_decls[it.name] = it
                    self.const_types[it.name] = t

    def check_defaults(self) -> None:
        """The default value of each state field."""
        for f in list(self.player_fields.values()) + list(self.table_fields.values()):
            if f.default is not None:
                sc = Scope("const", state=False)
                t = self.expr(f.default, sc, f.type)
                self.expect(t, f.type, f.default.span, f"default of field '{f.name}'")

    def _const_order(self, consts: list[A.ConstDecl]) -> list[A.ConstDecl]:
        """Constants sorted so that each comes after those it uses; a cycle is an error."""
        by_name = {c.name: c for c in consts}
        names = set(by_name)
        deps = {c.name: {n.name for n in self._walk(c.value, into_fns=True)
                         if isinstance(n, A.Name) and n.name in names} - {c.name} for c in consts}
        done: list[A.ConstDecl] = []
        state: dict[str, int] = {}      # 1 visiting, 2 done
        for first in consts:            # a depth-first visit, with its own stack
            if state.get(first.name):
                continue
            state[first.name] = 1
            chain: list[str] = [first.name]
            work: list[tuple[A.ConstDecl, Iterator[str]]] = [(first, iter(sorted(deps[first.name])))]
            while work:
                c, it = work[-1]
                d = next(it, None)
                if d is None:
                    work.pop()
                    chain.pop()
                    state[c.name] = 2
                    done.append(c)
                    continue
                if state.get(d) == 2:
                    continue
                if state.get(d) == 1:
                    cyc = " -> ".join(chain[chain.index(d):] + [d])
                    self.err("E100", f"constants depend on each other in a cycle: {cyc}",
                             by_name[d].span, "one of them must be computed without the others")
                    continue
                state[d] = 1
                chain.append(d)
                work.append((by_name[d], iter(sorted(deps[d]))))
        seen = {id(c) for c in done}
        return done + [c for c in consts if id(c) not in seen]

    def _dup_fields(self, fields: Iterable[A.FieldDecl]) -> None:
        seen: set[str] = set()
        for f in fields:
            if f.name in seen:
                self.err("E120", f"field '{f.name}' is declared twice", f.span)
            seen.add(f.name)

    def _state_fields(self, fields: tuple[A.FieldDecl, ...], into: dict[str, FieldInfo],
                      where: str) -> None:
        for f in fields:
            if f.name in into:
                self.err("E120", f"{where} field '{f.name}' is declared twice", f.span)
                continue
            if where == "table" and not self.claim(f.name, f.span, "table field"):
                continue
            if where == "player" and f.name in self.player_fields:
                continue
            t = self.resolve_type(f.type)
            if where == "table" and f.visibility == "owner" and not is_owner_map(t):
                self.err("E121", f"table field '{f.name}' cannot be 'owner': the table has no owner",
                         f.span, "use 'secret' or 'public', or a 'map<player, T> owner' whose "
                         "entry for each player only that player sees")
            into[f.name] = FieldInfo(f.name, t, f.default, f.visibility, f)
