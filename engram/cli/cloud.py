"""``engram cloud``: the optional cloud replication group (client and server commands)."""

from __future__ import annotations

import typer

cloud_app = typer.Typer(
    name="cloud",
    help="Optional cloud replication: configure, enroll, upgrade, and run the server.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    """Add ``engram cloud`` to the root app."""
    from engram.cli import cloud_admin, cloud_client, cloud_server, cloud_upgrade

    cloud_client.register(cloud_app)
    cloud_admin.register(cloud_app)
    cloud_upgrade.register(cloud_app)
    cloud_server.register(cloud_app)
    app.add_typer(cloud_app)
