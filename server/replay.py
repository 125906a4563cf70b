"""The methods on whole games (replay.proto): Replay, which streams every operating turn of an 18xx.games
export as its best run is found, and Suggest, the best run of the company about to run in a game in
progress. The library does the work (revenue.replay_game, revenue.suggest); here are the service's
checks (the export's number of actions), its queue, deadlines and cancellation, and the messages.

A replay holds one compute turn for all its turns (as a large call: see Admission), each search bounded
by `deadline_ms` and the server's compute cap; the call's deadline and its cancellation (which set the
call's cancel event) stop it, also in the middle of a turn's search. A bad action is INVALID_ARGUMENT
naming it under `export` (`export.actions[12]`), also when it comes after some turns were sent.
"""
from __future__ import annotations

import json
import time
from typing import Any, Callable

import grpc
from google.protobuf import json_format

from revenue import api
from revenue.errors import InputError, Interrupted, clip
from revenue.v1 import replay_pb2, revenue_pb2

from .calls import LOGGED_CHARS, Call, ServiceError, Work, remaining
from .moves import answer_message
from .protojson import struct_dict
from .streams import StreamWork


def export_of(request, limits) -> dict:
    """The export of a ReplayRequest or SuggestRequest as the library reads it, its number of actions
    checked: from `export_json`, or from `export` (whole numbers as ints: a Struct holds every JSON
    number as a double; a game's ids and amounts are ints)."""
    if request.deadline_ms < 0:
        raise InputError("deadline_ms", f"{request.deadline_ms} is not >= 0 (0 means no deadline)")
    if request.export_json:
        if request.HasField("export"):
            raise InputError("export_json", "give the export once: in export or in export_json")
        try:
            export = json.loads(request.export_json)
        except ValueError as exc:
            raise InputError("export_json", f"not JSON ({exc})") from None
        except RecursionError:
            raise InputError("export_json", "nested too deeply") from None
        if not isinstance(export, dict):
            raise InputError("export_json", "the export is a JSON object")
        actions = export.get("actions")
        _check_actions(len(actions) if isinstance(actions, list) else 0, limits)
        return export
    actions = request.export.fields.get("actions")
    if actions is not None and actions.WhichOneof("kind") == "list_value":
        _check_actions(len(actions.list_value.values), limits)
    return struct_dict(request.export, whole=True)


def _check_actions(count: int, limits) -> None:
    if count > limits.actions:
        raise InputError("export.actions", f"{count} entries; the service takes at most {limits.actions}")


def _stopped(ends: float, when: str) -> ServiceError:
    """The status of a call whose cancel event stopped the library: its deadline passed, else it was
    cancelled (by the client or the server stopping)."""
    if time.perf_counter() >= ends:
        return ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, f"the call's deadline passed {when}")
    return ServiceError(grpc.StatusCode.CANCELLED, f"the call was cancelled {when}")


def turn_message(turn: dict) -> replay_pb2.ReplayTurn:
    """A turn of revenue.replay_game as its message."""
    message = replay_pb2.ReplayTurn(action_id=turn["action_id"], round=turn.get("round") or "",
                                    company=turn.get("company") or "", dividend=turn.get("dividend") or "")
    message.request.CopyFrom(json_format.ParseDict(turn["request"], revenue_pb2.SolveRequest()))
    if turn.get("played") is not None:
        message.played.CopyFrom(api.to_message(turn["played"], revenue_pb2.EvaluateResponse))
    if turn.get("left") is not None:
        message.left = turn["left"]
    message.best.CopyFrom(api.to_message(turn["best"], revenue_pb2.SolveResponse))
    return message


def suggestion_message(result: dict) -> replay_pb2.SuggestResponse:
    """The answer of revenue.suggest as its message."""
    message = replay_pb2.SuggestResponse(company=result.get("company") or "", round=result.get("round") or "",
                                         waiting_for=result.get("waiting_for") or "")
    if result.get("best"):
        message.best.CopyFrom(api.to_message(result["best"], revenue_pb2.SolveResponse))
    action = result.get("run_routes")
    if action:
        message.run_routes.CopyFrom(json_format.ParseDict(action, revenue_pb2.RunRoutesAction(),
                                                          ignore_unknown_fields=True))
    if result.get("request"):
        message.request.CopyFrom(json_format.ParseDict(result["request"], revenue_pb2.SolveRequest()))
    for kind in ("lays", "tokens"):     # the builder's best moves (revenue.game.next_moves)
        if result.get(kind):
            message.builder = result[kind]["company"]
            if result[kind].get("cash") is not None:
                message.builder_cash = result[kind]["cash"]
            getattr(message, kind).CopyFrom(answer_message(result[kind], kind == "lays"))
    return message


class GameMethods:
    """Replay (a stream: server/streams.py) and Suggest of a RouteService."""

    def __init__(self, service: "RouteService"):
        self.service = service

    def _prepare(self, request, context, call: Call) -> tuple[dict, float]:
        """The export, checked, and the call's deadline on the perf_counter clock."""
        export = export_of(self.service._decode(request), self.service.limits)
        title = export.get("title")
        if isinstance(title, str) and title:
            call.fields["title"] = clip(title, LOGGED_CHARS)
        actions = export.get("actions")
        call.fields["actions"] = len(actions) if isinstance(actions, list) else 0
        return export, time.perf_counter() + remaining(context)

    def _budget_ms(self, ends: float, deadline_ms: int) -> int:
        budget, reason = self.service._budget(ends, deadline_ms)
        if budget <= 0:
            raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, f"{reason} left no time to search")
        return max(1, int(budget * 1000))

    def _replay(self, export: dict, deadline_ms: int, ends: float, call: Call,
                emit: Callable[[replay_pb2.ReplayTurn], Any]) -> int:
        """Every turn to `emit`, on a compute thread once the call has its turn; the number of turns."""
        import revenue

        cancel = call.cancel
        if cancel.is_set():
            raise ServiceError(grpc.StatusCode.CANCELLED, "cancelled while queued")
        count = 0
        try:
            budget_ms = self._budget_ms(ends, deadline_ms)
            for turn in revenue.replay_game(export, deadline_ms=budget_ms, cancel=cancel):
                emit(turn_message(turn))
                count += 1
                call.fields["turns"] = count
                if time.perf_counter() >= ends:
                    raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED,
                                       f"the call's deadline passed after {count} turns")
        except InputError as exc:
            raise exc.within("export") from None
        except Interrupted:
            raise _stopped(ends, f"after {count} turns") from None
        return count

    def replay_stream(self, request, context, call: Call,
                      put: Callable[[replay_pb2.ReplayTurn], Any]) -> StreamWork:
        """Replay: the compute thread hands each turn to `put` as its best run is found (one large call)."""
        export, ends = self._prepare(request, context, call)
        return StreamWork(lambda: self._replay(export, request.deadline_ms, ends, call, put), True,
                          lambda turn: turn, lambda count: None)

    def suggest(self, request, context, call: Call) -> Work:
        export, ends = self._prepare(request, context, call)

        def work():
            import revenue

            if call.cancel.is_set():
                raise ServiceError(grpc.StatusCode.CANCELLED, "cancelled while queued")
            try:
                result = revenue.suggest(export, deadline_ms=self._budget_ms(ends, request.deadline_ms),
                                         cancel=call.cancel)
            except InputError as exc:
                raise exc.within("export") from None
            except Interrupted:
                raise _stopped(ends, "during the search") from None
            if result.get("company"):
                call.fields["company"] = result["company"]
                call.fields["revenue"] = (result.get("best") or {}).get("revenue", 0)
            return suggestion_message(result)
        return Work(work)
