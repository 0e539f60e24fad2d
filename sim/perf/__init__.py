"""Speed and memory: `make bench` (bench.py) and `make scale` (scale.py)."""
