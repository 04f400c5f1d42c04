"""``engram service``: run ``engram serve`` under the platform's supervisor.

:mod:`engram.service.units` renders the unit files from ``templates/service/`` (a systemd user
unit, a launchd agent, a Task Scheduler task); :mod:`engram.service.supervisor` installs,
removes and reports on them. Nothing here touches the memory store.
"""
