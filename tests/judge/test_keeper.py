"""The keeper's kill: nothing below it is left alive, whatever shape the tree has."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from judge.sandbox import keeper

pytestmark = pytest.mark.skipif(not keeper.SUPPORTED, reason="a child subreaper is Linux's")

# In a process of its own (the subreaper flag stays with it): a child, its child, and an orphan
# that left the session (its parent exited, so it is re-parented to the subreaper); then the kill.
TREE = textwrap.dedent(
    """
    import os, sys, time
    from judge.sandbox import keeper
    keeper.prepare()
    read_end, write_end = os.pipe()
    if os.fork() == 0:
        if os.fork() == 0:
            if os.fork() == 0:
                os.setsid()
                os.write(write_end, b"%d " % os.getpid())
                time.sleep(60)
            os._exit(0)
        os.write(write_end, b"%d " % os.getpid())
        if os.fork() == 0:
            os.write(write_end, b"%d " % os.getpid())
            time.sleep(60)
        time.sleep(60)
    os.close(write_end)
    pids = []
    while len(pids) < 3:
        pids += [int(p) for p in os.read(read_end, 100).split()]
    keeper._kill_descendants()
    print(" ".join(map(str, pids)), keeper._reap_has_children())
    """
)


def test_the_kill_leaves_no_descendant_and_no_child():
    done = subprocess.run([sys.executable, "-c", TREE], capture_output=True, text=True, timeout=30, check=True)
    *pids, has_children = done.stdout.split()
    assert len(pids) == 3 and has_children == "False"
    for pid in pids:  # killed: gone, or a zombie until whoever inherited it reaps it
        try:
            with open(f"/proc/{pid}/stat") as stat:
                assert stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"), f"{pid} is alive"
        except FileNotFoundError:
            pass
