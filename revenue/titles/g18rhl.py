"""18Rhl (Rhineland): map, manifest, trains and phases. Its special rules (Trajekt, Montan and other
bonuses, the Rheingold-Express) come with the 18Rhl issue; until then towns follow the base rules."""
from .base import Title


class G18Rhl(Title):
    name = "18rhl"
    description = "18Rhl: Rhineland (data; special route rules pending)"
    options = {"ratingen_variant": "Ratingen variant", "promotion_tiles": "promotion tiles",
               "optional_2_train": "optional 2-train"}

    def free_options(self):
        return ("coal", "steel")
