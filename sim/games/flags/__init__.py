"""Four flags: surround 3 of 4 flags with card-placed units and hold them through a turn."""

from sim.games.flags.game import FlagsGame

GAME = FlagsGame()
