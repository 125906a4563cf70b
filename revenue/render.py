"""Draw a board and routes as SVG: hexes, track, cities and towns, tokens, each route in its colour."""
from __future__ import annotations

import math

import svgwrite

from .hexgrid import OFFSETS, coordinates
from .graph import Graph

SIZE = 30.0
ROUTE_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#e377c2", "#8c564b")
TILE_FILL = {"white": "#f4f1e8", "yellow": "#f6e27f", "green": "#9fd39a", "brown": "#c9a27e",
             "gray": "#bdbdbd", "red": "#e99a93", "blue": "#9cc3e6"}


def _centre(name: str, layout: str) -> tuple[float, float]:
    x, y = coordinates(name, layout)
    if layout == "pointy":
        return x * SIZE * math.sqrt(3) / 2, y * SIZE * 1.5
    return x * SIZE * 1.5, y * SIZE * math.sqrt(3) / 2


def _edge_point(name: str, edge: int, layout: str) -> tuple[float, float]:
    cx, cy = _centre(name, layout)
    dx, dy = OFFSETS[layout][edge]
    if layout == "pointy":
        vx, vy = dx * SIZE * math.sqrt(3) / 2, dy * SIZE * 1.5
    else:
        vx, vy = dx * SIZE * 1.5, dy * SIZE * math.sqrt(3) / 2
    return cx + vx / 2, cy + vy / 2


def _corners(name: str, layout: str) -> list[tuple[float, float]]:
    cx, cy = _centre(name, layout)
    start = 30 if layout == "pointy" else 0
    return [(cx + SIZE * math.cos(math.radians(start + 60 * i)), cy + SIZE * math.sin(math.radians(start + 60 * i)))
            for i in range(6)]


def _node_positions(graph: Graph) -> dict[tuple[str, int], tuple[float, float]]:
    """Where each node of each hex is drawn: (hex, ordinal) -> (x, y)."""
    board, layout = graph.board, graph.board.layout
    node_pos: dict[tuple[str, int], tuple[float, float]] = {}
    for name, bh in board.hexes.items():
        cx, cy = _centre(name, layout)
        nodes = [n for n in bh.tile.nodes]
        for n in nodes:
            if len(nodes) == 1:
                node_pos[(name, n.ordinal)] = (cx, cy)
                continue
            exits = [bh.map_edge(e.edge) for p in bh.tile.paths for e in p.ends if e.edge is not None
                     and any(x.node == n.ordinal for x in p.ends)]
            if exits:
                px = sum(_edge_point(name, e, layout)[0] for e in exits) / len(exits)
                py = sum(_edge_point(name, e, layout)[1] for e in exits) / len(exits)
                node_pos[(name, n.ordinal)] = (cx + (px - cx) * 0.45, cy + (py - cy) * 0.45)
            else:
                node_pos[(name, n.ordinal)] = (cx + (n.ordinal - 0.5) * SIZE * 0.5, cy)
    return node_pos


