"""What the engines that start Java need before they do: a Java runtime, and quiet log4j settings.

Spark (directly, or under mrjob's spark runner) fails without Java with a page of shell errors, and
logs through log4j2 at a level that floods the terminal; both are settled here, before the JVM
starts.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pegsearch.errors import UsageError


def check_java(who: str) -> None:
    """Refuse, in one line naming `who` needs it, to go on without a Java runtime."""
    home = os.environ.get("JAVA_HOME")
    if home:
        if not os.access(Path(home, "bin", "java"), os.X_OK):
            raise UsageError(f"JAVA_HOME is {home}, which has no bin/java: {who} needs Java 17 or"
                             " 21; point JAVA_HOME at one")
    elif shutil.which("java") is None:
        raise UsageError(f"{who} needs Java 17 or 21, but no `java` is on PATH and JAVA_HOME is"
                         " not set: install a JDK or set JAVA_HOME")


def log4j_file(folder: Path, properties: str) -> str:
    """Write log4j2 `properties` into `folder`; returns the file's URI for
    ``-Dlog4j2.configurationFile``."""
    config = folder / "log4j2.properties"
    config.write_text(properties, encoding="utf-8")
    return config.as_uri()
