"""Compare revenue.moves' legal lays and tokens with the engine's at every moment of the games' lays.jsonl."""
import json
import pathlib
import sys

from revenue.game.actions import standing_actions
from revenue.moves import legal_lays, legal_tokens
from revenue.moves.title_rules import lay_rules

ROOT = pathlib.Path(__file__).resolve().parent.parent / "tests/data/games/exports"
def player_privates(export: dict, action_id: int) -> set[str]:
    """The privates no corporation has bought before the action (players own them, or nobody yet)."""
    standing = [a for _, a in standing_actions(export["actions"])]
    every = set(lay_rules(export["title"]).blocks)
    bought = {a["company"] for a in standing
              if a["type"] == "buy_company" and a["id"] < action_id and a.get("entity_type") == "corporation"}
    closed = {private for private, corp in CLOSES_ON_FIRST_TRAIN.get(export["title"], {}).items()
              if any(a["type"] == "buy_train" and a["entity"] == corp and a["id"] < action_id for a in standing)}
    return every - bought - closed


# privates that close when a corporation buys its first train (1830's B&O private)
CLOSES_ON_FIRST_TRAIN = {"1830": {"BO": "B&O"}}


for path in sorted(ROOT.glob(sys.argv[1] + "*.lays.jsonl" if len(sys.argv) > 1 else "*.lays.jsonl")):
    good = bad = 0
    export = json.loads(path.with_name(path.name.replace(".lays.jsonl", ".json")).read_text())
    for line in path.read_text().splitlines():
        row = json.loads(line)
        req = dict(row["request"])
        req["company"] = {k: v for k, v in req["company"].items() if k != "cash"}
        if row["kind"] == "lay_tile":
            mine = {(x["hex"], x["tile"], x["rotation"])
                    for x in legal_lays(req, player_privates(export, row["action_id"]))}
            theirs = {(x["hex"], x["tile"], x["rotation"]) for x in row["engine_legal"]}
        else:
            mine = {(x["hex"], x["city"]) for x in legal_tokens(req)}
            theirs = {(x["hex"], x["city"]) for x in row["engine_legal"]}
        if mine == theirs:
            good += 1
        else:
            bad += 1
            print(path.name, row["action_id"], row["company"], "phase", req["board"]["phase"],
                  "extra", sorted(mine - theirs)[:12], "missing", sorted(theirs - mine)[:12])
    print(path.name, "lays and tokens match", good, "differ", bad)
