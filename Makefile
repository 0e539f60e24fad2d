# Every target works from a fresh clone: it creates .venv and installs what it needs.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= $(shell nproc)
# 12,000 games give 95% intervals of about +/-0.9 points on a win rate near 50% (+/-1 point on
# the first mover's share of decisive games when a few percent are draws).
GAMES ?= 12000

.PHONY: install run test test-fast bench bench-openspiel scale ladder lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,dask]'
	$(BIN)/hexsim warm
	touch $(STAMP)

install: $(STAMP)

# The main job: every shipped variant of all four games (HEXFLOW Race, Battle, Tri-Board; Four
# flags; HEXATILE; Hexa-Trex) with their shipped bots, then one skill ladder per game's standard
# variant (HEXFLOW: each mode), then the answer-first balance report, whose verdict table says
# for each standard variant whether its verdict holds with stronger play. Rerunning resumes
# finished games and a larger GAMES plays only the missing ones; a variant whose file or rules
# code changed since the last run is played again (--replace-stale), never mixed.
run: $(STAMP)
	$(BIN)/hexsim run variants/*/*.toml --games $(GAMES) --jobs $(JOBS) --out data/runs/latest --replace-stale
	@for item in $(SKILL_LADDERS) $(LADDERS); do \
		v=$${item%%:*}; case $$item in *:*) top=$${item#*:};; *) top=;; esac; \
		echo "skill ladder $$v: random, greedy$${top:+, $$top}"; \
		$(BIN)/hexsim ladder $$v --bot random --bot greedy $${top:+--bot $$top} --games $(RUN_LADDER_GAMES) \
			--self-games $(SKILL_SELF_GAMES) --jobs $(JOBS) --out reports/ladder/$$(echo $$v | tr / -) \
			--no-progress > /dev/null || exit 1; \
	done
	$(BIN)/hexsim report data/runs/latest/* --ladders reports/ladder --out reports/latest
	@echo "ladders: reports/latest/ladders.html"

# Does the verdict hold with stronger play? Each standard variant's ladder: random, greedy and,
# after the colon, the strongest bot that beats greedy clearly: the search bot, in Four flags the
# turn planner (63% of decisive games against greedy). Hexa-Trex's expecti wins only 54%
# (docs/rules/hexatrex.md): its ladder stops at greedy; add it with LADDERS="hexatrex/standard:expecti".
# Every bot plays itself
# SKILL_SELF_GAMES games: 1,200 give the strongest rung's first-mover share +/-3 points.
# LADDERS adds variants of your own: make run LADDERS="hexflow/race_swap:mcts flags/swap".
SKILL_LADDERS ?= hexflow/race:mcts hexflow/battle:mcts hexflow/tri:mcts hexflow/tri2p:mcts \
	hexatile/standard:mcts flags/standard:planner hexatrex/standard
LADDERS ?=
SKILL_SELF_GAMES ?= 1200

# The suite includes the regression gate on the committed baselines (tests/test_baselines_shipped.py:
# exact replay, metric definitions and a small statistical check of each); the full statistical
# check is `hexsim check --shipped` (about as many games as the baselines hold).
# --dist loadfile: each test file on one worker, so that the cases of one parametrized test do not
# compile the same kernels on both workers at once (they did: 85 s each, side by side).
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile --durations=15

# The edit loop: everything but the tests marked slow (real runs end to end, browser pages,
# compiles in fresh processes, long simulations); make test runs them all.
# the edit loop, about a minute with the compile cache warm: each game's rule scenarios, the
# engine and the search, the runner, statistics, the report, bad input and the size and import
# gates (make test runs everything)
FAST = test_flags_rules_data test_hexatile_rules_data test_hexflow_race_rules_data \
	test_hexflow_battle_rules_data test_hexflow_tri_rules_data test_hexatrex_sides test_stats \
	test_intervals test_variants test_bad_input test_imports test_function_sizes test_docs_links \
	test_runner test_engine test_search test_report test_game_invariants
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile -m "not slow" --durations=10 $(FAST:%=tests/%.py)

bench: $(STAMP)
	$(BIN)/python -m sim.perf.bench

# The search against OpenSpiel's C++ MCTS on Hex 7x7, iterations/s at equal settings
# (docs/speed.md). open_spiel goes into an environment of its own, never into hexsim's.
OPENSPIEL_VENV := .venv-openspiel
bench-openspiel: $(STAMP)
	test -x $(OPENSPIEL_VENV)/bin/python || $(PY) -m venv $(OPENSPIEL_VENV)
	$(OPENSPIEL_VENV)/bin/python -c "import pyspiel" 2>/dev/null || $(OPENSPIEL_VENV)/bin/python -m pip install -q open_spiel numpy
	$(BIN)/python -m sim.perf.openspiel --python $(OPENSPIEL_VENV)/bin/python

# Scale check (issue 8): memory of the process tree and games/s over a long Race run, then the
# report on its table. SCALE_GAMES=10000000 for the 10M check (about half an hour here).
SCALE_GAMES ?= 1000000
scale: $(STAMP)
	$(BIN)/python -m sim.perf.scale variants/hexflow/race.toml --games $(SCALE_GAMES) --report

# Skill ladder (issue 17): Elo, skill depth and the first mover's share by skill, one ladder per
# shipped game's standard variant (HEXFLOW: each mode). LADDER_BOTS="--bot random --bot greedy
# --bot mcts:iterations=200" adds a rung where a game has the search bot.
LADDER_GAMES ?= 1000
RUN_LADDER_GAMES ?= 400
LADDER_VARIANTS ?= hexflow/race hexflow/battle hexflow/tri flags/standard hexatile/standard hexatrex/standard
LADDER_BOTS ?= --bot random --bot greedy
LADDER_OUT ?= reports/ladder
ladder: $(STAMP)
	for v in $(LADDER_VARIANTS); do \
		$(BIN)/hexsim ladder $$v $(LADDER_BOTS) --games $(LADDER_GAMES) --jobs $(JOBS) \
			--out $(LADDER_OUT)/$$(echo $$v | tr / -) --no-progress || exit 1; \
	done
	@echo "ladders: $(LADDER_OUT)/*/ladder.html"

lint: $(STAMP)
	$(BIN)/ruff check sim tests

clean:
	rm -rf $(VENV) $(OPENSPIEL_VENV) data/runs reports/latest
