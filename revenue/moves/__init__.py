from .lays import legal_lays
