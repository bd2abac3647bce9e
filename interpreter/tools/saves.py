"""Saved games: (rulebook, players, seed, decisions) plus hashes that make a save trustworthy.

A save names its rulebook by a path relative to the save file, records the sha256 of the rulebook
text and of every file it 'use's, and carries a checksum over everything else, so that an edited
save or a rulebook changed since the game was played is refused instead of silently replaying
something else. The checksum detects accidents and casual edits; it is not a signature.

Format 2 (this one): the decision log holds only the decisions that were asked. Format 1 saves
were written before the engine made a decision with one legal option without asking (see
docs/language.md, "Decisions nobody needs to make"): their logs also hold those decisions.
They are still read: the replay steps over each one where the engine now makes it by itself
(checking it is option 0 with the label the save gives), and leaves the save's log in format 2.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from typing import Any, Optional

import attrs

from mercator.dsl.limits import MAX_PLAYERS   # no rulebook seats more (E123)
from mercator.dsl.loader import refusal

from mercator.interpreter.engine.nodes import Chance, Decision
from mercator.interpreter.engine.people import people
from mercator.interpreter.engine.seen import ALL, readable_log
from mercator.interpreter.engine.state import State
from mercator.interpreter.tools.version import engine_version
from mercator.dsl.errors import MercatorError

SAVE_FORMAT = 2
OLDEST_FORMAT = 1                     # format 1 logs also hold the one-option decisions
MAX_SAVE_BYTES = 64 * 1024 * 1024     # a save of millions of decisions is still far smaller
# the fields a save of formats 1 and 2 has (any other: a save this Mercator cannot read)
FIELDS = ("mercator_save", "engine_version", "rulebook", "rulebook_sha256", "uses_sha256",
          "players", "seed", "decisions", "labels", "explicit_chance", "seats", "checksum")
# ("seats", each seat's player as its spec, `human`, `random`, `ismcts:1s`...: written since
# 2026-12-05 and optional, so a save without it is read; `play --resume` seats them again)


class SaveError(MercatorError):
    """A save file cannot be used; the message says why in a user's terms."""


def sha256_text(text: str) -> str:
    """Hex sha256 of a text's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@attrs.define
class SaveData:
    """A loaded save: where the rulebook is (resolved) and what to replay."""

    rulebook: str                 # resolved path of the rulebook
    rulebook_sha256: str
    uses: dict[str, str]          # used files, relative to the rulebook's folder -> sha256
    players: int
    seed: int
    decisions: list[int]
    labels: list[str]
    explicit_chance: bool = False
    engine_version: str = ""
    path: str = ""                # the save file itself
    format: int = SAVE_FORMAT     # 1: the log also holds the decisions made without asking
    seats: Optional[list[str]] = None   # each seat's player spec, where the save records them


def _checksum(doc: dict[str, Any]) -> str:
    rest = {k: v for k, v in doc.items() if k != "checksum"}
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + sha256_text(text)


def _uses(rulebook_path: str, sources: dict[str, str]) -> dict[str, str]:
    base = os.path.dirname(os.path.abspath(rulebook_path))
    main = os.path.abspath(rulebook_path)
    out = {}
    for p, text in sources.items():
        if os.path.abspath(p) != main:
            out[os.path.relpath(os.path.abspath(p), base).replace(os.sep, "/")] = sha256_text(text)
    return out


def _relative(target: str, save_path: str) -> str:
    try:
        rel = os.path.relpath(os.path.abspath(target), os.path.dirname(os.path.abspath(save_path)))
    except ValueError:  # another drive on Windows
        return os.path.abspath(target)
    return rel.replace(os.sep, "/")


def save(path: str, rulebook_path: str, sources: dict[str, str], players: int, seed: int,
         decisions: list[int], labels: list[str], explicit_chance: bool = False,
         seats: Optional[list[str]] = None) -> None:
    """Write a save file (atomically) for a game of the rulebook at rulebook_path; `seats`,
    each seat's player spec, is recorded where given."""
    main_text = sources.get(rulebook_path)
    if main_text is None:
        with open(rulebook_path, encoding="utf-8") as f:
            main_text = f.read()
    doc: dict[str, Any] = {
        "mercator_save": SAVE_FORMAT,
        "engine_version": engine_version(),
        "rulebook": _relative(rulebook_path, path),
        "rulebook_sha256": sha256_text(main_text),
        "uses_sha256": _uses(rulebook_path, sources),
        "players": players,
        "seed": seed,
        "decisions": [int(d) for d in decisions],
        "labels": list(labels),
        "explicit_chance": bool(explicit_chance),
    }
    if seats is not None:
        doc["seats"] = [str(x) for x in seats]
    doc["checksum"] = _checksum(doc)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)


def _need(doc: dict[str, Any], key: str, kind: Any, path: str) -> Any:
    v = doc.get(key)
    if not isinstance(v, kind) or isinstance(v, bool) and kind is int:
        raise SaveError(f"{path}: not a Mercator save: field '{key}' is missing or malformed")
    return v


