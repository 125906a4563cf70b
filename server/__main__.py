"""`python -m revenue.server [options]` (in a checkout also `python -m server`): the same as `revenue serve`."""
from .command import serve

serve(prog_name=f"python -m {__package__}")
