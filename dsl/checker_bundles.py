"""Bundles: `bundle` declarations (record types of tradeable things) and the `offer<B>` /
`offer<B, S>` record of one offer on a deal's table (E150 for a bad bundle).

A bundle part names a player field of the giver: `amount of` an int field, `items of` a bag or
list field. Every seat sees the offers, so a part's field must be public.
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.checker_stmts import StmtChecker
from mercator.dsl.diagnostics import did_you_mean
from mercator.dsl.types import ANY, Type, strip_opt

TERMS = ("give", "get", "promise")
OFFER = "offer"


def offer_fields(bundle: str, subject: Optional[A.TypeExpr]) -> tuple[A.FieldDecl, ...]:
    """The fields of the record offer<bundle[, subject]>, in the order the engine keeps them."""
    b = A.SimpleType(bundle)
    head = [A.FieldDecl("id", A.SimpleType("int"), None, "public"),
            A.FieldDecl("maker", A.SimpleType("player"), None, "public"),
            A.FieldDecl("taker", A.SimpleType("player"), None, "public")]
    if subject is not None:
        head.append(A.FieldDecl("subject", subject, None, "public"))
    return tuple(head + [A.FieldDecl(n, b, None, "public") for n in TERMS])


class BundleChecker(StmtChecker):
    """Bundles and offer types."""

    bundles: dict[str, A.BundleDecl] = {}

    # -- declarations
    def declare_bundles(self, items: tuple[Any, ...]) -> None:
        """Each bundle as a record declaration, its parts typed by the player fields they name."""
        self.bundles = {}
        pfields = {f.name: f for it in items if isinstance(it, A.PlayerState) for f in it.fields}
        for it in items:
            if not isinstance(it, A.BundleDecl) or not self.claim(it.name, it.span, "bundle"):
                continue
            fields: list[A.FieldDecl] = []
            seen: set[str] = set()
            for part in it.parts:
                if part.name in seen:
                    self.err("E150", f"bundle part '{part.name}' is declared twice", part.span,
                             "give each part its own name")
                    continue
                seen.add(part.name)
                if part.kind not in ("amount", "items"):
                    self.err("E150", f"bundle part '{part.name}': '{part.kind}' is neither "
                             "'amount' nor 'items'", part.span,
                             did_you_mean(part.kind, ["amount", "items"]) or
                             f"write '{part.name}: amount of FIELD' or '{part.name}: items of FIELD'")
                if part.unit_word != "units" or (part.unit is not None and part.kind != "amount"):
                    self.err("E150", f"bundle part '{part.name}': only an amount has a unit, "
                             "written 'in units of N'", part.span,
                             f"write '{part.name}: amount of {part.field} in units of N'")
                fd = pfields.get(part.field)
                if fd is None:
                    self.err("E150", f"bundle part '{part.name}': '{part.field}' is not a player "
                             "field", part.span, did_you_mean(part.field, list(pfields)) or
                             "a part names a field of the player who gives it")
                    t: A.TypeExpr = A.SimpleType("int")
                elif fd.visibility == "secret" or (fd.visibility != "public" and not part.openly):
                    self.err("E150", f"bundle part '{part.name}': player field '{part.field}' is "
                             f"{fd.visibility}, but offers are shown to every seat", part.span,
                             "trade only public fields, or owner-only ones marked 'openly' (an "
                             "offer then shows what it names)" if fd.visibility == "owner" else
                             "trade only public or owner-only fields (nobody sees a secret one)")
                    t = fd.type
                elif part.openly and fd.visibility == "public":
                    self.err("E150", f"bundle part '{part.name}': 'openly' on the public field "
                             f"'{part.field}'", part.span,
                             "'openly' is for owner-only fields: remove it")
                    t = fd.type
                else:
                    t = A.SimpleType("int") if part.kind == "amount" else fd.type
                fields.append(A.FieldDecl(part.name, t, None, "public", span=part.span))
            if not it.parts:
                self.err("E150", f"bundle '{it.name}' has no parts", it.span,
                         "name what an offer can carry: coins: amount of coins")
            rd = A.RecordDecl(it.name, tuple(fields), span=it.span)
            self.records[it.name] = Type("record", name=it.name, members=tuple(f.name for f in fields))
            self.record_decls[it.name] = rd
            self.bundles[it.name] = it

    def check_bundle_parts(self) -> None:
        """Each part's field has the kind its part needs; units are positive constants."""
        for b in self.bundles.values():
            for part in b.parts:
                info = self.player_fields.get(part.field)
                if info is None or info.visibility == "secret" or \
                        (info.visibility != "public") != part.openly:
                    continue
                k = strip_opt(info.type).kind
                if part.kind == "amount" and k != "int":
                    self.err("E150", f"bundle part '{part.name}': 'amount of' needs an int field, "
                             f"'{part.field}' is {info.type}", part.span,
                             f"write '{part.name}: items of {part.field}' for a bag or list")
                elif part.kind == "items" and k not in ("bag", "list"):
                    self.err("E150", f"bundle part '{part.name}': 'items of' needs a bag or list "
                             f"field, '{part.field}' is {info.type}", part.span,
                             f"write '{part.name}: amount of {part.field}' for an int")
                if part.kind == "amount" and part.unit is not None:
                    self.unit_of(part)
                if part.to is not None:
                    self.check_destination(part, info)

    def check_destination(self, part: A.BundlePart, info: Any) -> None:
        """E150 unless `to F` names a player field of the part's own field's type."""
        dest = self.player_fields.get(part.to or "")
        if dest is None:
            self.err("E150", f"bundle part '{part.name}': what is received goes to '{part.to}', "
                     "which is not a player field", part.span,
                     did_you_mean(part.to or "", list(self.player_fields)) or
                     "name a player field of the same type as the part's")
        elif strip_opt(dest.type) != strip_opt(info.type):
            self.err("E150", f"bundle part '{part.name}': what is received goes to '{part.to}', "
                     f"which is {dest.type}, not {info.type} like '{part.field}'", part.span,
                     f"declare '{part.to}' as {info.type}, or name another field")
        elif dest.visibility == "secret":
            self.err("E150", f"bundle part '{part.name}': what is received goes to '{part.to}', "
                     "which is secret: nobody would see what he holds", part.span,
                     "make it owner-only or public")

    def unit_of(self, part: A.BundlePart) -> int:
        """The unit of an amount part (1 if none); E150 unless a positive constant."""
        u = part.unit
        if u is None:
            return 1
        if isinstance(u, str):
            c = self.const_decls.get(u)
            if c is None or not isinstance(c.value, A.IntLit):
                self.err("E150", f"bundle part '{part.name}': unit '{u}' is not a constant "
                         "number", part.span, did_you_mean(u, list(self.const_decls)) or
                         "write a number, or a 'const' declared with a number")
                return 1
            u = c.value.value
        if u < 1:
            self.err("E150", f"bundle part '{part.name}': the unit must be at least 1, not {u}",
                     part.span, "amounts are counted in units of a positive number")
            return 1
        return u

    def offer_type(self, t: A.GenericType) -> Type:
        """The record type offer<B> or offer<B, S> (made the first time it is named)."""
        if len(t.args) not in (1, 2):
            self.err("E101", f"'offer' takes 1 or 2 type arguments (a bundle and a subject), got "
                     f"{len(t.args)}", t.span, "write offer<Bundle> or offer<Bundle, Subject>")
            return ANY
        b = t.args[0]
        if not isinstance(b, A.SimpleType) or b.name not in self.bundles:
            self.err("E101", "the first argument of 'offer' must be a bundle", t.args[0].span,
                     did_you_mean(getattr(b, "name", ""), list(self.bundles)) or
                     "declare it: bundle Lot { coins: amount of coins }")
            return ANY
        subject = t.args[1] if len(t.args) == 2 else None
        st = self.resolve_type(subject) if subject is not None else None
        name = f"{OFFER}<{b.name}>" if st is None else f"{OFFER}<{b.name}, {st}>"
        if name not in self.record_decls:
            fields = offer_fields(b.name, subject)
            self.record_decls[name] = A.RecordDecl(name, fields, span=t.span)
        fields = self.record_decls[name].fields
        # (the subject's type is resolved once: an unknown type is reported once)
        rt = Type("record", name=name, members=tuple(f.name for f in fields),
                  field_types=tuple(st if f.name == "subject" and st is not None
                                    else self.resolve_type(f.type) for f in fields))
        self.records[name] = rt
        return rt
