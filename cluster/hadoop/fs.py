"""`hadoop fs` for the commands mrjob's hadoop runner gives, over HDFS's own RPC (hdfs-native)
instead of a JVM: -ls [-R], -du, -cat, -mkdir [-p], -put (a file or a folder), -rm [-r|-R] [-f]
[-skipTrash], -touchz.

Why: each `hadoop fs` was a JVM of about 2-3.5 s, and mrjob makes ten a level: 40 % of a level's
wall time on the test cluster (24 s of 60). The NameNode and DataNode are the same; only the client
differs. Output is as Hadoop's FsShell prints it (mrjob parses -ls's and -du's lines, and matches
its "No such file" and "File exists" lines). Anything else, or a machine without hdfs-native, exits
NOT_MINE before touching anything, and bin/hadoop runs Hadoop's own FsShell.

    python3 fs.py -ls -R hdfs:///user/root/tmp
"""

from __future__ import annotations

import getpass
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, BinaryIO
from urllib.parse import urlparse

NOT_MINE = 64  # exit status: bin/hadoop runs Hadoop's FsShell instead
PATIENCE = 3.0  # seconds a call may take before fs.py asks whether its NameNode answers at all
FLAGS = {"-ls": {"-R"}, "-du": set(), "-cat": set(), "-mkdir": {"-p"}, "-put": set(),
         "-rm": {"-r", "-R", "-f", "-skipTrash"}, "-touchz": set()}
CHUNK = 1 << 20


class Failed(Exception):
    """One path's failure, said as FsShell says it (`ls: `x': No such file or directory`)."""


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in FLAGS:
        return NOT_MINE
    command, rest = argv[0], argv[1:]
    flags = {arg for arg in rest if arg.startswith("-")}
    paths = [arg for arg in rest if not arg.startswith("-")]
    if not flags <= FLAGS[command] or not paths or (command == "-put" and not _plain_put(paths)):
        return NOT_MINE
    if any(urlparse(path).scheme not in ("", "hdfs") for path in paths[command == "-put":]):
        return NOT_MINE
    try:
        from hdfs_native import Client
    except ImportError:
        return NOT_MINE
    shell = Shell(Client, os.environ.get("HADOOP_CONF_DIR"))
    name = command[1:]
    if command == "-put":
        return _patiently(paths, lambda: shell.report(name, paths[1],
                                                      lambda: shell.put(paths[0], paths[1])))

    def each() -> int:
        status = 0
        for path in paths:
            status |= shell.report(name, path, lambda path=path: getattr(shell, name)(path, flags))
        return status

    return _patiently(paths, each)


def _patiently(paths: list[str], work: Callable[[], int]) -> int:
    """`work`'s exit status; past PATIENCE seconds, unless a NameNode it names (or the default
    file system's) answers at all: hdfs-native retried one that is down for 183 s, where Hadoop's
    FsShell fails in about a second. Only then is pegsearch's reading of the configuration loaded
    (with the kernels, some 2 s): a call that answers at once, as all but this do, never pays it."""
    done: list[int] = []
    worker = threading.Thread(target=lambda: done.append(work()), daemon=True)
    worker.start()
    worker.join(PATIENCE)
    if worker.is_alive():
        from pegsearch.store.hadoop_conf import answers, namenodes, setting, settings

        found = settings()
        named = {urlparse(path).netloc for path in paths if urlparse(path).scheme == "hdfs"}
        uris = [f"hdfs://{key}" if key else setting(found, "fs.defaultFS") for key in named or {""}]
        nodes = [address for uri in uris for address in namenodes(uri, found)]
        if nodes and not any(answers(address) for address in nodes):
            print(f"fs: no NameNode answers at {', '.join(nodes)}: Connection refused", file=sys.stderr)
            return 1
        worker.join()
    return done[0] if done else 1


def _plain_put(paths: list[str]) -> bool:
    """A put of one local file or folder (what mrjob gives: its files, and a job's input folder,
    which went to FsShell, a JVM of 4.4 s a level); many sources go to Hadoop's."""
    return len(paths) == 2 and (os.path.isfile(paths[0]) or os.path.isdir(paths[0]))


