"""The server-streaming calls (SolveStream, Replay): their work runs on a compute thread once the call has
its turn (Admission) and hands each event (an improvement, a turn) to the call's own thread or event loop,
which alone sends messages. The call ends when its work does, or stops the work: the client went away, its
deadline or the server's stop (the call's cancel event); a fault of work no one waits for is still logged.

`stream_handler` makes the method's handler for a sync grpc.server, `stream_handler_async` the asynchronous
generator for an event loop (HTTP); both run the method's `begin`, which reads and checks the request
on the calling thread and leaves a `StreamWork`.
"""
from __future__ import annotations

import asyncio
import queue
import threading
from concurrent import futures
from typing import Any, AsyncIterator, Callable, Iterator

import grpc

from .admission import Admission
from .calls import Call, ServiceError, report_unheard


class StreamWork:
    """What a streaming method leaves to do once the call has its turn: `run()` on a compute thread, which
    hands each event to the `put` its method was given; `large` as RouteService.expect_large says;
    `message(event)`: the message sent for an event, or None for none; `last(result)`, once run() returned
    `result`: the message sent after the events, or None."""

    __slots__ = ("run", "large", "message", "last")

    def __init__(self, run: Callable[[], Any], large: bool, message: Callable[[Any], Any],
                 last: Callable[[Any], Any]):
        self.run, self.large, self.message, self.last = run, large, message, last


# A streaming method: (request, context, call, put) -> StreamWork.
Begin = Callable[[Any, grpc.ServicerContext, Call, Callable[[Any], None]], StreamWork]


def stream_handler(method: str, stopping: threading.Event, admission: Admission,
                   begin: Begin) -> Callable[[Any, grpc.ServicerContext], Iterator]:
    """The handler for a sync grpc.server: the events come from the compute thread through a queue."""
    def handle(request, context) -> Iterator:
        call = Call(method, context, stopping)
        final, heard = None, False     # heard: the work's outcome was taken (else a fault is logged later)
        try:
            events: queue.SimpleQueue = queue.SimpleQueue()
            work = begin(request, context, call, events.put)
            final = admission.submit(work.run, work.large)
            final.add_done_callback(lambda _: events.put(None))     # also when withdrawn while waiting
            call.cancel.then(final.cancel)
            if call.cancel.is_set():
                final.cancel()
            while (event := events.get()) is not None:
                message = work.message(event)
                if message is not None:
                    yield message
            heard = True
            message = work.last(final.result())
            if message is not None:
                yield message
        except GeneratorExit:      # gRPC stopped reading: the call ended (the client, its deadline, the stop)
            call.cancel.set()
            if call.code == grpc.StatusCode.OK:
                call.interrupted()
            raise
        except futures.CancelledError:     # withdrawn while waiting for its turn
            if call.code == grpc.StatusCode.OK:
                call.interrupted()
            if not call.rpc_finished:
                call.fail(ServiceError(call.code, call.error))
        except Exception as exc:
            call.fail(exc)
        finally:
            if final is not None and not final.done():
                call.cancel.set()
                final.cancel()
            if final is not None and not heard:
                report_unheard(final, call.method)
            call.finish()
    return handle


def stream_handler_async(method: str, stopping: threading.Event, admission: Admission,
                         begin: Begin) -> Callable[[Any, grpc.ServicerContext], AsyncIterator]:
    """The handler as an asynchronous generator (HTTP): the event loop hands it the events."""
    async def handle(request, context) -> AsyncIterator:
        call = Call(method, context, stopping)
        cancel = call.cancel
        try:
            loop = asyncio.get_running_loop()
            events: asyncio.Queue = asyncio.Queue()

            def hand_on(value) -> None:
                try:
                    loop.call_soon_threadsafe(events.put_nowait, value)
                except RuntimeError:      # the loop closed: the server stopped and cut the stream
                    if not loop.is_closed():
                        raise

            work = begin(request, context, call, hand_on)

            def run():
                try:
                    return work.run()
                finally:
                    hand_on(None)

            final = asyncio.ensure_future(admission.run(run, work.large, cancel, call.method))
            heard = False      # the work's outcome was taken (else a fault is logged later)
            try:
                while (event := await events.get()) is not None:
                    message = work.message(event)
                    if message is not None:
                        yield message
                heard = True
                result = await final
            finally:
                if not final.done():
                    cancel.set()
                    final.cancel()
                if not heard:
                    report_unheard(final, call.method)
            message = work.last(result)
            if message is not None:
                yield message
        except (asyncio.CancelledError, GeneratorExit):    # the client went away mid-stream
            cancel.set()
            call.interrupted()
            raise
        except Exception as exc:
            call.fail(exc)
        finally:
            call.finish()
    return handle
