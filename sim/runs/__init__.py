"""Runs: variant files (variants.py), the runner that plays them into Parquet parts (runner.py),
the outcome tables (tables.py), reading a run folder (folder.py), replays of single games
(replay.py), the seeds of the workflows' runs (seeds.py) and `hexsim warm` (warm.py)."""
