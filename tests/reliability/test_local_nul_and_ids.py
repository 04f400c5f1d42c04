"""``engram serve``: a NUL byte anywhere (project, cwd, query, headers, body) is a 400 JSON
envelope, never a 500; ids and numbers are ASCII digits only."""

from __future__ import annotations

from urllib.parse import quote

from tests.serve.conftest import Client, http, save, shared_server  # noqa: F401


def test_nul_bytes_are_400_envelopes(http: Client) -> None:  # noqa: F811
    obs = save(http, "nul", "A memory", "kept")
    for path in (
        "/search?q=memory&project=nul%00x",
        "/project/current?cwd=/tmp%00/x",
        "/context?project=%00",
        "/observations/recent?project=nul&scope=pro%00ject",
        f"/observations/{obs}%00",
    ):
        reply = http.get(path)
        assert reply.status == 400, (path, reply.status, reply.raw)
        assert reply.json and reply.json["code"], reply.raw
    reply = http.get("/search?q=memory&project=nul", headers={"X-Note": "a\x00b"})
    assert reply.status == 400 and reply.json is not None, reply.raw
    body = {"session_id": "nul-s", "title": "t\u0000", "content": "c", "project": "nul"}
    reply = http.post("/observations", body)
    assert reply.status == 400 and reply.json["code"], reply.raw
    assert http.get(f"/observations/{obs}").status == 200


def test_ids_and_numbers_are_ascii_digits(http: Client) -> None:  # noqa: F811
    obs = save(http, "digits", "A memory", "kept")
    arabic = "".join(chr(0x0660 + int(d)) for d in str(obs))  # the same number, other digits
    reply = http.get(f"/observations/{quote(arabic)}")
    assert reply.status == 400 and reply.json["code"] == "http.bad_id", reply.raw
    for query in ("limit=%D9%A1", "limit=1_0", "limit=%2B5"):
        reply = http.get(f"/observations/recent?project=digits&{query}")
        assert reply.status == 400 and reply.json["code"] == "http.bad_query", (query, reply.raw)
