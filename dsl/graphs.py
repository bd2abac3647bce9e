"""Graph algorithms the checks share (call graphs of procedures and functions)."""
from __future__ import annotations

from typing import Hashable, Iterable, Iterator, Mapping, TypeVar

N = TypeVar("N", bound=Hashable)


def post_order(graph: Mapping[N, Iterable[N]], starts: Iterable[N]
               ) -> Iterator[tuple[N, set[N]]]:
    """Each node reachable from `starts`, once, after every successor it reaches except those on
    the path that led to it (an edge back to the path closes a cycle), with the nodes still on
    that path (itself excluded; the set is live, read it before the next step). Successors are
    taken in the graph's order; without recursion, so a graph thousands deep is fine."""
    done: set[N] = set()
    on_path: set[N] = set()
    for start in starts:
        if start in done:
            continue
        on_path.add(start)
        stack: list[tuple[N, Iterator[N]]] = [(start, iter(graph.get(start, ())))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                on_path.discard(node)
                done.add(node)
                yield node, on_path
            elif nxt not in done and nxt not in on_path:
                on_path.add(nxt)
                stack.append((nxt, iter(graph.get(nxt, ()))))


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of a directed graph, callees before callers (Tarjan's
    algorithm, without recursion: call graphs can be thousands deep)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out