def render_svg(graph: Graph, routes: list[dict] | None = None, title: str = "") -> str:
    """SVG text of the board of `graph` with `routes` (result entries: train, nodes, connections)."""
    board, layout = graph.board, graph.board.layout
    points = [p for name in board.hexes for p in _corners(name, layout)]
    min_x, min_y = min(p[0] for p in points) - 10, min(p[1] for p in points) - 30
    width, height = max(p[0] for p in points) - min_x + 10, max(p[1] for p in points) - min_y + 10
    dwg = svgwrite.Drawing(size=(f"{width:.0f}px", f"{height:.0f}px"), viewBox=f"{min_x:.1f} {min_y:.1f} {width:.1f} {height:.1f}")
    dwg.add(dwg.rect((min_x, min_y), (width, height), fill="white"))
    if title:
        dwg.add(dwg.text(title, insert=(min_x + 8, min_y + 18), font_size="14px", font_family="sans-serif"))
    node_pos = _node_positions(graph)

    def end_point(name, end):
        bh = board.hexes[name]
        if end.edge is not None:
            return _edge_point(name, bh.map_edge(end.edge), layout)
        return node_pos.get((name, end.node), _centre(name, layout))

    for name, bh in board.hexes.items():
        dwg.add(dwg.polygon(_corners(name, layout), fill=TILE_FILL.get(bh.color, "#eeeeee"), stroke="#777777",
                            stroke_width=0.8))
        for p in bh.tile.paths:
            dwg.add(dwg.line(end_point(name, p.a), end_point(name, p.b), stroke="#333333", stroke_width=3))
    for i, route in enumerate(routes or []):
        colour = ROUTE_COLOURS[i % len(ROUTE_COLOURS)]
        ids = [graph.by_name[n] for n in route["nodes"] if n in graph.by_name]
        for j in range(len(ids) - 1):
            u, v = ids[j], ids[j + 1]
            hexes = (route.get("connections") or [{}] * len(ids))[j].get("hexes")
            chain = next((graph.chains[c] for c in graph.adjacency[u] if graph.chains[c].other(u) == v
                          and (not hexes or graph.connection(graph.chains[c], u) == hexes)), None)
            if chain is None:
                continue
            for hex_name, part in chain.paths:
                path = next(p for p in board.hexes[hex_name].tile.paths if p.part == part)
                dwg.add(dwg.line(end_point(hex_name, path.a), end_point(hex_name, path.b), stroke=colour,
                                 stroke_width=5, stroke_opacity=0.85, stroke_linecap="round"))
        dwg.add(dwg.text(f"{route.get('train', '')}: {route.get('revenue', 0)}", fill=colour, font_size="13px",
                         font_family="sans-serif", font_weight="bold",
                         insert=(min_x + width - 110, min_y + 18 + 16 * i)))
    for node in graph.nodes:
        x, y = node_pos.get((node.hex, node.ordinal), _centre(node.hex, layout))
        if node.kind in ("city", "pass"):
            dwg.add(dwg.circle((x, y), r=7, fill="white", stroke="black", stroke_width=1.2))
            if node.tokens:
                dwg.add(dwg.text(",".join(t[:3] for t in node.tokens), insert=(x - 6, y + 3), font_size="6px",
                                 font_family="sans-serif"))
        elif node.kind == "offboard":
            dwg.add(dwg.rect((x - 7, y - 5), (14, 10), fill="#b22222", stroke="black", stroke_width=0.8))
        else:
            dwg.add(dwg.circle((x, y), r=3.5, fill="black"))
        if node.value:
            dwg.add(dwg.text(str(node.value), insert=(x + 7, y - 6), font_size="8px", font_family="sans-serif"))
    for name in board.hexes:
        cx, cy = _centre(name, layout)
        dwg.add(dwg.text(name, insert=(cx - 6, cy + SIZE * 0.75), font_size="6px", fill="#555555",
                         font_family="sans-serif"))
    return dwg.tostring()


def board_geometry(graph: Graph) -> dict:
    """The board of `graph` as drawable JSON, for the service's page (server/page) to draw in the browser:
    `hexes` (corner points, fill, name, location), `track` (one quadratic curve [x1, y1, cx, cy, x2, y2]
    per tile path), `nodes` (name, kind, position, value, tokens, slots, and `city`: the index a token
    names, -1 for other kinds) and `chains` (end node names, the chain's 18xx.games connection from end
    `a`, its track indices), so that the page can draw any route of a result (nodes and connections) on the
    track it uses, as answers stream in."""
    board, layout = graph.board, graph.board.layout
    node_pos = _node_positions(graph)

    def rounded(*xy: float) -> list[float]:
        return [round(v, 1) for v in xy]

    def end_point(name, end):
        if end.edge is not None:
            return _edge_point(name, board.hexes[name].map_edge(end.edge), layout)
        return node_pos.get((name, end.node), _centre(name, layout))

    hexes, track, track_at = [], [], {}
    for name, bh in board.hexes.items():
        centre = _centre(name, layout)
        hexes.append({"hex": name, "points": [rounded(*p) for p in _corners(name, layout)],
                      "fill": TILE_FILL.get(bh.color, "#eeeeee"), "centre": rounded(*centre),
                      "location": bh.location, "tile": "" if bh.tile_name == name else bh.tile_name})
        for p in bh.tile.paths:
            a, b = end_point(name, p.a), end_point(name, p.b)
            # A path from edge to edge bends through the hex's centre; one that ends at a node runs straight.
            control = centre if p.a.edge is not None and p.b.edge is not None else ((a[0] + b[0]) / 2,
                                                                                     (a[1] + b[1]) / 2)
            track_at[(name, p.part)] = len(track)
            track.append({"hex": name, "part": p.part, "d": rounded(*a, *control, *b)})
    nodes = []
    for node in graph.nodes:
        x, y = node_pos.get((node.hex, node.ordinal), _centre(node.hex, layout))
        nodes.append({"name": node.name, "kind": node.kind, "x": round(x, 1), "y": round(y, 1),
                      "value": node.value, "tokens": list(node.tokens), "slots": node.slots,
                      "city": node.city_index})
    chains = [{"a": graph.nodes[c.a].name, "b": graph.nodes[c.b].name, "connection": graph.connection(c, c.a),
               "track": [track_at[p] for p in c.paths if p in track_at]} for c in graph.chains]
    points = [p for h in hexes for p in h["points"]]
    min_x, min_y = min(p[0] for p in points) - 4, min(p[1] for p in points) - 4
    box = rounded(min_x, min_y, max(p[0] for p in points) - min_x + 4, max(p[1] for p in points) - min_y + 4)
    return {"title": board.title.name, "layout": layout, "size": SIZE, "view_box": box, "hexes": hexes,
            "track": track, "nodes": nodes, "chains": chains}