class Shell:
    """The commands, each on one path; a URI's authority picks its NameNode (none: the default)."""

    def __init__(self, client: Any, conf: str | None) -> None:
        self.client_type = client
        self.conf = conf
        self.clients: dict[str, Any] = {}

    def report(self, name: str, path: str, work: Callable[[], None]) -> int:
        try:
            work()
            return 0
        except Failed as failed:
            print(f"{name}: `{path}': {failed}", file=sys.stderr)
            return 1
        except FileNotFoundError:
            print(f"{name}: `{path}': No such file or directory", file=sys.stderr)
            return 1
        except (OSError, RuntimeError) as error:
            print(f"{name}: {path}: {error}", file=sys.stderr)
            return 1

    def client(self, path: str) -> tuple[Any, str, str]:
        """The client for `path`, the path on its file system, and the prefix to print it with."""
        parts = urlparse(path)
        where = parts.path if parts.scheme else path
        if not where.startswith("/"):
            where = f"/user/{getpass.getuser()}/{where}"
        key = parts.netloc
        if key not in self.clients:
            url = f"hdfs://{key}" if key else None
            self.clients[key] = self.client_type(url, config_dir=self.conf)
        prefix = f"hdfs://{key}" if parts.scheme else ""
        return self.clients[key], where, prefix

    def matches(self, path: str) -> list[tuple[Any, Any, str]]:
        """The statuses `path` names (a glob may name many): FileNotFoundError if none."""
        client, where, prefix = self.client(path)
        if any(c in where for c in "*?[{"):
            found = client.glob_status(where)
            if not found:
                raise FileNotFoundError(path)
            return [(client, status, prefix) for status in found]
        return [(client, client.get_file_info(where), prefix)]

    def ls(self, path: str, flags: set[str]) -> None:
        for client, status, prefix in self.matches(path):
            if not status.isdir:
                print(_line(status, prefix))
                continue
            children = list(client.list_status(status.path, "-R" in flags))
            if "-R" not in flags:
                print(f"Found {len(children)} items")
            for child in sorted(children, key=lambda s: s.path):
                print(_line(child, prefix))

    def du(self, path: str, _flags: set[str]) -> None:
        for client, status, prefix in self.matches(path):
            children = (list(client.list_status(status.path)) if status.isdir
                        else [status])
            for child in sorted(children, key=lambda s: s.path):
                size = _size(client, child)
                print(f"{size}  {size * (child.replication or 1)}  {prefix}{child.path}")

    def cat(self, path: str, _flags: set[str]) -> None:
        out: BinaryIO = sys.stdout.buffer
        for client, status, _ in self.matches(path):
            if status.isdir:
                raise Failed("Is a directory")
            reader = client.read(status.path)
            try:
                while chunk := reader.read(CHUNK):
                    out.write(chunk)
            finally:
                reader.close()
        out.flush()

    def mkdir(self, path: str, flags: set[str]) -> None:
        client, where, _ = self.client(path)
        if "-p" not in flags and _exists(client, where):
            raise Failed("File exists")
        client.mkdirs(where, create_parent="-p" in flags)

    def put(self, source: str, path: str) -> None:
        """As FsShell: `source` becomes `path`, or goes inside it when `path` is a folder; a
        folder's files and folders are copied under it."""
        client, where, prefix = self.client(path)
        if _exists(client, where):
            if not client.get_file_info(where).isdir:
                raise Failed("File exists")
            where = f"{where.rstrip('/')}/{os.path.basename(source.rstrip('/'))}"
            if _exists(client, where):
                raise Failed("File exists")
        if os.path.isdir(source):
            client.mkdirs(where, create_parent=False)
            for name in sorted(os.listdir(source)):
                self.put(os.path.join(source, name), f"{prefix}{where}/{name}")
            return
        with open(source, "rb") as local:
            writer = client.create(where)
            try:
                shutil.copyfileobj(local, writer, CHUNK)
            finally:
                writer.close()

    def rm(self, path: str, flags: set[str]) -> None:
        try:
            found = self.matches(path)
        except FileNotFoundError:
            if "-f" in flags:
                return
            raise
        for client, status, prefix in found:
            if status.isdir and not flags & {"-r", "-R"}:
                raise Failed("Is a directory")
            client.delete(status.path, recursive=True)
            print(f"Deleted {prefix}{status.path}")

    def touchz(self, path: str, _flags: set[str]) -> None:
        client, where, _ = self.client(path)
        if _exists(client, where):
            if client.get_file_info(where).length:
                raise Failed("Not a zero-length file")
            return
        client.create(where).close()


def _exists(client: Any, where: str) -> bool:
    try:
        client.get_file_info(where)
        return True
    except FileNotFoundError:
        return False


def _size(client: Any, status: Any) -> int:
    """A file's length, or a folder's files' lengths summed."""
    if not status.isdir:
        return status.length
    return sum(child.length for child in client.list_status(status.path, True)
               if not child.isdir)


def _line(status: Any, prefix: str) -> str:
    """One line of `-ls`, as FsShell prints it: -rw-r--r--   1 root supergroup  3276 2026-11-28 14:00 /x"""
    mode = status.permission
    bits = "".join(letter if mode & (1 << (8 - i)) else "-" for i, letter in enumerate("rwxrwxrwx"))
    kind = "d" if status.isdir else "-"
    replication = "-" if status.isdir else str(status.replication or 1)
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(status.modification_time / 1000))
    return (f"{kind}{bits}   {replication} {status.owner} {status.group} "
            f"{status.length:>10} {when} {prefix}{status.path}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
