"""Kerberos for the cluster that `cluster/hadoop/up DIR --kerberos` starts: MIT Kerberos's own KDC
(Debian's krb5-kdc) on 127.0.0.1, its realm PEGSEARCH.TEST, a principal and keytab for each daemon
and one for the user, and the site settings that secure HDFS and YARN with them.

Everything is in DIR/kdc: the KDC's database, kdc.conf (what KRB5_KDC_PROFILE names), krb5.conf
(what KRB5_CONFIG names for MIT's tools and hdfs-native's GSSAPI, and `-Djava.security.krb5.conf`
for Java, which ignores KRB5_CONFIG), the keytabs and the DataNode's TLS keystore. The KDC listens
on a port free when the cluster is first made, over UDP and TCP (Java's client is told to use TCP).

Why each daemon has a principal of its own (nn/, dn/, rm/, nm/, jhs/, HTTP/, all on 127.0.0.1):
each checks the others' (the NameNode accepts a DataNode only as dfs.datanode.kerberos.principal),
as on a company's cluster. Data transfer is authenticated by SASL with the NameNode's block tokens
(dfs.data.transfer.protection), so no DataNode needs a privileged port or root; Hadoop then
demands that the DataNode's web server be HTTPS only, with a keystore made here by `keytool`.
"""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
from pathlib import Path

REALM = "PEGSEARCH.TEST"
HOST = "127.0.0.1"
# The daemons' principals, each `KIND/127.0.0.1@REALM` with its keytab DIR/kdc/KIND.keytab.
SERVICES = ("nn", "dn", "rm", "nm", "jhs", "HTTP")
# Which user each daemon's principal acts as, as a company's cluster maps them: HDFS's daemons
# are `hdfs` (its superuser), YARN's `yarn` (the ResourceManager renews the tokens a job's
# NodeManager asks to renew as the same user), the JobHistoryServer `mapred`; a user principal
# is its first component.
SERVICE_USERS = {"nn": "hdfs", "dn": "hdfs", "rm": "yarn", "nm": "yarn", "jhs": "mapred"}
AUTH_TO_LOCAL = "\n".join([*(f"RULE:[2:$1@$0]({kind}@{REALM})s/.*/{user}/"
                             for kind, user in SERVICE_USERS.items()), "DEFAULT"])
PASSWORD = "pegsearch-test"  # the KDC's master key and the keystore's: test data, never a secret
LIFETIME = "1h"  # a ticket's lifetime unless `up --ticket-lifetime` says otherwise
PACKAGES = "krb5-kdc krb5-admin-server krb5-user"  # Debian's, for the commands below


def principal(kind: str) -> str:
    return f"{kind}/{HOST}@{REALM}"


def user_principal() -> str:
    """The user's principal: this machine's user name, so that HDFS and YARN (which take a
    principal's first component as its user) see the user whose home and containers they are."""
    return f"{getpass.getuser()}@{REALM}"


def home(folder: Path) -> Path:
    return folder / "kdc"


def keytab(folder: Path, kind: str) -> Path:
    return home(folder) / f"{kind}.keytab"


def user_keytab(folder: Path) -> Path:
    return home(folder) / "user.keytab"


def environment(folder: Path) -> dict[str, str]:
    """What MIT's tools (and the KDC) need to find this realm's configuration and database."""
    return {**os.environ, "KRB5_CONFIG": str(home(folder) / "krb5.conf"),
            "KRB5_KDC_PROFILE": str(home(folder) / "kdc.conf")}


def missing_tools() -> list[str]:
    return [tool for tool in ("krb5kdc", "kdb5_util", "kadmin.local", "kinit", "keytool")
            if shutil.which(tool) is None and not Path("/usr/sbin", tool).exists()]


