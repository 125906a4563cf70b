"""1830, the classic reference: the base rules unchanged (rules/base.md section 7)."""
from .base import Title


class G1830(Title):
    name = "1830"
    description = "1830: Railways & Robber Barons, the base rules (numeric distances, D = unlimited)"
    passive_options = {"multiple_brown_from_ipo": "several brown-zone shares may be bought from the initial offering",
                       "optional_6_train": "one more 6-train in the supply"}
