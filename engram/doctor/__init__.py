"""``engram doctor``: read-only diagnostics of the store and of every host Engram is linked to.

- :mod:`engram.doctor.findings` - :class:`Finding` and :class:`Report` (the JSON shape).
- :mod:`engram.doctor.runner` - :class:`DoctorContext`, the check registry, :func:`run_doctor`.
- :mod:`engram.doctor.store_checks` - store health and a save -> search -> delete round trip.
- :mod:`engram.doctor.host_checks` - registrations, drift, commands, trust and approval states.

Nothing here writes a user file; the round trip works in a scratch project and removes it.
"""