def prepare(folder: Path, port: int, lifetime: str) -> None:
    """Make the realm in DIR/kdc: its configuration (the KDC on 127.0.0.1:`port`, tickets of
    `lifetime`, renewable for a day), its database, every principal with its keytab, and the
    DataNode's keystore."""
    kdc = home(folder)
    kdc.mkdir(parents=True, exist_ok=True)
    (kdc / "kdc.conf").write_text(
        f"[kdcdefaults]\n kdc_ports = {port}\n kdc_tcp_ports = {port}\n"
        f"[realms]\n {REALM} = {{\n  database_name = {kdc / 'principal'}\n"
        f"  key_stash_file = {kdc / 'stash'}\n  acl_file = {kdc / 'kadm5.acl'}\n"
        f"  max_life = {lifetime}\n  max_renewable_life = 1d\n"
        "  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal\n"
        " }\n"
        f"[logging]\n kdc = FILE:{folder / 'logs' / 'kdc.log'}\n")
    # Java's Kerberos client: TCP (udp_preference_limit 1), and 127.0.0.1 taken as it is, never
    # turned into `localhost` by a reverse lookup (rdns, dns_canonicalize_hostname).
    (kdc / "krb5.conf").write_text(
        f"[libdefaults]\n default_realm = {REALM}\n dns_lookup_kdc = false\n"
        " dns_lookup_realm = false\n rdns = false\n dns_canonicalize_hostname = false\n"
        f" udp_preference_limit = 1\n ticket_lifetime = {lifetime}\n renew_lifetime = 1d\n"
        " forwardable = true\n"
        "  default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96\n"
        "  default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96\n"
        f"[realms]\n {REALM} = {{\n  kdc = {HOST}:{port}\n }}\n"
        f"[domain_realm]\n {HOST} = {REALM}\n")
    (kdc / "kadm5.acl").write_text(f"*/admin@{REALM} *\n")
    env = environment(folder)
    run(["kdb5_util", "create", "-s", "-r", REALM, "-P", PASSWORD], env)
    for kind in SERVICES:
        add(folder, principal(kind), keytab(folder, kind), lifetime, env)
    add(folder, user_principal(), user_keytab(folder), lifetime, env)
    keystore(folder)


def add(folder: Path, name: str, tab: Path, lifetime: str, env: dict[str, str]) -> None:
    """A principal with a random key, written to its keytab."""
    run(["kadmin.local", "-r", REALM, "-q",
         f"addprinc -randkey -maxlife {lifetime} -maxrenewlife 1d {name}"], env)
    run(["kadmin.local", "-r", REALM, "-q", f"ktadd -k {tab} {name}"], env)


def keystore(folder: Path) -> None:
    """A self-signed key for the DataNodes' HTTPS (every node's address in it), and a truststore
    that holds its certificate, for ssl-server.xml and ssl-client.xml."""
    kdc = home(folder)
    names = ",".join(f"ip:127.0.0.{k}" for k in range(1, 255))
    run(["keytool", "-genkeypair", "-noprompt", "-alias", "hadoop", "-keyalg", "RSA",
         "-keysize", "2048", "-validity", "365", "-dname", f"CN={HOST}", "-ext", f"SAN={names}",
         "-keystore", str(kdc / "keystore.jks"), "-storepass", PASSWORD, "-keypass", PASSWORD],
        os.environ)
    run(["keytool", "-exportcert", "-alias", "hadoop", "-keystore", str(kdc / "keystore.jks"),
         "-storepass", PASSWORD, "-file", str(kdc / "hadoop.crt")], os.environ)
    run(["keytool", "-importcert", "-noprompt", "-alias", "hadoop", "-file",
         str(kdc / "hadoop.crt"), "-keystore", str(kdc / "truststore.jks"),
         "-storepass", PASSWORD], os.environ)


def run(command: list[str], env: dict[str, str]) -> None:
    """One of MIT's or the JDK's tools; its own error (CalledProcessError's text) if it fails."""
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(command[:2])} failed: "
                           + (done.stderr.strip() or done.stdout.strip()).splitlines()[-1])


def kdc_command(folder: Path) -> tuple[list[str], dict[str, str]]:
    """The KDC in the foreground (-n), as `up` starts and `down` stops every daemon."""
    return ["krb5kdc", "-n", "-r", REALM, "-P", str(home(folder) / "kdc.pid.krb5")], \
        environment(folder)


def kdc_address(folder: Path) -> str:
    for line in (home(folder) / "krb5.conf").read_text().splitlines():
        if line.strip().startswith("kdc ="):
            return line.split("=", 1)[1].strip()
    raise RuntimeError(f"{home(folder) / 'krb5.conf'} names no KDC")


def jvm_options(folder: Path) -> list[str]:
    """What a daemon's JVM needs: the realm's krb5.conf (Java reads no KRB5_CONFIG)."""
    return [f"-Djava.security.krb5.conf={home(folder) / 'krb5.conf'}"]


