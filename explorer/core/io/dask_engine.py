"""Run :func:`~explorer.core.io.featurize.featurize`'s partitions on a Dask cluster (issue 14).

:func:`dask_runner` returns a :data:`~explorer.core.io.featurize.Runner` that submits one task per
partition (:func:`~explorer.core.io.featurize.featurize_partition`) to ``dask.distributed``: to the
scheduler at ``address`` (``tcp://host:8786``, or a scheduler file), or, without one, to a
``LocalCluster`` it starts and stops (``workers`` processes of one thread each). Every worker
writes its part file straight into the output folder, so that folder must be reachable under the
same path from every worker (a shared file system) and the run files too; each worker needs this
package installed with its ``scale`` extra (``pip install 'metric-tradeoff-explorer[scale]'``).

Tasks and summaries travel as plain data (dataclass of strings and ints, dicts, bytes); the
features themselves never pass through the scheduler.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from .featurize import Partition, Runner, featurize_partition

INSTALL_HINT = "pip install 'metric-tradeoff-explorer[scale]'"


class DaskUnavailable(RuntimeError):
    """``dask.distributed`` is not installed; the message says how to install it."""


def require_dask() -> None:
    """Raise :class:`DaskUnavailable` when ``dask.distributed`` cannot be imported."""
    try:
        import dask.distributed  # noqa: F401
    except ImportError as exc:
        raise DaskUnavailable(f"--engine dask needs dask.distributed ({exc}); install it with: {INSTALL_HINT}") from None


def dask_runner(address: str | None = None, workers: int = 2, memory_limit: str | None = None, processes: bool = True,
                report: Callable[[dict[str, Any]], None] | None = None) -> Runner:
    """A Runner on a Dask cluster: the scheduler at ``address`` (a ``.json`` path is read as a
    scheduler file), else a new ``LocalCluster`` of ``workers`` workers (``processes`` False:
    threads in this process, for quick tests) with ``memory_limit`` each (Dask's text, e.g.
    ``"2GB"``; default Dask's share of the machine). ``report(info)`` is called once with
    ``{"scheduler", "workers", "threads", "local"}``. Raises DaskUnavailable."""
    require_dask()

    def run(parts: list[Partition], out_dir: str, settings_data: dict[str, Any], read_options: dict[str, Any],
            done: Callable[[dict[str, Any]], None]) -> list[dict[str, Any]]:
        from dask.distributed import Client, LocalCluster, as_completed

        cluster = None
        if address:
            client = Client(scheduler_file=address) if address.endswith(".json") and os.path.exists(address) else Client(address)
        else:
            kwargs: dict[str, Any] = {"n_workers": workers, "threads_per_worker": 1, "processes": processes,
                                      "dashboard_address": None}
            if memory_limit:
                kwargs["memory_limit"] = memory_limit
            cluster = LocalCluster(**kwargs)
            client = Client(cluster)
        try:
            info = client.scheduler_info()
            if report is not None:
                report({"scheduler": client.scheduler.address, "workers": len(info.get("workers", {})),
                        "threads": sum(w.get("nthreads", 0) for w in info.get("workers", {}).values()),
                        "local": cluster is not None})
            futures = client.map(featurize_partition, parts, out_dir=out_dir, settings_data=settings_data,
                                 read_options=read_options, pure=False)
            results = []
            for fut in as_completed(futures):
                results.append(fut.result())
                done(results[-1])
            return results
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    return run
