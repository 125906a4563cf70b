"""A title described entirely by the request: layout, hexes (tile DSL) and trains come in `board.custom`."""
from .base import Title


class Custom(Title):
    name = "custom"
    description = "Custom map and trains from the request (board.custom), base rules"

    def data(self, options=None, board_request=None):  # pragma: no cover - the board builds it from the request
        raise NotImplementedError("custom data comes from the request")