def site_settings(folder: Path) -> dict[str, dict[str, str]]:
    """What secures the cluster, by site file: Kerberos for every RPC, with its privacy (RPC
    encrypted), service-level authorization, each daemon's principal and keytab, block tokens and
    SASL on data transfer. The web servers keep Hadoop's simple authentication (no SPNEGO)."""
    tab = {kind: str(keytab(folder, kind)) for kind in SERVICES}
    return {
        "core-site.xml": {
            "hadoop.security.authentication": "kerberos",
            "hadoop.security.authorization": "true",
            "hadoop.rpc.protection": "privacy",
            "hadoop.security.auth_to_local": AUTH_TO_LOCAL,
        },
        "hdfs-site.xml": {
            "dfs.block.access.token.enable": "true",
            "dfs.data.transfer.protection": "authentication",
            "dfs.namenode.kerberos.principal": principal("nn"),
            "dfs.namenode.keytab.file": tab["nn"],
            "dfs.datanode.kerberos.principal": principal("dn"),
            "dfs.datanode.keytab.file": tab["dn"],
            "dfs.web.authentication.kerberos.principal": principal("HTTP"),
            "dfs.web.authentication.kerberos.keytab": tab["HTTP"],
            "dfs.namenode.kerberos.internal.spnego.principal": principal("HTTP"),
        },
        "yarn-site.xml": {
            # Secured, Hadoop reads a container's logs (to gather them on HDFS) and a map's output
            # (MapReduce's shuffle) only through SecureIOUtils, which needs Hadoop's native
            # library, libhadoop.so, shipped by every distribution but not on Maven Central: its
            # NodeManager stopped at the first application's end. The logs stay on the node.
            "yarn.log-aggregation-enable": "false",
            "yarn.resourcemanager.principal": principal("rm"),
            "yarn.resourcemanager.keytab": tab["rm"],
            "yarn.nodemanager.principal": principal("nm"),
            "yarn.nodemanager.keytab": tab["nm"],
        },
        "mapred-site.xml": {
            "mapreduce.jobhistory.principal": principal("jhs"),
            "mapreduce.jobhistory.keytab": tab["jhs"],
        },
    }


def datanode_settings(address: str, port: int) -> dict[str, str]:
    """A DataNode's own: its web server HTTPS only (Hadoop refuses a secure DataNode with SASL
    data transfer otherwise), on `address`:`port`."""
    return {"dfs.http.policy": "HTTPS_ONLY", "dfs.datanode.https.address": f"{address}:{port}"}


def write_ssl(folder: Path, conf: Path) -> None:
    """ssl-server.xml and ssl-client.xml in `conf`, naming the keystore and truststore."""
    kdc = home(folder)
    for side in ("server", "client"):
        values = {f"ssl.{side}.truststore.location": kdc / "truststore.jks",
                  f"ssl.{side}.truststore.password": PASSWORD}
        if side == "server":
            values.update({"ssl.server.keystore.location": kdc / "keystore.jks",
                           "ssl.server.keystore.password": PASSWORD,
                           "ssl.server.keystore.keypassword": PASSWORD})
        properties = "".join(f"  <property><name>{key}</name><value>{value}</value></property>\n"
                             for key, value in values.items())
        (conf / f"ssl-{side}.xml").write_text(
            f'<?xml version="1.0"?>\n<configuration>\n{properties}</configuration>\n')


def as_service(folder: Path, kind: str) -> dict[str, str]:
    """An environment whose ticket is service `kind`'s (kinit from its keytab, in a credentials
    cache of its own in DIR/kdc): how `up` makes HDFS's shared folders as its superuser."""
    env = environment(folder)
    env["KRB5CCNAME"] = f"FILE:{home(folder) / f'{kind}.ccache'}"
    env.pop("KRB5_CLIENT_KTNAME", None)
    run(["kinit", "-kt", str(keytab(folder, kind)), principal(kind)], env)
    return env


def exports(folder: Path) -> list[str]:
    """The lines `up` prints beside its others: the realm's configuration, a credentials cache in
    DIR/kdc (so `kinit` leaves the machine's own alone), the user's keytab (MIT's GSSAPI, so
    hdfs-native's, takes a ticket from it itself; Java's clients need `kinit`) and, as a comment,
    the `kinit` that gets the user's ticket."""
    return [f"export KRB5_CONFIG={home(folder) / 'krb5.conf'}",
            f"export KRB5CCNAME=FILE:{home(folder) / 'user.ccache'}",
            f"export KRB5_CLIENT_KTNAME={user_keytab(folder)}",
            f'# kinit -kt "$KRB5_CLIENT_KTNAME" {user_principal()}']
