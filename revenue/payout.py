"""Dividends: what a company's run pays, kind by kind, as the 18xx.games engine's dividend step does it
(`lib/engine/step/dividend.rb` and each title's `step/dividend.rb`), and where its share price goes on the
title's stock market.

For each kind the title offers (payout, withhold) the answer gives what the company keeps of the run, the
amount per share, what each holder's shares earn and who receives it, every entity's cash change, and the
share price move: its direction and steps, the cell and price after, and whether that cell ends the game.

The engine's arithmetic: a share is 1/total_shares of the company; per share = revenue // total_shares
(integer division); a holder earns ceil(shares x per share) (shares may be fractional). Who is paid, and
how the price moves:

* 1830, 1889 (the base step): players and other companies are paid; the company's own shares pay it on
  incremental capitalization and nobody on full (its initial offering); bank pool shares pay the company
  on full capitalization and nobody on incremental. A payout above 0 moves one right, anything else one
  left.
* steam_over_holland (incremental): as the base. Paying out nothing moves one left; below the price no
  move; at or above it one right; at or above twice the price two right.
* 18rhl: as the base, except that pool shares pay nobody. A company floated before phase 5 is
  incremental (its treasury shares pay it), one floated later full with no shares of its own, so when the
  request does not say, a company holding its own shares is incremental. Paying out nothing moves one
  left; at or above the price one right; below it no move.
* 1860 (full): only players are paid. A payout moves k right for revenue >= k x price (k at most 4), none
  below the price; a withhold (or a payout of 0 a share) one left.

1860's halt subsidy goes to the company on either kind. The price moves on the title's market as the
engine's stock market moves it (`Market`): a step that finds no cell stops there.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from fractions import Fraction

from .errors import InputError

INT32_MAX = 2**31 - 1

POOL = "pool"


# ---- the stock market ------------------------------------------------------------------------------

class Market:
    """A title's stock market: rows of cells (None where there is none), each with its `price` and `types`,
    and the engine's movement over them (lib/engine/stock_market.rb, lib/engine/stock_movement.rb):

    * two-dimensional (a market of several rows: 1830, 1889, 18Rhl): right is the next cell of the row, and
      at the row's end up (one row up, or nowhere on the top row); left is the previous cell when there is
      one, otherwise down (one row down, or nowhere on the bottom row);
    * one-dimensional (one row: Steam Over Holland): one cell right or left, nowhere past either end;
    * zigzag (1860's `init_stock_market`: `zigzag: true`, no `ledge_movement`): two cells right or left, and
      nowhere when two cells would pass the end, so 1860's 330 (column 53) cannot step right to 340 and its
      7 (column 1) cannot step left to 0.

    A move whose target is no cell, the same cell, or a cell the engine does not enter by normal movement
    (`normal_movement` false: liquidation cells) leaves the price where it is. The title data's own
    `right`/`left` fields agree with this everywhere except those two 1860 cells, where the data's dump
    follows the ledge rule instead of the engine's step (tests/test_dividends.py checks every cell)."""

    def __init__(self, data: dict, zigzag: bool = False):
        self.rows: list[list[dict | None]] = data["market"]
        self.one_d: bool = bool(data.get("one_d")) or len(self.rows) == 1
        self.zigzag = zigzag

    def cell(self, coordinates, where: str) -> dict:
        coords = list(coordinates or ())
        if self.one_d and len(coords) == 1:
            coords = [0, coords[0]]
        if len(coords) != 2:
            raise InputError(where, f"a market cell is [row, column], not {coords}")
        row, column = coords
        if not (0 <= row < len(self.rows) and 0 <= column < len(self.rows[row])) or self.rows[row][column] is None:
            raise InputError(where, f"[{row}, {column}] is not a cell of the stock market")
        return self.rows[row][column]

    def _at(self, row: int, column: int) -> dict | None:
        if 0 <= row < len(self.rows) and 0 <= column < len(self.rows[row]):
            return self.rows[row][column]
        return None

    def target(self, coordinates: tuple[int, int], direction: str) -> tuple[int, int]:
        """Where the engine's movement points from `coordinates` (possibly no cell, or the same one)."""
        r, c = coordinates
        width = len(self.rows[r])
        if self.zigzag:
            step = {"right": 2, "left": -2, "up": 1, "down": -1}[direction]
            return (r, c + step) if 0 <= c + step < width else (r, c)
        if self.one_d:
            step = 1 if direction in ("right", "up") else -1
            return (r, c + step) if 0 <= c + step < width else (r, c)
        if direction == "right":
            return self.target(coordinates, "up") if c + 1 >= width else (r, c + 1)
        if direction == "left":
            return (r, c - 1) if c > 0 and self._at(r, c - 1) else self.target(coordinates, "down")
        if direction == "up":
            return (r - 1, c) if r - 1 >= 0 else (r, c)
        return (r + 1, c) if r + 1 < len(self.rows) else (r, c)

    def step(self, coordinates: tuple[int, int], direction: str) -> tuple[int, int] | None:
        """The cell one move in `direction` leads to, or None when the price stays (StockMarket#move)."""
        following = self.target(coordinates, direction)
        cell = self._at(*following)
        if cell is None or following == tuple(coordinates) or cell.get("normal_movement") is False:
            return None
        return following

    def move(self, coordinates: tuple[int, int], direction: str, times: int) -> tuple[tuple[int, int], int]:
        """The cell after `times` steps in `direction`, and how many steps moved (fewer at an edge)."""
        here, moved = tuple(coordinates), 0
        for _ in range(times):
            following = self.step(here, direction)
            if following is None:
                break
            here, moved = following, moved + 1
        return here, moved


# ---- the titles' rules -------------------------------------------------------------------------------

class BaseRules:
    """lib/engine/step/dividend.rb, used unchanged by 1830 and 1889."""
    kinds = ("payout", "withhold")
    zigzag_market = False      # the title's init_stock_market passes zigzag: true

    def capitalization(self, title_default: str, owns_own_shares: bool) -> str:
        """The company's capitalization when the request does not say: the title's."""
        return title_default

    def kept(self, kind: str, revenue: int, subsidy: int) -> int:
        """What the company keeps of the run (the engine's `corporation`)."""
        return revenue if kind == "withhold" else 0

    def paid_to(self, holder_kind: str, holder: str, company: str, capitalization: str) -> str | None:
        """Who receives the dividends of `holder`'s shares, or None when the bank keeps them."""
        if holder_kind in ("player", "company"):
            return holder
        if holder_kind == "own":       # the company's own shares: its treasury (incremental) or IPO (full)
            return company if capitalization == "incremental" else None
        return company if capitalization == "full" else None   # the pool pays the company on full cap.

    def move(self, kind: str, revenue: int, kept: int, per_share: int, price: int) -> tuple[str, int]:
        """The share price move (direction, steps); (\"\", 0) for none."""
        return ("right", 1) if revenue - kept > 0 else ("left", 1)


class SteamOverHollandRules(BaseRules):
    """g_steam_over_holland/step/dividend.rb: the move by the revenue paid out against the price."""

    def move(self, kind, revenue, kept, per_share, price):
        paid = revenue - kept
        if paid == 0:
            return "left", 1
        return ("right", 2) if paid >= 2 * price else ("right", 1) if paid >= price else ("", 0)


class RhlRules(BaseRules):
    """g_18_rhl/step/dividend.rb: pool shares of a full-capitalization company pay nobody; one right at or
    above the price, none below it, one left when nothing is paid out."""

    def capitalization(self, title_default, owns_own_shares):
        """g_18_rhl/game.rb `float_corporation`: a company floated before phase 5 keeps its unsold shares in
        its treasury and becomes incremental (its treasury shares pay it); one floated later stays full and
        its unsold shares go to the pool at once. So a company that holds its own shares is incremental."""
        return "incremental" if owns_own_shares else title_default

    def paid_to(self, holder_kind, holder, company, capitalization):
        if holder_kind == "pool" and capitalization == "full":
            return None
        return super().paid_to(holder_kind, holder, company, capitalization)

    def move(self, kind, revenue, kept, per_share, price):
        paid = revenue - kept
        if paid <= 0:
            return "left", 1
        return ("right", 1) if paid >= price else ("", 0)


class G1860Rules(BaseRules):
    """g_1860/step/dividend.rb: the halt subsidy goes to the company on either kind, only players are paid,
    and a payout moves the price one to four right by the multiple of the price the revenue reaches. Its
    market moves two cells a step (g_1860/game.rb: zigzag)."""
    zigzag_market = True

    def kept(self, kind, revenue, subsidy):
        return revenue + subsidy if kind == "withhold" else subsidy

    def paid_to(self, holder_kind, holder, company, capitalization):
        return holder if holder_kind == "player" else None

    def move(self, kind, revenue, kept, per_share, price):
        if per_share <= 0 or revenue <= 0:
            return "left", 1
        times = min(revenue // price, 4) if price > 0 else 4
        return ("right", times) if times else ("", 0)


RULES: dict[str, BaseRules] = {"1830": BaseRules(), "1889": BaseRules(), "steam_over_holland": SteamOverHollandRules(),
                               "18rhl": RhlRules(), "1860": G1860Rules()}


# ---- the computation -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Holding:
    """Who holds the company's shares, and where its share price stands."""
    company: str
    share_price: tuple[int, int]
    holders: tuple[tuple[str, Fraction], ...]    # (id, shares) in the order given
    total_shares: int
    capitalization: str


def _shares(value, where: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(where, f"{value!r} is not a number of shares")
    try:
        shares = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise InputError(where, f"{value!r} is not a number of shares") from None
    if shares < 0:
        raise InputError(where, f"{value} is negative")
    return shares


def read_holding(title, company: str, holding: dict, where: str, company_field: str,
                 title_field: str) -> tuple[Holding, Market]:
    """Check a `Holding` message (as a dict) against the title's stock market and companies."""
    stock = title.raw().get("stock_market") if title.name in RULES else None
    if not stock:
        raise InputError(title_field, f"{title.name} has no stock market (titles with one: {', '.join(RULES)})")
    if not company:
        raise InputError(company_field, "the company whose run pays (a corporation id of the title)")
    known = stock.get("total_shares", {})
    if company not in known:
        raise InputError(company_field, f"{company!r} is not a corporation of {title.name} (known: {', '.join(known)})")
    rules = RULES[title.name]
    market = Market(stock, zigzag=rules.zigzag_market)
    if not holding.get("share_price"):
        raise InputError(f"{where}.share_price", "the company's share price cell [row, column] is required")
    market.cell(holding["share_price"], f"{where}.share_price")
    coords = tuple(holding["share_price"]) if len(holding["share_price"]) == 2 else (0, holding["share_price"][0])
    total = int(holding.get("total_shares") or known[company])
    if total <= 0:
        raise InputError(f"{where}.total_shares", f"{total} is not a positive number of shares")
    holders, seen = [], set()
    for i, h in enumerate(holding.get("holders") or ()):
        hid = h.get("id") or ""
        if not hid:
            raise InputError(f"{where}.holders[{i}].id", "a holder is a player's name, a company id or \"pool\"")
        if hid in seen:
            raise InputError(f"{where}.holders[{i}].id", f"{hid!r} is listed twice")
        seen.add(hid)
        holders.append((hid, _shares(h.get("shares", 0), f"{where}.holders[{i}].shares")))
    held = sum((s for _, s in holders), Fraction(0))
    if held > total:
        raise InputError(f"{where}.holders", f"the holders hold {float(held):g} shares of {company}'s {total}")
    capitalization = holding.get("capitalization") or rules.capitalization(
        stock["capitalization"][company], any(hid == company and shares > 0 for hid, shares in holders))
    if capitalization not in ("full", "incremental"):
        raise InputError(f"{where}.capitalization", f"{capitalization!r} is not full or incremental")
    return Holding(company, coords, tuple(holders), total, capitalization), market


def _holder_kind(holder: str, company: str, corporations) -> str:
    if holder == company:
        return "own"
    if holder == POOL:
        return "pool"
    return "company" if holder in corporations else "player"


def options_for(title, holding: Holding, market: Market, revenue: int, subsidy: int) -> list[dict]:
    """Every dividend kind of the title for a run of `revenue` (and `subsidy`), in the title's order."""
    rules = RULES[title.name]
    corporations = set(title.raw()["stock_market"]["total_shares"])
    start = market.cell(holding.share_price, "share_price")
    out = []
    for kind in rules.kinds:
        kept = rules.kept(kind, revenue, subsidy)
        per_share = revenue // holding.total_shares if kind == "payout" else 0
        holders, cash = [], {holding.company: kept}
        divs_to_company = 0
        for hid, shares in holding.holders:
            receiver = rules.paid_to(_holder_kind(hid, holding.company, corporations), hid, holding.company,
                                     holding.capitalization)
            amount = math.ceil(shares * per_share) if receiver and per_share > 0 else 0
            holders.append({"id": hid, "shares": float(shares), "amount": amount, "paid_to": receiver or ""})
            if amount:
                cash[receiver] = cash.get(receiver, 0) + amount
                if receiver == holding.company:
                    divs_to_company += amount
        direction, steps = rules.move(kind, revenue, kept, per_share, start["price"])
        after, moved = market.move(holding.share_price, direction, steps) if steps else (holding.share_price, 0)
        cell = market.rows[after[0]][after[1]]
        out.append({"kind": kind, "kept": kept, "per_share": per_share, "divs_to_company": divs_to_company,
                    "company_amount": kept + divs_to_company, "holders": holders,
                    "cash": [{"id": k, "amount": v} for k, v in cash.items() if v],
                    "direction": direction, "steps": steps, "moved": moved,
                    "share_price_after": list(after), "price_after": cell["price"],
                    "cell_types_after": list(cell.get("types") or ()),
                    "game_end": (cell.get("types") or [None])[0] == "endgame"})   # SharePrice#end_game_trigger?
    return out


def dividends(request: dict, deadline: float | None = None, cancel: threading.Event | None = None,
              memory_mb: float | None = None) -> dict:
    """A DividendsRequest (proto field names) answered as a DividendsResponse dict. `deadline` (seconds from
    now), `cancel` and `memory_mb` bound the evaluation of its routes (revenue.evaluation.evaluate)."""
    from .titles import get_title

    evaluated = request.get("evaluate")
    title_name = request.get("title") or ((evaluated or {}).get("board") or {}).get("title") or ""
    title = get_title(title_name, "title")
    options = {str(k): str(v) for k, v in (request.get("options") or {}).items()}
    try:
        title.check_options(options)
    except InputError as exc:      # the request's options are top-level here, not under board
        raise InputError(exc.field.replace("board.options", "options", 1), exc.description) from None
    company = request.get("company") or ((evaluated or {}).get("company") or {}).get("id") or ""
    holding, market = read_holding(title, company, request.get("holding") or {}, "holding", "company", "title")
    if evaluated:
        if request.get("revenue") or request.get("subsidy"):
            raise InputError("evaluate", "give either revenue and subsidy or routes to evaluate, not both")
        revenue, subsidy = _evaluate(evaluated, title.name, company, deadline, cancel, memory_mb)
    else:
        revenue, subsidy = int(request.get("revenue") or 0), int(request.get("subsidy") or 0)
        for name, value in (("revenue", revenue), ("subsidy", subsidy)):
            if value < 0:
                raise InputError(name, f"{value} is negative")
    if revenue + subsidy > INT32_MAX:     # what the company keeps is an int32 of the answer
        raise InputError("subsidy" if subsidy else "revenue",
                         f"revenue + subsidy is {revenue + subsidy}, over {INT32_MAX}")
    start = market.cell(holding.share_price, "holding.share_price")
    return {"title": title.name, "company": company, "revenue": revenue, "subsidy": subsidy,
            "share_price": list(holding.share_price), "price": start["price"],
            "total_shares": holding.total_shares, "capitalization": holding.capitalization,
            "options": options_for(title, holding, market, revenue, subsidy)}


def _evaluate(request: dict, title: str, company: str, deadline: float | None, cancel: threading.Event | None,
              memory_mb: float | None) -> tuple[int, int]:
    from .evaluation import evaluate

    if ((request.get("board") or {}).get("title") or title) != title:
        raise InputError("evaluate.board.title", f"the routes are on a {request['board']['title']} board, not {title}")
    if ((request.get("company") or {}).get("id") or company) != company:
        raise InputError("evaluate.company.id", f"the routes are {request['company']['id']}'s, not {company}'s")
    try:
        result = evaluate(request, deadline, cancel, memory_mb)
    except InputError as exc:
        raise exc.within("evaluate") from None
    if not result["legal"]:
        bad = next((r for r in result["routes"] if r.get("error")), None)
        why = bad["error"]["message"] if bad else (result.get("run_error") or {}).get("message", "")
        raise InputError("evaluate.routes", f"the routes are not a legal run ({why})")
    return result["revenue"], result.get("subsidy", 0)


def _solve_holding(request: dict):
    from .titles import get_title

    title = get_title((request.get("board") or {}).get("title") or "", "board.title")
    company = (request.get("company") or {}).get("id") or ""
    return (title,) + read_holding(title, company, request["holding"], "holding", "company.id", "board.title")


def check_solve_holding(request: dict) -> None:
    """InputError naming the field when a SolveRequest's holding does not fit its title and company."""
    _solve_holding(request)


def solve_dividends(request: dict, result: dict) -> list[dict]:
    """The dividend options of a solve's run (its revenue and subsidy), when the SolveRequest carries a
    holding."""
    title, holding, market = _solve_holding(request)
    return options_for(title, holding, market, result["revenue"], result.get("subsidy", 0))
