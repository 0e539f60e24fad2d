"""HEXATILE: shared three-rhombus hexagon tiles, patterns scored for their colour's owner."""

from sim.games.hexatile.game import Hexatile

GAME = Hexatile()
