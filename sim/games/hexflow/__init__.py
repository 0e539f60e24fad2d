"""HEXFLOW: line-tile race on an 85-hex board (Race mode). See docs/rules/hexflow.md."""

from .game import HexflowGame

GAME = HexflowGame()

__all__ = ["GAME", "HexflowGame"]
