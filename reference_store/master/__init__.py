"""The master: object metadata, placement, leases, eviction, tenants. No object bytes pass here.

A put is two-phase. ``PUT_START`` places each object on ``replicas`` distinct nodes (best effort)
and returns where to write; the client writes the bytes straight to the nodes and then sends
``PUT_END`` (the object becomes readable) or ``PUT_REVOKE``. Only the starting client may end a
put; a put left unfinished for ``put_timeout_s`` is taken over by the next client that puts the key.

``LOCATE`` grants a read lease (``lease_ttl_s``): a leased object is never evicted and cannot be
removed without ``force``. ``EXISTS`` does NOT take a lease, so existence probes cannot starve
eviction (a complaint about Mooncake). When a put needs room the master evicts synchronously,
least recently used first, skipping leased and hard-pinned objects, soft-pinned ones last; a
background pass also keeps usage under the high watermark.

Nodes heartbeat; a node silent for ``node_ttl_s`` is dropped and objects with no replica left
become misses. Object ids grow across restarts (start time in the high 32 bits), and after a
restart nodes re-register and report what they hold: the object table is rebuilt from those
reports, so objects on surviving nodes stay readable. ``state_dir`` keeps quota changes.

Dropping an object under the lock only updates the tables; the node deletes are queued per
thread and sent once the lock is released (one ``NODE_DELETE`` per node, before the request is
answered), so a slow node never holds up other clients. Ids are never reused, so a late delete
cannot touch another object.

The master is one package, one module per role:

- :mod:`~reference_store.master.objects`: the readable objects and their eviction order, the
  puts under way and who owns them, the object ids;
- :mod:`~reference_store.master.membership`: which nodes belong, where, and whether they live;
- :mod:`~reference_store.master.placement`: room for objects, evictions, the accounting, and
  what frees or takes room (stalled and abandoned puts, objects nodes report);
- :mod:`~reference_store.master.deletes`: the node deletes, sent outside the lock;
- :mod:`~reference_store.master.fsck`: the table against the nodes' contents;
- :mod:`~reference_store.master.state`: the quota changes kept in ``state_dir``;
- :mod:`~reference_store.master.service`: the request dispatch, the wiring and the lifecycle.
"""

from __future__ import annotations

from reference_store.master.config import MasterConfig
from reference_store.master.objects import PIN_HARD, PIN_NONE, PIN_SOFT, ObjectTable
from reference_store.master.service import Master

__all__ = ["PIN_HARD", "PIN_NONE", "PIN_SOFT", "Master", "MasterConfig", "ObjectTable"]
