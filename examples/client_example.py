"""Calling the route optimizer service from a game server: copy this file and adapt it.

Start a server first (in another terminal):   revenue serve            (or: python -m revenue.server)
Then:                                          python examples/client_example.py [HOST:PORT] [--token T]

It asks for the best routes of the 1830 example (examples/solve_1830.json), first as a stream (show the
first good routes at once, refine them as better ones arrive), then as one call with a deadline, and
checks a hand-picked run with Evaluate. Requests and answers are plain dicts in the proto3 JSON shape
of the revenue.v1 messages, the same JSON the `revenue` command line reads.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

from revenue.client import InputError, RouteClient, ServiceError

HERE = pathlib.Path(__file__).resolve().parent


def describe(answer: dict) -> str:
    if answer["optimal"]:
        proof = "optimal"
    elif answer["upper_bound"]:      # a deadline stopped the search: the bound says how far off it may be
        proof = f"best found, no run earns more than {answer['upper_bound']}"
    else:                            # a streamed improvement: the bound comes with the final answer
        proof = "best so far, still searching"
    lines = [f"revenue {answer['revenue']} ({proof})"]
    for route in answer["routes"]:
        lines.append(f"  train {route['train']}: {' -> '.join(route['nodes'])}  = {route['revenue']}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", default="localhost:50051")
    parser.add_argument("--token", help="the server's --auth-token, if it has one")
    parser.add_argument("--ca", type=pathlib.Path, help="PEM certificate to trust, for a server with TLS")
    args = parser.parse_args()

    request = json.loads((HERE / "solve_1830.json").read_text())
    roots = args.ca.read_bytes() if args.ca else None
    with RouteClient(args.target, token=args.token, root_certificates=roots) as client:
        try:
            client.wait_ready(timeout=5)
        except Exception:
            print(f"no server at {args.target}: start one with `revenue serve`", file=sys.stderr)
            return 1
        try:
            # 1. Streaming: each improvement as the search finds it, the proof last.
            for answer in client.solve_stream(request, timeout=10):
                print("stream:", describe(answer).splitlines()[0])
            # 2. One call: the deadline (seconds) bounds the search; past it you get the best so far.
            best = client.solve(request, timeout=2.0)
            print(describe(best))
            # 3. Evaluate a run chosen elsewhere (here: the optimizer's, so it is legal).
            run = {"board": request["board"], "company": request["company"],
                   "routes": [{"train": r["train"], "nodes": r["nodes"]} for r in best["routes"]]}
            check = client.evaluate(run)
            print(f"evaluate: legal={check['legal']} revenue={check['revenue']}")
            # 4. Bad input names the field.
            client.solve({"board": {"title": "1830", "tiles": [{"hex": "Z99", "tile": "7"}]},
                          "company": {"id": "PRR"}})
        except ServiceError as exc:
            print(f"server said {exc.code.name}: {exc.details}")
            for field, description in exc.violations:
                print(f"  {field}: {description}")
        except InputError as exc:       # the request did not fit the message; nothing was sent
            print(f"bad request: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
