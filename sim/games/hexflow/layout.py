"""The HEXFLOW position as one value: the layout Race (race.py), Tri-Board and tri2p
(tri_engine.py) share, so the board rules (kernel._place and the searches) are written once over
it and numba compiles them per mode's array shapes. Battle (battle_engine.py) plays on it too,
with rows of its own (its fields are listed above its Position there).

The boards, hex index = column by column, top to bottom (board.py, triboard.py):

  Race, 9 columns (85 hexes)                 Tri-Board, side 14 (105 hexes; side 13: 91)

        b1=9       d1=28      f1=47            a1=0    b1=14   c1=27  ...  m1=102  n1=104
   a1=0       c1=19      e1=38   ...  i1=76    a2=1    b2=15   c2=28  ...  m2=103
        b2=10      d2=29      f2=48            ...     ...     ...
   a2=1       c2=20      e2=39   ...  i2=77    a13=12  b13=26
        ...        ...        ...              a14=13
   a9=8       c9=27      e9=46   ...  i9=84
        b10=18     d10=37     f10=56           corners: a1 = II, a14 = III, n1 = I (dead in
                                               tri2p); centre hexes e5=54, e6=55, f5=64
   corners: A a9 -> i1, B a1 -> i9             (side 13: e5=50)

Sides of a hex: 0 T, 1 TR, 2 BR, 3 B, 4 BL, 5 TL (tables' nbr[h, s]: the neighbour across s,
-1 off the board). Graph nodes: h*2 = the empty hex h (any line can still pass), h*2 + j =
network j (0 / 1) of the tile on h.

Fields (ns seats: Race and tri2p 2, tri 3; nh hexes; nn = 2 * nh nodes):
  hx[H_*, h]  per hex, the rows below (every mode)
  netid       int64[nh * 6]: network (0 / 1) owning side s of the tile on h, -1 none
  nets        int64[2, nn]: netm (side mask of network j of the tile on h), par (union-find over
              networks: placed lines that touch are one set)
  bag         int64[ns, tiles]: each seat's shuffled bag; bag[q, :sq[Q_BAGN, q]] still to draw
  hand        int64[ns, hand_size]: -1 = empty slot (tri: WILD = the Wildcard)
  wit         each seat's witness way (a placement can cut a seat off only if it breaks it):
              Race int64[2, 2, nh]: wreq (sides the way uses on each empty hex) and wpath (its
              hexes, wpath[q, :sq[Q_WLEN, q]]); Tri int64[ns, nh]: the sides, 0 off the way
  lnk         Tri int64[nh * 12]: the link table (kernel._link per node and side), kept tile by
              tile once st[LINKED]; Race int64[0]: Race's searches run over hex sets and never
              read one, and keeping it would cost every placement a relink
  sq          int64[rows, ns]: per-seat counters, rows Q_BAGN, Q_PLACED, Q_BLOCKED first, then
              the mode's own (race.Q_WLEN; tri_engine.Q_PASS, ...)
  st          int64[...]: the game's scalars; CUR, TURN, CONSEC, REASON, FIRST and NFRONT sit at
              the same index in every mode (the mode's own fields around them)
  work        int64[rows, width]: work rows whose contents never carry from one call to the next,
              so copies share them; W_SEEN, W_STAMP, W_STACK first (the witness search's visit
              marks, stamp and stack), then the mode's own
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# rows of hx: tile type (-1 empty), rotation, seat that placed it, sides carrying a line; occupied
# neighbours of an empty hex, sides of an empty hex where a neighbour's line ends (a tile there
# must cover one); the frontier (empty hexes next to a tile: front[:st[NFRONT]]) and each hex's
# place in it (-1 absent); this game's dots and the path multiplier (Race) or bonus (Tri) of each
H_TTYPE, H_TROT, H_TOWNER, H_EMASK, H_ADJ, H_NEED, H_FRONT, H_FPOS, H_DOTS, H_MULT = range(10)
N_HX = 10
# rows of sq every mode shares: bag size, whether the seat placed a tile, cut off (1)
Q_BAGN, Q_PLACED, Q_BLOCKED = range(3)
# st fields at the same index in every mode (race.py, battle_engine.py, tri_engine.py name the
# rest): the seat to move, turns, passes in a row, the end reason (-1 while the game goes on,
# else an index into kernel.END_REASONS), the first seat, the frontier's length
CUR, TURN, CONSEC, REASON = 0, 1, 2, 4
FIRST, NFRONT = 6, 7
# work rows every mode shares (the witness searches')
W_SEEN, W_STAMP, W_STACK = range(3)


class Position(NamedTuple):
    """One HEXFLOW position (the module docstring gives each field per mode). Few arrays, their
    rows named: every array of a NamedTuple costs a reference count at every call that passes
    it where reference counting is on."""

    hx: np.ndarray
    netid: np.ndarray
    nets: np.ndarray
    bag: np.ndarray
    hand: np.ndarray
    wit: np.ndarray
    lnk: np.ndarray
    sq: np.ndarray
    st: np.ndarray
    work: np.ndarray
