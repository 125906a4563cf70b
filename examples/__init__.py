"""Example requests for the command line, the page and the service's warm-up (installed as revenue.examples)."""
