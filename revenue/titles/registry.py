"""The titles by name: one instance of each title's rules."""
from __future__ import annotations

from ..errors import InputError
from .base import Title
from .custom import Custom
from .g1830 import G1830
from .g1860 import G1860
from .g1889 import G1889
from .g18rhl import G18Rhl
from .steam_over_holland import SteamOverHolland

TITLES: dict[str, Title] = {t.name: t for t in (G1830(), SteamOverHolland(), G1860(), G18Rhl(), G1889(), Custom())}


def get_title(name: str, field_name: str = "title") -> Title:
    if name not in TITLES:
        raise InputError(field_name, f"unknown title {name!r} (known: {', '.join(TITLES)})")
    return TITLES[name]
