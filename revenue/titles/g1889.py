"""1889 (Shikoku): the base rules unchanged (rules/base.md), with the off-boards' `diesel_N` value for the
D train (Imabari F1 pays 30 in yellow phases, 60 from brown, 100 to a D; Sakaide & Okayama J1 and Naruto &
Awaji L7 20, 40 and 80), which the base Title.node_value applies.

Its private companies change no route or revenue: Takamatsu E-Railroad and Ehime Railway block hexes,
Mitsubishi Ferry and Ehime Railway lay tiles (a request gives the tiles laid), Sumitomo Mines Railway
discounts building cost, Dougo Railway exchanges for a share, South Iyo Railway has no ability,
Uno-Takamatsu Ferry changes only its own income. The optional rule beginner_game changes the privates
(fewer, dealt to the players, without abilities) and nothing on the map or among the trains."""
from .base import Title


class G1889(Title):
    name = "1889"
    description = "1889: History of Shikoku Railways, the base rules (numeric distances, D = unlimited, diesel values)"
    passive_options = {"beginner_game": "beginner game: fewer privates, dealt to the players, without abilities"}
