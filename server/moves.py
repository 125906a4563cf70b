"""The methods on what a company may build next (moves.proto): Lays and Tokens, every legal tile lay or
station token valued by the best run it makes possible. The library does the work (revenue.value_lays,
revenue.value_tokens); here are the service's checks, its queue (a valuation solves one board per move:
a large call), the deadline over the whole valuation and the call's cancellation, which stop it between
moves and within a search, and the messages. A deadline that passes answers the moves valued by then,
`complete` false.
"""
from __future__ import annotations

import time

import grpc

from revenue.errors import InputError
from revenue.v1 import moves_pb2

from .calls import Call, ServiceError, Work, remaining


def library_request(req: dict) -> dict:
    """The SolveRequest dict the library values moves on: the board, and the company with its cash."""
    company = dict(req.get("company") or {})
    if req.get("cash") is not None:
        company["cash"] = int(req["cash"])
    return {"board": req.get("board") or {}, "company": company}


NOT_NEGATIVE = {"top": " (0 means all)", "deadline_ms": " (0 means no deadline)", "cash": ""}


def check(request) -> None:
    """The request's own fields (the board and company are checked as a Solve's are)."""
    for field, note in NOT_NEGATIVE.items():
        value = getattr(request, field)
        if value < 0:
            raise InputError(field, f"{value} is not >= 0{note}")
    if not request.company.id:
        raise InputError("company.id", "name the company that builds")


class MoveMethods:
    """Lays and Tokens of a RouteService."""

    def __init__(self, service: "RouteService"):
        self.service = service

    def lays(self, request, context, call: Call) -> Work:
        return self._work(request, context, call, lays=True)

    def tokens(self, request, context, call: Call) -> Work:
        return self._work(request, context, call, lays=False)

    def _work(self, request, context, call: Call, lays: bool) -> Work:
        call.describe(request)
        check(request)
        req = self.service.boards.request(request)
        ends = time.perf_counter() + remaining(context)
        spec = library_request(req)
        top = request.top or None
        privates = None       # (None: the privates a request does not place count as the players')
        if lays and (request.player_privates or request.no_player_privates):
            if request.no_player_privates and request.player_privates:
                raise InputError("no_player_privates", "is set while player_privates lists privates")
            privates = list(request.player_privates)

        def work():
            import revenue

            cancel = call.cancel
            if cancel.is_set():
                raise ServiceError(grpc.StatusCode.CANCELLED, "cancelled while queued")
            budget, reason = self.service._budget(ends, request.deadline_ms)
            if budget <= 0:
                raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, f"{reason} left no time to search")
            options = dict(deadline_ms=budget * 1000.0, top=top, cancel=cancel,
                           memory_mb=self.service.max_memory_mb)
            if lays:
                result = revenue.value_lays(spec, player_privates=privates, second=request.second_lay, **options)
            else:
                result = revenue.value_tokens(spec, **options)
            if cancel.is_set() and not result["complete"] and time.perf_counter() < ends - 0.01:
                raise ServiceError(grpc.StatusCode.CANCELLED, "the client cancelled the call")
            call.fields.update(revenue=result["base_revenue"], legal=result["legal"], valued=result["valued"],
                               complete=result["complete"])
            return answer_message(result, lays)
        return Work(work, large=True)


def answer_message(result: dict, lays: bool):
    """value_lays's or value_tokens's answer as its LaysResponse or TokensResponse."""
    common = dict(revenue=result["base_revenue"], revenue_optimal=result["base_optimal"], legal=result["legal"],
                  valued=result["valued"], complete=result["complete"], elapsed_ms=result["elapsed_ms"])
    if lays:
        return moves_pb2.LaysResponse(**common, lays=[moves_pb2.Lay(
            hex=m["hex"], tile=str(m["tile"]), rotation=m["rotation"], cost=m["cost"],
            revenue_after=m["revenue_after"], gain=m["gain"], optimal=m["optimal"]) for m in result["moves"]])
    return moves_pb2.TokensResponse(**common, tokens=[moves_pb2.Token(
        hex=m["hex"], city=m["city"], cost=m["cost"], revenue_after=m["revenue_after"], gain=m["gain"],
        optimal=m["optimal"]) for m in result["moves"]])
