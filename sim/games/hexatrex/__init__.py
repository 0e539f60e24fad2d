"""Hexa-Trex: number and operator tiles round a central "=", every equation through the tile
just placed scores its tiles. See docs/rules/hexatrex.md."""

from sim.games.hexatrex.game import HexaTrex

GAME = HexaTrex()

__all__ = ["GAME", "HexaTrex"]
