"""A Steam deliveries answer as text for a player at the command line."""
from __future__ import annotations


def _describe(d: dict, me: str) -> str:
    others = ", ".join(f"{o} {n}" for o, n in sorted(d.get("points_by_owner", {}).items()) if o != me)
    n = len(d.get("links", []))
    text = (f"{d['colour']} cube {' -> '.join(d['stops'])} ({n} link{'s' if n != 1 else ''}): "
            f"{d.get('own_points', 0)} for you")
    return text + (f"; others: {others}" if others else "")


def format_text(result: dict) -> str:
    """A DeliveriesResponse dict as text for a player at the command line."""
    me = result.get("player", "")
    rules = result.get("rules", {})
    flags = []
    if rules.get("own_majority"):
        flags.append("own links >= each other player's")
    if rules.get("require_own_link"):
        flags.append("at least one own link")
    lines = [f"Goods deliveries for {me}, locomotive level {result.get('level')} "
             f"({rules.get('ruleset', 'steam')} rules{': ' + ', '.join(flags) if flags else ''})"]
    best = result.get("best")
    lines.append(f"Best: {_describe(best, me)}" if best else "Best: no cube can be delivered")
    deliveries_ = result.get("deliveries", [])
    if len(deliveries_) > 1:
        lines.append(f"Top {len(deliveries_)}:")
        for i, d in enumerate(deliveries_, 1):
            lines.append(f"  {i:>2}. {_describe(d, me)}")
    plan = result.get("plan")
    if plan:
        lines.append(f"Plan for the phase ({plan['name']}): {plan.get('own_points', 0)} for you, "
                     f"{plan.get('other_points', 0)} for others, level {plan.get('level_after')} after")
        for step in plan.get("steps", []):
            what = step["action"]
            if what == "move":
                what = "move " + _describe(step["delivery"], me)
            elif what == "upgrade":
                what = f"upgrade the locomotive to level {step.get('level')}"
            lines.append(f"  round {step.get('round')}: {what}")
    stuck = result.get("undeliverable", [])
    if stuck:
        lines.append("Cannot be delivered:")
        for u in stuck:
            count = u.get("count", 1)
            lines.append(f"  {u['colour']} at {u['stop']}{f' (x{count})' if count > 1 else ''}: {u['detail']}")
    return "\n".join(lines)
