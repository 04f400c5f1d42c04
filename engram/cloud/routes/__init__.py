"""The cloud app's route groups. Each module exposes ``routes() -> list[BaseRoute]``;
:data:`engram.cloud.app.ROUTE_GROUPS` lists the modules the app mounts (a dashboard adds its
own module to that list)."""
