"""``engram serve``: the local HTTP runtime (JSON routes over engram/memory, MCP at ``/mcp``).

- :mod:`engram.http.app` builds the ASGI app from the route groups listed in ``ROUTE_GROUPS``;
- :mod:`engram.http.exchange` turns a request into a call of one memory operation and its
  result (or error) into JSON;
- :mod:`engram.http.guard` refuses non-local ``Host`` / ``Origin`` and checks the bearer token;
- :mod:`engram.http.selection` resolves the project a request is for;
- :mod:`engram.http.listen` picks the port or Unix socket and runs uvicorn.

Nothing here holds SQL or business rules: every route is a thin adapter over engram/memory.
"""
