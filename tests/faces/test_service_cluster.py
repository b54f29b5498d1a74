"""The service in front of a store and a cluster: `pegsearch serve --runs s3://...` over a real
S3-compatible server (SeaweedFS on 127.0.0.1), with the server's engine and master, on the local
engine and on a real 2-worker Spark standalone cluster on 127.0.0.1 (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pegsearch.store import Location, Run
from tests.helpers import local_run, pegsearch, pegsearch_process
from tests.helpers.serving import Server


@pytest.fixture(scope="module")
def s3_server(s3: str, tmp_path_factory: pytest.TempPathFactory) -> Server:
    """A server whose runs root is a prefix of the S3 test bucket, its state in a local folder."""
    folder = tmp_path_factory.mktemp("s3-service")
    started = Server(f"{s3}/service", "--state", str(folder / "state"), logs=folder)
    yield started
    started.stop()


def test_searches_on_an_s3_root_are_stored_there_and_answer(s3_server: Server, s3: str,
                                                            published: dict) -> None:
    search_id = s3_server.submit({"board": "triangle-5", "start": [1], "symmetry": "none"})
    document = s3_server.wait(search_id)
    assert [level["states"] for level in document["levels"]] == \
        published["triangle5_raw_per_level"]["start_hole_1_corner"]
    engines = [level.get("engine") for level in document["levels"]]
    assert engines == ["local"] * len(engines)  # level 0, the start, by the engine that began the run
    run = Run.open(f"{s3}/service/{search_id}")  # the run lives on S3, whole and verifiable
    assert run.status == "complete"
    assert pegsearch("verify", run.uri).returncode == 0
    assert any(row["id"] == search_id for row in s3_server.get("/api/searches"))
    status, part = s3_server.request("GET", f"/api/searches/{search_id}/levels/3/parts/0")
    assert status == 200 and part[:4] == b"PAR1"


def test_a_cli_run_on_the_s3_root_is_listed_and_deleted_from_the_store(s3_server: Server,
                                                                      s3: str) -> None:
    made = pegsearch("run", "triangle-4", "--out", f"{s3}/service/made-by-cli")
    assert made.returncode == 0, made.stderr
    assert any(row["id"] == "made-by-cli" for row in s3_server.get("/api/searches"))
    status, _ = s3_server.json("DELETE", "/api/searches/made-by-cli")
    assert status == 200
    assert not Location.parse(f"{s3}/service").exists("made-by-cli/manifest.json")


def test_a_request_may_not_choose_the_servers_master(tmp_path: Path) -> None:
    server = Server(tmp_path / "runs", "--engine", "spark", "--master", "local[1]")
    try:
        status, answer = server.json("POST", "/api/searches", {
            "board": "triangle-5", "settings": {"master": "spark://elsewhere:7077"}})
        assert status == 400
        assert answer["error"] == ("setting 'master': this server runs its spark searches with"
                                   " master local[1]; leave it out")
    finally:
        server.stop()


def test_an_unreachable_store_root_is_refused_in_one_line(s3: str) -> None:
    result = pegsearch_process("serve", "--runs", "s3://no-such-bucket/runs", timeout=120)
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        "pegsearch: error: s3://no-such-bucket/runs: bucket 'no-such-bucket' does not exist;"
        " create it first"]


@pytest.mark.slow
def test_a_service_runs_its_searches_on_a_cluster_into_s3(s3: str, tmp_path: Path) -> None:
    """Submit, watch, cancel, resume, stop the server mid-level and start it again: the search
    finishes on the cluster, every level made by a Spark job, and equals the local engine's.
    triangle-6's 19 levels (skippy-xl's 26 took 250 s of the suite: a Spark job a level)."""
    from tests.helpers.cluster import standalone_cluster

    root = f"{s3}/cluster-service"
    # One worker: a second's JVM took a core of CI's two, and nothing here kills one.
    with standalone_cluster(tmp_path / "cluster", workers=1) as cluster:
        options = ("--engine", "spark", "--master", cluster["url"], "--state", str(tmp_path / "state"))
        first = Server(root, *options, logs=tmp_path, env=cluster["env"])
        try:
            search_id = first.submit({"board": "triangle-6", "settings": {"driver_below": 0}})
            watched = []
            for kind, data in first.events(search_id):
                if kind == "level":
                    watched.append(data)
                if len(watched) >= 6:
                    break
            status, answer = first.json("POST", f"/api/searches/{search_id}/cancel")
            assert status == 200 and answer["status"] in ("cancelling", "interrupted")
            kept = len(first.wait(search_id, ("interrupted",))["levels"])
            assert 6 <= kept < 16
            status, _ = first.json("POST", f"/api/searches/{search_id}/resume")
            assert status == 202
            first.wait(search_id, ("running",), levels=kept + 3)
        finally:
            first.stop()  # its worker is interrupted, the run left resumable
        assert Run.open(f"{root}/{search_id}").status == "interrupted"
        second = Server(root, *options, logs=tmp_path, env=cluster["env"])
        try:
            document = second.wait(search_id, timeout=600)  # resumed by the restarted server
        finally:
            second.stop()
        registered = (tmp_path / "cluster" / "logs" / "master.out").read_text()
    assert "Registered app pegsearch" in registered  # the searches ran on the cluster
    reference = local_run("triangle-6", tmp_path / "local")
    assert [level["states"] for level in document["levels"]] == [r["states"] for r in reference.levels]
    assert {level.get("engine") for level in document["levels"][1:]} == {"spark"}
    assert document["settings"] == {"driver_below": 0, "master": cluster["url"]}
    compared = pegsearch("verify", f"{root}/{search_id}", "--against", str(reference.location))
    assert compared.returncode == 0, compared.stderr
    assert json.loads(Location.parse(root).read(f"{search_id}/manifest.json"))["status"] == "complete"
