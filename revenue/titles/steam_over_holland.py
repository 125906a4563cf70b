"""Steam Over Holland (rules/steam_over_holland.md): towns pay but do not use range, no route begins or
ends at a town, the 3E doubles cities/off-boards and ignores towns, ferry bonuses for VES and VVL."""
from .base import Title


class SteamOverHolland(Title):
    name = "steam_over_holland"
    description = "Steam Over Holland"

    def train_rules_key(self, train):
        return train.name.upper() == "D"

    def end_allowed(self, train, node) -> bool:
        return node.kind != "town"

    def end_allowed_all(self, train, graph):
        return ~graph.kind_is("town")

    def stop_bonuses(self, train, company, board, graph):
        """Fl. 20 per route stopping at D9 (VES) or J1 (VVL), if the company owns the private; the privates
        close with the first 5-train (phase 5)."""
        if board.phase.name not in ("2", "3", "4"):
            return []
        bonuses = []
        for private, hex_name in (("VES", "D9"), ("VVL", "J1")):
            if private in company.privates:
                nodes = set(graph.in_hexes((hex_name,)).nonzero()[0].tolist())
                bonuses.append((f"{private} ferry", nodes, 20))
        return bonuses