def _short(v: Any) -> str:
    """A value from a save, shown briefly (a save is untrusted: it may hold anything)."""
    text = repr(v) if isinstance(v, (int, float, str, bool, type(None))) else type(v).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _read_save(path: str) -> str:
    """The text of a save file; SaveError for anything that is not a readable regular file."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise SaveError(f"{path}: no such save file") from None
    except ValueError:
        raise SaveError(f"{path}: not a Mercator save: not a valid file path") from None
    except OSError as exc:
        raise SaveError(f"{path}: cannot read the save file ({exc.strerror or exc})") from None
    if stat.S_ISDIR(info.st_mode):
        raise SaveError(f"{path}: not a Mercator save: this is a directory")
    if not stat.S_ISREG(info.st_mode):
        raise SaveError(f"{path}: not a Mercator save: not a regular file (a device, a pipe or "
                        "a socket)")
    if info.st_size > MAX_SAVE_BYTES:
        raise SaveError(f"{path}: not a Mercator save: the file is too large "
                        f"({info.st_size} bytes)")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(MAX_SAVE_BYTES + 1)
    except (OSError, UnicodeDecodeError) as exc:
        raise SaveError(f"{path}: cannot read the save file ({exc})") from None


def _parse(path: str, text: str) -> dict[str, Any]:
    """The save's JSON object; SaveError for bad JSON, absurd nesting or numbers, bad text."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SaveError(f"{path}: not a Mercator save (not JSON: {exc.msg} at line {exc.lineno})") \
            from None
    except RecursionError:
        raise SaveError(f"{path}: not a Mercator save: the JSON is nested too deeply") from None
    except ValueError:          # an integer of more than 4300 digits
        raise SaveError(f"{path}: not a Mercator save: a number in it is too long") from None
    if not isinstance(doc, dict) or "mercator_save" not in doc:
        raise SaveError(f"{path}: not a Mercator save (no 'mercator_save' field)")
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise SaveError(f"{path}: not a Mercator save: it holds text that is not valid Unicode "
                        "(a lone surrogate)") from None
    except (RecursionError, ValueError):
        raise SaveError(f"{path}: not a Mercator save: the JSON is nested too deeply") from None
    return doc


def load_save(path: str) -> SaveData:
    """Read and verify a save: format, checksum, rulebook present and unchanged; SaveError if not."""
    doc = _parse(path, _read_save(path))
    fmt = doc["mercator_save"]
    if type(fmt) is not int or not OLDEST_FORMAT <= fmt <= SAVE_FORMAT:
        raise SaveError(f"{path}: save format {_short(fmt)} is not supported "
                        f"(this Mercator reads formats {OLDEST_FORMAT} to {SAVE_FORMAT})")
    if doc.get("checksum") != _checksum(doc):
        raise SaveError(f"{path}: the save has been modified since it was written (checksum "
                        "mismatch); refusing to replay it")
    unknown = sorted(str(k) for k in doc if k not in FIELDS)
    if unknown:
        raise SaveError(f"{path}: not a save this Mercator can read: it has the field"
                        f"{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(_short(k) for k in unknown[:5])}, which save formats "
                        f"{OLDEST_FORMAT} to {SAVE_FORMAT} (the ones this Mercator, "
                        f"{engine_version()}, reads) do not have; was it written by a newer "
                        "Mercator, or edited?")
    rel = _need(doc, "rulebook", str, path)
    decisions = _need(doc, "decisions", list, path)
    labels = _need(doc, "labels", list, path)
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in decisions) or \
            len(labels) != len(decisions) or not all(isinstance(x, str) for x in labels):
        raise SaveError(f"{path}: not a Mercator save: malformed decision log")
    uses = doc.get("uses_sha256", {})
    if not isinstance(uses, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                             for k, v in uses.items()):
        raise SaveError(f"{path}: not a Mercator save: field 'uses_sha256' is malformed")
    players = _need(doc, "players", int, path)
    if not 1 <= players <= MAX_PLAYERS:
        raise SaveError(f"{path}: not a Mercator save: {_short(players)} players")
    chance = doc.get("explicit_chance", False)
    version = doc.get("engine_version", "")
    if not isinstance(chance, bool) or not isinstance(version, str):
        raise SaveError(f"{path}: not a Mercator save: field "
                        f"'{'explicit_chance' if not isinstance(chance, bool) else 'engine_version'}'"
                        " is malformed")
    seats = doc.get("seats")
    if seats is not None and (not isinstance(seats, list) or len(seats) != players
                              or not all(isinstance(x, str) and 0 < len(x) <= 200
                                         for x in seats)):
        raise SaveError(f"{path}: not a Mercator save: field 'seats' is malformed (one player "
                        f"spec a seat, {players} in all)")
    newer_engine(path, version)
    if "\0" in rel or not rel:
        raise SaveError(f"{path}: not a Mercator save: field 'rulebook' is malformed")
    rb_path = rel if os.path.isabs(rel) else os.path.join(os.path.dirname(path), rel)
    data = SaveData(os.path.normpath(rb_path), _need(doc, "rulebook_sha256", str, path), uses,
                    players, _need(doc, "seed", int, path), decisions, labels, chance, version,
                    path, fmt, seats)
    verify_rulebook(data)
    return data


