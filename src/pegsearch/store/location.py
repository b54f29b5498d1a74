"""Where a run lives: a path or URI turned into a pyarrow filesystem and a folder on it.

Clusters keep their data in S3 (EMR, Kubernetes), GCS (Dataproc) or HDFS (YARN); `pyarrow.fs`
speaks to the first two and to local disk. Its own HDFS client needs libhdfs, a native library of
Hadoop's distribution that neither pip nor Maven installs, and a JVM beside it: HDFS is reached
instead through `hdfs-native`, a client of HDFS's own protocol (no JVM, no Hadoop install; it reads
HADOOP_CONF_DIR's site files for HA nameservices and Kerberos as Hadoop's client does), put behind
pyarrow's filesystem interface. A `Location` hides which one a run is on: the rest of pegsearch
reads, writes, lists and removes whole named files relative to it.

Nothing here relies on renaming, because object stores cannot rename atomically. A part file is
written once under a name no other attempt uses; a small file that must change whole (the
manifest) is `replace`d: one PUT on an object store, a temporary file renamed over it (with fsync)
on a filesystem.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import os
import re
import secrets
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.fs as pafs

from pegsearch.environment import environment_seconds
from pegsearch.errors import UsageError
from pegsearch.store import hadoop_conf

T = TypeVar("T")

OBJECT_STORES = ("s3", "gs")
PATIENT_STORES = (*OBJECT_STORES, "hdfs")  # asked again while they answer "not now"
# Seconds to open a connection and to finish one request, and tries per request: an unreachable
# store is reported within seconds rather than after the SDK's minutes of retries.
CONNECT_SECONDS = 5
REQUEST_SECONDS = 60
ATTEMPTS = 3
# How long a store that does not answer (an object store's gateway restarting, HDFS's DataNode
# stopped, the network cut) is asked again before the search gives up: the clients' own retries
# cover a second or two, an outage takes tens of seconds. PEGSEARCH_STORE_PATIENCE (seconds) sets
# it; the pauses between attempts double from PAUSE_SECONDS up to PAUSE_MOST.
PATIENCE_SECONDS = 120.0
PAUSE_SECONDS, PAUSE_MOST = 0.5, 8.0
# An object store's answers that say "not now", not "no": no connection, a timeout, a server's 5xx
# (the AWS SDK's words for S3; google-cloud-cpp's status codes for GCS, whose own retries have
# given up by then).
TRANSIENT = re.compile(r"AWS Error (NETWORK_CONNECTION|INTERNAL_FAILURE|SERVICE_UNAVAILABLE|SLOW_DOWN"
                       r"|THROTTLING|REQUEST_TIMEOUT)|HTTP (status|response code):? 5\d\d"
                       r"|curlCode: (6|7|28|52|55|56)\b|Connection reset|Couldn't connect"
                       r"|google::cloud::Status\((UNAVAILABLE|INTERNAL|DEADLINE_EXCEEDED"
                       r"|RESOURCE_EXHAUSTED)\b"
                       # hdfs-native's, with the NameNode's when no DataNode is live, and a
                       # write whose DataNode went down under it (a new pipeline skips it)
                       r"|Failed to complete file in time|could only be written to 0 of"
                       r"|Datanode connection closed"
                       # its NameNode gone mid-call (killed, failing over: the next call finds
                       # the NameNode that took over)
                       r"|RPC listener disconnected"
                       r"|Connection refused \(os error 111\)|SafeModeException", re.IGNORECASE)
URI_HELP = ("give a path, file:///..., s3://BUCKET/PATH, gs://BUCKET/PATH or"
            " hdfs://NAMENODE:PORT/PATH")


@dataclass(frozen=True)
class Location:
    """A folder on some filesystem: `fs` and the `base` path on it, and the `uri` users see."""

    fs: pafs.FileSystem
    base: str
    uri: str
    scheme: str

    # ----- making one
    @classmethod
    def parse(cls, text: str | Path) -> Location:
        """The location a user wrote: a local path, or a URI with a scheme pyarrow reaches."""
        text = str(text)
        if not text:
            raise UsageError(f"an empty run location: {URI_HELP}")
        scheme = urlparse(text).scheme.lower() if "://" in text else ""
        half = re.match(r"(s3|gs|gcs|hdfs|viewfs|file):/?(?!/)", text, re.IGNORECASE)
        if not scheme and half:  # hdfs:/runs/x would be a local folder named "hdfs:"
            raise UsageError(f"{text}: a URI needs two slashes after '{half[1]}:'"
                             f" ({half[1]}://...); for a local folder of that name write ./{text}")
        if scheme in ("", "file"):
            path = urlparse(text).path if scheme else text
            base = os.path.abspath(os.path.expanduser(path))
            return cls(pafs.LocalFileSystem(), base, text if scheme else base, "file")
        if scheme in ("s3", "gs", "gcs"):
            base = _bucket_path(text)
        if scheme == "s3":
            return cls(_s3(text), base, f"s3://{base}", "s3")
        if scheme in ("gs", "gcs"):
            return cls(_gcs(text), base, f"gs://{base}", "gs")
        if scheme in ("hdfs", "viewfs"):
            base = urlparse(text).path.rstrip("/")
            if not base:
                raise UsageError(f"{text}: name a folder on the filesystem, {scheme}://NAMENODE/PATH")
            return cls(_hdfs(text), base, text.rstrip("/"), "hdfs")
        raise UsageError(f"{text}: unknown storage scheme '{scheme}://'; {URI_HELP}")

    def __truediv__(self, name: str) -> Location:
        return Location(self.fs, self.path(name), f"{self.uri}/{name}", self.scheme)

    def __str__(self) -> str:
        return self.uri

    @property
    def local(self) -> Path | None:
        """The folder as a local path, or None on a remote store."""
        return Path(self.base) if self.scheme == "file" else None

    @property
    def object_store(self) -> bool:
        return self.scheme in OBJECT_STORES

    def path(self, name: str = "") -> str:
        return f"{self.base}/{name}" if name else self.base

    def free_bytes(self) -> int | None:
        """The bytes free on the folder's disk (None on a store whose room is not ours to tell)."""
        if self.local is None:
            return None
        folder = self.local
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        return shutil.disk_usage(folder).free

    # ----- checking
    def check(self) -> None:
        """Reach the store once, so a wrong endpoint, missing bucket or missing credentials is one
        line before any work rather than an error halfway through a level. A bad
        PEGSEARCH_STORE_PATIENCE is refused here too, on local disk as well: it is the user's
        mistake whichever store this run happens to use."""
        store_patience()
        try:
            info = self.fs.get_file_info(self.base)
            if self.object_store and "/" not in self.base:
                return  # the bucket itself: reachable
            bucket = self.base.split("/", 1)[0]
            if self.object_store and self.fs.get_file_info(bucket).type == pafs.FileType.NotFound:
                raise UsageError(f"{self.uri}: bucket '{bucket}' does not exist; create it first")
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            verb = "use" if self.scheme == "file" else "reach"
            raise UsageError(f"cannot {verb} {self.uri}: {reason(exc)}; {_advice(self.scheme)}") \
                from None
        if info.type == pafs.FileType.File:
            raise UsageError(f"{self.uri} is a file, not a folder for a run; choose another location")

    # ----- reading
    def patiently(self, action: Callable[[], T]) -> T:
        """Do a whole store action (a file read or written whole, a listing, a removal), and on an
        object store that does not answer do it again, the pauses doubling, until it answers or
        PATIENCE_SECONDS have passed; then its last error is raised as any store error is. Every
        action here may be repeated: a file is written whole under its own name (a repeat writes
        the same bytes again) and a manifest is one PUT.

        A store once waited for in vain is asked once per action until it answers again: the
        search's cleanup (recording how it ended, letting go of its lock) then fails at once
        rather than waiting out its patience again for each request."""
        if self.scheme not in PATIENT_STORES:
            return action()
        store = (self.scheme, urlparse(self.uri).netloc)  # a bucket, or an HDFS NameNode
        patience = 0.0 if store in _unanswered else store_patience()
        deadline, pause, told = time.monotonic() + patience, PAUSE_SECONDS, False
        while True:
            try:
                done = action()
                _unanswered.discard(store)
                return done
            except OSError as exc:
                if isinstance(exc, FileNotFoundError) or not TRANSIENT.search(str(exc)):
                    raise
                if time.monotonic() + pause > deadline:
                    _unanswered.add(store)
                    raise
                if not told:  # once an outage: the user sees why the search waits
                    _log.warning("pegsearch: %s does not answer (%s); trying again for up to"
                                 " %.0f s", self.uri, _first_line(exc), patience)
                    told = True
            time.sleep(pause)
            pause = min(2 * pause, PAUSE_MOST)

    def exists(self, name: str = "") -> bool:
        return self.patiently(lambda: self.fs.get_file_info(self.path(name)).type
                              != pafs.FileType.NotFound)

    def is_file(self, name: str) -> bool:
        return self.patiently(lambda: self.fs.get_file_info(self.path(name)).type
                              == pafs.FileType.File)

    def read(self, name: str) -> bytes:
        """A whole file's bytes (FileNotFoundError when it is not there)."""
        def whole() -> bytes:
            with self.fs.open_input_stream(self.path(name)) as stream:
                return stream.read()
        return self.patiently(whole)

    def files(self, name: str = "") -> dict[str, int]:
        """Every file below `name`, recursively: its path relative to this folder and its size."""
        return self.patiently(lambda: self._files(name))

    def _files(self, name: str) -> dict[str, int]:
        top = self.path(name)
        if self.fs.get_file_info(top).type != pafs.FileType.Directory:
            return {}
        try:
            found = self.fs.get_file_info(pafs.FileSelector(top, recursive=True))
        except FileNotFoundError:  # an object store's folder whose objects were all deleted
            return {}
        return {info.path[len(self.base) + 1:]: info.size for info in found
                if info.type == pafs.FileType.File}

    def folders(self) -> list[str]:
        """The names of the folders directly in this one."""
        return self.patiently(self._folders)

    def _folders(self) -> list[str]:
        if self.fs.get_file_info(self.base).type != pafs.FileType.Directory:
            return []
        if self.scheme == "gs":
            # pyarrow lists only GCS's folder marker objects as folders, and a folder that files
            # were written into has none: the folders are read off the files' names instead.
            return sorted({name.split("/", 1)[0] for name in self._files("") if "/" in name})
        try:
            found = self.fs.get_file_info(pafs.FileSelector(self.base))
        except FileNotFoundError:
            return []
        return sorted(info.base_name for info in found if info.type == pafs.FileType.Directory)

    # ----- writing
    def make(self) -> None:
        """Create the folder (and its parents). On an object store folders are only prefixes."""
        self.patiently(lambda: self.fs.create_dir(self.base, recursive=True))

    def write(self, name: str, data: bytes) -> None:
        """Write a new file whole; on local disk it is on the disk (fsync) before this returns, so
        a manifest that lists it never outlives it in a crash. A write that fails removes what it
        wrote: on a full disk those bytes are the room needed to record how the run ended."""
        target = self.path(name)
        try:
            if self.scheme == "file":
                with open(target, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                return
            self.patiently(lambda: self._put(target, data))
        except BaseException:
            with contextlib.suppress(OSError):  # once: the store may be what failed
                self.fs.delete_file(target)
            raise

    def _put(self, target: str, data: bytes) -> None:
        with self.fs.open_output_stream(target) as stream:
            stream.write(data)

    def replace(self, name: str, data: bytes) -> None:
        """Replace a file whole, so a reader sees the old or the new bytes, never a mix."""
        if self.object_store:
            self.write(name, data)  # one PUT: an object is replaced atomically
            return
        temporary = f"{name}.{secrets.token_hex(6)}.tmp"  # unique: two writers never share it
        self.write(temporary, data)
        if self.scheme == "file":
            os.replace(self.path(temporary), self.path(name))
            sync_folder(Path(self.path(name)).parent)
        else:
            self.patiently(lambda: self._rename_over(temporary, name, data))

    def _rename_over(self, temporary: str, name: str, data: bytes) -> None:
        """HDFS renames atomically. A rename whose answer was lost (its NameNode killed as it
        answered: hdfs-native says its RPC listener disconnected, and the rename is sent again,
        to the NameNode that took over, on a connection HDFS's retry cache does not know) finds
        its source gone: it was made if the target holds these bytes (the temporary's name was
        this writer's alone)."""
        try:
            self.fs.move(self.path(temporary), self.path(name))
        except FileNotFoundError:
            if self.read(name) != data:  # a target not there is FileNotFoundError too
                raise

    def remove(self, name: str) -> None:
        def delete() -> None:
            with contextlib.suppress(FileNotFoundError):
                self.fs.delete_file(self.path(name))
        self.patiently(delete)

    def remove_tree(self, name: str) -> None:
        """Remove a folder and everything in it. On GCS pyarrow removes the files, then the
        folder's marker object, and a folder that files were written into has none: its
        FileNotFoundError comes once the folder is gone."""
        def delete() -> None:
            with contextlib.suppress(FileNotFoundError):
                self.fs.delete_dir(self.path(name))
        if self.exists(name):
            self.patiently(delete)


_log = logging.getLogger(__name__)
_unanswered: set[tuple[str, str]] = set()  # (scheme, bucket or NameNode) of stores waited for in vain


def store_patience() -> float:
    """PATIENCE_SECONDS, or the seconds PEGSEARCH_STORE_PATIENCE gives (refused in one line unless
    it is a number of seconds, 0 or more)."""
    return environment_seconds("PEGSEARCH_STORE_PATIENCE", PATIENCE_SECONDS,
                               "how long to wait for an object store that does not answer")


def _bucket_path(text: str) -> str:
    """`BUCKET/PATH` of an object-store URI, refused unless it names a bucket and its path has no
    empty segment (object keys such as `a//b` are legal but never what a user meant)."""
    parsed = urlparse(text)
    base = f"{parsed.netloc}{parsed.path}".rstrip("/")
    if not parsed.netloc or "//" in base:
        raise UsageError(f"{text}: not a bucket and path; write {parsed.scheme}://BUCKET/PATH")
    return base


def close_stores() -> None:
    """Shut the S3 client down before the interpreter exits: pyarrow's AWS SDK threads otherwise
    may abort the process at exit ("terminate called without an active exception", SIGABRT) after
    the work is done. Called by the command once it has finished with every run. A process that
    never made an S3 filesystem needs it too: skipping it there, `verify` of a local run once
    aborted so at exit."""
    gc.collect()  # the last Location may still be waiting in a reference cycle
    pafs.finalize_s3()


def sync_folder(folder: Path) -> None:
    """fsync a local folder, so the names in it (renames, new files) survive a crash."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _s3(uri: str) -> pafs.S3FileSystem:
    """An S3 filesystem configured the way the AWS tools are: AWS_ENDPOINT_URL (or
    AWS_ENDPOINT_URL_S3) for an S3-compatible store, AWS_REGION, and credentials from
    AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, else the SDK's usual chain
    (AWS_PROFILE, ~/.aws, instance roles). pyarrow itself ignores AWS_ENDPOINT_URL.

    The AWS SDK in pyarrow sends trailing checksums with aws-chunked framing by default; some
    S3-compatible stores keep that framing inside the object. Checksums only when required keeps
    objects byte-exact everywhere; pegsearch checks every part's SHA-256 itself.
    """
    os.environ.setdefault("AWS_REQUEST_CHECKSUM_CALCULATION", "WHEN_REQUIRED")
    os.environ.setdefault("AWS_RESPONSE_CHECKSUM_VALIDATION", "WHEN_REQUIRED")
    options: dict = {"connect_timeout": CONNECT_SECONDS, "request_timeout": REQUEST_SECONDS,
                     "retry_strategy": pafs.AwsStandardS3RetryStrategy(max_attempts=ATTEMPTS)}
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:
        parsed = urlparse(endpoint if "://" in endpoint else f"https://{endpoint}")
        options.update(endpoint_override=parsed.netloc + parsed.path.rstrip("/"),
                       scheme=parsed.scheme)
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if region:
        options["region"] = region
    key, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
    if key and secret:
        options.update(access_key=key, secret_key=secret,
                       session_token=os.environ.get("AWS_SESSION_TOKEN"))
    try:
        return pafs.S3FileSystem(**options)
    except (OSError, ValueError) as exc:
        raise UsageError(f"{uri}: cannot set up S3 ({_first_line(exc)}); {_advice('s3')}") from None


def _gcs(uri: str) -> pafs.GcsFileSystem:
    """A GCS filesystem with Google's Application Default Credentials, or, where
    STORAGE_EMULATOR_HOST names an emulator (`http://127.0.0.1:4443`, as Google's own client
    libraries read it), that endpoint with no credentials: emulators check none, and asking for
    the default ones off Google Cloud first probes the metadata server of a VM that is not there.
    pyarrow itself ignores STORAGE_EMULATOR_HOST."""
    options: dict = {"retry_time_limit": timedelta(seconds=REQUEST_SECONDS / 4)}
    emulator = os.environ.get("STORAGE_EMULATOR_HOST")
    if emulator:
        parsed = urlparse(emulator if "://" in emulator else f"http://{emulator}")
        options.update(endpoint_override=parsed.netloc + parsed.path.rstrip("/"),
                       scheme=parsed.scheme, anonymous=True)
    try:
        return pafs.GcsFileSystem(**options)
    except (OSError, ValueError) as exc:
        raise UsageError(f"{uri}: cannot set up GCS ({_first_line(exc)}); {_advice('gs')}") from None


class _HdfsHandler(pafs.FSSpecHandler):
    """hdfs-native's fsspec filesystem as pyarrow's. Its errors become the OSErrors every store
    raises (hdfs-native raises RuntimeError with the NameNode's Java exception and stack trace),
    and a rename replaces its target: HDFS renames atomically with its OVERWRITE option, which is
    how a manifest is replaced."""

    def move(self, src: str, dest: str) -> None:
        self.fs.mv(src, dest, overwrite=True)

    def open_input_stream(self, path: str) -> pa.PythonFile:
        return pa.PythonFile(_HdfsFile(self.fs.open(path, mode="rb")), mode="r")

    def open_input_file(self, path: str) -> pa.PythonFile:
        return self.open_input_stream(path)

    def open_output_stream(self, path: str, metadata: dict) -> pa.PythonFile:
        return pa.PythonFile(_HdfsFile(self.fs.open(path, mode="wb")), mode="w")


class _HdfsFile:
    """An hdfs-native file whose errors (a DataNode gone mid-write) are OSErrors."""

    def __init__(self, file: object) -> None:
        self._file = file

    def __getattr__(self, name: str) -> object:
        found = getattr(self._file, name)
        return _hdfs_errors(found) if callable(found) else found


class BlocksMissing(OSError):
    """A file HDFS lists whose blocks no DataNode gives now: every DataNode holding a replica is
    down (or there was one replica, on a node that is). Nothing is wrong with the file; it can be
    read again once one of them is back."""


# What hdfs-native says when it tried every replica of a block (or the NameNode knows of none
# alive), and what Hadoop's own client says.
NO_REPLICA = re.compile(r"All DataNodes failed|BlockMissingException|Could not obtain block")


def _hdfs_errors(method: Callable[..., T]) -> Callable[..., T]:
    """The method, raising an hdfs-native error as an OSError whose text is the Java exception's
    first line ('Permission denied: user=alice, access=WRITE, inode="/runs"...'); a block no
    DataNode gives as BlocksMissing."""
    @functools.wraps(method)
    def call(*args: object, **kwargs: object) -> T:
        try:
            return method(*args, **kwargs)
        except RuntimeError as exc:
            if NO_REPLICA.search(str(exc)):
                raise BlocksMissing("no DataNode that holds its blocks answers") from None
            found = re.search(r'RPCError\("[\w.$]*?(\w+)", "(.*?)(\\n|"\))', str(exc))
            kind, text = (found[1], found[2].replace('\\"', '"')) if found else ("", _first_line(exc))
            error = {"AccessControlException": PermissionError,
                     "FileNotFoundException": FileNotFoundError}.get(kind, OSError)
            raise error(text) from None
    return call


for _method in ("get_file_info", "get_file_info_selector", "create_dir", "delete_dir",
                "delete_dir_contents", "delete_file", "move", "copy_file", "open_input_stream",
                "open_output_stream", "open_append_stream"):
    setattr(_HdfsHandler, _method, _hdfs_errors(getattr(_HdfsHandler, _method)))


def _hdfs(uri: str) -> pafs.PyFileSystem:
    """A filesystem on the HDFS (or viewfs) cluster the URI names, through hdfs-native: the
    NameNode's address in the URI, or a nameservice HADOOP_CONF_DIR's site files define."""
    try:
        from hdfs_native.fsspec import HdfsFileSystem, ViewfsFileSystem
    except ImportError:
        raise UsageError(f"{uri}: runs on HDFS need the hdfs-native client: pip install"
                         " 'pegsearch[hdfs]'") from None
    parsed = urlparse(uri)
    try:
        port = parsed.port
    except ValueError:
        raise UsageError(f"{uri}: the NameNode's port is not a number; {URI_HELP}") from None
    found = hadoop_conf.settings()
    nodes = hadoop_conf.namenodes(uri, found)
    if nodes and not any(hadoop_conf.answers(address) for address in nodes):
        raise UsageError(f"cannot reach {uri}: no NameNode answers at {', '.join(nodes)}; check the"
                         " address and port (fs.defaultFS in HADOOP_CONF_DIR's core-site.xml) and"
                         " that HDFS is up")
    if nodes and all(hadoop_conf.web_server(address) for address in nodes):
        raise UsageError(f"{uri}: {nodes[0]} is a web server (a NameNode's web port?), not a"
                         " NameNode's RPC address: give the port fs.defaultFS names in"
                         " HADOOP_CONF_DIR's core-site.xml (often 8020 or 9000)")
    hadoop_conf.check_kerberos(found, uri, keytab_will_do=True)
    kind = ViewfsFileSystem if parsed.scheme.lower() == "viewfs" else HdfsFileSystem
    try:
        filesystem = kind(host=parsed.hostname, port=port)
    except (OSError, ValueError, RuntimeError) as exc:
        raise UsageError(f"{uri}: cannot set up HDFS ({_first_line(exc)}); {_advice('hdfs')}") \
            from None
    return pafs.PyFileSystem(_HdfsHandler(filesystem))


def _advice(scheme: str) -> str:
    return {"s3": "check AWS_ENDPOINT_URL, AWS_REGION and the credentials (AWS_ACCESS_KEY_ID,"
                  " AWS_SECRET_ACCESS_KEY or AWS_PROFILE)",
            "gs": "check the Google credentials (gcloud auth application-default login) and"
                  " STORAGE_EMULATOR_HOST",
            "hdfs": "check the NameNode's address and port (fs.defaultFS in HADOOP_CONF_DIR's"
                    " core-site.xml) and that it is up"}.get(
        scheme, "check that the folder exists and can be written")


def reason(exc: OSError | ValueError) -> str:
    """A store's error in a few words ('No space left on device', 'Read-only file system'), not
    pyarrow's paragraph that repeats the path."""
    detail = re.search(r"Detail: \[errno \d+\] (.+)", str(exc))
    if detail:
        return detail[1].strip()
    return getattr(exc, "strerror", None) or _first_line(exc)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
