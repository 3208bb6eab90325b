"""The platforms' own API descriptions and recorded payloads that the fakes check against,
vendored with their source and licence (README.md here; `vendor.py` re-creates them)."""

from pathlib import Path

PEERS = Path(__file__).resolve().parent
