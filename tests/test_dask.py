"""The same run on a real dask.distributed cluster (2 worker processes on loopback) gives the
same table as the local loky run."""

import pandas as pd
import pytest

import sim
from sim.errors import UserError
from sim.runs import runner
from sim.runs.variants import load

pytestmark = pytest.mark.slow  # starts dask clusters (make test-fast leaves it out)

distributed = pytest.importorskip("dask.distributed")

TEXT = 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 40\n'


def test_dask_cluster_table_equals_loky(variant_file, tmp_path):
    v = load(str(variant_file("v.toml", TEXT)))
    local = sim.run(v, 120, seed=7, jobs=2, out=tmp_path / "loky", chunk_size=16, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        remote = sim.run(v, 120, seed=7, out=tmp_path / "dask", chunk_size=16, progress=False,
                         backend="dask", scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(local.table(), remote.table())
    assert remote.manifest["timings"]["backend"] == "dask"


def test_dask_needs_scheduler(variant_file, tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "CONNECT_TIMEOUT", "1s")  # the refused address fails at the timeout
    v = load(str(variant_file("v.toml", TEXT)))
    with pytest.raises(UserError, match="--scheduler"):
        sim.run(v, 10, out=tmp_path / "x", progress=False, backend="dask")
    with pytest.raises(UserError, match="cannot connect"):
        sim.run(v, 10, out=tmp_path / "y", progress=False, backend="dask",
                scheduler="tcp://127.0.0.1:1")
