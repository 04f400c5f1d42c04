"""``engram-mcp``: the stdio MCP server every host starts.

Modules, one concept each:

- :mod:`engram.server.options` — the command line (``--tools``, ``--project``...), no SDK import.
- :mod:`engram.server.registry` — tool definitions (family, profiles, annotations, ``_meta``),
  argument schemas and validation; the ``engram_*`` family registers here too.
- :mod:`engram.server.envelope` — the ``{contract_version, ok, data, diagnostics}`` result.
- :mod:`engram.server.mem_tools` — the 23 ``mem_*`` tools, thin adapters over engram.memory.
- :mod:`engram.server.app` — the SDK ``Server`` with our handlers and instructions.
- :mod:`engram.server.dispatch` — serves each request in its protocol era.
- :mod:`engram.server.stdio` — the line transport (-32700, drain on EOF).
- :mod:`engram.server.main` — the ``engram-mcp`` entry point.
"""
