"""How every `hexsim` command fails: bad input is one line on stderr and exit code 2, a refused
move one line and 2, a crashing game one line and 1, Ctrl-C 130; never a traceback. Shared by
sim/cli/commands.py and sim/cli/workflows.py."""

from __future__ import annotations

import functools

import typer

from sim.errors import UserError


def friendly(fn):
    """Bad input: one line on stderr, exit 2. A move the engine refused (or, checked, an index out
    of bounds), located: one line, exit 2. A crashing game: one line, exit 1. No traceback.
    Every command's `--jobs` and `--backend` are checked before anything is written; a file
    the system refuses (unwritable --out, unreadable input) is bad input too."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from sim.runs.runner import GameCrash, RuleFault

        try:
            check_common(kwargs)
            return fn(*args, **kwargs)
        except UserError as e:
            typer.echo(f"hexsim: error: {e}", err=True)
            raise typer.Exit(2) from None
        except OSError as e:
            typer.echo(f"hexsim: error: {os_error(e)}", err=True)
            raise typer.Exit(2) from None
        except RuleFault as e:
            typer.echo(f"hexsim: game stopped: {e}", err=True)
            raise typer.Exit(2) from None
        except GameCrash as e:
            typer.echo(f"hexsim: game crashed: {e}", err=True)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            typer.echo("hexsim: interrupted; finished parts are kept, rerun the same command "
                       "to resume", err=True)
            raise typer.Exit(130) from None

    return wrapper


def check_common(options: dict) -> None:
    """The options many commands share, checked before the command touches any file."""
    from sim.runs.runner import check_backend

    jobs = options.get("jobs")
    if jobs is not None and jobs < 1:
        raise UserError(f"--jobs {jobs}: must be at least 1 (leave it out to use all cores)")
    if "backend" in options:
        check_backend(options["backend"], options.get("scheduler"))


def os_error(e: OSError) -> str:
    """An OS error as one line naming the file(s) and the reason."""
    files = " -> ".join(str(f) for f in (e.filename, e.filename2) if f is not None)
    return f"{files}: {e.strerror or e}" if files else f"{type(e).__name__}: {e.strerror or e}"
