"""1860 (Isle of Wight): map, manifest, n+m trains and phases. Its special route rules (halts, one bypass
of a tokened-out city, intersecting runs, no hex re-entry) are not implemented yet: base rules apply."""
from .base import Title


class G1860(Title):
    name = "1860"
    description = "1860: Railways on the Isle of Wight (data; special route rules pending, base rules apply)"
    options = {"two_player_map": "the smaller first-edition map"}