def _major_minor(version: str) -> Optional[tuple[int, int]]:
    """(major, minor) of a version such as '0.1.0' or '1.2.dev3', None if it is not one."""
    m = re.match(r"(\d{1,9})\.(\d{1,9})(?:[.+\-a-z0-9]*)$", version)
    return None if m is None else (int(m.group(1)), int(m.group(2)))


def newer_engine(path: str, version: str) -> None:
    """SaveError for a save written by a newer Mercator (a greater major or minor version than
    this one: its rules of play may differ, so a replay here could silently differ too; a newer
    patch release is read) or naming a version that is not one. An empty version (a save
    written before saves named it) is read."""
    if not version:
        return
    theirs, mine = _major_minor(version), _major_minor(engine_version())
    if theirs is None:
        raise SaveError(f"{path}: not a Mercator save: field 'engine_version' is malformed "
                        f"({_short(version)}, not a version such as 0.1.0)")
    if mine is not None and theirs > mine:
        raise SaveError(f"{path}: this game was saved by Mercator {version[:40]}, newer than "
                        f"this one ({engine_version()}): a newer version may play the rules "
                        f"differently, so this one cannot replay it faithfully; replay it with "
                        f"Mercator {theirs[0]}.{theirs[1]} or later")


def verify_rulebook(data: SaveData) -> None:
    """SaveError unless the rulebook and the files it uses exist with the hashes the save records."""
    checks = [(data.rulebook, data.rulebook_sha256)]
    base = os.path.dirname(data.rulebook)
    checks += [(os.path.normpath(os.path.join(base, rel)), h) for rel, h in sorted(data.uses.items())]
    for i, (p, want) in enumerate(checks):
        what = f"the rulebook {p}" if i == 0 else f"{p} (used by the rulebook)"
        problem = refusal(p)
        if problem is not None:
            raise SaveError(f"{data.path}: {what} cannot be read ({problem}); the save needs the "
                            "rulebook it was played with")
        try:
            with open(p, encoding="utf-8") as f:
                got = sha256_text(f.read())
        except (OSError, UnicodeDecodeError) as exc:
            why = getattr(exc, "strerror", None) or str(exc)
            raise SaveError(f"{data.path}: {what} cannot be read ({why}); the save needs the "
                            "rulebook it was played with") from None
        if got != want:
            raise SaveError(f"{data.path}: {what} has changed since this game was saved; "
                            "replaying it would not reproduce the game") from None


def _where(program: Any, node: Any, step: int, state: State) -> str:
    who = "chance" if isinstance(node, Chance) else f"P{node.player + 1}"
    prompt = f" '{node.prompt}'" if isinstance(node, Decision) and node.prompt else ""
    return f"decision {step} (round {state.round}, {who}{prompt})"


def replay(program: Any, data: SaveData, stop: Optional[int] = None,
           viewer: Any = ALL) -> tuple[State, list[str]]:
    """Replay a save's decisions (the first `stop`, or all), checking each one; the log lines as
    `viewer` saw them (a seat, None for a spectator, or ALL for everything). A format 1 save's
    log is left in the current format (without the decisions the engine made by itself)."""
    state = program.new_game(data.players, data.seed, narrate=True,
                             explicit_chance=data.explicit_chance)
    todo = list(zip(data.decisions, data.labels))
    if stop is not None:
        todo = todo[:stop]
    kept: list[tuple[int, str]] = []
    read = [0, 0]               # entries of the save's log used; entries of the record looked at

    def step_over_forced() -> None:
        """In a format 1 log, the entries of the decisions just made without asking."""
        for entry in state.record[read[1]:]:
            if entry[0] == "forced" and read[0] < len(todo):
                idx, want = todo[read[0]]
                read[0] += 1
                if idx != 0 or want != entry[3]:
                    raise SaveError(f"{data.path}: decision {read[0]} (format 1 save): P"
                                    f"{entry[1] + 1} had only '{entry[3]}' to choose, but the "
                                    f"save says option {idx} '{want}'")
        read[1] = len(state.record)

    old = data.format < 2
    if old:
        step_over_forced()
    while read[0] < len(todo):
        idx, want = todo[read[0]]
        read[0] += 1
        step = read[0]
        node = state.pending
        if state.over:
            raise SaveError(f"{data.path}: the game ended after {step - 1} decisions but the save "
                            f"has {len(data.decisions)}")
        where = _where(program, node, step, state)
        if not 0 <= idx < node.count:
            raise SaveError(f"{data.path}: {where}: option {idx} is not legal there "
                            f"(there are {node.count} options)")
        label = node.option(idx).label
        if label != want:
            raise SaveError(f"{data.path}: {where}: the save says '{want}' but option {idx} is "
                            f"'{label}' now")
        program.apply(state, idx)
        kept.append((idx, want))
        if old:
            step_over_forced()
    if old and stop is None:
        data.decisions, data.labels = [d for d, _ in kept], [lb for _, lb in kept]
        data.format = SAVE_FORMAT
    return state, readable_log(state.record, viewer, people(program, state).label)
