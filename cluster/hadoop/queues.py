"""The test cluster's YARN queues, as a company's cluster has them: the CapacityScheduler with two
queues under root, `search` (70 % of the cluster, its ACL naming who may submit) and `other`
(30 %, open to anyone), and no `default` queue. A job that names no queue is sent to `other`, the
queue anyone may use, so work nobody placed never takes the share set aside for searches.

What a bank's cluster engineer checks first: ACLs are on (`yarn.acl.enable`), so a queue's ACL is
obeyed; root's ACLs name nobody (" "), since a parent's ACL grants its children's (a root left at
YARN's "*" would open `search` to all); YARN's administrator is the user who started the cluster.

Each queue may grow into idle room (maximum capacity 100 %, one user up to all of it): a search
alone on the cluster runs as fast as before; two queues busy at once each get their share.
"""

from __future__ import annotations

import getpass

SCHEDULER = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"
NOBODY = " "  # an ACL naming no user and no group
SEARCH_GROUP = "search"  # a group whose members may use `search`, beside the cluster's user
CAPACITIES = {"search": 70, "other": 30}  # percent of the cluster each queue is guaranteed
SHARED = "other"  # where a job that names no queue goes


def yarn_settings() -> dict[str, str]:
    """yarn-site.xml's part: ACLs on, the cluster's user YARN's administrator, the
    CapacityScheduler."""
    return {"yarn.acl.enable": "true", "yarn.admin.acl": getpass.getuser(),
            "yarn.resourcemanager.scheduler.class": SCHEDULER}


def capacity_scheduler() -> dict[str, str]:
    """capacity-scheduler.xml: the queues, their shares and ACLs, and where unplaced jobs go."""
    root = "yarn.scheduler.capacity.root"
    queues = {f"{root}.queues": ",".join(CAPACITIES),
              f"{root}.acl_submit_applications": NOBODY,
              f"{root}.acl_administer_queue": NOBODY,
              # u:%user:other sends every user's unplaced job (queue "default") to `other`; a job
              # naming its queue keeps it (queue-mappings-override.enable is off).
              "yarn.scheduler.capacity.queue-mappings": f"u:%user:{SHARED}",
              # Application masters may take half a queue (YARN's 10 % leaves a small cluster's
              # queue room for one: a second Spark session's master waited, then failed).
              "yarn.scheduler.capacity.maximum-am-resource-percent": "0.5"}
    for queue, capacity in CAPACITIES.items():
        queues |= {f"{root}.{queue}.capacity": str(capacity),
                   f"{root}.{queue}.maximum-capacity": "100",
                   f"{root}.{queue}.user-limit-factor": str(100 / capacity),
                   f"{root}.{queue}.acl_administer_queue": getpass.getuser()}
    queues[f"{root}.search.acl_submit_applications"] = f"{getpass.getuser()} {SEARCH_GROUP}"
    queues[f"{root}.other.acl_submit_applications"] = "*"
    return queues
