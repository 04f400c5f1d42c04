"""Route groups of ``engram serve``: one module per group, each exposing ``ROUTES``."""
