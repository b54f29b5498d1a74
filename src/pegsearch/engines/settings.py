"""The engines' settings, declared once: the command line's options, the service's `settings`
fields and refusals, each engine's accepted keywords and the settings table of docs/commands.md
are all made from SETTINGS (tests/engines/test_settings.py fails when one of them disagrees).

Imported by the command line's parser, so it imports nothing beyond the standard library and
`errors`: an engine's own module (pyspark, mrjob, numba-cuda) is loaded only when it is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pegsearch.errors import option

# How a level drops repeats (--reduce): a bitmap over ranks where the level is dense enough, or
# always one or the other (engines.reduce_choice).
REDUCES = ("auto", "bitmap", "tables")


@dataclass(frozen=True)
class Setting:
    """One engine setting: its keyword name (the vocabulary's: `driver_below`, written
    `--driver-below` on the command line and `settings.driver_below` in a request), what it is,
    its default (None: the engine works it out, as `help` says), the engines taking it, and a
    help line. `served` is False for a setting a request may not give (a path on the server)."""

    name: str
    kind: type
    default: object
    engines: tuple[str, ...]
    help: str
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    served: bool = True

    @property
    def flag(self) -> str:
        """The command line's option: --driver-below."""
        return option(self.name)

    @property
    def shown_default(self) -> str:
        """The default as the help and the docs say it, or '' where `help` says it."""
        return "" if self.default is None else f" (default {self.default})"


SETTINGS = (
    Setting("memory", str, None, ("local", "gpu"),
            "bound on what the engine holds in this machine's memory, e.g. 2G (default a quarter"
            " of RAM, at most 4G); a larger level takes several passes over its parents",
            metavar="SIZE"),
    Setting("gpu_memory", str, None, ("gpu",),
            "bound on the GPU memory it takes, e.g. 70G (default 90% of what is free); a larger"
            " level's bitmap takes several passes", metavar="SIZE"),
    Setting("reduce", str, "auto", ("local", "gpu", "spark"),
            "how a level drops repeats: a bitmap over ranks where the level is dense enough"
            " (auto), or always bitmap or tables", choices=REDUCES),
    Setting("master", str, None, ("spark", "mrjob"),
            "the Spark master: local[N], spark://HOST:PORT, yarn or k8s://... (default: spark-submit's,"
            " else local[*]; mrjob: its spark runner only)", metavar="URL",
            aliases=("--spark-master",)),
    Setting("driver_below", int, 1 << 17, ("spark",),
            "levels made from fewer than N parents are made in the driver, where they take less"
            " than a Spark job's fixed cost (0 sends every level to Spark)", metavar="N"),
    Setting("queue", str, None, ("mrjob", "spark"),
            "the YARN queue each level's job (Spark: the session's application) is submitted to"
            " (default: the one the cluster gives the user); mrjob: its hadoop runner, spark:"
            " --master yarn", metavar="NAME"),
    Setting("runner", str, "inline", ("mrjob",),
            "mrjob's runner: inline, local, spark, hadoop, emr or dataproc", metavar="RUNNER"),
    Setting("mrjob_conf", Path, None, ("mrjob",), "an mrjob.conf file (default: mrjob's own search"
            " for one)", metavar="FILE", served=False),
    Setting("batch_size", int, 1 << 16, ("mrjob",), "positions per kernel call in a mapper",
            metavar="N"),
)
BY_NAME = {setting.name: setting for setting in SETTINGS}


def taken_by(engine: str) -> tuple[str, ...]:
    """The settings (keyword names) the named engine accepts."""
    return tuple(setting.name for setting in SETTINGS if engine in setting.engines)


def served() -> tuple[str, ...]:
    """The settings a service request may give."""
    return tuple(setting.name for setting in SETTINGS if setting.served)


def numbers() -> tuple[str, ...]:
    """The settings given as numbers, not words (a size is a word: a bare 5 is not 5 bytes)."""
    return tuple(setting.name for setting in SETTINGS if setting.kind is int)


def help_line(setting: Setting) -> str:
    """The command line's help of a setting: which engines take it, what it sets, its default."""
    # argparse formats help with %: a literal percent sign is written twice.
    text = f"{', '.join(setting.engines)}: {setting.help}{setting.shown_default}"
    return text.replace("%", "%%")


def settings_table(engines: list[str]) -> str:
    """The settings table of docs/commands.md (Engine options), `--engine` first."""
    bar = "\\|"  # a | inside a table's cell
    rows = ["| option | engine | what it sets |", "|---|---|---|",
            f"| `--engine {bar.join(engines)}` | all | how each level is computed (default"
            " `local`) |"]
    for setting in SETTINGS:
        words = bar.join(setting.choices) if setting.choices else setting.metavar
        aliases = "".join(f" (or `{alias}`)" for alias in setting.aliases)
        rows.append(f"| `{setting.flag} {words}`{aliases} | {', '.join(setting.engines)} |"
                    f" {setting.help}{setting.shown_default} |")
    return "\n".join(rows)
