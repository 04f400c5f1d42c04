"""The cloud dashboard: server-rendered pages (jinja2 + HTMX) over the cloud store.

Routes live in :mod:`engram.cloud.dashboard.routes` (mounted by the cloud app), who may see what
in :mod:`~engram.cloud.dashboard.viewer`, the signed session cookie in
:mod:`~engram.cloud.dashboard.session`, charts in :mod:`~engram.cloud.dashboard.charts`.
Every asset is served by the app itself under ``/dashboard/static``.
"""
