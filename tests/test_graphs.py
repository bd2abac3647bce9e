"""dsl/graphs.py: the walks the checks and the compiler share over call graphs."""
from __future__ import annotations

from mercator.dsl.graphs import post_order


def test_post_order_visits_callees_first_and_each_node_once() -> None:
    graph = {"a": ["b", "c"], "b": ["c"], "c": [], "d": ["a"]}
    seen = [n for n, _ in post_order(graph, ["d", "a"])]
    assert seen == ["c", "b", "a", "d"]


def test_post_order_leaves_an_edge_back_to_the_path_out_and_says_what_is_on_it() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": []}
    paths = {n: set(on) for n, on in post_order(graph, ["a"])}
    assert list(paths) == ["d", "c", "b", "a"]
    assert paths["d"] == {"a", "b", "c"} and paths["c"] == {"a", "b"} and paths["a"] == set()


def test_post_order_walks_a_chain_deeper_than_pythons_stack() -> None:
    n = 50_000
    graph = {i: [i + 1] for i in range(n)}
    order = [node for node, _ in post_order(graph, [0])]
    assert order[0] == n and order[-1] == 0 and len(order) == n + 1
