"""The service's OpenAPI description matches the service: Schemathesis (every check, the stateful
phase following the links from a submitted search to its routes) against a real server with a
token, and the description's own promises read directly."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pegsearch.service import schema
from tests.helpers.serving import Server

pytest.importorskip("schemathesis")
CONFIG = Path(__file__).with_name("schemathesis.toml")
TOKEN = "openapi-test-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("openapi") / "runs", token=TOKEN)
    yield started
    started.stop()


def test_schemathesis_finds_nothing_the_description_does_not_say(server: Server, tmp_path: Path) -> None:
    result = subprocess.run(
        [str(Path(sys.executable).with_name("schemathesis")), "--config-file", str(CONFIG), "run",
         f"{server.url}/api/openapi.json", "--header", f"Authorization: Bearer {TOKEN}",
         "--checks", "all", "--max-examples", "15", "--seed", "2026", "--workers", "1"],
        capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "Stateful" in result.stdout and "❌" not in result.stdout


def test_the_description_says_what_the_service_does(server: Server) -> None:
    status, data = server.request("GET", "/api/openapi.json")
    described = json.loads(data)
    assert status == 200 and described["security"] == [{"bearer": []}]
    assert described["components"]["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}
    operations = [op for path in described["paths"].values() for op in path.values()]
    assert all("422" not in op["responses"] for op in operations)
    assert all({"400", "401", "408"} <= set(op["responses"]) for op in operations)
    error = {"$ref": "#/components/schemas/Error"}
    assert all(op["responses"]["400"]["content"]["application/json"]["schema"] == error
               for op in operations)
    events = described["paths"]["/api/searches/{search_id}/events"]["get"]["responses"]["200"]
    assert list(events["content"]) == ["text/event-stream"]
    part = described["paths"]["/api/searches/{search_id}/levels/{level}/parts/{index}"]["get"]
    assert list(part["responses"]["200"]["content"]) == ["application/vnd.apache.parquet"]
    assert "409" in part["responses"]  # a part missing or damaged (it was listed nowhere)
    request = described["components"]["schemas"]["SearchRequest"]
    assert request["oneOf"] == [{"required": ["board"]}, {"required": ["board_file"]}]
    assert "triangle-5" in request["properties"]["board"]["enum"]
    assert request["properties"]["start"]["items"]["minimum"] == 1
    links = described["paths"]["/api/searches"]["post"]["responses"]["202"]["links"]
    assert {"get_search_id", "get_counts", "get_solution", "delete_search_id"} <= set(links)


def test_refusals_carry_their_headers(server: Server) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request("GET", "/api/searches")
    unauthorised = connection.getresponse()
    unauthorised.read()
    assert unauthorised.getheader("WWW-Authenticate", "").startswith("Bearer")
    connection.request("PUT", "/api/searches", headers={"Authorization": f"Bearer {TOKEN}"})
    refused = connection.getresponse()
    assert refused.status == 405 and json.loads(refused.read()) == {"error": "Method Not Allowed"}
    assert refused.getheader("Allow") == "GET, POST"
    connection.request("PATCH", "/api/boards/check", headers={"Authorization": f"Bearer {TOKEN}"})
    refused = connection.getresponse()
    refused.read()
    assert refused.status == 405 and refused.getheader("Allow") == "POST"
    connection.close()


def test_every_answer_fits_its_model(tmp_path: Path) -> None:
    """Real answers of a complete fewest-moves search and a survey, read through the models the
    description is made from (Schemathesis may not wait for a search to finish). A server of its
    own: the fuzzed one's queue holds whatever searches Schemathesis submitted."""
    server = Server(tmp_path / "runs")
    try:
        search_id = server.submit({"board": "triangle-5", "start": [4], "fewest_moves": True})
        server.wait(search_id)
        survey_id = server.submit({"board": "triangle-4", "survey": True})
        server.wait(survey_id)
        schema.Search.model_validate(server.get(f"/api/searches/{search_id}"))
        schema.Search.model_validate(server.get(f"/api/searches/{survey_id}"))
        schema.RunDocument.model_validate(server.get(f"/api/searches/{search_id}/counts?winnable=true"))
        schema.MovesCount.model_validate(server.get(f"/api/searches/{search_id}/counts?by_moves=true"))
        schema.Solution.model_validate(server.get(f"/api/searches/{search_id}/solution"))
        schema.LevelParts.model_validate(server.get(f"/api/searches/{search_id}/levels/3"))
        for row in server.get("/api/searches"):
            schema.SearchRow.model_validate(row)
        for board in server.get("/api/boards"):
            schema.Board.model_validate(board)
        counts = server.get(f"/api/searches/{search_id}/counts")
        assert "id" not in counts and counts["levels"][-1]["moves"] == 9
    finally:
        server.stop()
