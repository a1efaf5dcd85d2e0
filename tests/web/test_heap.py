"""The long-lived processes freeze their start-up objects; what comes later is still collected."""

from __future__ import annotations

import gc
import weakref

from web.core.heap import freeze_start_up


class _Node:
    pass


def test_start_up_objects_are_frozen_and_later_cycles_still_collected():
    try:
        frozen = freeze_start_up()
        assert frozen == gc.get_freeze_count() > 0
        node = _Node()
        node.self = node  # a cycle: only the collector frees it
        alive = weakref.ref(node)
        del node
        gc.collect()
        assert alive() is None
    finally:
        gc.unfreeze()  # this test process goes on with other tests
