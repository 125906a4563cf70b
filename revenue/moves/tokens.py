"""Every legal station token of a company, as the 18xx.games engine's token step offers it
(Graph#tokenable_cities, City#tokenable?): a city its track reaches, with a slot free of tokens and of other
companies' home reservations (or its own reserved slot), in a hex where it has no token yet, at the price of
its next token.
"""
from __future__ import annotations

from .lays import board_tiles, read_request
from .network import company_reach, hex_neighbours
from .title_rules import lay_rules


def legal_tokens(request: dict) -> list[dict]:
    """Every legal token placement of the request's company: [{hex, city, cost}] in map order. Without
    `company.cash` in the request, cost is no limit."""
    board, company, cash = read_request(request)
    return list(tokens_on(board, company, cash))


def tokens_on(board, company: str, cash: int | None):
    tiles = board_tiles(board)
    tokens = board.tokens
    cost = next_token_price(board, company)
    if cost is None or (cash is not None and cost > cash):
        return
    reach = company_reach(tiles, lay_rules(board.title.name).blocking_tokens(board, company), hex_neighbours(board),
                          company)
    mine = {name for (name, _), placed in tokens.items() if company in placed}
    reached = {}
    for name, ordinal in reach.nodes:
        reached.setdefault(name, set()).add(ordinal)
    for name, bh in board.hexes.items():
        if name not in reached or name in mine:
            continue
        reserved = active_reservations(board, name)
        for index, city in enumerate(bh.tile.cities):
            if city.ordinal not in reached[name]:
                continue
            placed = tokens.get((name, index), ())
            others = [c for c in reserved.get(index, ()) if c != company]
            if company in reserved.get(index, ()):
                free = len(placed) < city.slots
            else:
                free = len(placed) + len(others) < city.slots
            if free:
                yield {"hex": name, "city": index, "cost": cost}


def next_token_price(board, company: str) -> int | None:
    """The price of the company's next token (0 when the title's prices are not known), None when it has
    none left."""
    prices = lay_rules(board.title.name).token_prices.get(company)
    if prices is None:
        return 0
    used = sum(company in placed for placed in board.tokens.values())
    return prices[used] if used < len(prices) else None


def active_reservations(board, name: str) -> dict[int, list[str]]:
    """City index -> the companies whose home it is and that have no token in the hex yet (a reservation
    ends with the company's first token there). A printed city index the tile no longer has reads as
    city 0."""
    printed = board.data.hexes.get(name)
    if printed is None or not printed.reservations:
        return {}
    present = {c for (hname, _), placed in board.tokens.items() if hname == name for c in placed}
    cities = len(board.hexes[name].tile.cities)
    out: dict[int, list[str]] = {}
    for index, companies in enumerate(printed.reservations):
        for c in companies:
            if c not in present:
                out.setdefault(index if index < cities else 0, []).append(c)
    return out
