"""HEXFLOW: line-tile game on an 85-hex board (Race and Battle modes). See docs/rules/hexflow.md."""

from .game import HexflowGame

GAME = HexflowGame()

__all__ = ["GAME", "HexflowGame"]
