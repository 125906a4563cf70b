"""`python -m server [options]`: the same as `revenue serve`."""
from .command import serve

serve(prog_name="python -m server")
