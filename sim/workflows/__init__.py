"""The workflows: each plays variants through the runner and reads the outcome tables back.

`compare` (two variants on common seeds), `sweep` (a grid of rule settings), `tune` (a search
for settings that meet targets), `sensitivity` (one-at-a-time changes), `ladder` (bots of
rising skill: ratings, skill depth, agreement, the ceiling) and `baseline` (saved balance
figures replayed as a regression check); `sequential` is the GSPRT they stop early with. The
package `sim` exposes the functions (`sim.compare(...)`, `sim.ladder(...)`)."""
